// Expressions: chains of elementwise ops over broadcasting tensors and
// scalars, run as one fused kernel (one trip through memory).
//
//   Expr e = (x - mean) / stdev * gamma + beta;
//   Tensor y = evaluate(e);
//   evaluate(e, out);
//   PreparedExpr p = prepare(e);   // shapes fixed; only data pointers change
//   Expr s = parse_expression("(x - m) / s", {{"x", x}, {"m", m}, {"s", s}});
//
// Semantics are NumPy 2's (NEP 50), node by node: operands promote by
// np.result_type, Python-like scalars are weak (an f32 array times 2.5 stays
// f32; a u8 array plus 300 is an Error(value)), and f16 and bf16 round after
// every node, so a chain gives the bits NumPy's chain gives. docs/semantics.md,
// "Expressions", has the tables.
#pragma once

#include <complex>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bcast/ops.h"
#include "bcast/reduce.h"
#include "bcast/tensor.h"

namespace bcast {

// X(name): every unary op, in the order of enum UnaryOp.
#define BCAST_FOR_EACH_UNARY_OP(X) \
  X(neg) X(abs) X(sqrt) X(exp) X(log) X(sin) X(cos) X(tanh) X(sigmoid) X(floor) X(ceil) X(round) X(logical_not) \
  X(bit_not) X(positive) X(square) X(reciprocal) X(sign) X(trunc) X(fabs) X(conj) X(copy) X(ones_like) X(tan)     \
  X(arcsin) X(arccos) X(arctan) X(sinh) X(cosh) X(arcsinh) X(arccosh) X(arctanh) X(exp2) X(expm1) X(log2)        \
  X(log10) X(log1p) X(cbrt) X(deg2rad) X(rad2deg) X(spacing) X(isnan) X(isinf) X(isfinite) X(signbit) X(real) X(imag)

enum class UnaryOp : std::uint8_t {
#define BCAST_UNARY_ENUM(name) name,
  BCAST_FOR_EACH_UNARY_OP(BCAST_UNARY_ENUM)
#undef BCAST_UNARY_ENUM
};
inline constexpr int kNumUnaryOps = 47;

// where(c, a, b): a where c is true, else b; clamp(x, lo, hi): min(max(x, lo), hi);
// fma(a, b, c): a * b + c rounded once (integers wrap).
enum class TernaryOp : std::uint8_t { where, clamp, fma };
inline constexpr int kNumTernaryOps = 3;

// NOTE: [Expression limits] What an expression may be, so that no input can
// exhaust a thread's stack or stall a call (each an Error(value) naming the
// limit). Depth is the nesting of operations: of the graph (x+x+...+x with
// 300 terms nests 299 deep; shared subexpressions count once) and of the
// text (parentheses, calls, unary operators); Python's own parser allows 200
// nested parentheses. The deepest expression parses, prints, lowers and runs
// on a thread with a 256 KiB stack (tests/test_expr_limits.cpp).
inline constexpr int kMaxExpressionDepth = 256;
inline constexpr int kMaxExpressionNodes = 10'000;               // distinct operations and leaves
inline constexpr std::size_t kMaxExpressionTextBytes = 1 << 20;  // text given to the parser

std::string_view unary_name(UnaryOp op);
std::optional<UnaryOp> parse_unary(std::string_view name);
std::string_view ternary_name(TernaryOp op);
std::optional<TernaryOp> parse_ternary(std::string_view name);

namespace detail {
struct ExprNode;
}

// A node of an expression tree: a tensor (a view; its memory must outlive
// every evaluation), a scalar, or an op on nodes. Copies share nodes; a node
// that appears twice is evaluated once.
class Expr {
 public:
  Expr(const TensorView& x);  // NOLINT: tensors and numbers are expressions
  Expr(const Tensor& x);      // NOLINT: a view of x
  Expr(Tensor&&) = delete;    // a view of a temporary would dangle: name the tensor
  // Weak scalars (NEP 50): they take the dtype of the operand they meet. An
  // integer must fit i64 (an Error(value) otherwise).
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Expr(T value)  // NOLINT
      : Expr(weak_int(static_cast<std::int64_t>(value),
                      std::is_unsigned_v<T> && static_cast<std::uint64_t>(value) > INT64_MAX)) {}
  Expr(double value);                // NOLINT
  Expr(std::complex<double> value);  // NOLINT: a weak complex, as Python's 2+3j
  // A strong scalar: a 0-d value of `dtype` (a Python bool is one of bool).
  static Expr scalar(double value, DType dtype);
  Expr(bool value);  // NOLINT: a strong bool

