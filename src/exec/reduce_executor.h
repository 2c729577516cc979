// Running a planned reduction on the host (NOTE: [Reduction order]).
#pragma once

#include <array>
#include <cstdint>

#include "bcast/dtype.h"
#include "broadcast_plan.h"
#include "kernel_abi.h"
#include "kernel_key.h"
#include "reduce_plan.h"
#include "reduction_table.h"

namespace bcast {

// NOTE: [Reduction order] The order in which one result element combines
// its inputs is fixed by the plan (NOTE: [Reduction plan]) alone, never by
// the threads or by how the work is split, so a float sum has the same bits
// on 1 thread or 16. The inputs are cut into items, and the items combine
// pairwise: P(items [a, b)) = P([a, a + h)) + P([a + h, b)), h the largest
// power of two below b - a (the left-aligned tree a binary counter builds).
//  - Rows (the innermost loop reduced, length m): an item is up to 512
//    consecutive elements of one run of that loop, in 32 lanes, element i
//    of the item in lane i mod 32, each lane combined in order from the
//    identity. Items run row by row over the outer reduced loops; after the
//    tree, the 32 lanes halve: lane l takes lane l + 16, then l + 8, ... 1.
//  - Columns (the innermost loop kept): an item is 16 consecutive values of
//    the reduced index (row-major over the reduced loops), combined in order
//    from the identity.
//  - Narrow columns (reduction_form: a kept row of w <= 16 values, an
//    innermost reduced loop of a multiple of 16): an item is R = 8 b
//    consecutive values of the innermost reduced index, b =
//    narrow_block_rows(w, its extent) (the most rows, a power of two from
//    2, that fit b w <= 32 lanes and divide the loop into whole items: 8 for
//    an image's 3 channels), in 8 blocks of b: a lane per row of a block and
//    value, combined block by block from the identity (lane j takes rows j,
//    b + j, 2b + j, ...), then the lanes halve as the rows do: lane j takes
//    lane j + b/2, then j + b/4, ... 1. So a kernel adds whole blocks of an
//    image's pixels as vectors.
// The error of a float sum is then within (16 + 5 + log2(n / 512)), (16 +
// log2(n / 16)) or (8 + log2(b) + log2(n / R)) roundings of the sum of |x|
// (NumPy's pairwise sum: 16 + 3 + log2(n / 128)). Threads share out result elements; where there are too
// few, they share out chunks of a power of two items, whose trees are the
// whole tree's subtrees, and one thread combines the chunks' results by the
// same rule.

// NOTE: [Fused reductions] A reduction whose input is an expression reads
// no tensor of its values: its items (NOTE: [Reduction order]) come from the
// expression's reduction kernel (NOTE: [Reduction kernels]), which computes
// them in registers from the expression's inputs, the plan's riding
// operands (ReducePlan::with). Rows: batches of up to kBatchItems items
// into a buffer of lanes, whole runs of the reduced loop or a run's part;
// columns: one item per call, out the item's row of results; narrow
// columns: batches of whole items into a buffer of their results. The trees
// above the items are the executor's, so the bits are those of the same
// plan run on the values written out (the fallback: the expression
// evaluated into x, laid out as the plan says, then reduced).
struct ReduceSource {
  KernelFn fn = nullptr;                        // the plan's form of reduction kernel
  const void* context = nullptr;                // its scalar slots
  std::array<const char*, kMaxInputs> data{};   // each input's element at index 0
  std::array<std::size_t, kMaxInputs> sizes{};  // their element sizes
};

// The levels a source's kernel runs a plan on (reduction_kernel_plan's
// loops, its strides and spans flattened [operands][rank], out first, as
// KernelArgs takes them): a call works them out, unless its caller keeps
// them for a plan that runs many calls (NOTE: [Row blocks]: a block's
// reduction ran 10 allocations a call working them out).
struct ReduceLevels {
  std::vector<ReduceLoop> loops;
  std::vector<std::int64_t> strides, spans;
  int rank() const { return static_cast<int>(loops.size()); }
};
ReduceLevels reduce_levels(const ReducePlan& plan);

struct ReduceCall {
  detail::Combine combine = detail::Combine::add;
  DType input = DType::f32;
  DType accumulator = DType::f32;
  DType result = DType::f32;
  bool divide = false;  // mean: the combined value over plan.count, in the accumulator's dtype
  const ReducePlan* plan = nullptr;
  const void* x = nullptr;  // the element at x's index 0
  void* out = nullptr;      // the result's element at index 0
  const ReduceSource* source = nullptr;  // NOTE: [Fused reductions]: x unread when set
  const ReduceLevels* levels = nullptr;  // reduce_levels(*plan), where the caller keeps them
};

// NOTE: [Reduction kernels]: the form of kernel `plan` runs on: rows where
// the innermost loop is reduced; narrow columns where the kept inner loop
// has at most kNarrowWidth results and the innermost reduced loop is whole
// items; else columns. The loops alone decide (the order is the form's),
// whatever the inputs' strides along them.
ReduceForm reduction_form(const ReducePlan& plan);

// The levels that form runs `plan` on, outer to inner, out first (the
// accumulator: the kernel's key reads the type and inner strides). Rows:
// the kept loops, then the reduced ones, out a buffer holding each run's
// items back to back; columns: the reduced loops, then the kept inner one,
// out one row of results; narrow: the reduced loops with the innermost
// split into items and their 8 b indices, then the kept inner one,
// out a buffer of each item's results back to back.
BroadcastPlan reduction_kernel_plan(const ReducePlan& plan);

// Whether `combine` has a loop for the accumulator's dtype.
bool has_reduce_loop(detail::Combine combine, DType accumulator);

// Runs the call on up to `threads` threads; an empty reduction (plan.count
// 0) writes the identity. Returns the threads that ran parts of it.
int execute_reduce(const ReduceCall& call, int threads);

}  // namespace bcast
