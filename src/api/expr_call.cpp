// ExprCall: from a tree to a validated, lowered call (NOTE: [Expression kernels]).
#include "expr_call.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "bcast/broadcast.h"
#include "bcast/errors.h"
#include "bcast/runtime.h"
#include "error_messages.h"
#include "ascend_dispatch.h"
#include "config.h"
#include "executor.h"
#include "expr_evaluator.h"
#include "exponent_check.h"
#include "targets.h"
#include "thread_pool.h"
#include "node_ops.h"
#include "output_layout.h"
#include "short_rows.h"
#include "small_powers.h"
#include "validate_binary.h"

namespace bcast {
namespace {

// The scalar's value stored in `dtype`, in its slot (kernel_abi.h).
ScalarSlot slot_of(const ScalarValue& v, DType dtype) {
  ScalarSlot slot;
  auto put = [&](auto x) {
    static_assert(sizeof x <= sizeof slot.bytes);
    std::memcpy(slot.bytes, &x, sizeof x);
  };
  const double f = v.kind == ScalarKind::weak_int ? static_cast<double>(v.i) : v.f;
  const bool integral = v.kind == ScalarKind::weak_int;
  switch (dtype) {
    case DType::c64: put(std::complex<float>(static_cast<float>(f), static_cast<float>(v.im))); break;
    case DType::c128: put(std::complex<double>(f, v.im)); break;
    case DType::f16: put(f64_to_f16(f)); break;
    case DType::bf16: put(f64_to_bf16(f)); break;
    case DType::f32: put(static_cast<float>(f)); break;
    case DType::f64: put(f); break;
    case DType::boolean: put(static_cast<std::uint8_t>(integral ? v.i != 0 : f != 0)); break;
    default:  // integers: a weak int's bits (wrapping where no range check applies), a float saturated
      if (integral) {
        put(v.i);
      } else {
        switch (dtype) {
          case DType::i8: put(detail::saturate<std::int8_t>(f)); break;
          case DType::i16: put(detail::saturate<std::int16_t>(f)); break;
          case DType::i32: put(detail::saturate<std::int32_t>(f)); break;
          case DType::i64: put(detail::saturate<std::int64_t>(f)); break;
          case DType::u8: put(detail::saturate<std::uint8_t>(f)); break;
          case DType::u16: put(detail::saturate<std::uint16_t>(f)); break;
          case DType::u32: put(detail::saturate<std::uint32_t>(f)); break;
          default: put(detail::saturate<std::uint64_t>(f)); break;
        }
      }
  }
  return slot;
}

bool fits(std::int64_t v, DType dtype) {
  switch (dtype) {
    case DType::i8: return v >= INT8_MIN && v <= INT8_MAX;
    case DType::i16: return v >= INT16_MIN && v <= INT16_MAX;
    case DType::i32: return v >= INT32_MIN && v <= INT32_MAX;
    case DType::u8: return v >= 0 && v <= UINT8_MAX;
    case DType::u16: return v >= 0 && v <= UINT16_MAX;
    case DType::u32: return v >= 0 && v <= UINT32_MAX;
    case DType::u64: return v >= 0;
    default: return true;
  }
}

// The narrowest dtype that holds every value of integer dtype `d` and `v`:
// NumPy's promotion of d with the narrowest integer of d's signedness (a
// signed one for a negative v) holding v. u8 and 300: u16; u8 and -1: i16;
// i8 and 1000: i16; u64 and -1: f64.
DType holding_both(DType d, std::int64_t v) {
  const bool want_unsigned = v >= 0 && is_unsigned(d);
  for (const DType c : {DType::u8, DType::i8, DType::u16, DType::i16, DType::u32, DType::i32, DType::u64, DType::i64})
    if (is_unsigned(c) == want_unsigned && fits(v, c)) return promote_types(d, c);
  return promote_types(d, DType::i64);
}

std::string value_text(const ScalarValue& v) {
  if (v.kind == ScalarKind::weak_int) return std::to_string(v.i);
  if (v.kind == ScalarKind::weak_float) return fmt::format("{}", v.f);
  if (v.kind == ScalarKind::weak_complex)  // Python's repr: 2j, (1-2.5j)
    return v.f == 0 && !std::signbit(v.f) ? fmt::format("{}j", v.im) : fmt::format("({}{:+}j)", v.f, v.im);
  return fmt::format("{}({})", dtype_name(v.dtype), v.f);
}

}  // namespace

namespace {

// NOTE: [Scalar expressions] An expression of scalars alone (`cos(1 + 1)`,
// `7 < 5`) gives a 0-d result, as numexpr's and NumPy's do: its first
// scalar becomes a 0-d tensor of the dtype the scalar computes in (a Python
// int i64, a float f64, a strong scalar its own), which is the dtype Python's
// arithmetic on weak scalars gives anyway.
std::shared_ptr<Tensor> scalar_as_tensor(const ScalarValue& v) {
  const DType dtype = v.kind == ScalarKind::strong ? DType::f64 : weak_default(v.kind);
  auto t = std::make_shared<Tensor>(dtype, Shape{});
  if (dtype == DType::i64) {
    const std::int64_t i = v.i;
    std::memcpy(t->data(), &i, sizeof i);
  } else if (dtype == DType::c128) {
    const std::complex<double> c(v.f, v.im);
    std::memcpy(t->data(), &c, sizeof c);
  } else {
    const double f = v.f;
    std::memcpy(t->data(), &f, sizeof f);
  }
  return t;
}

// A kernel's element sizes and data pointers: out's, then each input's.
ElementSizes sizes_of(DType out, const std::vector<TensorView>& inputs) {
  ElementSizes sizes{};
  sizes[kOut] = dtype_size(out);
  for (std::size_t k = 0; k < inputs.size(); ++k) sizes[1 + k] = inputs[k].element_size();
  return sizes;
}
OperandPointers pointers_of(const TensorView& out, const std::vector<TensorView>& inputs) {
  OperandPointers ptrs;
  ptrs.data[kOut] = out.data();
  for (std::size_t k = 0; k < inputs.size(); ++k) ptrs.data[1 + k] = inputs[k].data();
  return ptrs;
}

}  // namespace

ExprCall::ExprCall(const Expr& e) {
  const std::map<const detail::ExprNode*, int> node_ids = build(e);
  // NOTE: [Small integer powers]: built again with products for pow, quoted as written.
  auto value_of = [&](const detail::ExprNode* n) {
    const auto id = node_ids.find(n);
    return id == node_ids.end() ? -1 : program_.node_values[static_cast<std::size_t>(id->second)];
  };
  const PowLoop pow_loop = [&](const detail::ExprNode* n) -> std::optional<PowTypes> {
    const int value = value_of(n), base = value_of(n->args[0].get());
    if (value < program_.first_instr() || base < 0) return std::nullopt;
    const ExprInstr& s = program_.code[static_cast<std::size_t>(value - program_.first_instr())];
    if (s.kind != InstrKind::binary || static_cast<Op>(s.code) != Op::pow) return std::nullopt;
    return PowTypes{s.in, program_.dtype_of(base)};
  };
  const bool float_pow = std::any_of(program_.code.begin(), program_.code.end(), [](const ExprInstr& s) {
    return s.kind == InstrKind::binary && static_cast<Op>(s.code) == Op::pow && is_floating(s.in);
  });
  if (!float_pow) return;  // the common case: no tree to walk again
  if (const std::optional<Expr> fast = with_small_powers(e, static_cast<int>(graph_.nodes().size()), pow_loop)) {
    std::string written = text(), call = call_;
    *this = ExprCall();
    build(*fast);
    written_ = std::move(written);
    call_ = std::move(call);
  }
}

std::map<const detail::ExprNode*, int> ExprCall::build(const Expr& e) {
  // Flatten: each tree node once (shared nodes are one graph node), each
  // distinct view one input. Two names stay two inputs even on one view: a
  // prepared run may give them different data.
  std::map<const detail::ExprNode*, int> seen;
  bool tensor_for_first_scalar = false;  // NOTE: [Scalar expressions], on the second pass
  auto flatten = [&](auto&& self, const detail::ExprNode* n) -> int {
    if (const auto it = seen.find(n); it != seen.end()) return it->second;
    int id = -1;
    switch (n->kind) {
      case NodeKind::input: {
        const auto same = [&](std::size_t k) {
          const TensorView& v = inputs_[k];
          return v.data() == n->view.data() && v.dtype() == n->view.dtype() && v.layout() == n->view.layout() &&
                 (n->name.empty() || input_names_[k] == n->name);
        };
        std::size_t index = 0;
        while (index < inputs_.size() && !same(index)) ++index;
        if (index == inputs_.size()) {
          if (inputs_.size() == static_cast<std::size_t>(kMaxInputs))
            detail::fail(ErrorKind::value, "expression: more than {} tensor operands", kMaxInputs);
          inputs_.push_back(n->view);
          input_names_.push_back(n->name.empty() ? "x" + std::to_string(index) : n->name);
        }
        id = graph_.input(static_cast<int>(index));
        break;
      }
      case NodeKind::scalar:
        if (tensor_for_first_scalar && inputs_.empty()) {
          scalar_input_ = scalar_as_tensor(n->scalar);
          inputs_.push_back(scalar_input_->view());
          input_names_.push_back(n->name.empty() ? value_text(n->scalar) : n->name);
          id = graph_.input(0);
          if (n->scalar.kind == ScalarKind::strong) id = graph_.cast(n->scalar.dtype, id);
          break;
        }
        scalars_.push_back(n->scalar);
        scalar_names_.push_back(n->name.empty() ? value_text(n->scalar) : n->name);
        id = graph_.scalar(static_cast<int>(scalars_.size()) - 1);
        break;
      case NodeKind::reduce:  // printed, never lowered (NOTE: [Expression passes])
        id = graph_.reduction(static_cast<ReduceOp>(n->code), self(self, n->args[0].get()), n->reduce);
        break;
      default: {
        ExprGraphNode g{.kind = n->kind, .code = n->code};
        for (int k = 0; k < 3 && n->args[k]; ++k) g.args[k] = self(self, n->args[k].get());
        id = graph_.add(g);
      }
    }
    seen.emplace(n, id);
    return id;
  };
  graph_.root = flatten(flatten, e.node().get());
  if (inputs_.empty()) {  // NOTE: [Scalar expressions]: flattened again, the first scalar a 0-d tensor
    graph_ = ExprGraph();
    scalars_.clear();
    scalar_names_.clear();
    seen.clear();
    tensor_for_first_scalar = true;
    graph_.root = flatten(flatten, e.node().get());
  }
  if (e.node()->named_call) call_ = op_name(static_cast<Op>(e.node()->code));

  // Inputs: valid layouts, memory, shapes that broadcast.
  for (std::size_t k = 0; k < inputs_.size(); ++k) {
    const std::string name = "expression operand " + input_names_[k];
    validate_layout(inputs_[k].layout(), name.c_str());
    if (inputs_[k].data() == nullptr && inputs_[k].numel() > 0)
      detail::fail(ErrorKind::value, "{}: {} has shape {} but its data pointer is null", subject(), input_names_[k],
                   to_string(inputs_[k].shape()));
  }
  out_shape_ = inputs_[0].shape();
  for (std::size_t k = 1; k < inputs_.size(); ++k) {
    if (!check_broadcast_shape(out_shape_, inputs_[k].shape())) {
      std::string others, why;
      for (std::size_t j = 0; j < k; ++j) others += (j ? ", " : "") + input_names_[j] + " " + to_string(inputs_[j].shape());
      try {
        broadcast_infer_shape(out_shape_, inputs_[k].shape());
      } catch (const Error& error) {  // "shapes ... do not broadcast: dim -1 has 3 vs 5"
        const std::string what = error.what();
        why = what.substr(what.find(": ") + 2);
      }
      detail::fail(ErrorKind::shape, "{}: {} has shape {}, which does not broadcast with {} (together {}): {}",
                   subject(), input_names_[k], to_string(inputs_[k].shape()), others, to_string(out_shape_), why);
    }
    out_shape_ = broadcast_infer_shape(out_shape_, inputs_[k].shape());
  }

  // Types: lower, then the scalars' values in their program dtypes.
  for (const TensorView& v : inputs_) input_types_.push_back({ScalarKind::strong, v.dtype()});
  for (const ScalarValue& s : scalars_) scalar_types_.push_back({s.kind, s.dtype});
  program_ = lower_expression(
      graph_, input_types_, scalar_types_, [this](NodeKind kind, int leaf) { return leaf_name(kind, leaf); }, call_);
  for (const ExprProgram::RangeCheck& check : program_.range_checks) {
    const auto j = static_cast<std::size_t>(check.scalar);
    if (!fits(scalars_[j].i, check.dtype)) fail_does_not_fit(j, check.dtype);
  }
  for (std::size_t j = 0; j < scalars_.size(); ++j) slots_.push_back(slot_of(scalars_[j], program_.scalars[j]));
  find_exponents();
  return seen;
}

// NOTE: [Negative integer exponents]: each signed integer power's exponent,
// followed back through casts from signed integers (which keep its sign) to
// a leaf: a scalar is checked now, an input on every run; an exponent
// computed from inputs (x ** (n - 2)) is computed and read on every run.
void ExprCall::find_exponents() {
  for (const ExprInstr& s : program_.code) {
    if (s.kind != InstrKind::binary || !checks_exponents(static_cast<Op>(s.code), s.in)) continue;
    int v = s.args[1];
    while (v >= program_.first_instr()) {
      const ExprInstr& from = program_.code[static_cast<std::size_t>(v - program_.first_instr())];
      if (from.kind != InstrKind::cast || !is_integer(from.in) || is_unsigned(from.in)) break;
      v = from.args[0];
    }
    std::vector<int>& found = v >= program_.first_instr() ? computed_exponents_ : exponent_inputs_;
    if (v < program_.first_scalar() || v >= program_.first_instr()) {
      if (std::find(found.begin(), found.end(), v) == found.end()) found.push_back(v);
    } else {
      const auto j = static_cast<std::size_t>(v - program_.first_scalar());
      const ScalarValue& x = scalars_[j];
      if (x.kind == ScalarKind::weak_int ? x.i < 0 : x.f < 0) fail_negative_exponent(subject(), scalar_names_[j]);
    }
  }
}

void ExprCall::check_exponent_inputs(const std::vector<TensorView>& inputs, std::int64_t out_elements) const {
  if (out_elements == 0) return;  // NumPy's loop refuses only what it computes
  for (const int k : exponent_inputs_)
    if (const std::optional<NegativeElement> at = first_negative(inputs[static_cast<std::size_t>(k)]))
      fail_negative_exponent(subject(), input_names_[static_cast<std::size_t>(k)], *at);
  for (const int v : computed_exponents_) check_computed_exponent(v, inputs);
}

// Program value `v`, an exponent, computed by the reference evaluator over
// the call's shape (every element of it meets a base where the output has
// elements, as NumPy's temporary would), then read; the error names it as
// the caller wrote it ("the exponent (n - 2) has the negative value -1").
// Only expressions with such a power pay for it.
void ExprCall::check_computed_exponent(int v, const std::vector<TensorView>& inputs) const {
  ExprProgram exponent = program_;
  exponent.code.resize(static_cast<std::size_t>(v - program_.first_instr() + 1));
  exponent.result = v;
  exponent.out_dtype = program_.dtype_of(v);
  const ExprEvaluator evaluator(exponent);
  Tensor values(exponent.out_dtype, out_shape_);
  const ExprEvaluator::Frame frame{&evaluator, slots_.data()};
  OperandPointers ptrs = pointers_of(values.view(), inputs);
  ptrs.context = &frame;
  execute_plan(plan_for(values.layout()), &ExprEvaluator::kernel, ptrs, sizes_of(values.dtype(), inputs),
               num_threads());
  const std::optional<NegativeElement> at = first_negative(values);
  if (!at) return;
  int node = 0;
  while (program_.node_values[static_cast<std::size_t>(node)] != v) ++node;
  const std::string text =
      to_text(graph_, node, [this](NodeKind kind, int leaf) { return leaf_name(kind, leaf); });
  fail_negative_exponent(subject(), text, *at);
}

// NEP 50: "add: 300 does not fit u8 (...)", naming the scalar as the caller
// wrote it ("n = 300" for a named one) and the dtype that holds both.
void ExprCall::fail_does_not_fit(std::size_t scalar, DType dtype) const {
  const std::string value = value_text(scalars_[scalar]);
  const std::string& name = scalar_names_[scalar];
  const std::string_view wider = dtype_name(holding_both(dtype, scalars_[scalar].i));
  detail::fail(ErrorKind::value,
               "{}: {} does not fit {} (a Python int takes the other operand's dtype, as in NumPy 2; to compute in "
               "{}, make either operand {})",
               subject(), name == value ? value : name + " = " + value, dtype_name(dtype), wider, wider);
}

std::string ExprCall::subject() const { return call_.empty() ? "expression " + text() : call_; }

std::string ExprCall::leaf_name(NodeKind kind, int leaf) const {
  const auto& names = kind == NodeKind::input ? input_names_ : scalar_names_;
  return names[static_cast<std::size_t>(leaf)];
}

std::string ExprCall::text() const {
  if (!written_.empty()) return written_;
  return "'" + to_text(graph_, graph_.root, [this](NodeKind kind, int leaf) { return leaf_name(kind, leaf); }) + "'";
}

Layout ExprCall::new_out_layout() const {
  std::vector<const Layout*> layouts;
  for (const TensorView& v : inputs_) layouts.push_back(&v.layout());
  return output_layout(out_shape_, layouts);
}

void ExprCall::validate_out(const TensorView& out, const std::vector<TensorView>& inputs) const {
  validate_layout(out.layout(), "out");
  if (out.shape() != out_shape_)
    detail::fail(ErrorKind::shape, "{}: out has shape {}, the result has {}", subject(), to_string(out.shape()),
                 to_string(out_shape_));
  if (out.dtype() != program_.out_dtype)
    detail::fail(ErrorKind::dtype, "{}: out has dtype {} but the result is {}", subject(),
                 dtype_name(out.dtype()), dtype_name(program_.out_dtype));
  if (out.data() == nullptr && out.numel() > 0)
    detail::fail(ErrorKind::value, "{}: out has shape {} but its data pointer is null", subject(),
                 to_string(out.shape()));
  require_no_self_overlap(subject(), out.layout());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const TensorView& in = inputs[k];
    const bool same_view = in.data() == out.data() && in.dtype() == out.dtype() && in.layout() == out.layout();
    if (!same_view && ranges_overlap(out, in))
      detail::fail(ErrorKind::value,
                   "{}: out overlaps {} in memory without being the same view (in place needs out to be "
                   "{} exactly: same data, dtype, shape and strides)",
                   subject(), input_names_[k], input_names_[k]);
  }
}

