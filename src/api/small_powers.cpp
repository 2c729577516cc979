// NOTE: [Small integer powers]: the rewrite of a tree.
#include "small_powers.h"

#include <algorithm>
#include <map>

#include "expr_call.h"

namespace bcast {
namespace {

using detail::ExprNode;

// 2 or 3 where `n` is pow with a real scalar exponent of that value.
std::optional<int> small_exponent(const ExprNode& n) {
  if (n.kind != NodeKind::binary || static_cast<Op>(n.code) != Op::pow) return std::nullopt;
  const ExprNode& y = *n.args[1];
  if (y.kind != NodeKind::scalar || y.scalar.kind == ScalarKind::weak_complex) return std::nullopt;
  if (y.scalar.kind == ScalarKind::strong && (is_complex(y.scalar.dtype) || y.scalar.dtype == DType::boolean))
    return std::nullopt;
  const double v = y.scalar.kind == ScalarKind::weak_int ? static_cast<double>(y.scalar.i) : y.scalar.f;
  if (v == 2.0) return 2;
  if (v == 3.0) return 3;
  return std::nullopt;
}

// The most nodes and levels products() adds to a tree.
constexpr int kAddedNodes = 8, kAddedLevels = 5;

// base ** power in t.loop, a float dtype.
Expr products(const Expr& base, int power, PowTypes t) {
  const Expr x = t.base == t.loop ? base : expr::cast(base, t.loop);
  if (power == 2) return x * x;
  if (t.loop != DType::f64) {
    const Expr w = expr::cast(x, DType::f64);
    return expr::cast(w * w * w, t.loop);
  }
  const Expr p = x * x;
  const Expr e = expr::fma(x, x, -p);
  const Expr r = expr::fma(x, p, x * e);
  return expr::where(expr::apply(UnaryOp::isfinite, r), r, p * x);  // x * e overflows only where x**3 does
}

}  // namespace

std::optional<Expr> with_small_powers(const Expr& e, int nodes, const PowLoop& loop_of) {
  std::map<const ExprNode*, Expr> done;
  // Within NOTE: [Expression limits]: a power that would take the tree past
  // them stays pow.
  int rewrites = 0;
  auto fits = [&] {
    return e.node()->depth + kAddedLevels * (rewrites + 1) <= kMaxExpressionDepth &&
           nodes + kAddedNodes * (rewrites + 1) <= kMaxExpressionNodes;
  };
  auto rebuild = [&](auto&& self, const Expr& x) -> Expr {
    const ExprNode& n = *x.node();
    if (n.kind == NodeKind::input || n.kind == NodeKind::scalar) return x;
    if (const auto it = done.find(&n); it != done.end()) return it->second;
    Expr r = x;
    const std::optional<int> power = small_exponent(n);
    const std::optional<PowTypes> loop = power ? loop_of(&n) : std::nullopt;
    const Expr base = self(self, Expr(n.args[0]));
    if (loop && is_floating(loop->loop) && fits()) {
      r = products(base, *power, *loop);
      ++rewrites;
    } else {
      ExprNode copy = n;
      bool args_changed = false;
      copy.depth = 1;
      for (auto& arg : copy.args) {
        if (!arg) continue;
        const Expr rebuilt = self(self, Expr(arg));
        args_changed |= rebuilt.node() != arg;
        arg = rebuilt.node();
        copy.depth = std::max(copy.depth, arg->depth + 1);
      }
      if (args_changed) r = Expr(std::make_shared<const ExprNode>(std::move(copy)));
    }
    done.emplace(&n, r);
    return r;
  };
  Expr rewritten = rebuild(rebuild, e);
  if (rewrites == 0) return std::nullopt;
  return rewritten;
}

}  // namespace bcast
