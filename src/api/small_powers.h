// Float powers by a scalar 2 or 3, written as products (NOTE: [Small integer
// powers]).
#pragma once

#include <functional>
#include <optional>

#include "bcast/dtype.h"
#include "bcast/expr.h"

namespace bcast {

namespace detail {
struct ExprNode;
}

// NOTE: [Small integer powers] pow is the slowest function there is, and
// x ** 2 (a variance) and x ** 3 (GELU's tanh form) are the powers models
// write most. Where such a power's loop is a float and its exponent a
// scalar of value 2 or 3 (a Python int or float, or a strong scalar), the
// call computes it as products, as NumPy's `**` does for 2 (np.square) and
// numexpr for small integers:
//  - x ** 2 is x * x: correctly rounded;
//  - x ** 3 in f16, bf16 and f32 is x widened to f64 and cubed there (x * x
//    exact, one rounding), then narrowed: within 0.5 + 2**-29 ULP;
//  - x ** 3 in f64 is x * p + x * e with x * x = p + e exactly (e by an
//    FMA), rounded once by a second FMA: within 0.5 + 2**-50 ULP (below
//    2**-969, where x * e underflows, within 1); where that is not finite
//    (p or x * e overflowed), (x * x) * x's infinity.
// Each is within pow's bound and nearly always its bits. The rewritten
// expression is the call's structure, so its kernel is keyed on the products
// and serves every such power; what messages quote stays what the caller
// wrote. Integer powers are exact already, and NumPy's complex power
// multiplies on its own terms: both stay pow.

// A pow node's loop dtype in the call being built, and its base's dtype
// before conversion, if the node is a pow.
struct PowTypes {
  DType loop, base;
};
using PowLoop = std::function<std::optional<PowTypes>(const detail::ExprNode*)>;

// `e`, whose graph has `nodes` nodes, with each such power written as
// products; none when it has none.
std::optional<Expr> with_small_powers(const Expr& e, int nodes, const PowLoop& loop_of);

}  // namespace bcast
