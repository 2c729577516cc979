// Reductions (bcast/reduce.h): check the axes and dtypes, plan, run.
#include "bcast/reduce.h"

#include "ascend_dispatch.h"
#include "bcast/errors.h"
#include "bcast/expr.h"
#include "bcast/runtime.h"
#include "error_messages.h"
#include "reduce_executor.h"
#include "reduce_plan.h"
#include "reduction_table.h"
#include "targets.h"
#include "thread_pool.h"

namespace bcast {
namespace {

// min and max have no identity: NumPy's "zero-size array to reduction
// operation maximum which has no identity", naming the axis.
void check_not_empty(const detail::ReduceRow& row, const TensorView& x, const std::vector<bool>& along) {
  if (row.when_empty != detail::WhenEmpty::error) return;
  for (int d = 0; d < x.rank(); ++d)
    if (along[static_cast<std::size_t>(d)] && x.shape()[static_cast<std::size_t>(d)] == 0)
      detail::fail(ErrorKind::value,
                   "{}: axis {} of x {}[{}] has extent 0, and {} has no identity to give an empty reduction "
                   "(sum, prod, any, all and mean have one)",
                   row.name, d, dtype_name(x.dtype()), to_string(x.shape()).substr(1, to_string(x.shape()).size() - 2),
                   row.name);
}

// The result's strides in x's dims: C order over the kept dims, 0 where reduced.
Strides strides_in_x(const Layout& out, const std::vector<bool>& along, bool keepdims) {
  Strides in_x(along.size(), 0);
  std::size_t k = 0;
  for (std::size_t d = 0; d < along.size(); ++d) {
    if (!along[d])
      in_x[d] = out.strides[k++];
    else if (keepdims)
      ++k;
  }
  return in_x;
}

}  // namespace

Tensor reduce(ReduceOp op, const TensorView& x, const Axes& axes, bool keepdims, std::optional<DType> dtype,
              double ddof) {
  const detail::ReduceRow& row = detail::reduce_row(op);
  detail::check_ddof(op, ddof);
  if (row.combine == detail::Combine::composed)  // NOTE: [Composed reductions]: as passes of an expression
    return evaluate(expr::reduce(op, Expr(x), axes, keepdims, dtype, ddof));
  const std::vector<bool> along = reduced_dims(axes, x.rank(), row.name);
  const detail::ReduceDTypes types = detail::reduce_dtypes(op, x.dtype(), dtype);
  if (!has_reduce_loop(row.combine, types.accumulator))
    detail::fail(ErrorKind::value, "{}: not defined for dtype {} (complex numbers have no order here)", row.name,
                 dtype_name(x.dtype()));
  check_not_empty(row, x, along);
  Tensor out = Tensor::empty(types.result, Layout::contiguous(reduced_shape(x.shape(), along, keepdims)));
  const ReducePlan plan = plan_reduce(x.layout(), along, strides_in_x(out.layout(), along, keepdims));
  const ReduceCall call{.combine = row.combine,
                        .input = x.dtype(),
                        .accumulator = types.accumulator,
                        .result = types.result,
                        .divide = row.when_empty == detail::WhenEmpty::nan,
                        .plan = &plan,
                        .x = x.data(),
                        .out = out.data()};
  if (current_target().kind() == TargetKind::ascend_sim) reduction_runs_on_host(row.name);
  record_call_threads(execute_reduce(call, num_threads()));
  return out;
}

// Each reduction by name: the three signatures of bcast/reduce.h.
#define BCAST_REDUCE_WITH_DTYPE(name)                                                             \
  Tensor name(const TensorView& x, const Axes& axes, bool keepdims, std::optional<DType> dtype) { \
    return reduce(ReduceOp::name, x, axes, keepdims, dtype);                                      \
  }
#define BCAST_REDUCE_PLAIN(name)                                      \
  Tensor name(const TensorView& x, const Axes& axes, bool keepdims) { \
    return reduce(ReduceOp::name, x, axes, keepdims);                 \
  }
#define BCAST_REDUCE_SPREAD(name)                                                                              \
  Tensor name(const TensorView& x, const Axes& axes, bool keepdims, double ddof, std::optional<DType> dtype) { \
    return reduce(ReduceOp::name, x, axes, keepdims, dtype, ddof);                                             \
  }
BCAST_REDUCE_WITH_DTYPE(sum)
BCAST_REDUCE_WITH_DTYPE(prod)
BCAST_REDUCE_WITH_DTYPE(mean)
BCAST_REDUCE_WITH_DTYPE(nansum)
BCAST_REDUCE_WITH_DTYPE(nanmean)
BCAST_REDUCE_PLAIN(min)
BCAST_REDUCE_PLAIN(max)
BCAST_REDUCE_PLAIN(any)
BCAST_REDUCE_PLAIN(all)
BCAST_REDUCE_PLAIN(argmin)
BCAST_REDUCE_PLAIN(argmax)
BCAST_REDUCE_PLAIN(nanmin)
BCAST_REDUCE_PLAIN(nanmax)
BCAST_REDUCE_SPREAD(var)
BCAST_REDUCE_SPREAD(std)
#undef BCAST_REDUCE_WITH_DTYPE
#undef BCAST_REDUCE_PLAIN
#undef BCAST_REDUCE_SPREAD

}  // namespace bcast
