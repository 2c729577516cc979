// The broadcast planner: two input layouts and an output layout in, a merged
// loop nest (the broadcast type plus run-time extents and strides) out.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bcast/layout.h"

namespace bcast {

// What each output dim does with the inputs.
enum class DimCode : std::uint8_t {
  same,      // both inputs have the full extent
  expand_a,  // a has extent 1 there and is repeated (stride 0)
  expand_b,  // b has extent 1 there and is repeated (stride 0)
};
using BroadcastType = std::vector<DimCode>;

std::string to_string(DimCode code);
std::string to_string(const BroadcastType& type);  // "[expand_b,same]"; "[]" for a scalar

// Operand slots in a plan.
enum Operand : int { kOut = 0, kA = 1, kB = 2 };
inline constexpr int kNumOperands = 3;

// A loop nest over the output, outermost level first. Level l runs extents[l]
// times; operand k moves strides[k][l] elements per step. base[k] is the element
// offset, from the view's data pointer, of the first element the nest visits.
// NOTE: [Additive offsets] Executors keep one running offset per operand and
// level: add the stride on each step, restore the level's starting offset when
// it ends. No index is ever multiplied by a stride inside the nest.
struct BroadcastPlan {
  BroadcastType type;
  std::vector<std::int64_t> extents;
  std::array<std::vector<std::int64_t>, kNumOperands> strides;
  std::array<std::vector<std::int64_t>, kNumOperands> spans;  // (extent - 1) * stride, per level
  std::array<std::int64_t, kNumOperands> base{};
  std::int64_t numel = 0;  // elements of the output; 0 means nothing to do

  int rank() const { return static_cast<int>(extents.size()); }
  // Iterations of all levels but the innermost: the range executors split.
  std::int64_t outer_count() const;
};

// Plans out = op(a, b).
// Preconditions (checked by the caller): out.shape is the broadcast shape of
// a.shape and b.shape, and out does not overlap itself.
// @post for every output index i: the nest visits i exactly once, with offsets
//       equal to sum(i[d] * stride[d]) of each operand's original layout
//       (0 on broadcast dims).
// Steps: align ranks, drop extent-1 dims, flip dims that out walks backwards,
// sort dims by out's stride, merge (NOTE: [Merging dims]).
//   out [4,3] contiguous, a [4,3], b [3]    -> type [expand_b, same], extents [4,3]
//   out [2,3,4] contiguous, a and b alike   -> type [same], extents [24]
BroadcastPlan plan_broadcast(const Layout& out, const Layout& a, const Layout& b);

}  // namespace bcast
