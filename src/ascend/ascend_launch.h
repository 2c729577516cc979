// Running an op on the Ascend-style simulator: the tile plan (how big a tile
// is, what lives where in the UB, which block runs which tiles) and the launch.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ascend_abi.h"
#include "ascend_sim.h"
#include "bcast/ops.h"
#include "bcast/tensor.h"
#include "broadcast_plan.h"

namespace bcast::ascend {

// Test hooks: a deliberately broken kernel, for the simulator to catch.
enum class Fault { none, misaligned_ub, ub_overflow, gm_out_of_bounds };

struct TilePlan {
  std::int64_t tile = 0;        // elements of a full tile
  std::int64_t tiles = 0;       // in the whole call
  std::int64_t segments = 0;    // tiles per row of the innermost level
  std::int64_t slots = 0;       // 2 with double buffering
  bool resident[kMaxOperands] = {};  // inputs loaded once per block
  std::int64_t ub_bytes = 0;    // UB the layout uses
};

struct Launch {
  TilePlan plan;
  std::vector<BlockCounters> blocks;
  std::string error;  // the first rule a block broke; the output is then not to be trusted
};

// Chooses the tiling for a call on `operands` (out first), with a tile buffer
// per operand and one of each size in `node_sizes` (an expression's nodes
// but its last, which writes out's), or nullopt with `why` (a UB too small).
std::optional<TilePlan> plan_tiles(const BroadcastPlan& plan, std::span<const TensorView> operands,
                                   std::span<const std::int64_t> node_sizes, const SimConfig& config, std::string& why);

// Runs `kernel` on every block of the call: `work` says what the blocks
// compute (a binary op, or an expression's nodes), `operands` are out, then
// the inputs.
Launch launch(KernelFn kernel, const BlockWork& work, const BroadcastPlan& plan, std::span<const TensorView> operands,
              const SimConfig& config, Fault fault = Fault::none);
// A binary op's launch: operands out, a, b.
Launch launch(KernelFn kernel, Op op, const BroadcastPlan& plan, const TensorView& a, const TensorView& b,
              const TensorView& out, const SimConfig& config, Fault fault = Fault::none);

}  // namespace bcast::ascend
