// The generator of random_expr.h.
#include "random_expr.h"

#include "oracle_values.h"

#include <fmt/format.h>

#include <algorithm>

#include <gtest/gtest.h>

namespace bcast::test {
namespace {

struct Node {
  Expr expr;
  std::string text;
  OracleExpr oracle;
};

class Generator {
 public:
  Generator(std::mt19937_64& rng, const ExprCaseOptions& o) : rng_(rng), o_(o) {}

  ExprCase run() {
    // A full shape, then each input a trailing part of it with some extents 1
    // and a random view layout (some broadcast to stride 0).
    const Shape full = random_broadcast_shapes(rng_, 4, 6, 3000).out;
    const int n = pick(1, o_.max_inputs);
    ExprCase c{.inputs = {}, .expr = Expr(0), .text = ""};
    for (int k = 0; k < n; ++k) {
      const int r = pick(0, static_cast<int>(full.size()));
      Shape s(full.end() - r, full.end());
      for (std::int64_t& e : s)
        if (pick(0, 99) < 30) e = 1;
      const DType d = o_.dtypes[static_cast<std::size_t>(pick(0, static_cast<int>(o_.dtypes.size()) - 1))];
      RandomView v = random_view(d, s, rng_, o_.strange_views);
      if (pick(0, 9) == 0 && !s.empty()) {  // a stride-0 view of one row
        Shape one = s;
        one.back() = 1;
        RandomView row = random_view(d, one, rng_);
        fill_random(row.view, rng_);
        v.view = broadcast_to(row.view, s);
        v.parent = std::move(row.parent);
      } else {
        fill_random(v.view, rng_);
      }
      c.inputs.push_back(std::move(v));
    }
    inputs_ = &c.inputs;
    used_.assign(c.inputs.size(), false);
    Node root = node(0);
    // Every input takes part: fold the unused ones in with an add.
    for (std::size_t k = 0; k < c.inputs.size(); ++k)
      if (!used_[k]) {
        const Node x = leaf(static_cast<int>(k));
        root = {root.expr + x.expr, "(" + root.text + ")+x" + std::to_string(k),
                oracle_expr::apply(Op::add, root.oracle, x.oracle)};
      }
    c.expr = root.expr;
    c.text = root.text;
    c.oracle = root.oracle;
    return c;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Node leaf(int k) {
    used_[static_cast<std::size_t>(k)] = true;
    const TensorView& v = (*inputs_)[static_cast<std::size_t>(k)].view;
    return {Expr(v), "x" + std::to_string(k), oracle_expr::input(k)};
  }

  Node scalar() {
    if (pick(0, 1) == 0) {
      const int i = pick(0, 5);
      return {Expr(i), std::to_string(i), oracle_expr::weak(std::int64_t{i})};
    }
    const double f = pick(-8, 8) / 4.0;
    return {Expr(f), fmt::format("{:.2f}", f), oracle_expr::weak(f)};
  }

  Node node(int depth) {
    int choice = depth >= o_.max_depth ? 0 : pick(0, 9);
    // A kind of node the options leave out is a binary op instead.
    if ((choice >= 6 && choice <= 7 && !o_.unary) || (choice == 8 && !o_.casts) || (choice == 9 && !o_.ternary))
      choice = 2;
    if (choice <= 1) {
      if (pick(0, 4) == 0 && depth > 0) return scalar();
      return leaf(pick(0, static_cast<int>(inputs_->size()) - 1));
    }
    if (choice <= 5) return binary(depth);
    if (choice <= 7) return unary(depth);
    if (choice == 8) return cast(depth);
    const TernaryOp op = static_cast<TernaryOp>(pick(0, o_.fma ? 2 : 1));
    const Node a = node(depth + 1), b = node(depth + 1), c = node(depth + 1);
    return {expr::apply(op, a.expr, b.expr, c.expr),
            std::string(ternary_name(op)) + "(" + a.text + "," + b.text + "," + c.text + ")",
            oracle_expr::apply(op, a.oracle, b.oracle, c.oracle)};
  }

  Node binary(int depth) {
    // Exact ops, then the comparisons and logical ops, then the inexact functions.
    static constexpr Op kOps[] = {Op::add,         Op::sub,        Op::mul,       Op::div,        Op::floor_div,
                                  Op::max,         Op::min,        Op::bit_and,   Op::bit_xor,    Op::remainder,
                                  Op::fmod,        Op::fmax,       Op::fmin,      Op::copysign,   Op::left_shift,
                                  Op::right_shift, Op::heaviside,  Op::eq,        Op::lt,         Op::ge,
                                  Op::logical_and, Op::logical_xor, Op::pow,      Op::arctan2,    Op::hypot,
                                  Op::logaddexp};
    constexpr int kFirstComparison = 17, kFirstInexact = 22, kLast = 25;
    static constexpr Op kComplexOps[] = {Op::add, Op::sub,         Op::mul,         Op::div, Op::max, Op::min,
                                         Op::fmax, Op::fmin,       Op::eq,          Op::lt,  Op::ge,  Op::logical_and,
                                         Op::logical_xor, Op::pow};
    int k = pick(0, o_.transcendental ? kLast : kFirstInexact - 1);
    if (!o_.comparisons && k >= kFirstComparison && k < kFirstInexact) k = pick(0, kFirstComparison - 1);
    const Op op = o_.complex_ops ? kComplexOps[pick(0, static_cast<int>(std::size(kComplexOps)) - 1)] : kOps[k];
    const Node a = node(depth + 1);
    Node b = node(depth + 1);
    // NOTE: [Negative integer exponents]: a call refuses an integer power
    // whose exponent has a negative element, a leaf or computed; here the
    // exponent is computed and never negative, where(b < 0, 0, b).
    if (op == Op::pow) {
      const Node negative{expr::apply(Op::lt, b.expr, Expr(0)), "lt(" + b.text + ",0)",
                          oracle_expr::apply(Op::lt, b.oracle, oracle_expr::weak(std::int64_t{0}))};
      b = {expr::where(negative.expr, Expr(0), b.expr), "where(" + negative.text + ",0," + b.text + ")",
           oracle_expr::apply(TernaryOp::where, negative.oracle, oracle_expr::weak(std::int64_t{0}), b.oracle)};
    }
    const std::string name(op_name(op));
    return {expr::apply(op, a.expr, b.expr), name + "(" + a.text + "," + b.text + ")",
            oracle_expr::apply(op, a.oracle, b.oracle)};
  }

  Node unary(int depth) {
    static constexpr UnaryOp kExact[] = {UnaryOp::neg,    UnaryOp::abs,      UnaryOp::floor,      UnaryOp::ceil,
                                         UnaryOp::round,  UnaryOp::logical_not, UnaryOp::bit_not, UnaryOp::sign,
                                         UnaryOp::square, UnaryOp::trunc,    UnaryOp::reciprocal, UnaryOp::isnan,
                                         UnaryOp::signbit, UnaryOp::spacing, UnaryOp::real, UnaryOp::imag};
    static constexpr UnaryOp kFunctions[] = {UnaryOp::sqrt,  UnaryOp::exp,    UnaryOp::log,   UnaryOp::sin,
                                             UnaryOp::cos,   UnaryOp::tanh,   UnaryOp::sigmoid, UnaryOp::tan,
                                             UnaryOp::arctan, UnaryOp::expm1, UnaryOp::log1p, UnaryOp::cbrt};
    static constexpr UnaryOp kComplexExact[] = {UnaryOp::neg,  UnaryOp::abs,    UnaryOp::round,
                                                UnaryOp::logical_not, UnaryOp::sign, UnaryOp::square,
                                                UnaryOp::reciprocal,  UnaryOp::isnan, UnaryOp::real,
                                                UnaryOp::imag, UnaryOp::conj, UnaryOp::isinf};
    const bool function = o_.transcendental && pick(0, 2) == 0;
    const UnaryOp op = function         ? kFunctions[pick(0, static_cast<int>(std::size(kFunctions)) - 1)]
                       : o_.complex_ops ? kComplexExact[pick(0, static_cast<int>(std::size(kComplexExact)) - 1)]
                                        : kExact[pick(0, static_cast<int>(std::size(kExact)) - 1)];
    const Node x = node(depth + 1);
    return {expr::apply(op, x.expr), std::string(unary_name(op)) + "(" + x.text + ")", oracle_expr::apply(op, x.oracle)};
  }

  Node cast(int depth) {
    DType to = static_cast<DType>(pick(0, kNumDTypes - 1));
    const std::vector<DType>& allowed = o_.dtypes;
    if (std::find(allowed.begin(), allowed.end(), to) == allowed.end()) to = allowed.front();
    const Node x = node(depth + 1);
    if (!o_.float_to_unsigned && is_unsigned(to)) to = DType::i32;
    return {expr::cast(x.expr, to), std::string(dtype_name(to)) + "(" + x.text + ")", oracle_expr::cast(x.oracle, to)};
  }

  std::mt19937_64& rng_;
  const ExprCaseOptions& o_;
  const std::vector<RandomView>* inputs_ = nullptr;
  std::vector<bool> used_;
};

}  // namespace

std::vector<TensorView> ExprCase::views() const {
  std::vector<TensorView> v;
  for (const RandomView& r : inputs) v.push_back(r.view);
  return v;
}

ExprCase random_expr_case(std::mt19937_64& rng, const ExprCaseOptions& options) {
  for (;;) {
    ExprCase c = Generator(rng, options).run();
    std::vector<DType> dtypes;
    for (const RandomView& r : c.inputs) dtypes.push_back(r.view.dtype());
    const OracleTyping typing = oracle_type(c.oracle, dtypes);
    try {
      const ExprInfo info = describe(c.expr);
      EXPECT_FALSE(typing.refused) << c.text << ": bcast takes it, the oracle refuses it: " << typing.why;
      EXPECT_EQ(info.out_dtype, typing.dtype) << c.text << ": the result dtype";
      if (!typing.refused && info.out_dtype == typing.dtype) return c;
    } catch (const Error& e) {
      // A dtype error (sub on bool, bit_and on floats, ...) or a weak scalar
      // out of range draws again; the oracle must refuse it the same way.
      if (e.kind() != ErrorKind::dtype && e.kind() != ErrorKind::value) throw;
      EXPECT_TRUE(typing.refused) << c.text << ": bcast refuses it (" << e.what() << "), the oracle gives "
                                  << dtype_name(typing.dtype);
      if (typing.refused) {
        EXPECT_EQ(typing.refusal, e.kind()) << c.text << ": " << e.what() << " / " << typing.why;
      }
    }
  }
}

}  // namespace bcast::test
