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
// Today a reduction's input expression is evaluated into a tensor and then
// reduced (two trips through memory for that pass); a reduce node whose
// input is a tensor reduces it in place.
struct ExprPasses {
  Expr rest;                           // the expression with every reduce node replaced
  std::vector<Tensor> results;         // r0, r1, ...: the reductions' results
  std::vector<Tensor> owned;           // read by composed reductions (NOTE: [Composed reductions])
  std::vector<std::string> described;  // one line per reduction pass
  bool root_is_reduction = false;      // `rest` is then the leaf of results.back()
};

bool has_reductions(const Expr& e);

// Runs the reduction passes (or, `run` false, works out their shapes and
// dtypes only, leaving the results unwritten: describe()'s).
ExprPasses reduction_passes(const Expr& e, bool run);

}  // namespace bcast
