// The complex functions as recipes over lanes (NOTE: [Complex math]).
// LLVM-free.
#pragma once

#include "bcast/expr.h"

#include "f64_math.h"

namespace bcast::math::recipes {

// NOTE: [Complex math] exp, log, sqrt, sin, cos, sinh and cosh of c64 and
// c128 (and exp2, log2 and log10, NumPy's scalings of exp and log) are
// recipes over a complex number's two parts, so that they run in both tiers
// as NOTE: [Math recipes]' real ones do: a template, instantiated on the
// reference evaluator's doubles (exec/complex_functions.cpp, built with
// -ffp-contract=off) and on the JIT's vector lanes (jit/ir/ir_complex.cpp),
// so a kernel's bits are the reference's by construction.
//  - They compute in f64: a c64's parts are widened and the results rounded
//    once to f32 (a c64 within 0.5 ULP plus a hair per part); a c128 takes
//    its parts' f64 as they are.
//  - The real functions they call (cos, atan2, log1p, ...) are the tier's
//    own, `R`'s members: the same functions the real kernels call (NOTE:
//    [Vector math], NOTE: [Math recipes]), so the two tiers agree there too.
//  - Where a part is a product that can overflow or underflow while the
//    true part is finite (exp's e**x cos y, sinh's e**|x| / 2 sin y), the
//    factor 2**n is applied after the product (exp_f64_parts).
//  - log's real part near the unit circle is log1p(x**2 + y**2 - 1) / 2,
//    the sum carried in two doubles (x**2 and y**2 exact by FMA).
//  - C99 Annex G's special values, as NumPy's (the C library's) give them,
//    are selects after the arithmetic; tests/python/test_functions_vs_numpy.py
//    checks every pairing of special parts against NumPy, and
//    tests/python/test_math_vs_mpmath.py each part's ULPs against mpmath.
// tan, tanh, the inverse functions, expm1, log1p and ** of a complex number
// are the C library's, on the reference executor (docs/semantics.md).

template <class F>
struct Parts {
  F re;
  F im;
};

// Whether `u` has a recipe here for complex arguments.
constexpr bool has_complex_recipe(UnaryOp u) {
  switch (u) {
    case UnaryOp::exp: case UnaryOp::exp2: case UnaryOp::log: case UnaryOp::log2: case UnaryOp::log10:
    case UnaryOp::sqrt: case UnaryOp::sin: case UnaryOp::cos: case UnaryOp::sinh: case UnaryOp::cosh:
      return true;
    default: return false;
  }
}

inline constexpr double kLn2 = 0x1.62e42fefa39efp-1;  // exp2 z = exp(z ln 2); kLog2e and kLog10e are f64_math.h's

// p * 2**n for an integer n in [-2044, 2046]: times_pow2_f64's halves cover
// twice the normal exponents, so 2**2046 * a product below 1 stays finite.
template <class F>
Parts<F> scaled_by_pow2(F p_re, F p_im, F n) {
  const Pow2Halves<F> s = pow2_halves(n);
  return {(p_re * s.first) * s.second, (p_im * s.first) * s.second};
}

// e**x (c, s) with the 2**n of e**x applied last: finite wherever the true
// parts are, for x up to 1419 (n 2047; beyond, e**x times the smallest
// subnormal, 2**-1074, still overflows but for x in (1419, 1454]). `half`
// makes it e**x / 2 (sinh's and cosh's large x).
template <class F>
Parts<F> exp_times(F x, F c, F s, double half) {
  const ExpF64<F> e = exp_f64_parts(clamped(x, -1400.0, 1418.0));
  F m = exp_f64_mantissa(e);
  return scaled_by_pow2(m * c, m * s, e.n - splat(x, half));
}

// exp(x + iy) = e**x (cos y + i sin y). C99 G.6.3.1: y = 0 keeps y
// (exp(inf + 0i) = inf + 0i); x = inf gives infinite parts of cos y's and
// sin y's signs, and (inf, NaN) for y infinite or NaN; x = -inf gives
// zeros, (0, +-0) for y infinite or NaN.
template <class R, class F>
Parts<F> exp(Parts<F> z) {
  F x = z.re, y = z.im;
  F c = R::cos(y), s = R::sin(y);
  Parts<F> r = exp_times(x, c, s, 0.0);
  F inf = splat(x, kInf), zero = splat(x, 0.0), nan = splat(x, kNaN);
  auto y_finite = fabs(y) < inf;
  auto x_inf = x == kInf;
  r.re = select(x_inf, select(y_finite, copysign(inf, c), inf), r.re);
  r.im = select(x_inf, select(y_finite, copysign(inf, s), nan), r.im);
  auto x_minus_inf = x == -kInf;
  r.re = select(x_minus_inf && !y_finite, zero, r.re);
  r.im = select(x_minus_inf && !y_finite, copysign(zero, y), r.im);
  return {r.re, select(y == 0.0, y, r.im)};  // cos 0 is 1: the real part is e**x
}

// log(x + iy) = log |z| + i atan2(y, x). |z| in [1/2, 2]: log1p of
// x**2 + y**2 - 1 (the squares split exactly by FMA, the sum carried with
// its errors), halved; elsewhere log(hypot(x, y)), whose rounding costs at
// most 0.73 ULP there. An infinite part gives +inf, whatever the other
// (C99 G.6.3.2); a NaN one NaN.
template <class R, class F>
Parts<F> log(Parts<F> z) {
  F ax = fabs(z.re), ay = fabs(z.im);
  auto y_larger = ax < ay;
  F big = select(y_larger, ay, ax), small = select(y_larger, ax, ay);
  F p = big * big, q = small * small;
  F p_error = fma(big, big, -p), q_error = fma(small, small, -q);
  const TwoSum<F> a = two_sum(p, splat(p, -1.0));
  const TwoSum<F> b = two_sum(a.sum, q);
  const TwoSum<F> c = two_sum(p_error, q_error);
  const TwoSum<F> d = two_sum(b.sum, c.sum);
  F near = R::log1p(d.sum + ((d.error + b.error) + (c.error + a.error))) * 0.5;
  F far = R::log(R::hypot(ax, ay));
  F squares = p + q;
  auto near_one = squares >= splat(p, 0.25) && squares <= splat(p, 4.0);
  F re = select(near_one, near, far);
  F inf = splat(ax, kInf);
  re = select(ax == inf || ay == inf, inf, re);
  return {re, R::atan2(z.im, z.re)};
}

// sqrt(x + iy) (Kahan's): t = sqrt((|x| + |z|) / 2), then (t, y / 2t) for
// x >= 0 and (|y| / 2t, t with y's sign) for x < 0, on z scaled by 4**k
// (huge parts: |x| + |z| would overflow; tiny ones: y / 2t would lose
// bits) and scaled back by 2**-k. sqrt(+-0 + yi) = (0, y) for y zero; y
// infinite gives (inf, y) whatever x (C99 G.6.4.2).
template <class R, class F>
Parts<F> sqrt(Parts<F> z) {
  F x = z.re, y = z.im;
  F ax = fabs(x), ay = fabs(y);
  F big = select(ax < ay, ay, ax);
  auto huge = big > splat(x, 0x1p1020), tiny = big < splat(x, 0x1p-1020);
  F one = splat(x, 1.0);
  F scale = select(huge, splat(x, 0x1p-4), select(tiny, splat(x, 0x1p108), one));
  F back = select(huge, splat(x, 0x1p2), select(tiny, splat(x, 0x1p-54), one));
  F xs = ax * scale, ys = y * scale;
  F t = sqrt((xs + R::hypot(xs, ys)) * 0.5);
  F other = (fabs(ys) / (t + t)) * back;
  t = t * back;
  auto negative = x < 0.0;
  F re = select(negative, other, t);
  F im = select(negative, copysign(t, y), copysign(other, y));
  auto zero = x == 0.0 && y == 0.0;
  re = select(zero, splat(x, 0.0), re);
  im = select(zero, y, im);
  auto y_inf = ay == kInf;
  return {select(y_inf, splat(x, kInf), re), select(y_inf, y, im)};
}

// (sinh x * c, cosh x * s): for |x| > 20, e**|x| / 2 for both (e**-|x| is
// under 2**-57 of it), its 2**n applied last; else the real sinh and cosh.
// The products' special values are the callers'.
template <class R, class F>
Parts<F> hyperbolic_times(F x, F c, F s) {
  Parts<F> large = exp_times(fabs(x), c, s, 1.0);
  auto is_large = fabs(x) > splat(x, 20.0);
  return {select(is_large, copysign(splat(x, 1.0), x) * large.re, R::sinh(x) * c),
          select(is_large, large.im, R::cosh(x) * s)};
}

// sinh(x + iy) = sinh x cos y + i cosh x sin y, and C99 G.6.2.5's special
// values: y = 0 gives (sinh x, y); x = 0 with y infinite or NaN (x, NaN);
// x infinite with y infinite or NaN (inf, NaN), with y finite infinities of
// x's and cos y's signs and of sin y's.
template <class R, class F>
Parts<F> sinh(Parts<F> z) {
  F x = z.re, y = z.im;
  F c = R::cos(y), s = R::sin(y);
  Parts<F> r = hyperbolic_times<R>(x, c, s);
  F inf = splat(x, kInf), nan = splat(x, kNaN);
  auto y_finite = fabs(y) < inf, x_inf = fabs(x) == inf;
  r.re = select(x_inf, select(y_finite, copysign(inf, x) * copysign(splat(x, 1.0), c), inf), r.re);
  r.im = select(x_inf, select(y_finite, copysign(inf, s), nan), r.im);
  r.re = select(x == 0.0 && !y_finite, x, r.re);
  return {r.re, select(y == 0.0, y, r.im)};  // cos 0 is 1: the real part is sinh x
}

// cosh(x + iy) = cosh x cos y + i sinh x sin y, and C99 G.6.2.4's special
// values: y = 0 gives (cosh x, x's sign times y: y for NaN x); x = 0 with
// y infinite or NaN (NaN, 0); x infinite with y infinite or NaN (inf, NaN),
// with y finite infinities of cos y's sign and of x's and sin y's.
template <class R, class F>
Parts<F> cosh(Parts<F> z) {
  F x = z.re, y = z.im;
  F c = R::cos(y), s = R::sin(y);
  const Parts<F> h = hyperbolic_times<R>(x, s, c);  // (sinh x sin y, cosh x cos y)
  Parts<F> r{h.im, h.re};
  F inf = splat(x, kInf), nan = splat(x, kNaN), zero = splat(x, 0.0);
  auto y_finite = fabs(y) < inf, x_inf = fabs(x) == inf;
  r.re = select(x_inf, select(y_finite, copysign(inf, c), inf), r.re);
  r.im = select(x_inf, select(y_finite, copysign(inf, x) * copysign(splat(x, 1.0), s), nan), r.im);
  r.re = select(x == 0.0 && !y_finite, nan, r.re);
  r.im = select(x == 0.0 && !y_finite, zero, r.im);
  F y_signed = select(x != x, y, copysign(splat(x, 1.0), x) * y);
  return {r.re, select(y == 0.0, y_signed, r.im)};  // cos 0 is 1: the real part is cosh x
}

// sin z = -i sinh(iz) and cos z = cosh(iz), iz = -y + ix; where sinh's
// sign is C99's to choose (x not finite, y infinite) sin's imaginary part
// is +inf, as the C library's.
template <class R, class F>
Parts<F> sin(Parts<F> z) {
  const Parts<F> h = sinh<R>(Parts<F>{-z.im, z.re});
  F inf = splat(z.re, kInf);
  return {h.im, select(!(fabs(z.re) < inf) && fabs(z.im) == inf, inf, -h.re)};
}
template <class R, class F>
Parts<F> cos(Parts<F> z) {
  return cosh<R>(Parts<F>{-z.im, z.re});
}

// NumPy's exp2, log2 and log10 of a complex number: exp(z ln 2), and log's
// parts times log2(e) or log10(e).
template <class F>
Parts<F> times(Parts<F> z, double k) {
  return {z.re * splat(z.re, k), z.im * splat(z.re, k)};
}

// The recipe of `u` (has_complex_recipe) on z's parts, in f64.
template <UnaryOp U, class R, class F>
Parts<F> run_complex(Parts<F> z) {
  if constexpr (U == UnaryOp::exp) return exp<R>(z);
  else if constexpr (U == UnaryOp::exp2) return exp<R>(times(z, kLn2));
  else if constexpr (U == UnaryOp::log) return log<R>(z);
  else if constexpr (U == UnaryOp::log2) return times(log<R>(z), kLog2e);
  else if constexpr (U == UnaryOp::log10) return times(log<R>(z), kLog10e);
  else if constexpr (U == UnaryOp::sqrt) return sqrt<R>(z);
  else if constexpr (U == UnaryOp::sin) return sin<R>(z);
  else if constexpr (U == UnaryOp::cos) return cos<R>(z);
  else if constexpr (U == UnaryOp::sinh) return sinh<R>(z);
  else {
    static_assert(U == UnaryOp::cosh, "a unary op without a complex recipe (has_complex_recipe)");
    return cosh<R>(z);
  }
}

}  // namespace bcast::math::recipes