BroadcastPlan ExprCall::plan_for(const Layout& out) const {
  std::vector<const Layout*> layouts;
  for (const TensorView& v : inputs_) layouts.push_back(&v.layout());
  return plan_broadcast(out, layouts);
}

PlannedCall ExprCall::planned_for(const Layout& out) const {
  return PlannedCall(plan_for(out), sizes_of(program_.out_dtype, inputs_));
}

ExprInfo ExprCall::info() const {
  ExprInfo info;
  info.structure = structure();
  info.out_dtype = program_.out_dtype;
  info.out_shape = out_shape_;
  for (const TensorView& v : inputs_) info.in_dtypes.push_back(v.dtype());
  info.inputs = input_names_;
  const BroadcastPlan plan = plan_for(new_out_layout());
  info.broadcast_type = to_string(plan.type);
  // A look-up, not a call: it starts the compile but runs nothing on the
  // fallback (bcast.dask.warm describes every chunk's call before the first).
  select_expr_kernel(structure(), input_types(), scalar_types(), fallback_ns_of(program_), plan, &info.kernel,
                     provider::Use::look_up);
  return info;
}

ExprKernel select_kernel(const ExprCall& call, const BroadcastPlan& plan,
                         std::optional<std::uint64_t> stream_min_bytes) {
  ExprKernel kernel;
  kernel.jit =
      select_expr_kernel(call.structure(), call.input_types(), call.scalar_types(), fallback_ns_of(call.program()),
                         plan, &kernel.key, provider::Use::call, stream_min_bytes);
  if (kernel.jit.fn != nullptr) return kernel;
  kernel.typed = reference_kernel_of(call.program());
  if (kernel.typed == nullptr) kernel.evaluator = std::make_shared<const ExprEvaluator>(call.program());
  return kernel;
}

