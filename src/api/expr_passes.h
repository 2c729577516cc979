// Expressions with reductions, as passes (NOTE: [Expression passes]).
#pragma once

#include <string>
#include <vector>

#include "bcast/expr.h"

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
  std::vector<std::string> described;  // one line per reduction pass
  bool root_is_reduction = false;      // `rest` is then the leaf of results.back()
};

bool has_reductions(const Expr& e);

// NOTE: [Fused reductions]: `op` (not a composed one) of the values of
// `input`, a plain view or an expression without reductions, through its
// reduction kernel, or on the values written out where there is none yet
// (src/api/reduce.cpp).
Tensor reduce_expression(ReduceOp op, const Expr& input, const Axes& axes, bool keepdims, std::optional<DType> dtype);

// Runs the reduction passes (or, `run` false, works out their shapes and
// dtypes only, leaving the results unwritten: describe()'s).
ExprPasses reduction_passes(const Expr& e, bool run);

}  // namespace bcast
