// Planning a reduction: which dims it runs along, the result's shape, and the
// loops that walk the input (NOTE: [Reduction plan]).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bcast/layout.h"
#include "bcast/reduce.h"
#include "broadcast_plan.h"

namespace bcast {

// Which of x's dims a reduction runs along. An Error(value) names the axis
// for one out of range and for one given twice.
//   rank 3, Axes{0, -1} -> {true, false, true};  Axes() -> all true
std::vector<bool> reduced_dims(const Axes& axes, int rank, std::string_view op);

// x's shape with the reduced dims dropped, or kept as extent 1.
//   [2, 3, 4], {true, false, true} -> [3]; keepdims -> [1, 3, 1]
Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keepdims);

// One loop over x: its extent, x's stride and the result's (0 along a
// reduced loop), in elements; and the strides of the operands that ride
// along (NOTE: [Fused reductions]: the inputs of the expression x is).
struct ReduceLoop {
  std::int64_t extent = 1;
  std::int64_t stride = 0;
  std::int64_t out_stride = 0;
  std::array<std::int64_t, kMaxInputs> with{};
};

// NOTE: [Reduction plan] x's dims of extent other than 1 split into the kept
// loops (the result's elements) and the reduced loops (what each element
// combines), each list outer to inner by x's |stride|, then merged where x's
// memory (and, for kept loops, the result's) walks two loops as one:
// [4096, 4096] C-order summed along axis 1 -> kept [4096], reduced [4096];
// along both -> no kept loop, reduced [16777216]. Merging never changes the
// order in which one result element meets its inputs (the reduced index runs
// row-major over the reduced loops either way), so NOTE: [Reduction order]
// reads this plan. `rows` says whether x's innermost loop is reduced (a row
// sum: each element combines whole runs of it) or kept (a column sum: a run
// of results advances together).
struct ReducePlan {
  std::vector<ReduceLoop> kept;
  std::vector<ReduceLoop> reduced;
  bool rows = true;
  std::int64_t outputs = 1;  // result elements
  std::int64_t count = 1;    // input elements each one combines
  int with = 0;              // operands riding along
};

// `out_strides` are the result's strides in x's dims (0 where reduced);
// `with`, each riding operand's strides in x's dims (0 where it repeats).
// Two loops merge only where every riding operand's do too.
ReducePlan plan_reduce(const Layout& x, const std::vector<bool>& reduced, const Strides& out_strides,
                       std::span<const Strides> with = {});

// x's offset (`out`: the result's), in elements, of index i of `loops`,
// row-major over them (the last the innermost).
std::int64_t loop_offset(std::span<const ReduceLoop> loops, std::int64_t i, bool out);

}  // namespace bcast