namespace {

// NOTE: [Dispatch]: on ascend-sim when it is current and can run the call,
// else on the host: the JIT kernel or the fallback (ExprKernel), which also
// runs NOTE: [Short rows]' pieces (the fused plan has the call's classes,
// and NOTE: [Fixed rows] leave plans that fuse to fusion).
void run_on_target(const ExprCall& call, const ExprKernel& kernel, const PlannedCall& planned, const TensorView& out,
                   const std::vector<TensorView>& inputs) {
  const ExprEvaluator::Frame frame{kernel.evaluator.get(), call.scalar_slots().data()};
  OperandPointers ptrs = pointers_of(out, inputs);
  KernelFn fn = kernel.jit.fn;
  ptrs.context = call.scalar_slots().data();
  if (fn == nullptr) {
    fn = kernel.typed != nullptr ? kernel.typed : &ExprEvaluator::kernel;
    ptrs.context = kernel.typed != nullptr ? nullptr : &frame;
  }
  const auto on_ascend = [&] {
    return run_expression_on_ascend_target(target_for(TargetKind::ascend_sim), call.structure(), call.input_types(),
                                           call.scalar_types(), call.scalar_slots().data(), planned.plan, out, inputs);
  };
  const auto host_kernel = [&] { return fn; };
  const auto short_rows = [&](const FusedRows&) { return ShortRowKernels{fn, fn}; };
  dispatch(planned, ptrs, on_ascend, host_kernel, short_rows);
}

}  // namespace

