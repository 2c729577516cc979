// Running a kernel on the Ascend-style simulator: the tile plan (how many rows
// and columns a tile takes, what lives where in the UB), the tiling data,
// the checks a product's copies impose, and the launch over the blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ascend_abi.h"
#include "ascend_lowering.h"
#include "ascend_sim.h"
#include "bcast/tensor.h"
#include "broadcast_plan.h"

namespace bcast::ascend {

// Test hooks: a deliberately broken launch, for the simulator to catch.
enum class Fault { none, misaligned_ub, ub_overflow, gm_out_of_bounds, shared_slot, overlapping_blocks };

struct TilePlan {
  std::int64_t rows = 0, cols = 0, pitch = 0;  // a full tile (NOTE: [Ascend lowering])
  std::int64_t tiles = 0;                      // in the whole call
  std::int64_t slots = 0;                      // 2 with double buffering
  std::int64_t ub_bytes = 0;                   // UB the layout uses
};

struct Launch {
  TilePlan plan;
  std::vector<BlockCounters> blocks;
  std::int64_t shared_granules = 0;  // 32-byte GM granules that two blocks write parts of
  std::vector<std::vector<std::string>> calls;  // with SimConfig::record_calls: each block's calls, described
  std::string error;                 // why it did not run, or the first rule a block broke (the output is then not to be trusted)
};

// Runs `kernel`, lowered as `lowering`, on every block of the call:
// `operands` are out then the inputs; `scalars` the expression's 8-byte
// scalar slots. A call the tiling or the product cannot take (more levels
// than the tiling holds, a UB too small, copies a 310P cannot make) comes
// back with `error` set and nothing run.
Launch launch(KernelFn kernel, const Lowering& lowering, const BroadcastPlan& plan,
              std::span<const TensorView> operands, std::span<const std::uint64_t> scalars, const SimConfig& config,
              Fault fault = Fault::none);

// The blocks of a call on the pool's threads (the AI cores), each with a
// context of its own over `gm` (each operand's buffer, out first), `names`
// and `queues`; body(ctx, b) runs block b. Fills result's blocks, calls and
// error: a block's first broken rule, else two blocks writing the same GM
// bytes (result.shared_granules counts the 32-byte granules they share).
void run_blocks(const SimConfig& config, std::vector<GmRegion> gm, std::vector<std::string> names,
                std::vector<QueueSpec> queues, Launch& result,
                const std::function<void(BlockContext&, std::int64_t)>& body);

}  // namespace bcast::ascend
