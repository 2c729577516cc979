// Reductions (bcast/reduce.h): check the axes and dtypes, plan, run.
#include "bcast/reduce.h"

#include "ascend_dispatch.h"
#include "bcast/errors.h"
#include "bcast/expr.h"
#include "bcast/runtime.h"
#include "bcast/views.h"
#include "dispatch.h"
#include "error_messages.h"
#include "expr_call.h"
#include "expr_passes.h"
#include "reduce_executor.h"
#include "reduce_plan.h"
#include "reduction_table.h"
#include "targets.h"
#include "thread_pool.h"

namespace bcast {
namespace {

// min and max have no identity: NumPy's "zero-size array to reduction
// operation maximum which has no identity", naming the axis.
void check_not_empty(const detail::ReduceRow& row, DType dtype, const Shape& shape, const std::vector<bool>& along) {
  if (row.when_empty != detail::WhenEmpty::error) return;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (along[d] && shape[d] == 0)
      detail::fail(ErrorKind::value,
                   "{}: axis {} of x {}[{}] has extent 0, and {} has no identity to give an empty reduction "
                   "(sum, prod, any, all and mean have one)",
                   row.name, d, dtype_name(dtype), to_string(shape).substr(1, to_string(shape).size() - 2), row.name);
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

// NOTE: [Fused reductions]: the kernel of the call's form, or none (fn
// null): not JIT-compiled yet, or a plan, dtype or layout it does not take.
SelectedKernel reduction_kernel(const ExprCall& call, const ReducePlan& plan, const ReduceCall& reduce) {
  const bool has_levels = plan.rows ? !plan.reduced.empty() : !plan.kept.empty();
  if (plan.outputs == 0 || plan.count == 0 || !has_levels || is_complex(call.program().out_dtype) ||
      current_target().kind() != TargetKind::host)
    return {};
  const ReduceForm shape = reduction_form(plan);
  const ReductionKernel form{.form = shape,
                             .combine = reduce.combine,
                             .accumulator = reduce.accumulator,
                             .width = shape == ReduceForm::narrow ? static_cast<int>(plan.kept.back().extent) : 0};
  return select_reduction_kernel(call.structure(), call.input_types(), call.scalar_types(),
                                 fallback_ns_of(call.program()), reduction_kernel_plan(plan), form);
}

}  // namespace

Tensor reduce_expression(ReduceOp op, const Expr& input, const Axes& axes, bool keepdims, std::optional<DType> dtype) {
  const detail::ReduceRow& row = detail::reduce_row(op);
  const ExprCall call(input);
  const DType values_dtype = call.program().out_dtype;
  const Shape& shape = call.out_shape();
  const std::vector<bool> along = reduced_dims(axes, static_cast<int>(shape.size()), row.name);
  const detail::ReduceDTypes types = detail::reduce_dtypes(op, values_dtype, dtype);
  if (!has_reduce_loop(row.combine, types.accumulator))
    detail::fail(ErrorKind::value, "{}: not defined for dtype {}", row.name, dtype_name(values_dtype));
  check_not_empty(row, values_dtype, shape, along);
  Tensor out = Tensor::empty(types.result, Layout::contiguous(reduced_shape(shape, along, keepdims)));
  // The values' layout: a plain input's own; an expression's, where evaluate would write them.
  const bool plain = input.node()->kind == NodeKind::input;
  const Layout values = plain ? input.node()->view.layout() : call.new_out_layout();
  std::vector<Strides> with;
  for (const TensorView& v : call.inputs()) with.push_back(broadcast_to(v, shape).strides());  // 0 where it repeats
  const ReducePlan plan = plan_reduce(values, along, strides_in_x(out.layout(), along, keepdims), with);
  call.check_exponent_inputs(call.inputs(), static_cast<std::int64_t>(plan.outputs * plan.count));
  ReduceCall reduce{.combine = row.combine,
                    .input = values_dtype,
                    .accumulator = types.accumulator,
                    .result = types.result,
                    .divide = row.when_empty == detail::WhenEmpty::nan,
                    .plan = &plan,
                    .x = nullptr,
                    .out = out.data()};
  if (current_target().kind() == TargetKind::ascend_sim) {
    reduce.x = plain ? input.node()->view.data() : nullptr;
    if (run_reduction_on_ascend_target(current_target(), row.name, reduce, plain ? &input.node()->view : nullptr,
                                       out.view()))
      return out;
  }
  const SelectedKernel kernel = reduction_kernel(call, plan, reduce);
  ReduceSource source{.fn = kernel.fn, .context = call.scalar_slots().data()};
  Tensor written;  // the fallback's values
  if (kernel.fn != nullptr) {
    for (std::size_t k = 0; k < call.inputs().size(); ++k) {
      source.data[k] = static_cast<const char*>(call.inputs()[k].data());
      source.sizes[k] = call.inputs()[k].element_size();
    }
    reduce.source = &source;
  } else if (plain) {
    reduce.x = input.node()->view.data();
  } else {
    written = Tensor::empty(values_dtype, values);
    evaluate(input, written.view());
    reduce.x = written.data();
  }
  record_call_threads(execute_reduce(reduce, num_threads()));
  return out;
}

Tensor reduce(ReduceOp op, const TensorView& x, const Axes& axes, bool keepdims, std::optional<DType> dtype,
              double ddof) {
  detail::check_ddof(op, ddof);
  if (detail::reduce_row(op).combine == detail::Combine::composed)  // NOTE: [Composed reductions]: as passes
    return evaluate(expr::reduce(op, Expr(x), axes, keepdims, dtype, ddof));
  return reduce_expression(op, Expr(x), axes, keepdims, dtype);
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
