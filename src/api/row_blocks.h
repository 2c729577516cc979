// Expressions whose reductions run along rows, run a block of rows at a
// time (NOTE: [Row blocks]).
#pragma once

#include <cstdint>
#include <optional>

#include "bcast/expr.h"

namespace bcast {

// NOTE: [Row blocks] An expression whose reductions all keep the output's
// first dim (softmax, layer norm, a row normalisation: every reduce node
// keepdims and along other dims) computes each block of rows from that
// block of its inputs alone. So where the call is large, its passes (NOTE:
// [Expression passes]) run block by block: a block's reductions, then its
// rest, on rows [i, i + h) of every operand that has the output's rows,
// while the block's bytes (BCAST_ROW_BLOCK_BYTES, 192 KiB: within any x86
// core's L2) are in cache; each thread runs whole blocks, the last block
// taking the rows left over. Softmax reads x
// from memory once where the passes read it three times. Each block height
// (the blocks', and the last block's when it is longer) is worked out once
// a call: its steps prepared on the first block's views (JIT kernels, plans
// and operands), which a block runs with each operand moved by its bytes
// per row. The reductions' results are whole tensors, a block writing its
// rows.
//
// A block may hold one array of values in a buffer of its thread's (in
// L2, reused block after block): a reduction's input whose root is a
// function of the C library's (softmax's exp(x - m), which the rest reads
// again: computed once), or one whose reduction kernel has no form for the
// layout; the reduction and the steps after read it from there. The rest
// writes out with streaming stores where the whole call would (NOTE:
// [Streaming stores]): out's lines are then never read, so softmax moves
// x once and out once.
//
// The bits are the passes': a block's reductions run the same plan order
// on each row (NOTE: [Reduction order]); held values are laid out as the
// passes would write them (their layout orders their reduction) and are
// the same whether computed in registers or held; the rest computes each
// element alone (tests/test_row_blocks.cpp).
//
// Calls that do not qualify run their passes whole: a reduction along the
// first dim, one without keepdims (its result's dims no longer line up with
// the output's), one whose values do not move with the rows, rows too long
// for two to fit a block, fewer than two blocks, no input of 2 MiB, a
// kernel not compiled yet (NOTE: [Tiers]), a second array to hold, the
// ascend-sim target, an integer power's exponent to check (it could fail
// after a block was written).

// Runs `e` into `out` in row blocks, true; false where the call does not
// qualify (nothing written; the caller runs its passes). The checks on out
// are evaluate's.
bool evaluate_in_row_blocks(const Expr& e, const TensorView& out);

// The same into a new out; nullopt where the call does not qualify.
std::optional<Tensor> evaluate_in_row_blocks(const Expr& e);

// Calls run in row blocks since the process began (tests read it).
std::uint64_t row_block_calls();

// The rows a block of `e` would have, for describe(): nullopt where its
// shapes do not qualify (kernels are not asked for).
std::optional<std::int64_t> row_block_rows(const Expr& e);

}  // namespace bcast
