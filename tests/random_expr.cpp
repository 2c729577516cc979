// The generator of random_expr.h.
#include "random_expr.h"

#include <fmt/format.h>

#include <algorithm>

namespace bcast::test {
namespace {

struct Node {
  Expr expr;
  std::string text;
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
      RandomView v = random_view(d, s, rng_);
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
      if (!used_[k]) root = {root.expr + leaf(static_cast<int>(k)).expr, "(" + root.text + ")+x" + std::to_string(k)};
    c.expr = root.expr;
    c.text = root.text;
    return c;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Node leaf(int k) {
    used_[static_cast<std::size_t>(k)] = true;
    const TensorView& v = (*inputs_)[static_cast<std::size_t>(k)].view;
    return {Expr(v), "x" + std::to_string(k)};
  }

  Node scalar() {
    if (pick(0, 1) == 0) {
      const int i = pick(0, 5);
      return {Expr(i), std::to_string(i)};
    }
    const double f = pick(-8, 8) / 4.0;
    return {Expr(f), fmt::format("{:.2f}", f)};
  }

  Node node(int depth) {
    const int choice = depth >= o_.max_depth ? 0 : pick(0, 9);
    if (choice <= 1) {
      if (pick(0, 4) == 0 && depth > 0) return scalar();
      return leaf(pick(0, static_cast<int>(inputs_->size()) - 1));
    }
    if (choice <= 5) {  // binary
      static constexpr Op kOps[] = {Op::add, Op::sub, Op::mul, Op::div, Op::floor_div, Op::max, Op::min,
                                    Op::eq,  Op::lt,  Op::ge,  Op::logical_and, Op::logical_xor, Op::bit_and,
                                    Op::bit_xor, Op::pow};
      Op op = kOps[pick(0, o_.transcendental ? 14 : 13)];
      const Node a = node(depth + 1), b = node(depth + 1);
      const std::string name(op_name(op));
      return {expr::apply(op, a.expr, b.expr), name + "(" + a.text + "," + b.text + ")"};
    }
    if (choice <= 7) {  // unary
      static constexpr UnaryOp kExact[] = {UnaryOp::neg, UnaryOp::abs, UnaryOp::floor, UnaryOp::ceil, UnaryOp::round,
                                           UnaryOp::logical_not, UnaryOp::bit_not};
      static constexpr UnaryOp kFunctions[] = {UnaryOp::sqrt, UnaryOp::exp, UnaryOp::log, UnaryOp::sin,
                                               UnaryOp::cos, UnaryOp::tanh, UnaryOp::sigmoid};
      const bool function = o_.transcendental && pick(0, 2) == 0;
      const UnaryOp op = function ? kFunctions[pick(0, 6)] : kExact[pick(0, 6)];
      const Node x = node(depth + 1);
      return {expr::apply(op, x.expr), std::string(unary_name(op)) + "(" + x.text + ")"};
    }
    if (choice == 8) {  // cast
      DType to = static_cast<DType>(pick(0, kNumDTypes - 1));
      const std::vector<DType>& allowed = o_.dtypes;
      if (std::find(allowed.begin(), allowed.end(), to) == allowed.end()) to = allowed.front();
      const Node x = node(depth + 1);
      if (!o_.float_to_unsigned && is_unsigned(to)) to = DType::i32;
      return {expr::cast(x.expr, to), std::string(dtype_name(to)) + "(" + x.text + ")"};
    }
    const TernaryOp op = static_cast<TernaryOp>(pick(0, o_.fma ? 2 : 1));
    const Node a = node(depth + 1), b = node(depth + 1), c = node(depth + 1);
    return {expr::apply(op, a.expr, b.expr, c.expr),
            std::string(ternary_name(op)) + "(" + a.text + "," + b.text + "," + c.text + ")"};
  }

  std::mt19937_64& rng_;
  const ExprCaseOptions& o_;
  const std::vector<RandomView>* inputs_ = nullptr;
  std::vector<bool> used_;
};

}  // namespace

ExprCase random_expr_case(std::mt19937_64& rng, const ExprCaseOptions& options) {
  for (;;) {
    ExprCase c = Generator(rng, options).run();
    try {
      describe(c.expr);  // lowers: a dtype error (sub on bool, bit_and on floats, ...) draws again
      return c;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::dtype && e.kind() != ErrorKind::value) throw;
    }
  }
}

}  // namespace bcast::test
