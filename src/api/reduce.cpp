// Reductions (bcast/reduce.h): check the axes and dtypes, plan, run.
#include "bcast/reduce.h"

#include <array>
#include <atomic>
#include <cstdint>

#include "ascend_dispatch.h"
#include "bcast/errors.h"
#include "bcast/expr.h"
#include "bcast/runtime.h"
#include "bcast/views.h"
#include "config.h"
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
  const bool narrow = shape == ReduceForm::narrow;
  const ReductionKernel form{
      .form = shape,
      .combine = reduce.combine,
      .accumulator = reduce.accumulator,
      .width = narrow ? static_cast<int>(plan.kept.back().extent) : 0,
      .block = narrow ? static_cast<int>(narrow_block_rows(plan.kept.back().extent, plan.reduced.back().extent)) : 0};
  return select_reduction_kernel(call.structure(), call.input_types(), call.scalar_types(),
                                 fallback_ns_of(call.program()), reduction_kernel_plan(plan), form);
}

// A reduction of an expression's values, checked: its row, its call and
// the result's dtypes and shape; then planned into an out of that shape.
// Not copied or moved: `reduce` points at `plan`.
struct ValuesReduction {
  ValuesReduction(ReduceOp op, const Expr& input, ExprCall input_call, const Axes& axes, bool keep,
                  std::optional<DType> dtype)
      : row(detail::reduce_row(op)), call(std::move(input_call)), keepdims(keep) {
    const DType values_dtype = call.program().out_dtype;
    const Shape& shape = call.out_shape();
    along = reduced_dims(axes, static_cast<int>(shape.size()), row.name);
    types = detail::reduce_dtypes(op, values_dtype, dtype);
    if (!has_reduce_loop(row.combine, types.accumulator))
      detail::fail(ErrorKind::value, "{}: not defined for dtype {}", row.name, dtype_name(values_dtype));
    check_not_empty(row, values_dtype, shape, along);
    result_shape = reduced_shape(shape, along, keepdims);
    plain = input.node()->kind == NodeKind::input;
    if (plain) plain_input = input.node()->view;
  }
  ValuesReduction(const ValuesReduction&) = delete;

  // Plans the reduction into `out` (of result_shape and types.result).
  void plan_into(const TensorView& out) {
    // The values' layout: a plain input's own; an expression's, where evaluate would write them.
    values = plain ? plain_input.layout() : call.new_out_layout();
    std::vector<Strides> with;
    for (const TensorView& v : call.inputs()) with.push_back(broadcast_to(v, call.out_shape()).strides());
    plan = plan_reduce(values, along, strides_in_x(out.layout(), along, keepdims), with);
    call.check_exponent_inputs(call.inputs(), static_cast<std::int64_t>(plan.outputs * plan.count));
    reduce = ReduceCall{.combine = row.combine,
                        .input = call.program().out_dtype,
                        .accumulator = types.accumulator,
                        .result = types.result,
                        .divide = row.when_empty == detail::WhenEmpty::nan,
                        .plan = &plan,
                        .x = nullptr,
                        .out = out.data()};
  }

  // What the reduction kernel `fn` reads: each input's element at index 0, and its size.
  ReduceSource source_for(KernelFn fn) const {
    ReduceSource source{.fn = fn, .context = call.scalar_slots().data()};
    for (std::size_t k = 0; k < call.inputs().size(); ++k) {
      source.data[k] = static_cast<const char*>(call.inputs()[k].data());
      source.sizes[k] = call.inputs()[k].element_size();
    }
    return source;
  }

  const detail::ReduceRow& row;
  const ExprCall call;
  const bool keepdims;
  bool plain = false;
  TensorView plain_input;
  std::vector<bool> along;
  detail::ReduceDTypes types;
  Shape result_shape;
  Layout values;
  ReducePlan plan;
  ReduceCall reduce;
};

}  // namespace

Tensor reduce_expression(ReduceOp op, const Expr& input, const Axes& axes, bool keepdims, std::optional<DType> dtype) {
  return reduce_expression(op, input, ExprCall(input), axes, keepdims, dtype);
}

Tensor reduce_expression(ReduceOp op, const Expr& input, ExprCall values, const Axes& axes, bool keepdims,
                         std::optional<DType> dtype) {
  ValuesReduction r(op, input, std::move(values), axes, keepdims, dtype);
  Tensor out = Tensor::empty(r.types.result, Layout::contiguous(r.result_shape));
  r.plan_into(out.view());
  if (current_target().kind() == TargetKind::ascend_sim) {
    r.reduce.x = r.plain ? r.plain_input.data() : nullptr;
    if (run_reduction_on_ascend_target(current_target(), r.row.name, r.reduce, r.plain ? &r.plain_input : nullptr,
                                       out.view()))
      return out;
  }
  const SelectedKernel kernel = reduction_kernel(r.call, r.plan, r.reduce);
  const ReduceSource source = r.source_for(kernel.fn);
  Tensor written;  // the fallback's values
  if (kernel.fn != nullptr) {
    r.reduce.source = &source;
  } else if (r.plain) {
    r.reduce.x = r.plain_input.data();
  } else {
    written = Tensor::empty(r.call.program().out_dtype, r.values);
    evaluate(input, written.view());
    r.reduce.x = written.data();
  }
  record_call_threads(execute_reduce(r.reduce, num_threads()));
  return out;
}

std::optional<PreparedReduction> prepare_reduction(ReduceOp op, const Expr& input, const ReduceParams& p,
                                                   const TensorView& out) {
  return prepare_reduction(op, input, ExprCall(input), p, out);
}

