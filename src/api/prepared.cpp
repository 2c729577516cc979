// Prepared calls: validated and planned once, run many times.
#include "bcast/prepared.h"

#include "bcast/runtime.h"
#include "broadcast_plan.h"
#include "call_report.h"
#include "config.h"
#include "dispatch.h"
#include "error_messages.h"
#include "exponent_check.h"
#include "output_layout.h"
#include "expr_kernel.h"
#include "targets.h"
#include "thread_pool.h"
#include "validate_binary.h"

namespace bcast {

// NOTE: [Prepared fast path] What a call needs that depends only on the
// layouts is worked out once, in prepare(): the kernel's arguments (NOTE:
// [Direct call]) and each operand's byte reach for the overlap check. A
// one-chunk host call then checks the views against the prepared layouts,
// checks pointers and overlap with a few additions, and calls the kernel: no
// planning, allocation or lookup.
// The planned call (NOTE: [Dispatch]) and the kernel it was prepared with,
// pinned (NOTE: [Tiers]: or the full kernel, once a call finds it ready); its
// direct call is the fast path when it has one.
struct PreparedOp::Impl {
  Impl(Layout la, Layout lb, Layout lo, BinaryCall c, SelectedKernel k, std::string t, std::string key_text,
       DataCheck check)
      : a(std::move(la)),
        b(std::move(lb)),
        out(std::move(lo)),
        binary(std::move(c)),
        kernel(std::move(k)),
        type(std::move(t)),
        key(std::move(key_text)),
        data(check) {}
  Op op() const { return binary.op; }
  DType dtype() const { return binary.dtype; }
  Layout a, b, out;
  BinaryCall binary;                    // read-only, so calls may run at once
  PinnedKernel<SelectedKernel> kernel;  // NOTE: [Tiers]
  std::string type, key;
  DataCheck data;  // for the fast path
};

PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b, const Layout& out) {
  const auto start = std::chrono::steady_clock::now();
  const Shape shape = validate_input_layouts(op, dtype, a, dtype, b);
  validate_out_layout(op, dtype, a.shape, b.shape, result_dtype(op, dtype), out, shape);
  const DType out_dtype = result_dtype(op, dtype);
  BinaryCall binary(op, dtype, out_dtype, plan_broadcast(out, a, b));
  // A prepared op follows the current target, as a plain call does.
  SelectedKernel kernel =
      binary.planned.plan.numel > 0 ? select_kernel(op, dtype, binary.planned.plan) : SelectedKernel{};
  ExprSpecPin spec;  // NOTE: [Interned ids]: while the key prints
  std::string key = kernel.jit || kernel.provisional()
                        ? call_kernel_key(current_target(), op, dtype, binary.planned.plan, &spec).to_string()
                        : "reference";
  std::string type = to_string(binary.planned.plan.type);
  auto impl = std::make_shared<PreparedOp::Impl>(a, b, out, std::move(binary), std::move(kernel), std::move(type),
                                                 std::move(key), DataCheck(dtype, out_dtype, a, b, out));
  if (report::wanted()) {
    const PreparedOp::Impl& p = *impl;
    report::binary("create", report::Api::prepared, op, TensorView{nullptr, dtype, a}, TensorView{nullptr, dtype, b},
                   out_dtype, out.shape, p.binary.planned.plan, p.kernel.first(), 0,
                   std::chrono::steady_clock::now() - start);
  }
  PreparedOp prepared;
  prepared.impl_ = std::move(impl);
  return prepared;
}

PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b) {
  return prepare(op, dtype, a, b, output_layout(validate_input_layouts(op, dtype, a, dtype, b), {&a, &b}));
}

