// Expressions with reductions, as passes (NOTE: [Expression passes]).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bcast/expr.h"
#include "expr_call.h"
#include "expr_program.h"
#include "reduce_executor.h"

namespace bcast {

// NOTE: [Expression passes] An expression that holds reductions runs as
// passes over memory: each reduce node, innermost first and each distinct
// node once, is a pass that reduces its input (itself an expression, whose
// reductions have run) into a tensor of NumPy's shape for the reduction
// (keepdims or not); the elementwise rest then reads those tensors as
// inputs that broadcast, named r0, r1, ... Softmax's numerator
// exp(x - amax(x, -1, true)) is two passes: the row maxima, then the rest.
// A pass reads its input expression's inputs once and writes no tensor of
// its values, but where its reduction kernel is pending or has no form for
// the layout (NOTE: [Fused reductions]).
struct ExprPasses {
  Expr rest;                           // the expression with every reduce node replaced
  std::vector<Tensor> results;         // r0, r1, ...: the reductions' results
  std::vector<Tensor> owned;           // read by composed reductions (NOTE: [Composed reductions])
  std::vector<std::string> described;  // one line per reduction pass, where asked for
  bool root_is_reduction = false;      // `rest` is then the leaf of results.back()
};

bool has_reductions(const Expr& e);

// What tells two expressions of the same values apart: the text as written,
// and each input's data, dtype, shape and strides (a text names its
// operands once per mention, so equal values may be distinct trees).
std::string values_key(const ExprCall& call);

// NOTE: [Fused reductions]: `op` (not a composed one) of the values of
// `input`, a plain view or an expression without reductions, through its
// reduction kernel, or on the values written out where there is none yet
// (src/api/reduce.cpp).
Tensor reduce_expression(ReduceOp op, const Expr& input, const Axes& axes, bool keepdims, std::optional<DType> dtype);
// ... with `values`, input's ExprCall, built already.
Tensor reduce_expression(ReduceOp op, const Expr& input, ExprCall values, const Axes& axes, bool keepdims,
                         std::optional<DType> dtype);

// NOTE: [Row blocks]: reduce_expression's reduction worked out into `out`
// (a view of the reduction's shape and dtype) and not run: its JIT kernel
// (source.fn; null for a plain input without one, which the executor reads
// in place as reduce.x), plan and operands. nullopt where reduce_expression
// would take another path: an expression's kernel not compiled (or none),
// the ascend-sim target, an exponent to check for negative values.
struct PreparedReduction {
  std::vector<TensorView> inputs;          // the expression's inputs, as source.data
  std::unique_ptr<const ReducePlan> plan;  // reduce.plan
  std::unique_ptr<const ReduceLevels> levels;  // reduce.levels, for a kernel's source
  ReduceCall reduce;                       // out set; source unset (a run sets it)
  ReduceSource source;                     // its context: *slots
  std::shared_ptr<const std::vector<ScalarSlot>> slots;
  std::shared_ptr<const void> keep_alive;  // the kernel's code
  std::atomic<std::uint64_t>* memo_hits = nullptr;  // the kernel's count of memoised calls (NOTE: [Call memo])
};
std::optional<PreparedReduction> prepare_reduction(ReduceOp op, const Expr& input, const ReduceParams& p,
                                                   const TensorView& out);
// Runs `p` into `out` on up to `threads` threads, its inputs' data
// `inputs` where given (each at its element 0, in p.inputs' order), else the
// prepared ones; without a kernel, its plain input is read in place. Returns
// the threads that ran parts of it.
int run_prepared_reduction(const PreparedReduction& p, void* out, int threads,
                           std::span<const void* const> inputs = {});
std::optional<PreparedReduction> prepare_reduction(ReduceOp op, const Expr& input, ExprCall values,
                                                   const ReduceParams& p, const TensorView& out);

// Plain reductions run on a remembered preparation since the process began
// (NOTE: [Reduce call memo] in src/api/reduce.cpp; tests read it).
std::uint64_t remembered_reduce_calls();

// Runs the reduction passes (or, `run` false, works out their shapes and
// dtypes only, leaving the results unwritten); `describe`: each pass's line
// in `described` too (describe()'s; a call does without their text).
ExprPasses reduction_passes(const Expr& e, bool run, bool describe = false);

// The passes with each reduction's result given by `each` (NOTE: [Row
// blocks]): a view of `shape` and `dtype` that holds op(input) once the
// caller has run it; `results` stays empty. `values` is input's ExprCall,
// built already (each may take it: a call built twice was a fifth of a small
// reduction's call).
using PassFn = std::function<TensorView(ReduceOp op, const Expr& input, ExprCall&& values, const ReduceParams& p,
                                        DType dtype, const Shape& shape)>;
ExprPasses reduction_passes(const Expr& e, const PassFn& each, bool describe = false);

}  // namespace bcast