  // NumPy's astype: C casts, but float to integer saturates and NaN gives 0
  // (NOTE: [Float to integer] in docs/semantics.md, Expressions).
  Expr astype(DType dtype) const;

  const std::shared_ptr<const detail::ExprNode>& node() const { return node_; }
  explicit Expr(std::shared_ptr<const detail::ExprNode> node) : node_(std::move(node)) {}

 private:
  static Expr weak_int(std::int64_t value, bool too_large);
  std::shared_ptr<const detail::ExprNode> node_;
};

// The binary ops as operators (comparisons are the functions in bcast::expr,
// so that Expr keeps its value semantics).
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);  // true division
Expr operator&(const Expr& a, const Expr& b);
Expr operator|(const Expr& a, const Expr& b);
Expr operator^(const Expr& a, const Expr& b);
Expr operator%(const Expr& a, const Expr& b);   // remainder: the sign of b, as Python's
Expr operator<<(const Expr& a, const Expr& b);  // left_shift
Expr operator>>(const Expr& a, const Expr& b);  // right_shift
Expr operator-(const Expr& x);  // neg
Expr operator~(const Expr& x);  // bit_not

// Every node as a function. A separate namespace: bcast::max(a, b) and the
// other ops on two views already run at once and return a Tensor.
//   using namespace bcast::expr;  Expr r = max(x + b + y, 0);
namespace expr {
Expr apply(Op op, const Expr& a, const Expr& b);
Expr apply(UnaryOp op, const Expr& x);
Expr apply(TernaryOp op, const Expr& a, const Expr& b, const Expr& c);
Expr cast(const Expr& x, DType dtype);
#define BCAST_EXPR_BINARY_DECL(name) Expr name(const Expr& a, const Expr& b);
BCAST_FOR_EACH_OP(BCAST_EXPR_BINARY_DECL)
#undef BCAST_EXPR_BINARY_DECL
#define BCAST_EXPR_UNARY_DECL(name) Expr name(const Expr& x);
BCAST_FOR_EACH_UNARY_OP(BCAST_EXPR_UNARY_DECL)
#undef BCAST_EXPR_UNARY_DECL
Expr where(const Expr& c, const Expr& a, const Expr& b);
Expr clamp(const Expr& x, const Expr& lo, const Expr& hi);
Expr fma(const Expr& a, const Expr& b, const Expr& c);
// Reductions inside an expression (bcast/reduce.h's semantics), nested
// anywhere: (x - mean(x, -1, true)) / s, exp(x - amax(x, -1, true)). Each
// runs as a pass before the elementwise rest reads its result (NOTE:
// [Expression passes]; describe() lists them). amax and amin are the
// reductions; max(a, b) and min(a, b) stay the elementwise ops.
Expr reduce(ReduceOp op, const Expr& x, const Axes& axes = {}, bool keepdims = false,
            std::optional<DType> dtype = std::nullopt, double ddof = 0);
Expr sum(const Expr& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> dtype = std::nullopt);
Expr prod(const Expr& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> dtype = std::nullopt);
Expr mean(const Expr& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> dtype = std::nullopt);
Expr amax(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr amin(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr any(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr all(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr argmin(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr argmax(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr var(const Expr& x, const Axes& axes = {}, bool keepdims = false, double ddof = 0,
         std::optional<DType> dtype = std::nullopt);
Expr std(const Expr& x, const Axes& axes = {}, bool keepdims = false, double ddof = 0,
         std::optional<DType> dtype = std::nullopt);
Expr nansum(const Expr& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> dtype = std::nullopt);
Expr nanmean(const Expr& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> dtype = std::nullopt);
Expr nanmin(const Expr& x, const Axes& axes = {}, bool keepdims = false);
Expr nanmax(const Expr& x, const Axes& axes = {}, bool keepdims = false);
}  // namespace expr

// Runs the expression into a new dense tensor laid out in its inputs' memory
// order (NumPy's order='K'), of the promoted result dtype.
Tensor evaluate(const Expr& e);
// Writes into `out`, which must have the broadcast shape and the result
// dtype; it may be an input exactly, and any other overlap is an Error(value).
void evaluate(const Expr& e, const TensorView& out);

// What an expression computes and how, without running it.
struct ExprInfo {
  std::string structure;          // "(x0-x1)/x2": inputs x0.., scalars s0.., as the kernel key prints it
  std::vector<DType> in_dtypes;   // of x0, x1, ...
  std::vector<std::string> inputs;  // the names of x0, x1, ...: parse_expression's, else "x0", "x1", ...
  DType out_dtype = DType::f32;
  Shape out_shape;
  std::string broadcast_type;     // "[expand_bc,same]"
  std::string kernel;             // the kernel key, or "reference"
  // With reductions (NOTE: [Expression passes]): one line per pass, in the
  // order they run, each reduction first and the elementwise rest last;
  // `structure` and the fields above then describe the rest.
  std::vector<std::string> passes;
};
ExprInfo describe(const Expr& e);

// An expression with its shapes, dtypes and scalar values fixed: validated,
// planned and given its kernel once. Each run takes new data pointers for
// the inputs, in the order of ExprInfo's x0, x1, ... (views of the prepared
// layouts and dtypes; an Error(value) otherwise), and checks only what
// depends on the data.
class PreparedExpr {
 public:
  void operator()(std::span<const TensorView> inputs, const TensorView& out) const;
  Tensor operator()(std::span<const TensorView> inputs) const;
  // The inputs the expression was made with.
  Tensor operator()() const;
  const ExprInfo& info() const;

  struct Impl;

 private:
  friend PreparedExpr prepare(const Expr& e);
  std::shared_ptr<const Impl> impl_;
};
PreparedExpr prepare(const Expr& e);

// The CLI's grammar (bcast-run -e): names, numbers (weak scalars; 2j and
// 1.5e-3J imaginary), the operators + - * / // % ** << >> == != < <= > >= & |
// ^ ~ and unary - and +, calls of every node by name (max(a, b), where(c, a,
// b), exp(x), ...), dtype names as casts (f32(x)) and NumPy's attributes
// x.real, x.imag and x.conj(). An Error(value) names the position of a syntax error, of
// an unknown name, of a byte outside the grammar (which is ASCII), or of
// NOTE: [Expression limits] exceeded.
// A named operand: a view (or a tensor's), or a number, a weak scalar.
class ExprOperand {
 public:
  ExprOperand(const TensorView& view) : value_(view) {}  // NOLINT
  ExprOperand(const Tensor& tensor) : value_(tensor.view()) {}  // NOLINT
  ExprOperand(Tensor&&) = delete;  // a view of a temporary would dangle
  ExprOperand(double value) : value_(value) {}  // NOLINT
  ExprOperand(std::complex<double> value) : value_(value) {}  // NOLINT: a weak complex
  // An integer must fit i64, as Expr's (an Error(value) otherwise).
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  ExprOperand(T value)  // NOLINT
      : value_(checked(static_cast<std::int64_t>(value),
                       std::is_unsigned_v<T> && static_cast<std::uint64_t>(value) > INT64_MAX)) {}
  const std::variant<TensorView, double, std::int64_t, std::complex<double>>& value() const { return value_; }

 private:
  static std::int64_t checked(std::int64_t value, bool too_large);
  std::variant<TensorView, double, std::int64_t, std::complex<double>> value_;
};
Expr parse_expression(std::string_view text, const std::map<std::string, ExprOperand, std::less<>>& operands);

}  // namespace bcast
