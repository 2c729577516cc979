// The Ascend-style accelerator simulator: runs a kernel's blocks on CPU
// threads, each with its own unified buffer (UB), and implements the
// intrinsics the kernels call, checking every rule and counting traffic.
// LLVM-free: kernels reach the intrinsics as plain C symbols.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ascend_copy.h"
#include "ascend_isa.h"
#include "expr_evaluator.h"
#include "target.h"

namespace bcast::ascend {

// NOTE: [Ascend model] block_num AI cores each own a UB of ub_size bytes.
// Compute happens only on the UB: a block copies tiles of its inputs from
// global memory (GM) into the UB, runs vector instructions there, and copies
// results back. Rules the simulator enforces on every call:
//   - every UB address is a multiple of 32 bytes, and so is every copy length
//     into the UB (a tail is padded with zeros in the UB, never read past GM);
//   - every UB access lies inside the block's UB;
//   - every GM access lies inside the buffer of the operand it names;
//   - queues: a slot is enqueued once before it is dequeued, and every queue
//     is empty when the block ends (the discipline of double buffering).
// Vector instructions work in repeats of 256 bytes; the counters count them.
inline constexpr std::int64_t kAlign = kBlockBytes;

struct SimConfig {
  std::int64_t ub_size = 192 * 1024;
  int block_num = 8;
  bool double_buffer = true;
};

// Per block.
struct BlockCounters {
  std::int64_t gm_to_ub_bytes = 0;  // valid bytes read from GM
  std::int64_t ub_to_gm_bytes = 0;  // bytes written to GM
  std::int64_t copy_calls = 0;
  std::int64_t vector_repeats = 0;
  std::int64_t ub_high_water = 0;   // highest UB byte touched, plus one
  std::int64_t tiles = 0;
};

enum Operand : int { kGmOut = 0, kGmA = 1, kGmB = 2 };

// What a block computes: a binary op on a dtype, or an expression's program
// (its evaluator's node steps) with its scalars (8-byte slots).
struct BlockWork {
  int op_code = 0, dtype_code = 0;
  const ExprEvaluator* expression = nullptr;
  const void* scalars = nullptr;
};

// One block's execution state; kernels receive it as an opaque pointer.
class BlockContext {
 public:
  // gm and sizes: each operand's buffer and element size, out first.
  BlockContext(int block, const SimConfig& config, std::vector<GmRegion> gm, std::vector<int> sizes,
               const BlockWork& work);

  // The intrinsics (see ascend_intrinsics in ascend_sim.cpp for the C names).
  // count elements, stride_elems apart in GM, packed in the UB; copies into
  // the UB are padded with zeros to a multiple of 32 bytes.
  void copy_in(std::int64_t ub, const char* gm, std::int64_t count, std::int64_t stride_elems, int operand);
  void copy_out(char* gm, std::int64_t ub, std::int64_t count, std::int64_t stride_elems);
  void vector_binary(std::int64_t dst, std::int64_t a, std::int64_t b, std::int64_t count);
  void vector_node(int node, std::int64_t dst, const std::int64_t (&args)[3], std::int64_t count);
  void broadcast(std::int64_t dst, std::int64_t src, std::int64_t count, int operand);
  void enque(int queue, int slot);
  void deque(int queue, int slot);
  void tile_done() { ++counters_.tiles; }
  void finish();  // end of block: queues must be empty

  const BlockCounters& counters() const { return counters_; }
  const std::string& error() const { return error_; }  // the first broken rule, or empty

 private:
  bool fail(const std::string& call, const std::string& what);
  bool check_ub(const std::string& call, std::int64_t ub, std::int64_t bytes, bool aligned_length);
  bool check_gm(const std::string& call, const char* gm, std::int64_t bytes, int operand);
  char* ub(std::int64_t address) { return ub_.data() + address; }

  int block_;
  SimConfig config_;
  std::vector<GmRegion> gm_;
  std::vector<int> sizes_;
  BlockWork work_;
  std::vector<char> ub_;
  BlockCounters counters_;
  std::string error_;
  std::vector<std::array<std::uint8_t, 2>> queued_;  // [queue][slot]: enqueued and not yet dequeued
  std::vector<std::uint64_t> scalar_block_;          // a scalar argument repeated, for vector_node
};

// The C symbols kernels call (NOTE: [Ascend intrinsics]), with their
// addresses, for the JIT to resolve.
std::vector<JitSymbol> intrinsics();

}  // namespace bcast::ascend
