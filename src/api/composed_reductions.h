// NumPy's reductions that are other reductions and elementwise steps
// (NOTE: [Composed reductions]).
#pragma once

#include <vector>

#include "bcast/expr.h"
#include "expr_graph.h"

namespace bcast {

// NOTE: [Composed reductions] argmin, argmax, var, std and the nan-
// reductions are expressions over the executor's own (NOTE: [Reduction
// table]: Combine::composed), each as NumPy's numpy/lib and _methods.py
// compute them, but f16 and bf16 in f32 (NumPy's var of f16 stays in f16):
//  - var = sum(|x - mean(x, keepdims)|**2) / max(n - ddof, 0), in f64 for
//    bool and integers and f32 for f16 and bf16 (rounded once at the end);
//    std = sqrt(var);
//  - nansum = sum(where(isnan(x), 0, x)); nanmean = that over the count of
//    x that is not NaN; nanmax = where(all(isnan(x)), nan,
//    amax(where(isnan(x), -inf, x))), nanmin likewise;
//  - argmax = amin(where(x == m | isnan(x) & isnan(m), index, INT64_MAX))
//    with m = amax(x, keepdims): the first largest, or the first NaN; the
//    index is x's C-order index along the reduced axis (or over all axes),
//    from one small i64 tensor per reduced axis that broadcasts.
// `x` is the reduction's input, of `x_dtype` and `x_shape`; `owned` keeps
// the index tensors alive until the passes have run.
Expr composed_reduction(ReduceOp op, const Expr& x, DType x_dtype, const Shape& x_shape, const ReduceParams& p,
                        std::vector<Tensor>& owned);

}  // namespace bcast
