// The expression API: building trees, flattening them into a graph with its
// leaves, and running them (NOTE: [Expression kernels]).
#include "bcast/expr.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <optional>

#include "bcast/broadcast.h"
#include "bcast/errors.h"
#include "dispatch.h"
#include "error_messages.h"
#include "expr_call.h"
#include "expr_passes.h"
#include "function_table.h"
#include "passes_memo.h"
#include "reduction_table.h"
#include "row_blocks.h"

namespace bcast {

// ---- names ----

namespace {
// The code of the function named `name` (or an alias) of this arity.
template <class E>
std::optional<E> find_name(std::string_view name, detail::Arity arity) {
  const detail::FunctionRow* r = detail::find_function(name, arity);
  if (r == nullptr) return std::nullopt;
  return static_cast<E>(r->code);
}
}  // namespace

std::string_view unary_name(UnaryOp op) { return detail::row(op).name; }
std::optional<UnaryOp> parse_unary(std::string_view name) { return find_name<UnaryOp>(name, detail::Arity::unary); }
std::string_view ternary_name(TernaryOp op) { return detail::row(op).name; }
std::optional<TernaryOp> parse_ternary(std::string_view name) {
  return find_name<TernaryOp>(name, detail::Arity::ternary);
}

// ---- building ----

namespace {

using detail::ExprNode;
using NodePtr = std::shared_ptr<const ExprNode>;

// Whether integer dtype d holds the whole number v.
bool holds(DType d, double v) {
  const double bits = 8.0 * static_cast<double>(dtype_size(d));
  const double lo = is_unsigned(d) ? 0.0 : -std::ldexp(1.0, static_cast<int>(bits) - 1);
  const double hi = std::ldexp(1.0, static_cast<int>(bits) - (is_unsigned(d) ? 0 : 1));  // exclusive
  return v >= lo && v < hi;
}

Expr make(ExprNode node) { return Expr(std::make_shared<const ExprNode>(std::move(node))); }

Expr scalar_node(ScalarValue value) {
  ExprNode n;
  n.kind = NodeKind::scalar;
  n.scalar = value;
  return make(std::move(n));
}

Expr op_node(NodeKind kind, std::uint8_t code, std::initializer_list<NodePtr> args) {
  ExprNode n;
  n.kind = kind;
  n.code = code;
  std::size_t i = 0;
  for (const NodePtr& a : args) {
    n.depth = std::max(n.depth, a->depth + 1);
    n.args[i++] = a;
  }
  // NOTE: [Expression limits]: flattening and freeing a tree recurse on it.
  if (n.depth > kMaxExpressionDepth)
    detail::fail_expression_too_deep(kMaxExpressionDepth);
  return make(std::move(n));
}

}  // namespace

Expr::Expr(const TensorView& x) {
  ExprNode n;
  n.kind = NodeKind::input;
  n.view = x;
  node_ = std::make_shared<const ExprNode>(std::move(n));
}
Expr::Expr(const Tensor& x) : Expr(x.view()) {}

Expr named_input(const TensorView& view, std::string name) {
  ExprNode n;
  n.kind = NodeKind::input;
  n.view = view;
  n.name = std::move(name);
  return make(std::move(n));
}
Expr call_of(Op op, const Expr& a, const Expr& b) {
  ExprNode n = *expr::apply(op, a, b).node();
  n.named_call = true;
  return make(std::move(n));
}
std::int64_t ExprOperand::checked(std::int64_t value, bool too_large) {
  if (too_large) detail::fail(ErrorKind::value, "expression: the integer operand {} does not fit i64", static_cast<std::uint64_t>(value));
  return value;
}

Expr Expr::weak_int(std::int64_t value, bool too_large) {
  if (too_large) detail::fail(ErrorKind::value, "expression: the integer scalar {} does not fit i64", static_cast<std::uint64_t>(value));
  return scalar_node({.kind = ScalarKind::weak_int, .i = value});
}
Expr::Expr(double value) : Expr(scalar_node({.kind = ScalarKind::weak_float, .f = value})) {}
Expr::Expr(std::complex<double> value)
    : Expr(scalar_node({.kind = ScalarKind::weak_complex, .dtype = DType::c128, .f = value.real(), .im = value.imag()})) {}
Expr::Expr(bool value) : Expr(scalar_node({.kind = ScalarKind::strong, .dtype = DType::boolean, .f = value ? 1.0 : 0.0})) {}
Expr Expr::scalar(double value, DType dtype) {
  if (is_integer(dtype) && !(value == std::trunc(value) && holds(dtype, value)))
    detail::fail(ErrorKind::value, "expression: the scalar {} is not a value of {}", value, dtype_name(dtype));
  return scalar_node({.kind = ScalarKind::strong, .dtype = dtype, .f = value});
}
Expr Expr::astype(DType dtype) const { return expr::cast(*this, dtype); }

namespace expr {
Expr apply(Op op, const Expr& a, const Expr& b) {
  return op_node(NodeKind::binary, static_cast<std::uint8_t>(op), {a.node(), b.node()});
}
Expr apply(UnaryOp op, const Expr& x) {
  // -3 is the scalar -3 (as a number literal is), not neg of a weak 3 that
  // would escape NEP 50's range check.
  if (op == UnaryOp::neg && x.node()->kind == NodeKind::scalar && x.node()->scalar.kind != ScalarKind::strong) {
    ScalarValue v = x.node()->scalar;
    if (v.kind == ScalarKind::weak_int && v.i == INT64_MIN)
      detail::fail(ErrorKind::value, "expression: the integer scalar 9223372036854775808 does not fit i64");
    v.i = -v.i;
    v.f = -v.f;
    v.im = -v.im;
    return scalar_node(v);
  }
  return op_node(NodeKind::unary, static_cast<std::uint8_t>(op), {x.node()});
}
Expr apply(TernaryOp op, const Expr& a, const Expr& b, const Expr& c) {
  return op_node(NodeKind::ternary, static_cast<std::uint8_t>(op), {a.node(), b.node(), c.node()});
}
Expr cast(const Expr& x, DType dtype) { return op_node(NodeKind::cast, static_cast<std::uint8_t>(dtype), {x.node()}); }
#define BCAST_EXPR_BINARY_DEF(name) \
  Expr name(const Expr& a, const Expr& b) { return apply(Op::name, a, b); }
BCAST_FOR_EACH_OP(BCAST_EXPR_BINARY_DEF)
#undef BCAST_EXPR_BINARY_DEF
#define BCAST_EXPR_UNARY_DEF(name) \
  Expr name(const Expr& x) { return apply(UnaryOp::name, x); }
BCAST_FOR_EACH_UNARY_OP(BCAST_EXPR_UNARY_DEF)
#undef BCAST_EXPR_UNARY_DEF
Expr where(const Expr& c, const Expr& a, const Expr& b) { return apply(TernaryOp::where, c, a, b); }
Expr clamp(const Expr& x, const Expr& lo, const Expr& hi) { return apply(TernaryOp::clamp, x, lo, hi); }
Expr fma(const Expr& a, const Expr& b, const Expr& c) { return apply(TernaryOp::fma, a, b, c); }
Expr reduce(ReduceOp op, const Expr& x, const Axes& axes, bool keepdims, std::optional<DType> dtype, double ddof) {
  detail::check_ddof(op, ddof);
  Expr r = op_node(NodeKind::reduce, static_cast<std::uint8_t>(op), {x.node()});
  auto n = std::const_pointer_cast<ExprNode>(r.node());  // new, not shared yet
  n->reduce = {axes, keepdims, dtype, ddof};
  return r;
}
// Each reduction by name (amax and amin for max and min: max(a, b) is elementwise).
#define BCAST_EXPR_REDUCE_WITH_DTYPE(name, op)                                            \
  Expr name(const Expr& x, const Axes& axes, bool keepdims, std::optional<DType> dtype) { \
    return reduce(ReduceOp::op, x, axes, keepdims, dtype);                                \
  }
#define BCAST_EXPR_REDUCE_PLAIN(name, op) \
  Expr name(const Expr& x, const Axes& axes, bool keepdims) { return reduce(ReduceOp::op, x, axes, keepdims); }
#define BCAST_EXPR_REDUCE_SPREAD(name)                                                                 \
  Expr name(const Expr& x, const Axes& axes, bool keepdims, double ddof, std::optional<DType> dtype) { \
    return reduce(ReduceOp::name, x, axes, keepdims, dtype, ddof);                                     \
  }
BCAST_EXPR_REDUCE_WITH_DTYPE(sum, sum)
BCAST_EXPR_REDUCE_WITH_DTYPE(prod, prod)
BCAST_EXPR_REDUCE_WITH_DTYPE(mean, mean)
BCAST_EXPR_REDUCE_WITH_DTYPE(nansum, nansum)
BCAST_EXPR_REDUCE_WITH_DTYPE(nanmean, nanmean)
BCAST_EXPR_REDUCE_PLAIN(amin, min)
BCAST_EXPR_REDUCE_PLAIN(amax, max)
BCAST_EXPR_REDUCE_PLAIN(any, any)
BCAST_EXPR_REDUCE_PLAIN(all, all)
BCAST_EXPR_REDUCE_PLAIN(argmin, argmin)
BCAST_EXPR_REDUCE_PLAIN(argmax, argmax)
BCAST_EXPR_REDUCE_PLAIN(nanmin, nanmin)
BCAST_EXPR_REDUCE_PLAIN(nanmax, nanmax)
BCAST_EXPR_REDUCE_SPREAD(var)
BCAST_EXPR_REDUCE_SPREAD(std)
#undef BCAST_EXPR_REDUCE_WITH_DTYPE
#undef BCAST_EXPR_REDUCE_PLAIN
#undef BCAST_EXPR_REDUCE_SPREAD
}  // namespace expr

Expr operator+(const Expr& a, const Expr& b) { return expr::apply(Op::add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return expr::apply(Op::sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return expr::apply(Op::mul, a, b); }
Expr operator/(const Expr& a, const Expr& b) { return expr::apply(Op::div, a, b); }
Expr operator&(const Expr& a, const Expr& b) { return expr::apply(Op::bit_and, a, b); }
Expr operator|(const Expr& a, const Expr& b) { return expr::apply(Op::bit_or, a, b); }
Expr operator^(const Expr& a, const Expr& b) { return expr::apply(Op::bit_xor, a, b); }
Expr operator%(const Expr& a, const Expr& b) { return expr::apply(Op::remainder, a, b); }
Expr operator<<(const Expr& a, const Expr& b) { return expr::apply(Op::left_shift, a, b); }
Expr operator>>(const Expr& a, const Expr& b) { return expr::apply(Op::right_shift, a, b); }
Expr operator-(const Expr& x) { return expr::apply(UnaryOp::neg, x); }
Expr operator~(const Expr& x) { return expr::apply(UnaryOp::bit_not, x); }

// ---- running ----

namespace {

// NOTE: [Expression memo] An Expr is immutable: evaluating the same one again
// (the same root node, so the same views and scalar values) on an out of the
// same layout needs no flattening, lowering, planning or kernel look-up. Each
// thread remembers its last evaluation's call, planned call (NOTE:
// [Dispatch]) and kernel, reused while kernel_stamp() holds; data pointers
// are checked again every time (out's overlap with the inputs).
struct ExprMemo {
  std::weak_ptr<const detail::ExprNode> root;
  std::optional<ExprCall> call;
  Layout out;
  bool out_is_fresh = false;  // out was a new output, laid out by NOTE: [Output order]
  PlannedCall planned;
  ExprKernel kernel;
  KernelStamp stamp;
  bool just_selected = false;

  bool matches(const Expr& e) const {
    return call && !root.expired() && root.lock() == e.node() && stamp == kernel_stamp();
  }
  void run(const TensorView& o) {
    call->validate_out(o, call->inputs());
    // NOTE: [Tiers]: a provisional kernel is asked for again, except by the
    // call that has just selected it.
    if (kernel.provisional() && !just_selected) kernel = select_kernel(*call, planned.plan);
    just_selected = false;
    run_expression(*call, kernel, planned, o, call->inputs());
  }
  // Everything is worked out before anything is kept: a failure leaves the
  // memo as it was.
  void remember(const Expr& e, ExprCall c, const Layout& layout, bool fresh) {
    const KernelStamp now = kernel_stamp();  // read first: an eviction after it shows at the next call
    PlannedCall p = c.planned_for(layout);
    ExprKernel k = select_kernel(c, p.plan);
    stamp = now;
    planned = std::move(p);
    kernel = std::move(k);
    just_selected = true;
    call = std::move(c);
    root = e.node();
    out = layout;
    out_is_fresh = fresh;
  }
};
thread_local ExprMemo t_expr_memo;

}  // namespace

Tensor evaluate(const Expr& e) {
  ExprMemo& memo = t_expr_memo;
  if (std::optional<Tensor> out = evaluate_remembered_passes(e)) return std::move(*out);  // NOTE: [Passes memo]
  if (!memo.matches(e) && has_reductions(e)) {  // NOTE: [Expression passes]
    if (std::optional<Tensor> out = evaluate_in_row_blocks(e)) return std::move(*out);
    if (std::optional<Tensor> out = evaluate_and_remember_passes(e)) return std::move(*out);
    ExprPasses passes = reduction_passes(e, true);
    if (passes.root_is_reduction) return std::move(passes.results.back());
    return evaluate(passes.rest);
  }
  if (memo.matches(e) && memo.out_is_fresh) {
    Tensor out = Tensor::empty(memo.call->program().out_dtype, memo.out);
    memo.run(out);
    return out;
  }
  ExprCall call(e);
  Tensor out = Tensor::empty(call.program().out_dtype, call.new_out_layout());
  memo.remember(e, std::move(call), out.layout(), true);
  memo.run(out);
  return out;
}

void evaluate(const Expr& e, const TensorView& out) {
  ExprMemo& memo = t_expr_memo;
  if (evaluate_remembered_passes(e, out)) return;  // NOTE: [Passes memo]
  if (!memo.matches(e) && has_reductions(e)) {  // NOTE: [Expression passes]
    if (evaluate_in_row_blocks(e, out)) return;
    if (evaluate_and_remember_passes(e, out)) return;
    ExprPasses passes = reduction_passes(e, true);
    evaluate(passes.root_is_reduction ? expr::cast(passes.rest, passes.results.back().dtype()) : passes.rest, out);
    return;
  }
  if (!memo.matches(e) || memo.out != out.layout()) {
    ExprCall call(e);
    call.validate_out(out, call.inputs());
    memo.remember(e, std::move(call), out.layout(), false);
  }
  memo.run(out);
}

ExprInfo describe(const Expr& e) {
  if (!has_reductions(e)) return ExprCall(e).info();
  const ExprPasses passes = reduction_passes(e, false, /*describe=*/true);
  ExprInfo info = ExprCall(passes.rest).info();
  info.passes = passes.described;
  info.passes.push_back("rest = " + info.structure + ": " + std::string(dtype_name(info.out_dtype)) +
                        to_string(info.out_shape));
  if (const std::optional<std::int64_t> rows = row_block_rows(e))
    info.passes.push_back("in blocks of " + std::to_string(*rows) + " rows (NOTE: [Row blocks])");
  return info;
}

// ---- parsing ----

namespace {

// A number of the grammar: an integer (a weak int), a float (a weak float),
// or either followed by j or J (a weak complex, imaginary: 2j, 1.5e3J).
ScalarValue parse_real_number(std::string_view text, std::string_view number, std::size_t at);

ScalarValue parse_number(std::string_view text, std::string_view number, std::size_t at) {
  if (number.size() < 2 || (number.back() != 'j' && number.back() != 'J')) return parse_real_number(text, number, at);
  const ScalarValue part = parse_real_number(text, number.substr(0, number.size() - 1), at);
  const double im = part.kind == ScalarKind::weak_int ? static_cast<double>(part.i) : part.f;
  // -2j is -(2j), as Python reads it: both parts negated, the real one -0.0.
  return {.kind = ScalarKind::weak_complex, .dtype = DType::c128, .f = number.front() == '-' ? -0.0 : 0.0, .im = im};
}

ScalarValue parse_real_number(std::string_view text, std::string_view number, std::size_t at) {
  std::int64_t i = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), i);
  if (ec == std::errc() && end == number.data() + number.size()) return {.kind = ScalarKind::weak_int, .i = i};
  if (ec == std::errc::result_out_of_range)
    detail::fail(ErrorKind::value, "expression \"{}\": at position {}: integer {} does not fit in 64 bits", quoted_expression(text), at,
                 number);
  double f = 0;
  const auto [fend, fec] = std::from_chars(number.data(), number.data() + number.size(), f);
  if (fec != std::errc() || fend != number.data() + number.size())
    detail::fail(ErrorKind::value, "expression \"{}\": at position {}: '{}' is not a number", quoted_expression(text), at,
                 quoted_expression(number));
  return {.kind = ScalarKind::weak_float, .f = f};
}

}  // namespace

Expr parse_expression(std::string_view text, const std::map<std::string, ExprOperand, std::less<>>& operands) {
  // Parse into a graph whose leaves index `leaves`, then rebuild it as an Expr.
  std::vector<Expr> leaves;
  ExprGraph graph;
  const ExprParseHooks hooks{
      .name = [&](ExprGraph& g, std::string_view name, std::size_t at) -> int {
        const auto found = operands.find(name);
        if (found == operands.end()) {
          if (name == "inf" || name == "nan") {
            leaves.push_back(name == "inf" ? Expr(INFINITY) : Expr(NAN));
            return g.scalar(static_cast<int>(leaves.size()) - 1);
          }
          detail::fail(ErrorKind::value, "expression \"{}\": at position {}: no operand named '{}'",
                       quoted_expression(text), at, quoted_expression(name));
        }
        const auto& v = found->second.value();
        Expr leaf = std::visit([](const auto& x) { return Expr(x); }, v);
        ExprNode named = *leaf.node();
        named.name = std::string(name);
        leaves.push_back(make(std::move(named)));
        return g.scalar(static_cast<int>(leaves.size()) - 1);
      },
      .number = [&](ExprGraph& g, std::string_view number, std::size_t at) -> int {
        leaves.push_back(scalar_node(parse_number(text, number, at)));
        return g.scalar(static_cast<int>(leaves.size()) - 1);
      }};
  parse_expression_text(text, graph, hooks);
  std::vector<Expr> built;
  for (const ExprGraphNode& n : graph.nodes()) {
    auto arg = [&](int k) { return built[static_cast<std::size_t>(n.args[k])]; };
    switch (n.kind) {
      case NodeKind::input:
      case NodeKind::scalar: built.push_back(leaves[static_cast<std::size_t>(n.leaf)]); break;
      case NodeKind::cast: built.push_back(expr::cast(arg(0), static_cast<DType>(n.code))); break;
      case NodeKind::unary: built.push_back(expr::apply(static_cast<UnaryOp>(n.code), arg(0))); break;
      case NodeKind::binary: built.push_back(expr::apply(static_cast<Op>(n.code), arg(0), arg(1))); break;
      case NodeKind::ternary:
        built.push_back(expr::apply(static_cast<TernaryOp>(n.code), arg(0), arg(1), arg(2)));
        break;
      case NodeKind::reduce: {
        const ReduceParams& p = graph.params(n);
        built.push_back(expr::reduce(static_cast<ReduceOp>(n.code), arg(0), p.axes, p.keepdims, p.dtype, p.ddof));
        break;
      }
    }
  }
  return built[static_cast<std::size_t>(graph.root)];
}

}  // namespace bcast
