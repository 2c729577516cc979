// Prepared expressions: flattened, lowered and planned once, run many times.
#include "bcast/expr.h"

#include <chrono>

#include "bcast/errors.h"
#include "error_messages.h"
#include "expr_call.h"
#include "expr_passes.h"

namespace bcast {

struct PreparedExpr::Impl {
  Impl(ExprCall c, Layout o, PlannedCall p, ExprKernel k, ExprInfo i)
      : call(std::move(c)), out(std::move(o)), planned(std::move(p)), kernel(std::move(k)), info(std::move(i)) {}
  ExprCall call;
  Layout out;
  PlannedCall planned;              // NOTE: [Dispatch]
  PinnedKernel<ExprKernel> kernel;  // selected once, for good (NOTE: [Tiers])
  ExprInfo info;
};

PreparedExpr prepare(const Expr& e) {
  if (has_reductions(e))
    detail::fail(ErrorKind::value,
                 "prepare: the expression holds a reduction; prepared expressions are elementwise "
                 "today (NOTE: [Expression passes]): evaluate it");
  const auto start = std::chrono::steady_clock::now();
  ExprCall call(e);
  Layout out = call.new_out_layout();
  PlannedCall planned = call.planned_for(out);
  ExprKernel kernel = select_kernel(call, planned.plan);
  ExprInfo info = call.info();
  info.kernel = kernel.key;
  if (report::wanted())
    report_expression("create", report::Api::prepared_expr, call, kernel, planned.plan, call.inputs(), info.out_dtype,
                      out.shape, 0, std::chrono::steady_clock::now() - start);
  PreparedExpr p;
  p.impl_ = std::make_shared<const PreparedExpr::Impl>(std::move(call), std::move(out), std::move(planned),
                                                       std::move(kernel), std::move(info));
  return p;
}

void PreparedExpr::operator()(std::span<const TensorView> inputs, const TensorView& out) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedExpr: not prepared (default-constructed)");
  const Impl& p = *impl_;
  const std::vector<TensorView>& prepared = p.call.inputs();
  if (inputs.size() != prepared.size())
    detail::fail(ErrorKind::value, "{} (prepared): {} inputs given, prepared with {}", p.call.subject(),
                 inputs.size(), prepared.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const TensorView& v = inputs[k];
    if (v.dtype() != prepared[k].dtype() || v.layout() != prepared[k].layout())
      detail::fail(ErrorKind::value, "{} (prepared): input x{} has dtype {} shape {} strides {}, prepared for {} {} {}",
                   p.call.subject(), k, dtype_name(v.dtype()), to_string(v.shape()), to_string(v.strides()),
                   dtype_name(prepared[k].dtype()), to_string(prepared[k].shape()), to_string(prepared[k].strides()));
    if (v.data() == nullptr && v.numel() > 0)
      detail::fail(ErrorKind::value, "{} (prepared): input x{} has shape {} but its data pointer is null",
                   p.call.subject(), k, to_string(v.shape()));
  }
  if (out.layout() != p.out)
    detail::fail(ErrorKind::value, "{} (prepared): out has shape {} strides {}, prepared for {} {}",
                 p.call.subject(), to_string(out.shape()), to_string(out.strides()), to_string(p.out.shape),
                 to_string(p.out.strides));
  std::vector<TensorView> now(inputs.begin(), inputs.end());
  p.call.validate_out(out, now);
  ExprKernel scratch;
  run_expression(p.call, p.kernel.get([&] { return select_kernel(p.call, p.planned.plan); }, scratch), p.planned, out,
                 now, report::Api::prepared_expr);
}

Tensor PreparedExpr::operator()(std::span<const TensorView> inputs) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedExpr: not prepared (default-constructed)");
  Tensor out = Tensor::empty(impl_->info.out_dtype, impl_->out);
  (*this)(inputs, out);
  return out;
}

Tensor PreparedExpr::operator()() const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedExpr: not prepared (default-constructed)");
  return (*this)(impl_->call.inputs());
}

const ExprInfo& PreparedExpr::info() const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedExpr: not prepared (default-constructed)");
  return impl_->info;
}

}  // namespace bcast
