// NumPy's reductions that are other reductions and elementwise steps
// (NOTE: [Composed reductions]).
#include "composed_reductions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "bcast/errors.h"
#include "error_messages.h"
#include "function_table.h"
#include "reduce_plan.h"
#include "reduction_table.h"

namespace bcast {
namespace {

using namespace expr;

// The dtype that computes var and std of x (f16 and bf16 in f32; bool and
// integers in f64; complex x stays complex of that precision).
DType spread_work_dtype(DType x, std::optional<DType> asked) {
  const DType real = asked ? real_part_dtype(*asked) : detail::reduce_dtypes(ReduceOp::var, x, std::nullopt).result;
  const DType wide = real == DType::f16 || real == DType::bf16 ? DType::f32 : real;
  if (!is_complex(x)) return wide;
  return wide == DType::f64 ? DType::c128 : DType::c64;
}

Expr spread(ReduceOp op, const Expr& x, DType x_dtype, std::int64_t n, const ReduceParams& p, DType result) {
  const DType work = spread_work_dtype(x_dtype, p.dtype);
  const Expr in = work == x_dtype ? x : cast(x, work);
  const Expr d = in - mean(in, p.axes, true);
  const Expr squares = is_complex(work) ? real(d * conj(d)) : d * d;
  const Expr v = sum(squares, p.axes, p.keepdims) / std::max(static_cast<double>(n) - p.ddof, 0.0);
  const Expr r = op == ReduceOp::std ? sqrt(v) : v;
  return real_part_dtype(work) == result ? r : cast(r, result);
}

// x's C-order index along the reduced axes: i0 * n1 * n2 + i1 * n2 + i2 over
// the reduced dims, from an arange per dim shaped to broadcast.
Expr index_of(const Shape& shape, const std::vector<bool>& along, std::vector<Tensor>& owned) {
  std::optional<Expr> index;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!along[d]) continue;
    Shape s(shape.size(), 1);
    s[d] = shape[d];
    owned.emplace_back(DType::i64, s);
    for (std::int64_t i = 0; i < shape[d]; ++i) owned.back().data_as<std::int64_t>()[i] = i;
    const Expr i_d(owned.back());
    index = index ? *index * Expr(shape[d]) + i_d : i_d;
  }
  return index ? *index : Expr(std::int64_t{0});
}

Expr arg_extremum(ReduceOp op, const Expr& x, DType x_dtype, const Shape& shape, const std::vector<bool>& along,
                  const ReduceParams& p, std::vector<Tensor>& owned) {
  const Expr m = op == ReduceOp::argmax ? amax(x, p.axes, true) : amin(x, p.axes, true);
  Expr hit = eq(x, m);
  if (detail::kInexact.contains(x_dtype)) hit = hit | (isnan(x) & isnan(m));
  return amin(where(hit, index_of(shape, along, owned), Expr(std::numeric_limits<std::int64_t>::max())), p.axes,
              p.keepdims);
}

Expr without_nan(ReduceOp op, const Expr& x, DType x_dtype, const ReduceParams& p, DType accumulator) {
  const bool inexact = detail::kInexact.contains(x_dtype);
  switch (op) {
    case ReduceOp::nansum:
      return sum(inexact ? where(isnan(x), 0, x) : x, p.axes, p.keepdims, p.dtype);
    case ReduceOp::nanmean: {
      if (!inexact) return mean(x, p.axes, p.keepdims, p.dtype);
      const Expr total = sum(where(isnan(x), 0, x), p.axes, p.keepdims, accumulator);
      const Expr count = sum(logical_not(isnan(x)), p.axes, p.keepdims);
      return total / cast(count, real_part_dtype(accumulator));
    }
    default: {  // nanmin, nanmax
      const bool largest = op == ReduceOp::nanmax;
      if (!inexact) return largest ? amax(x, p.axes, p.keepdims) : amin(x, p.axes, p.keepdims);
      const Expr filled = where(isnan(x), largest ? -INFINITY : INFINITY, x);
      const Expr extremum = largest ? amax(filled, p.axes, p.keepdims) : amin(filled, p.axes, p.keepdims);
      return where(all(isnan(x), p.axes, p.keepdims), NAN, extremum);
    }
  }
}

}  // namespace

Expr composed_reduction(ReduceOp op, const Expr& x, DType x_dtype, const Shape& x_shape, const ReduceParams& p,
                        std::vector<Tensor>& owned) {
  const detail::ReduceRow& row = detail::reduce_row(op);
  const std::vector<bool> along = reduced_dims(p.axes, static_cast<int>(x_shape.size()), row.name);
  const detail::ReduceDTypes types = detail::reduce_dtypes(op, x_dtype, p.dtype);
  if (row.one_axis && !p.axes.every() && p.axes.list().size() != 1)
    detail::fail(ErrorKind::value, "{}: takes no axis (the index in C order) or one axis, as NumPy's; not {} axes",
                 row.name, p.axes.list().size());
  std::int64_t n = 1;
  for (std::size_t d = 0; d < x_shape.size(); ++d) {
    if (!along[d]) continue;
    n *= x_shape[d];
    if (x_shape[d] == 0 && row.when_empty == detail::WhenEmpty::error)
      detail::fail(ErrorKind::value,
                   "{}: axis {} of its operand {}{} has extent 0, and {} has no identity to give an empty reduction",
                   row.name, d, dtype_name(x_dtype), to_string(x_shape), row.name);
  }
  switch (op) {
    case ReduceOp::var:
    case ReduceOp::std:
      return spread(op, x, x_dtype, n, p, types.result);
    case ReduceOp::argmin:
    case ReduceOp::argmax:
      return arg_extremum(op, x, x_dtype, x_shape, along, p, owned);
    default: {
      const Expr r = without_nan(op, x, x_dtype, p, types.accumulator);
      return op == ReduceOp::nanmean && types.accumulator != types.result ? cast(r, types.result) : r;
    }
  }
}

}  // namespace bcast