namespace {

// A prepared op's call on the data of views known to have the prepared
// layouts: the fast path or dispatch(). Returns the kernel that ran
// (`scratch` holds it while it is provisional).
const SelectedKernel& run_prepared_data(const PreparedOp::Impl& p, const void* a, const void* b, void* out,
                                        SelectedKernel& scratch) {
  const PlannedCall& call = p.binary.planned;
  const SelectedKernel& kernel = p.kernel.get([&] { return select_kernel(p.op(), p.dtype(), call.plan); }, scratch);
  if (checks_exponents(p.op(), p.dtype()))  // NOTE: [Negative integer exponents]
    check_exponent_data(p.op(), TensorView(const_cast<void*>(b), p.dtype(), p.b), p.out.numel());
  // NOTE: [Prepared fast path]: the direct call of dispatch(), after the
  // prepared data checks.
  if (runs_direct(call) && p.data.passes(a, b, out)) {
    call.direct.run(kernel.fn, {{out, a, b}});
    record_call_threads(1);
    return kernel;
  }
  const TensorView va(const_cast<void*>(a), p.dtype(), p.a), vb(const_cast<void*>(b), p.dtype(), p.b);
  const TensorView vout(out, result_dtype(p.op(), p.dtype()), p.out);
  validate_data(p.op(), va, vb, vout);
  dispatch(p.binary, kernel, va, vb, vout);
  return kernel;
}

// The checks against the prepared layouts, then the call.
const SelectedKernel& run_prepared(const PreparedOp::Impl& p, const TensorView& a, const TensorView& b,
                                   const TensorView& out, SelectedKernel& scratch) {
  // Cheap and worth it: a view of another shape would make the kernel read
  // and write out of bounds.
  const auto check = [&](const TensorView& v, DType dtype, const Layout& layout, const char* operand) {
    if (v.dtype() != dtype || v.layout() != layout)
      detail::fail(ErrorKind::value, "{} (prepared): {} has dtype {} shape {} strides {}, prepared for {} {} {}",
                   op_name(p.op()), operand, dtype_name(v.dtype()), to_string(v.shape()), to_string(v.strides()),
                   dtype_name(dtype), to_string(layout.shape), to_string(layout.strides));
  };
  check(a, p.dtype(), p.a, "a");
  check(b, p.dtype(), p.b, "b");
  check(out, result_dtype(p.op(), p.dtype()), p.out, "out");
  return run_prepared_data(p, a.data(), b.data(), out.data(), scratch);
}

}  // namespace

void PreparedOp::operator()(const TensorView& a, const TensorView& b, const TensorView& out) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedOp: not prepared (default-constructed)");
  SelectedKernel scratch;
  if (!report::wanted()) {
    run_prepared(*impl_, a, b, out, scratch);
    return;
  }
  // NOTE: [Verbose lines]: the call, timed, and its exec line.
  const auto start = std::chrono::steady_clock::now();
  const SelectedKernel& kernel = run_prepared(*impl_, a, b, out, scratch);
  report::binary("exec", report::Api::prepared, impl_->op(), a, b, out.dtype(), out.shape(), impl_->binary.planned.plan,
                 kernel, last_call_threads(), std::chrono::steady_clock::now() - start);
}

void PreparedOp::run_data(const void* a, const void* b, void* out) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedOp: not prepared (default-constructed)");
  const Impl& p = *impl_;
  if (report::wanted()) {
    (*this)(TensorView(const_cast<void*>(a), p.dtype(), p.a), TensorView(const_cast<void*>(b), p.dtype(), p.b),
            TensorView(out, out_dtype(), p.out));
    return;
  }
  SelectedKernel scratch;
  run_prepared_data(p, a, b, out, scratch);
}

Tensor PreparedOp::operator()(const TensorView& a, const TensorView& b) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedOp: not prepared (default-constructed)");
  Tensor out = Tensor::empty(out_dtype(), impl_->out);
  (*this)(a, b, out);
  return out;
}

const Shape& PreparedOp::out_shape() const { return impl_->out.shape; }
DType PreparedOp::dtype() const { return impl_->dtype(); }
const Layout& PreparedOp::a_layout() const { return impl_->a; }
const Layout& PreparedOp::b_layout() const { return impl_->b; }
const Layout& PreparedOp::out_layout() const { return impl_->out; }
DType PreparedOp::out_dtype() const { return result_dtype(impl_->op(), impl_->dtype()); }
const std::string& PreparedOp::broadcast_type() const { return impl_->type; }
const std::string& PreparedOp::kernel_key() const { return impl_->key; }

std::string kernel_key_for(Op op, DType dtype, const Layout& out, const Layout& a, const Layout& b) {
  const Shape shape = validate_input_layouts(op, dtype, a, dtype, b);
  validate_out_layout(op, dtype, a.shape, b.shape, result_dtype(op, dtype), out, shape);
  if (!jit_enabled()) return "reference";
  ExprSpecPin spec;  // NOTE: [Interned ids]: while the key prints
  const KernelKey key = call_kernel_key(current_target(), op, dtype, plan_broadcast(out, a, b), &spec);
  return provider::emits(spec->program) ? key.to_string() : "reference";
}


}  // namespace bcast
