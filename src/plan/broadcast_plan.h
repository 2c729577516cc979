// The broadcast planner: an output layout and up to kMaxInputs input layouts
// in, a merged loop nest (the broadcast type plus run-time extents and
// strides) out. A binary op is the two-input case of the same planner.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bcast/layout.h"

namespace bcast {

// Inputs a plan can take: an expression's leaves (NOTE: [Expression kernels]).
inline constexpr int kMaxInputs = 16;

// NOTE: [Dim classes] What each output dim does with the inputs: the set of
// inputs that repeat along it (extent 1 there, or missing; stride 0), bit i
// for input i. The two-input codes are its named values; with more inputs a
// class prints as "expand_" and a letter per repeating input ("expand_ac":
// inputs 0 and 2 repeat).
enum class DimCode : std::uint16_t {
  same = 0,      // every input has the full extent
  expand_a = 1,  // input 0 (a) repeats
  expand_b = 2,  // input 1 (b) repeats
};
using BroadcastType = std::vector<DimCode>;

constexpr bool repeats(DimCode code, int input) { return (static_cast<unsigned>(code) >> input) & 1u; }

std::string to_string(DimCode code);
std::string to_string(const BroadcastType& type);  // "[expand_b,same]"; "[]" for a scalar

// Operand slots in a plan: out first, then the inputs. A binary op's are
// out, a and b.
enum Operand : int { kOut = 0, kA = 1, kB = 2 };
inline constexpr int kNumOperands = 3;                 // a binary op's: out, a, b
inline constexpr int kMaxOperands = 1 + kMaxInputs;

// A loop nest over the output, outermost level first. Level l runs extents[l]
// times; operand k moves strides[k][l] elements per step. base[k] is the element
// offset, from the view's data pointer, of the first element the nest visits.
// NOTE: [Additive offsets] Executors keep one running offset per operand and
// level: add the stride on each step, restore the level's starting offset when
// it ends. No index is ever multiplied by a stride inside the nest.
// A default plan has a binary op's three operands.
struct BroadcastPlan {
  using Rows = std::vector<std::vector<std::int64_t>>;  // one row of levels per operand
  BroadcastType type;
  std::vector<std::int64_t> extents;
  Rows strides = Rows(kNumOperands);
  Rows spans = Rows(kNumOperands);  // (extent - 1) * stride, per level
  std::vector<std::int64_t> base = std::vector<std::int64_t>(kNumOperands);
  std::int64_t numel = 0;  // elements of the output; 0 means nothing to do

  int rank() const { return static_cast<int>(extents.size()); }
  int operands() const { return static_cast<int>(base.size()); }  // out and the inputs
  // Iterations of all levels but the innermost: the range executors split.
  std::int64_t outer_count() const;
};

// Plans out = f(inputs...), for 1 to kMaxInputs inputs.
// Preconditions (checked by the caller): out.shape is the broadcast shape of
// the inputs' shapes, and out does not overlap itself.
// @post for every output index i: the nest visits i exactly once, with offsets
//       equal to sum(i[d] * stride[d]) of each operand's original layout
//       (0 on broadcast dims).
// Steps: align ranks, drop extent-1 dims, walk each dim the way fewer inputs
// walk backwards (NOTE: [Walking order]), sort dims by out's stride, merge
// (NOTE: [Merging dims]).
//   out [4,3] contiguous, a [4,3], b [3]    -> type [expand_b, same], extents [4,3]
//   out [2,3,4] contiguous, a and b alike   -> type [same], extents [24]
BroadcastPlan plan_broadcast(const Layout& out, std::span<const Layout* const> inputs);
// `plan` with every level that out walks backwards walked forwards instead,
// for every operand, as targets that store out's rows only forwards need it.
BroadcastPlan with_out_forwards(BroadcastPlan plan);
// The two-input case, out = op(a, b).
BroadcastPlan plan_broadcast(const Layout& out, const Layout& a, const Layout& b);

}  // namespace bcast
