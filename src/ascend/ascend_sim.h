// The Ascend-style accelerator simulator: runs a kernel's blocks on CPU
// threads, each with its own unified buffer (UB), and implements the
// intrinsics the kernels call: each instruction with the product's semantics
// and checks (ascend_copy.h, ascend_vector.h), issued to its pipe with its
// cost (ascend_pipes.h). LLVM-free: kernels reach the intrinsics as plain C
// symbols.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ascend_abi.h"
#include "ascend_copy.h"
#include "ascend_isa.h"
#include "ascend_pipes.h"
#include "ascend_product.h"
#include "target.h"

namespace bcast::ascend {

// NOTE: [Ascend model] block_num AI cores each own a UB of ub_size bytes.
// Compute happens only on the UB: a block copies tiles of its inputs from
// global memory (GM) into the UB, runs vector instructions there, and copies
// results back, each instruction on its pipe (NOTE: [Ascend pipes]). Rules
// the simulator enforces on every call: those of each instruction (UB
// addresses 32-byte aligned, every access inside the UB and inside the GM
// buffer of the operand it names, the product's instruction table); the
// queue discipline and the absence of races between pipes (NOTE: [Pipe
// schedule]); and that no two blocks write the same GM bytes.
inline constexpr std::int64_t kAlign = kBlockBytes;

struct SimConfig {
  const Product* product = nullptr;
  std::int64_t ub_size = 192 * 1024;
  int block_num = 8;
  bool double_buffer = true;
  bool record_calls = false;  // keep each block's calls, described (tests compare kernels by them)
};

// Per block.
struct BlockCounters {
  std::int64_t gm_to_ub_bytes = 0;  // valid bytes read from GM
  std::int64_t ub_to_gm_bytes = 0;  // bytes written to GM
  std::int64_t copy_calls = 0;
  std::int64_t vector_calls = 0;
  std::int64_t vector_repeats = 0;
  std::int64_t ub_high_water = 0;   // highest UB byte touched, plus one
  std::int64_t tiles = 0;
  PipeSummary pipes;                // the schedule's estimate and hazards
};

// One block's execution state; kernels receive it as an opaque pointer.
class BlockContext {
 public:
  // gm and names: each operand's buffer and name, out first; queues: the
  // kernel's TQues, numbered as NOTE: [Ascend tiling] says.
  // calls: where to describe each call made, or null.
  BlockContext(int block, const SimConfig& config, std::vector<GmRegion> gm, std::vector<std::string> names,
               std::vector<QueueSpec> queues, std::vector<std::string>* calls = nullptr);

  // The intrinsics (NOTE: [Ascend intrinsics]).
  void copy(const CopyCall& call);
  void vector(const VectorCall& call);
  void queue(QueueOp op, int queue, int slot);
  void flag(bool set, Pipe from, Pipe to, int event);
  std::uint64_t get_value(std::int64_t ub, int bytes);
  void tile_done() { ++counters_.tiles; }
  void finish();  // end of block: the schedule's summary; a hazard is the block's error

  const BlockCounters& counters() const { return counters_; }
  const std::string& error() const { return error_; }  // the first broken rule, or empty
  // The GM byte ranges this block wrote.
  const std::vector<std::pair<const char*, const char*>>& gm_writes() const { return gm_writes_; }

 private:
  bool fail(const std::string& what);
  void touch(const UbRange& r) { counters_.ub_high_water = std::max(counters_.ub_high_water, r.end); }

  int block_;
  SimConfig config_;
  std::vector<GmRegion> gm_;
  std::vector<std::string> names_;
  std::vector<char> ub_;
  PipeSchedule pipes_;
  BlockCounters counters_;
  std::string error_;
  std::vector<std::pair<const char*, const char*>> gm_writes_;
  std::vector<std::string>* calls_;
};

// The C symbols kernels call (NOTE: [Ascend intrinsics]), with their
// addresses, for the JIT to resolve.
std::vector<JitSymbol> intrinsics();

}  // namespace bcast::ascend