std::optional<PreparedReduction> prepare_reduction(ReduceOp op, const Expr& input, ExprCall values,
                                                   const ReduceParams& p, const TensorView& out) {
  ValuesReduction r(op, input, std::move(values), p.axes, p.keepdims, p.dtype);
  if (current_target().kind() != TargetKind::host || r.call.has_exponent_checks() || out.shape() != r.result_shape ||
      out.dtype() != r.types.result)
    return std::nullopt;
  r.plan_into(out);
  SelectedKernel kernel = reduction_kernel(r.call, r.plan, r.reduce);
  if (kernel.fn == nullptr && !r.plain) return std::nullopt;  // a plain input's fallback reads it in place
  PreparedReduction prepared{.inputs = r.call.inputs(),
                             .plan = std::make_unique<const ReducePlan>(r.plan),
                             .reduce = r.reduce,
                             .source = r.source_for(kernel.fn),
                             .slots = std::make_shared<const std::vector<ScalarSlot>>(r.call.scalar_slots()),
                             .keep_alive = std::move(kernel.keep_alive),
                             .memo_hits = kernel.memo_hits};
  prepared.reduce.plan = prepared.plan.get();
  if (kernel.fn != nullptr) {
    prepared.levels = std::make_unique<const ReduceLevels>(reduce_levels(r.plan));
    prepared.reduce.levels = prepared.levels.get();
  }
  prepared.source.context = prepared.slots->data();
  return prepared;
}

int run_prepared_reduction(const PreparedReduction& p, void* out, int threads, std::span<const void* const> inputs) {
  ReduceSource source = p.source;
  for (std::size_t k = 0; k < inputs.size(); ++k) source.data[k] = static_cast<const char*>(inputs[k]);
  ReduceCall call = p.reduce;
  call.out = out;
  if (source.fn != nullptr)
    call.source = &source;
  else
    call.x = source.data[0];  // a plain input, read in place
  return execute_reduce(call, threads);
}

namespace {

// NOTE: [Reduce call memo] A plain reduction (bcast::sum(x, axes), bcast.sum
// from Python) of a view whose dtype and layout it has just met on this
// thread runs the reduction prepared for them (NOTE: [Row blocks]'
// prepare_reduction: plan, kernel, levels), x's data put in: working that
// out was most of a small call (sum of f32 [8, 1024] from Python: 3.5 us
// against NumPy's 3.2). As the Python call memo does (NOTE: [Python call
// memo]), it prepares at the second call in a row with the same key, so
// calls that alternate never pay for a preparation they would not use; an
// entry holds while the kernel stamp and the settings do, and only where
// the reduction has its JIT kernel on the host.
struct ReduceMemo {
  ReduceOp op{};
  DType x_dtype{};
  Layout x_layout;
  Axes axes;
  bool keepdims = false;
  std::optional<DType> dtype;
  KernelStamp stamp;
  std::uint64_t settings = 0;
  std::optional<PreparedReduction> prepared;  // at the second call in a row
  DType result_dtype{};
  Shape result_shape;

  bool same(ReduceOp o, const TensorView& x, const Axes& a, bool k, std::optional<DType> d) const {
    return o == op && x.dtype() == x_dtype && x.layout() == x_layout && a.every() == axes.every() &&
           a.list() == axes.list() && k == keepdims && d == dtype && stamp == kernel_stamp() &&
           settings == config::generation() && current_target().kind() == TargetKind::host;
  }
};
thread_local ReduceMemo t_reduce_memo;
std::atomic<std::uint64_t> g_remembered_reduces{0};

}  // namespace

std::uint64_t remembered_reduce_calls() { return g_remembered_reduces.load(std::memory_order_relaxed); }

Tensor reduce(ReduceOp op, const TensorView& x, const Axes& axes, bool keepdims, std::optional<DType> dtype,
              double ddof) {
  detail::check_ddof(op, ddof);
  if (detail::reduce_row(op).combine == detail::Combine::composed)  // NOTE: [Composed reductions]: as passes
    return evaluate(expr::reduce(op, Expr(x), axes, keepdims, dtype, ddof));
  ReduceMemo& memo = t_reduce_memo;
  const bool again = memo.same(op, x, axes, keepdims, dtype);
  if (again && memo.prepared && (x.data() != nullptr || x.numel() == 0)) {  // NOTE: [Reduce call memo]
    g_remembered_reduces.fetch_add(1, std::memory_order_relaxed);
    if (memo.prepared->memo_hits != nullptr) memo.prepared->memo_hits->fetch_add(1, std::memory_order_relaxed);
    Tensor out = Tensor::empty(memo.result_dtype, Layout::contiguous(memo.result_shape));
    const std::array<const void*, 1> data{x.data()};
    record_call_threads(run_prepared_reduction(*memo.prepared, out.data(), num_threads(), data));
    return out;
  }
  const KernelStamp stamp = kernel_stamp();  // read first: an eviction after it shows at the next call
  Tensor out = reduce_expression(op, Expr(x), axes, keepdims, dtype);
  if (!again) {
    memo = {.op = op, .x_dtype = x.dtype(), .x_layout = x.layout(), .axes = axes, .keepdims = keepdims,
            .dtype = dtype, .stamp = stamp, .settings = config::generation()};
  } else if (current_target().kind() == TargetKind::host) {
    std::optional<PreparedReduction> p = prepare_reduction(op, Expr(x), {axes, keepdims, dtype, 0}, out.view());
    if (p && p->source.fn != nullptr && p->inputs.size() == 1 && p->inputs[0].data() == x.data()) {
      memo.prepared = std::move(p);
      memo.result_dtype = out.dtype();
      memo.result_shape = out.shape();
    }
  }
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