void run_expression(const ExprCall& call, const ExprKernel& kernel, const PlannedCall& planned, const TensorView& out,
                    const std::vector<TensorView>& inputs, report::Api api) {
  call.check_exponent_inputs(inputs, out.numel());
  if (!report::wanted()) {
    run_on_target(call, kernel, planned, out, inputs);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  run_on_target(call, kernel, planned, out, inputs);
  report_expression("exec", api, call, kernel, planned.plan, inputs, out.dtype(), out.shape(), last_call_threads(),
                    std::chrono::steady_clock::now() - start);
}

void report_expression(std::string_view event, report::Api api, const ExprCall& call, const ExprKernel& kernel,
                       const BroadcastPlan& plan, const std::vector<TensorView>& inputs, DType out_dtype,
                       const Shape& out_shape, int threads, std::chrono::steady_clock::duration took) {
  const bool keyed = kernel.jit.fn != nullptr || kernel.provisional();
  report::print(event, {.api = api,
                        .op = "expr",
                        .inputs = inputs,
                        .out_dtype = out_dtype,
                        .out_shape = out_shape,
                        .plan = &plan,
                        .kernel = kernel.key,
                        .outcome = keyed ? outcome_name(kernel.jit.outcome) : "reference",
                        .threads = threads,
                        .took = took,
                        .expression = call.text()});
}

}  // namespace bcast
