// The complex functions as recipes over lanes (NOTE: [Complex math]).
// LLVM-free.
#pragma once

#include <array>
#include <cmath>

#include "bcast/expr.h"
#include "bcast/ops.h"

#include "f64_math.h"
#include "f64_trig.h"
#include "two_part_math.h"

namespace bcast::math::recipes {

// NOTE: [Complex math] Every unary function NumPy defines on c64 and c128
// (exp, exp2, log, log2, log10, log1p, expm1, sqrt, sin, cos, tan, sinh,
// cosh, tanh and the six inverse functions) is a recipe over a complex
// number's two parts, so that it runs in both tiers as NOTE:
// [Math recipes]' real ones do: a template, instantiated on the reference
// evaluator's doubles (exec/complex_functions.cpp, built with
// -ffp-contract=off) and on the JIT's vector lanes (jit/ir/ir_complex.cpp),
// so a kernel's bits are the reference's by construction.
//  - They compute in f64: a c64's parts are widened and the results rounded
//    once to f32 (a c64 within 0.5 ULP plus a hair per part); a c128 takes
//    its parts' f64 as they are.
//  - The real functions they call (cos, atan2, log1p, ...) are the tier's
//    own, `R`'s members: the same functions the real kernels call (NOTE:
//    [Vector math], NOTE: [Math recipes]), so the two tiers agree there too.
//    A c128's recipes take sin, cos, sinh and cosh as pairs instead
//    (RealPairs, NOTE: [Two-part math]): rounded values would add their
//    ULPs to a part's (4.6 ULP for tan).
//  - Where a part is a product that can overflow or underflow while the
//    true part is finite (exp's e**x cos y, sinh's e**|x| / 2 sin y), the
//    factor 2**n is applied after the product (exp_pair).
//  - ln |w| near |w| = 1 (log's, log1p's) is log1p of |w|**2 - 1 carried in
//    two doubles, the squares split exactly by FMA (sum_of_five).
//  - sqrt carries |z| and its root in two doubles the same way (the
//    squares by FMA, each root's residual by one more): within half an ULP
//    and a hair in each part of a c128.
//  - expm1 keeps NumPy's form, and log2 and log10 NumPy's scaling of log;
//    asin, acos, asinh and acosh share Hull, Fairgrieve and Tang's first
//    quadrant (arcsine_quadrant), atan and atanh Kahan's form.
//  - C99 Annex G's special values, as NumPy's (the C library's) give them,
//    are selects after the arithmetic; tests/python/test_functions_vs_numpy.py
//    checks every pairing of special parts against NumPy, and
//    tests/python/test_math_vs_mpmath.py each part's ULPs against mpmath.
// ** (power) is NumPy's path on these, down to the C library's form of
// cpow, exp(w log z).

template <class F>
struct Parts {
  F re;
  F im;
};

// The unary functions with a complex recipe, by NumPy's names: the one list
// that has_complex_recipe, the kernels' dispatch (ir_complex.cpp) and the
// reference's instantiations (complex_functions.cpp) read; run_complex
// maps each to its recipe.
#define BCAST_FOR_EACH_COMPLEX_RECIPE(X)                                                                      \
  X(exp) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) X(sin) X(cos) X(tan) X(sinh) X(cosh) X(tanh) \
  X(arcsin) X(arccos) X(arctan) X(arcsinh) X(arccosh) X(arctanh)

// Whether `u` has a recipe here for complex arguments.
constexpr bool has_complex_recipe(UnaryOp u) {
#define BCAST_IS_COMPLEX_RECIPE(name) \
  if (u == UnaryOp::name) return true;
  BCAST_FOR_EACH_COMPLEX_RECIPE(BCAST_IS_COMPLEX_RECIPE)
#undef BCAST_IS_COMPLEX_RECIPE
  return false;
}

// The real functions a recipe calls (R::cos(y), R::atan2(y, x), ...), each
// the function table's row (NOTE: [Function table]) as a tier computes it:
// `Tier::unary<U>(x)` and `Tier::binary<O>(x, y)` are the calls its real
// kernels make, so a tier's complex results rest on its real ones.
// A c64's recipes take each value rounded (its parts are rounded to f32 at
// the end, so f64 leaves them within half an ULP and a hair); a c128's take
// sin, cos, sinh and cosh as pairs (RealPairs, NOTE: [Two-part math]).
template <class Tier>
struct Real {
  static constexpr bool kPairs = false;
  template <class F> static F cos(F x) { return Tier::template unary<UnaryOp::cos>(x); }
  template <class F> static F sin(F x) { return Tier::template unary<UnaryOp::sin>(x); }
  template <class F> static F sinh(F x) { return Tier::template unary<UnaryOp::sinh>(x); }
  template <class F> static F cosh(F x) { return Tier::template unary<UnaryOp::cosh>(x); }
  template <class F> static F exp(F x) { return Tier::template unary<UnaryOp::exp>(x); }
  template <class F> static F expm1(F x) { return Tier::template unary<UnaryOp::expm1>(x); }
  template <class F> static F log(F x) { return Tier::template unary<UnaryOp::log>(x); }
  template <class F> static F log1p(F x) { return Tier::template unary<UnaryOp::log1p>(x); }
  template <class F> static F asin(F x) { return Tier::template unary<UnaryOp::arcsin>(x); }
  template <class F> static F acos(F x) { return Tier::template unary<UnaryOp::arccos>(x); }
  template <class F> static F atan2(F y, F x) { return Tier::template binary<Op::arctan2>(y, x); }
  template <class F> static F hypot(F x, F y) { return Tier::template binary<Op::hypot>(x, y); }
  // main where |x| <= limit, else sin x or cos x: a kernel tests a vector's
  // lanes and calls the function only for one with a lane beyond.
  template <class F> static F sin_beyond(F x, double limit, F main) {
    return Tier::template beyond<UnaryOp::sin>(x, limit, main);
  }
  template <class F> static F cos_beyond(F x, double limit, F main) {
    return Tier::template beyond<UnaryOp::cos>(x, limit, main);
  }
};
template <class Tier>
struct RealPairs : Real<Tier> {
  static constexpr bool kPairs = true;
};

// sin y and cos y, sinh x and cosh x as R takes them: pairs, or the real
// functions' values with no low part.
template <class R, class F>
SinCos<F> sin_cos_of(F y) {
  if constexpr (R::kPairs) {
    return sin_cos_two_parts<R>(y);
  } else {
    F zero = splat(y, 0.0);
    const Turned<F> t = sin_cos_f64_main(y);
    return {{R::sin_beyond(y, kTrigF64MainUpTo, t.sin), zero}, {R::cos_beyond(y, kTrigF64MainUpTo, t.cos), zero}};
  }
}
template <class R, class F>
SinhCosh<F> sinh_cosh_of(F x) {
  if constexpr (R::kPairs) {
    return sinh_cosh_two_parts(x);
  } else {
    F zero = splat(x, 0.0);
    return {{R::sinh(x), zero}, {R::cosh(x), zero}};
  }
}


// m f 2**n for an integer n in [-2044, 2046], the product rounded once
// and 2**n applied after it in two halves (they cover twice the normal
// exponents, so 2**2046 times a product below 1 stays finite). A factor f
// under 2**-960 is first lifted by 2**64 (and n lowered by 64, for n above
// 64), so that the product does not round as a subnormal before 2**n brings
// it back: exp(700 + 1e-310i)'s imaginary part was 330 ULPs off.
template <class F>
F times_pow2(const TwoSum<F>& m, const TwoSum<F>& f, F n) {
  auto lift = fabs(f.sum) < splat(n, 0x1p-960) && n > splat(n, 64.0);
  F k = select(lift, splat(n, 0x1p64), splat(n, 1.0));
  const Pow2Halves<F> s = pow2_halves(select(lift, n - 64.0, n));
  return (product_rounded(m, TwoSum<F>{f.sum * k, f.error * k}) * s.first) * s.second;
}

// e**x (c, s) for c and s in two parts (NOTE: [Two-part math]), e**x =
// 2**n e**(r + r_lo) as exp_pair splits it, each product rounded once and
// 2**n applied last: finite wherever the true parts are. `half` makes it
// e**x / 2 (sinh's and cosh's large x). Where x was clamped from above
// (`clamped_above`), a nonzero part is infinite, of its sign; NaN stays.
// `s_lifted`: the exponent by which s comes scaled up (exp2's tiny angles),
// taken off its 2**n (not below the halves' range, where it is 0 anyway).
template <class F, class M>
Parts<F> exp_times(const ExpPair<F>& e, const TwoSum<F>& c, const TwoSum<F>& s, double half, M clamped_above,
                   F s_lifted) {
  F n = e.n - splat(c.sum, half);
  F n_s = select(s_lifted > 0.0, at_least(n - s_lifted, -2044.0), n);
  const Parts<F> r{times_pow2(e.reduced.value, c, n), times_pow2(e.reduced.value, s, n_s)};
  F inf = splat(c.sum, kInf);
  return {select(clamped_above && fabs(r.re) > 0.0, copysign(inf, r.re), r.re),  // not 0, not NaN
          select(clamped_above && fabs(r.im) > 0.0, copysign(inf, r.im), r.im)};
}
template <class F, class M>
Parts<F> exp_times(const ExpPair<F>& e, const TwoSum<F>& c, const TwoSum<F>& s, double half, M clamped_above) {
  return exp_times(e, c, s, half, clamped_above, splat(c.sum, 0.0));
}

// e**x's parts for x up to kExpClampAbove, 1418 (n 2046; beyond, e**x times
// the smallest subnormal, 2**-1074, would be finite up to 1454: those give
// inf, exp_times' clamped_above).
inline constexpr double kExpClampAbove = 1418.0;
template <class F>
ExpPair<F> exp_complex_parts(F x) {
  return exp_pair(clamped(x, -1400.0, kExpClampAbove));
}

// 2**x = 2**n e**(f ln 2) with f = x - n exact and f ln 2 carried in two
// parts, for exp2's x up to 2046 (beyond, as exp's past kExpClampAbove).
inline constexpr double kExp2ClampAbove = 2046.0;
template <class F>
ExpPair<F> exp2_complex_parts(F x) {
  const ExpReduction<F> e = exp2_f64_reduction(clamped(x, -2040.0, kExp2ClampAbove));
  return {e.n, exp_reduced(e.r, e.r_lo)};
}

template <class F>
auto is_nan(F v) {
  return v != v;
}

// What the special values ask of z's parts.
template <class F>
struct Kinds {
  explicit Kinds(Parts<F> z)
      : inf(splat(z.re, kInf)),
        nan(splat(z.re, kNaN)),
        x_inf(fabs(z.re) == inf),
        y_inf(fabs(z.im) == inf),
        x_nan(is_nan(z.re)),
        y_nan(is_nan(z.im)),
        y_finite(fabs(z.im) < inf) {}
  F inf, nan;
  decltype(is_nan(inf)) x_inf, y_inf, x_nan, y_nan, y_finite;
};

// e**x (c + i s) with C99 G.6.3.1's special values: y = 0 keeps y
// (exp(inf + 0i) = inf + 0i); x = inf gives infinite parts of c's and s's
// signs, and (inf, NaN) for y infinite or NaN; x = -inf gives zeros, (0,
// +-0) for y infinite or NaN.
template <class F, class M>
Parts<F> exp_of(const ExpPair<F>& e, F x, F y, const TwoSum<F>& cos_y, const TwoSum<F>& sin_y, M clamped_above,
                F sin_lifted) {
  Parts<F> r = exp_times(e, cos_y, sin_y, 0.0, clamped_above, sin_lifted);
  F c = cos_y.sum, s = sin_y.sum;
  const Kinds<F> k(Parts<F>{x, y});
  F zero = splat(x, 0.0);
  auto x_inf = x == kInf;
  r.re = select(x_inf, select(k.y_finite, copysign(k.inf, c), k.inf), r.re);
  r.im = select(x_inf, select(k.y_finite, copysign(k.inf, s), k.nan), r.im);
  auto x_minus_inf = x == -kInf;
  r.re = select(x_minus_inf && !k.y_finite, zero, r.re);
  r.im = select(x_minus_inf && !k.y_finite, copysign(zero, y), r.im);
  return {r.re, select(y == 0.0, y, r.im)};  // cos 0 is 1: the real part is e**x
}

// exp(x + iy) = e**x (cos y + i sin y).
template <class R, class F>
Parts<F> exp(Parts<F> z) {
  F x = z.re, y = z.im;
  const SinCos<F> t = sin_cos_of<R>(y);
  return exp_of(exp_complex_parts(x), x, y, t.cos, t.sin, x > splat(x, kExpClampAbove), splat(x, 0.0));
}

// exp2(x + iy) = 2**x (cos a + i sin a), a = y ln 2 in two parts (a + a_lo:
// cos a - a_lo sin a, to first order, summed into the pairs) while |y| <
// 2**26, where a_lo**2 is negligible; beyond, a alone, as NumPy's exp(z ln
// 2). Below 2**-900, y is lifted by 2**128 first (sin a is a there, cos a
// is 1, and a would round as a subnormal: 705 + 3e-320i's imaginary part
// was 10**11 ULPs off), and the imaginary part's 2**n lowered by as much.
template <class R, class F>
Parts<F> exp2(Parts<F> z) {
  F x = z.re;
  auto tiny = fabs(z.im) < splat(x, 0x1p-900);
  F y = select(tiny, z.im * 0x1p128, z.im);
  F a = y * splat(y, kLn2);
  F a_lo = select(fabs(y) < splat(y, 0x1p26), fma(y, splat(y, kLn2), -a) + y * splat(y, kLn2Tail), splat(y, 0.0));
  const SinCos<F> t = sin_cos_of<R>(a);
  const TwoSum<F> c = two_sum(t.cos.sum, -a_lo * t.sin.sum), s = two_sum(t.sin.sum, a_lo * t.cos.sum);
  const TwoSum<F> cos_a{c.sum, c.error + t.cos.error}, sin_a{s.sum, s.error + t.sin.error};
  return exp_of(exp2_complex_parts(x), x, z.im, cos_a, sin_a, x > splat(x, kExp2ClampAbove),
                select(tiny, splat(x, 128.0), splat(x, 0.0)));
}

// t1 + t2 + t3 + t4 + t5 (exact products' parts) as hi + lo: each sum
// keeps its exact error, and the errors are added last, so that a sum that
// cancels to far below its terms keeps its digits.
template <class F>
TwoSum<F> sum_of_five(F t1, F t2, F t3, F t4, F t5) {
  const TwoSum<F> a = two_sum(t1, t2);
  const TwoSum<F> b = two_sum(a.sum, t3);
  const TwoSum<F> c = two_sum(t4, t5);
  const TwoSum<F> d = two_sum(b.sum, c.sum);
  return fast_two_sum(d.sum, (d.error + b.error) + (c.error + a.error));
}

// ln |w| for |w|**2 = 1 + d.sum + d.error: log1p(hi) + lo / (1 + hi),
// halved.
template <class R, class F>
F half_log1p(const TwoSum<F>& d) {
  return (R::log1p(d.sum) + d.error / (splat(d.sum, 1.0) + d.sum)) * 0.5;
}

// ln |u + iv| from |u|**2 + |v|**2 - 1 = d: the near form where |w|**2 is
// in [1/256, 256], where log(hypot(u, v)) would lose digits to the
// cancellation, else the far form (its rounding costs at most 0.18 ULP
// there); +inf for an infinite part, whatever the other (C99 G.6.3.2).
template <class R, class F>
F log_modulus(F u, F v, const TwoSum<F>& d) {
  F squared = splat(u, 1.0) + d.sum;
  auto near_one = squared >= splat(u, 0x1p-8) && squared <= splat(u, 0x1p8);
  F r = select(near_one, half_log1p<R>(d), R::log(R::hypot(u, v)));
  F inf = splat(u, kInf);
  return select(fabs(u) == inf || fabs(v) == inf, inf, r);
}

// log(x + iy) = ln |z| + i atan2(y, x), |z|**2 - 1 = x**2 + y**2 - 1 with
// the larger part first (x**2 - 1 then cancels exactly) and the squares
// split exactly by FMA.
template <class R, class F>
Parts<F> log(Parts<F> z) {
  F ax = fabs(z.re), ay = fabs(z.im);
  auto y_larger = ax < ay;
  F big = select(y_larger, ay, ax), small = select(y_larger, ax, ay);
  F p = big * big, q = small * small;
  F p_error = fma(big, big, -p), q_error = fma(small, small, -q);
  const TwoSum<F> d = sum_of_five(p, splat(p, -1.0), q, p_error, q_error);
  return {log_modulus<R>(ax, ay, d), R::atan2(z.im, z.re)};
}

// log1p(x + iy) = ln |1 + z| + i atan2(y, 1 + x), |1 + z|**2 - 1 = 2x +
// x**2 + y**2: exact near 0, where NumPy's log(hypot(1 + x, y)) keeps
// none of x's digits.
template <class R, class F>
Parts<F> log1p(Parts<F> z) {
  F x = z.re, y = z.im;
  F p = x * x, q = y * y;
  const TwoSum<F> d = sum_of_five(x + x, p, q, fma(x, x, -p), fma(y, y, -q));
  F u = splat(x, 1.0) + x;
  return {log_modulus<R>(u, y, d), R::atan2(y, u)};
}

// NumPy's expm1(x + iy): expm1(x) cos y - 2 sin(y/2)**2 + i e**x sin y.
// A c128's (NOTE: [Two-part math]): the real part from pairs, rounded once,
// past x = 90 e**x cos y (|cos y| is above 2**-61 for every double y, so the
// rest is under 2**-54 of it); the imaginary part exp's, 2**n applied last;
// zeros as NumPy's form gives them (x's for x = 0 and a zero real part,
// y's for y = 0 and e**x finite).
template <class R, class F>
Parts<F> expm1(Parts<F> z) {
  F x = z.re, y = z.im;
  if constexpr (R::kPairs) {
    const SinCos<F> t = sin_cos_of<R>(y), half = sin_cos_of<R>(y * 0.5);
    const TwoSum<F> versine = product(half.sin, half.sin);  // sin(y/2)**2
    const TwoSum<F> near =
        plus(product(expm1_two_parts(x), t.cos), TwoSum<F>{versine.sum * -2.0, versine.error * -2.0});
    const Parts<F> far = exp_times(exp_complex_parts(x), t.cos, t.sin, 0.0, x > splat(x, kExpClampAbove));
    F re = select(x > splat(x, 90.0), far.re, rounded(near));
    auto exp_finite = x <= splat(x, 0x1.62e42fefa39efp9);  // e**x below the largest double
    F im = select(y == 0.0, select(exp_finite || x == -kInf, y, splat(x, kNaN)), far.im);
    return {select(x == 0.0 && re == 0.0, x, re), im};
  } else {
    F a = R::sin(y * 0.5);
    return {R::expm1(x) * R::cos(y) - splat(x, 2.0) * a * a, R::exp(x) * R::sin(y)};
  }
}

// sqrt(x + iy) (Kahan's): t = sqrt((|x| + |z|) / 2), then (t, y / 2t) for
// x >= 0 and (|y| / 2t, t with y's sign) for x < 0. Each part within half
// an ULP and a hair: |z| and t are carried in two parts, x**2 + y**2 split
// exactly by FMA and summed, |z| = h + h_lo from the root's residual (one
// FMA), |x| + |z| a two-sum, t the root of half of it with its residual,
// and y / 2t corrected by its own residual. z is first scaled by 2**-600
// (a part over 2**500: the squares would overflow) or 2**600 (both under
// 2**-500: they would underflow), t back by 2**300 or 2**-300; |y| / 2t
// (2t scaled, |y| not) takes that inverse 2**-300 or 2**300 in two
// halves, before and after the division, so that neither a tiny y next to
// a huge x nor a huge y loses digits or overflows on the way.
// An infinite x gives (inf, |y| 0) as the root of inf would; sqrt(+-0 + yi)
// = (0, y) for y zero; y infinite gives (inf, y) whatever x (C99 G.6.4.2).
template <class R, class F>
Parts<F> sqrt(Parts<F> z) {
  F x = z.re, y = z.im;
  F ax = fabs(x), ay = fabs(y);
  F big = select(ax < ay, ay, ax);
  auto huge = big > splat(x, 0x1p500), tiny = big < splat(x, 0x1p-500);
  F one = splat(x, 1.0);
  F scale = select(huge, splat(x, 0x1p-600), select(tiny, splat(x, 0x1p600), one));
  F back = select(huge, splat(x, 0x1p300), select(tiny, splat(x, 0x1p-300), one));
  F xs = ax * scale, ys = ay * scale;
  F half_back = select(huge, splat(x, 0x1p-150), select(tiny, splat(x, 0x1p150), one));
  F y_half = ay * half_back;  // |y| / 2t's numerator
  F px = xs * xs, py = ys * ys;
  const TwoSum<F> squares = two_sum(px, py);
  const TwoSum<F> modulus2 = fast_two_sum(squares.sum, squares.error + (fma(xs, xs, -px) + fma(ys, ys, -py)));
  const TwoSum<F> h = sqrt_two_parts(modulus2.sum, modulus2.error);  // |z|
  const TwoSum<F> sum = fast_two_sum(h.sum, xs);                      // |z| >= |x|
  const TwoSum<F> root_parts = sqrt_two_parts(sum.sum * 0.5, (sum.error + h.error) * 0.5);
  F t = root_parts.sum, t_lo = root_parts.error;
  F two_t = t + t;
  F q = y_half / two_t;
  F q_lo = (fma(-q, two_t, y_half) - q * (t_lo + t_lo)) / two_t;
  auto x_inf = ax == kInf;
  F root = select(x_inf, ax, (t + t_lo) * back);
  F other = select(x_inf, ay * 0.0, (q + q_lo) * half_back);
  auto negative = x < 0.0;
  F re = select(negative, other, root);
  F im = select(negative, copysign(root, y), copysign(other, y));
  auto zero = x == 0.0 && y == 0.0;
  re = select(zero, splat(x, 0.0), re);
  im = select(zero, y, im);
  auto y_inf = ay == kInf;
  return {select(y_inf, splat(x, kInf), re), select(y_inf, y, im)};
}

// (sinh x * c, cosh x * s), c and s in two parts: for |x| > 20, e**|x| / 2
// for both (e**-|x| is under 2**-57 of it), its 2**n applied last; else
// sinh and cosh in two parts (NOTE: [Two-part math]). Each product rounds
// once; its special values are the callers'.
template <class R, class F>
Parts<F> hyperbolic_times(F x, const TwoSum<F>& c, const TwoSum<F>& s) {
  Parts<F> large = exp_times(exp_complex_parts(fabs(x)), c, s, 1.0, fabs(x) > splat(x, kExpClampAbove));
  const SinhCosh<F> h = sinh_cosh_of<R>(x);
  auto is_large = fabs(x) > splat(x, 20.0);
  return {select(is_large, copysign(splat(x, 1.0), x) * large.re, product_rounded(h.sinh, c)),
          select(is_large, large.im, product_rounded(h.cosh, s))};
}

// sinh(x + iy) = sinh x cos y + i cosh x sin y, and C99 G.6.2.5's special
// values: y = 0 gives (sinh x, y); x = 0 with y infinite or NaN (x, NaN);
// x infinite with y infinite or NaN (inf, NaN), with y finite infinities of
// x's and cos y's signs and of sin y's.
template <class R, class F>
Parts<F> sinh(Parts<F> z) {
  F x = z.re, y = z.im;
  const SinCos<F> t = sin_cos_of<R>(y);
  Parts<F> r = hyperbolic_times<R>(x, t.cos, t.sin);
  F c = t.cos.sum, s = t.sin.sum;
  const Kinds<F> k(z);
  r.re = select(k.x_inf, select(k.y_finite, copysign(k.inf, x) * copysign(splat(x, 1.0), c), k.inf), r.re);
  r.im = select(k.x_inf, select(k.y_finite, copysign(k.inf, s), k.nan), r.im);
  r.re = select(x == 0.0 && !k.y_finite, x, r.re);
  return {r.re, select(y == 0.0, y, r.im)};  // cos 0 is 1: the real part is sinh x
}

// cosh(x + iy) = cosh x cos y + i sinh x sin y, and C99 G.6.2.4's special
// values: y = 0 gives (cosh x, x's sign times y: y for NaN x); x = 0 with
// y infinite or NaN (NaN, 0); x infinite with y infinite or NaN (inf, NaN),
// with y finite infinities of cos y's sign and of x's and sin y's.
template <class R, class F>
Parts<F> cosh(Parts<F> z) {
  F x = z.re, y = z.im;
  const SinCos<F> t = sin_cos_of<R>(y);
  const Parts<F> h = hyperbolic_times<R>(x, t.sin, t.cos);  // (sinh x sin y, cosh x cos y)
  F c = t.cos.sum, s = t.sin.sum;
  Parts<F> r{h.im, h.re};
  const Kinds<F> k(z);
  F zero = splat(x, 0.0);
  r.re = select(k.x_inf, select(k.y_finite, copysign(k.inf, c), k.inf), r.re);
  r.im = select(k.x_inf, select(k.y_finite, copysign(k.inf, x) * copysign(splat(x, 1.0), s), k.nan), r.im);
  r.re = select(x == 0.0 && !k.y_finite, k.nan, r.re);
  r.im = select(x == 0.0 && !k.y_finite, zero, r.im);
  F y_signed = select(k.x_nan, y, copysign(splat(x, 1.0), x) * y);
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

// tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh**2 x + cos**2 y),
// the C library's form, every factor, product and sum in two parts (NOTE:
// [Two-part math]) and each quotient rounded once; past |x| = 22, where
// tanh x is +-1 to the last bit, (+-1, 4 sin y cos y e**-2|x|) with its
// 2**n last. C99 G.6.2.6's special values: y infinite or NaN gives (NaN,
// NaN) for x finite, (x, NaN) for x = 0; x infinite (+-1, 0 with sin 2y's
// sign), 0 with y's for y infinite or NaN; y = 0 keeps y.
template <class R, class F>
Parts<F> tanh(Parts<F> z) {
  F x = z.re, y = z.im;
  const SinhCosh<F> h = sinh_cosh_of<R>(x);
  const SinCos<F> t = sin_cos_of<R>(y);
  F ax = fabs(x), zero = splat(x, 0.0);
  auto large = ax > splat(x, 22.0);
  TwoSum<F> sin_cos{t.sin.sum * t.cos.sum, zero};
  F re_small, im_small;
  if constexpr (R::kPairs) {
    const TwoSum<F> den = plus(product(h.sinh, h.sinh), product(t.cos, t.cos));
    sin_cos = product(t.sin, t.cos);
    re_small = rounded(quotient(product(h.sinh, h.cosh), den));
    im_small = rounded(quotient(sin_cos, den));
  } else {  // a c64's: the real functions' values, each step rounded (within half an ULP once in f32)
    F sh = h.sinh.sum, den = fma(sh, sh, t.cos.sum * t.cos.sum);
    re_small = (sh * h.cosh.sum) / den;
    im_small = sin_cos.sum / den;
  }
  const TwoSum<F> four_sin_cos{sin_cos.sum * 4.0, sin_cos.error * 4.0};
  auto never = ax > splat(x, kInf);  // -2|x| is never clamped from above
  F tiny = exp_times(exp_complex_parts(-(ax + ax)), four_sin_cos, TwoSum<F>{zero, zero}, 0.0, never).re;
  F re = select(large, copysign(splat(x, 1.0), x), re_small);
  F im = select(large, tiny, im_small);
  const Kinds<F> k(z);
  re = select(!k.y_finite && ax < k.inf, select(x == 0.0, x, k.nan), re);
  im = select(k.x_inf && !k.y_finite, copysign(zero, y), im);
  return {re, select(y == 0.0, y, im)};
}

// tan z = -i tanh(iz), iz = -y + ix.
template <class R, class F>
Parts<F> tan(Parts<F> z) {
  const Parts<F> h = tanh<R>(Parts<F>{-z.im, z.re});
  return {h.im, -h.re};
}

// ---- The inverse functions ----

inline constexpr double kPi = 0x1.921fb54442d18p1, kPiTail = 0x1.1a62633145c07p-53;  // pi = kPi + kPiTail

// A c128's corrections to the quadrant's b = x / A and cosine (NOTE: [Two-
// part math]): A in pairs, from |z + 1|**2 and |z - 1|**2 summed exactly
// (x**2 + y**2 +- 2x + 1, the squares split by FMA) and their roots; B - b
// from B = x / A, and sqrt(A**2 - x**2) = sqrt((A - x)(A + x)) minus the
// cosine where A - x keeps its digits (above 2**-20 A). asin(b + d) is asin
// b + d / sqrt(1 - b**2), atan2(x, c + d) atan2(x, c) - x d / (x**2 + c**2).
// A itself, for the imaginary part's argument. Where a branch applies (B
// <= 0.6417 or A - x large, no part past 2**500), |z - 1| is not 0;
// elsewhere the values are not used.
template <class F>
struct ArcsineErrors {
  F b;
  F cosine;
  TwoSum<F> a;
};
template <class F>
ArcsineErrors<F> arcsine_errors(F x, F y, F b, F cosine) {
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  F xx = x * x, yy = y * y;
  F errors = fma(x, x, -xx) + fma(y, y, -yy);
  const TwoSum<F> r2 = sum_of_five(xx, x + x, one, yy, errors), s2 = sum_of_five(xx, -(x + x), one, yy, errors);
  const TwoSum<F> twice_a = plus(root_of(r2), root_of(s2));
  const TwoSum<F> b_pair = quotient(TwoSum<F>{x + x, zero}, twice_a);
  const TwoSum<F> a{twice_a.sum * 0.5, twice_a.error * 0.5};
  const TwoSum<F> gap = plus(a, TwoSum<F>{-x, zero});
  const TwoSum<F> c = root_of(product(gap, plus(a, TwoSum<F>{x, zero})));
  return {(b_pair.sum - b) + b_pair.error, select(gap.sum > a.sum * 0x1p-20, (c.sum - cosine) + c.error, zero), a};
}

// The arcsine and arccosine of x + iy in the first quadrant (x, y >= 0):
// the real part of asin (or, `Cosine`, acos) and the imaginary part's
// magnitude, by Hull, Fairgrieve and Tang's algorithm (ACM TOMS 23(3),
// 1997): r = |z + 1| and s = |z - 1|, A = (r + s) / 2 and B = x / A; the
// real part asin B (acos B) while B <= 0.6417, else an atan of quotients
// that do not cancel; the imaginary part log1p(A - 1 + sqrt((A - 1)(A + 1)))
// with A - 1 from parts that do not cancel while A <= 1.5, else ln(A +
// sqrt(A**2 - 1)), ln A + ln 2 past 2**26 (which also gives the
// infinities). Past 2**500, where y**2 would overflow, the real part is
// asin z's asymptote, atan2(x, y) (acos: atan2(y, x)), the same atan2 as
// the quotients' branch; below y = 2**-500 with x < 1,
// where y**2 would underflow, the imaginary part is y / sqrt((1 - x)(1 +
// x)). A c128 corrects its values with arcsine_errors' pairs.
template <bool Cosine, class R, class F>
Parts<F> arcsine_quadrant(F x, F y) {
  F one = splat(x, 1.0), half = splat(x, 0.5);
  F r = R::hypot(x + one, y), s = R::hypot(x - one, y);
  F a = half * r + half * s;
  F b = x / a;
  F y2 = y * y;
  F to_r = y2 / (r + (x + one));
  F a_plus_x = a + x;
  F root = select(x <= splat(x, 1.0), sqrt(half * a_plus_x * (to_r + (s + (one - x)))),
                  y * sqrt(half * (a_plus_x / (r + (x + one)) + a_plus_x / (s + (x - one)))));
  auto b_small = b <= splat(x, 0.6417);
  auto huge = x > splat(x, 0x1p500) || y > splat(x, 0x1p500);
  F cosine = select(huge, y, root);  // beyond B's branch, the real part is atan2(x, cosine)
  ArcsineErrors<F> d{splat(x, 0.0), splat(x, 0.0), {splat(x, 0.0), splat(x, 0.0)}};  // a c128's corrections
  if constexpr (R::kPairs) d = arcsine_errors(x, y, b, cosine);
  // (not for a subnormal B, whose quotient's residual is not exact)
  F b_slope = select(b_small && !huge && b > splat(x, 0x1p-1000), d.b / sqrt((one - b) * (one + b)), splat(x, 0.0));
  F turn = select(huge, splat(x, 0.0), x * d.cosine / fma(x, x, cosine * cosine));
  F re = Cosine ? select(b_small && !huge, R::acos(b) - b_slope, R::atan2(cosine, x) + turn)
                : select(b_small && !huge, R::asin(b) + b_slope, R::atan2(x, cosine) - turn);
  F a_minus_one = select(x < splat(x, 1.0), half * (to_r + y2 / (s + (one - x))), half * (to_r + (s + (x - one))));
  F near = R::log1p(a_minus_one + sqrt(a_minus_one * (a + one)));
  auto large = a > splat(x, 0x1p26);
  F far = R::log(select(large, a, a + sqrt(a * a - one))) + select(large, splat(x, kLn2), splat(x, 0.0));
  if constexpr (R::kPairs) {  // from A in pairs: A - 1 where it keeps its digits, and sqrt(A**2 - 1)
    F zero = splat(x, 0.0);
    const TwoSum<F> minus = plus(d.a, TwoSum<F>{-one, zero});
    const TwoSum<F> root_pair = root_of(product(minus, plus(d.a, TwoSum<F>{one, zero})));
    const TwoSum<F> t = plus(minus, root_pair), u = plus(d.a, root_pair);
    near = select(minus.sum > splat(x, 0x1p-20) && !huge, R::log1p(t.sum) + t.error / (one + t.sum), near);
    far = select(huge, far, select(large, far + d.a.error / d.a.sum, R::log(u.sum) + u.error / u.sum));
  }
  F im = select(a <= splat(x, 1.5), near, far);
  im = select(y < splat(x, 0x1p-500) && x < splat(x, 1.0), y / sqrt((one - x) * (one + x)), im);
  return {re, im};
}

// pi - v, v in [0, pi/2], with pi in two parts (acos's real part for x < 0).
template <class F>
F pi_minus(F v) {
  return (splat(v, kPi) - v) + splat(v, kPiTail);
}

// asin(x + iy): the quadrant's, with x's and y's signs; NaN parts as the C
// library's (C99 G.6.2.2 through casin z = -i casinh(iz)).
template <class R, class F>
Parts<F> asin(Parts<F> z) {
  F x = z.re, y = z.im;
  const Parts<F> q = arcsine_quadrant<false, R>(fabs(x), fabs(y));
  const Kinds<F> k(z);
  F re = select(k.y_nan, select(x == 0.0, x, k.nan), copysign(q.re, x));
  F im = select(k.y_nan && k.x_inf, k.inf, copysign(q.im, y));
  return {re, select(k.x_nan && k.y_inf, y, im)};
}

// acos(x + iy): pi minus the quadrant's real part for x < 0, the imaginary
// part of -y's sign (C99 G.6.1.1).
template <class R, class F>
Parts<F> acos(Parts<F> z) {
  F x = z.re, y = z.im;
  const Parts<F> q = arcsine_quadrant<true, R>(fabs(x), fabs(y));
  const Kinds<F> k(z);
  F re = select(k.y_nan, select(x == 0.0, splat(x, kHalfPiHi), k.nan), select(x < 0.0, pi_minus(q.re), q.re));
  F im = select(k.y_nan && k.x_inf, -k.inf, copysign(q.im, -y));
  return {re, select(k.x_nan && k.y_inf, -y, im)};
}

// asinh(x + iy) = i asin(y - ix): asin(|y| + i|x|)'s parts swapped, with
// x's and y's signs (C99 G.6.2.2).
template <class R, class F>
Parts<F> asinh(Parts<F> z) {
  F x = z.re, y = z.im;
  const Parts<F> q = arcsine_quadrant<false, R>(fabs(y), fabs(x));
  const Kinds<F> k(z);
  F re = select(k.x_nan && k.y_inf, k.inf, select(k.y_nan, select(k.x_inf, x, k.nan), copysign(q.im, x)));
  F im = select(k.y_nan, k.nan, copysign(q.re, y));
  return {re, select(k.x_nan, select(y == 0.0, y, k.nan), im)};
}

// acosh(x + iy) = acos's imaginary part's magnitude + i acos's real part
// with y's sign (C99 G.6.2.1).
template <class R, class F>
Parts<F> acosh(Parts<F> z) {
  F x = z.re, y = z.im;
  const Parts<F> q = arcsine_quadrant<true, R>(fabs(x), fabs(y));
  const Kinds<F> k(z);
  F re = select(k.x_nan && k.y_inf, k.inf, select(k.y_nan, select(k.x_inf, k.inf, k.nan), q.im));
  F im =
      select(k.y_nan, select(x == 0.0, splat(x, kHalfPiHi), k.nan), copysign(select(x < 0.0, pi_minus(q.re), q.re), y));
  return {re, select(k.x_nan, k.nan, im)};
}

// atanh(x + iy), Kahan's form on |x| and |y|, then their signs: the real
// part log1p(4|x| / ((1 - |x|)**2 + y**2)) / 4 (a c128's quotient a pair,
// NOTE: [Two-part math], and log1p corrected by its low part), the imaginary part
// atan2(2|y|, 1 - x**2 - y**2) / 2 with 1 - x**2 - y**2 summed exactly
// (sum_of_five); past 2**500, |x| / |z|**2 (through hypot(x/2, y/2)) and
// pi/2; at |x| = 1 with y below 2**-500, (ln 2 - ln |y|) / 2 (C99
// G.6.2.3).
template <class R, class F>
Parts<F> atanh(Parts<F> z) {
  F x = z.re, y = z.im;
  F ax = fabs(x), ay = fabs(y);
  const Kinds<F> k(z);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  F gap = one - ax;
  F re = R::log1p((ax + ax + ax + ax) / fma(gap, gap, ay * ay)) * 0.25;
  if constexpr (R::kPairs) {  // the quotient as a pair, and log1p(u + u_lo) = log1p u + u_lo / (1 + u)
    const TwoSum<F> gap_pair = two_sum(one, -ax);  // 1 - |x| rounds below 1/2 and above 2
    const TwoSum<F> den = plus(squared(gap_pair.sum, gap_pair.error), squared(ay, zero));
    const TwoSum<F> u = quotient(TwoSum<F>{ax + ax + ax + ax, zero}, den);
    re = (R::log1p(u.sum) + u.error / (one + u.sum)) * 0.25;
  }
  F p = ax * ax, q = ay * ay;
  const TwoSum<F> d = sum_of_five(p, -one, q, fma(ax, ax, -p), fma(ay, ay, -q));
  F im = R::atan2(ay + ay, zero - (d.sum + d.error)) * 0.5;
  re = select(ax == 1.0 && ay < splat(x, 0x1p-500), (splat(x, kLn2) - R::log(ay)) * 0.5, re);
  F h = R::hypot(ax * 0.5, ay * 0.5);
  auto huge = ax > splat(x, 0x1p500) || ay > splat(x, 0x1p500);
  re = copysign(select(huge, select(k.x_inf, zero, ((ax / h) / h) * 0.25), re), x);
  im = copysign(select(huge, splat(x, kHalfPiHi), im), y);
  re = select(k.x_nan, select(k.y_inf, zero, k.nan),
              select(k.y_nan, select(x == 0.0 || k.x_inf, copysign(zero, x), k.nan), re));
  return {re, select(k.x_nan, select(k.y_inf, copysign(splat(x, kHalfPiHi), y), k.nan), select(k.y_nan, k.nan, im))};
}

// atan z = -i atanh(iz), iz = -y + ix; +0 for the imaginary part of an
// infinite x with a NaN y, as the C library's.
template <class R, class F>
Parts<F> atan(Parts<F> z) {
  const Parts<F> h = atanh<R>(Parts<F>{-z.im, z.re});
  return {h.im, select(is_nan(z.im) && fabs(z.re) == kInf, splat(z.re, 0.0), -h.re)};
}

// ---- Powers ----

// NOTE: [Complex arithmetic]'s product, quotient and reciprocal on lanes,
// for both tiers (exec/complex_ops.h, jit/ir/ir_complex.cpp) and the
// recipes: the schoolbook product without FMA; Smith's quotient, scaled by
// the divisor's larger part, x / 0 dividing each part by zero; 1 / x the
// same way, each branch computed and one chosen.
template <class F>
Parts<F> mul(Parts<F> a, Parts<F> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class F>
Parts<F> reciprocal(Parts<F> x) {
  F one = splat(x.re, 1.0);
  F ratio_re = x.im / x.re, d_re = x.re + x.im * ratio_re;
  F ratio_im = x.re / x.im, d_im = x.re * ratio_im + x.im;
  auto re_larger = fabs(x.im) <= fabs(x.re);
  return {select(re_larger, one / d_re, ratio_im / d_im),
          select(re_larger, -ratio_re / d_re, splat(x.re, -1.0) / d_im)};
}
template <class F>
Parts<F> div(Parts<F> a, Parts<F> b) {
  F abs_re = fabs(b.re), abs_im = fabs(b.im), one = splat(a.re, 1.0);
  F ratio_re = b.im / b.re, scale_re = one / (b.re + b.im * ratio_re);
  const Parts<F> by_re{(a.re + a.im * ratio_re) * scale_re, (a.im - a.re * ratio_re) * scale_re};
  F ratio_im = b.re / b.im, scale_im = one / (b.im + b.re * ratio_im);
  const Parts<F> by_im{(a.re * ratio_im + a.im) * scale_im, (a.im * ratio_im - a.re) * scale_im};
  auto zero = abs_re == 0.0 && abs_im == 0.0;
  const Parts<F> by_zero{a.re / abs_re, a.im / abs_re};
  auto re_larger = abs_re >= abs_im;
  return {select(re_larger, select(zero, by_zero.re, by_re.re), by_im.re),
          select(re_larger, select(zero, by_zero.im, by_re.im), by_im.im)};
}

template <class F, class M>
Parts<F> select(M m, Parts<F> a, Parts<F> b) {
  return {select(m, a.re, b.re), select(m, a.im, b.im)};
}

// a * b with C99 Annex G's recovery of infinities (G.5.1, the C library's
// complex product): where the schoolbook product is NaN in both parts but
// an operand is infinite (or a partial product overflowed), the infinite
// parts become +-1, NaN parts of the other operand +-0, and the product is
// taken again times inf.
template <class F>
Parts<F> mul_annex_g(Parts<F> a, Parts<F> b) {
  F ac = a.re * b.re, bd = a.im * b.im, ad = a.re * b.im, bc = a.im * b.re;
  Parts<F> r{ac - bd, ad + bc};
  F inf = splat(ac, kInf), one = splat(ac, 1.0), zero = splat(ac, 0.0);
  auto is_inf = [&](F v) { return fabs(v) == inf; };
  auto unit = [&](F v) { return copysign(select(is_inf(v), one, zero), v); };
  auto zero_if_nan = [&](F v) { return select(is_nan(v), copysign(zero, v), v); };
  auto a_inf = is_inf(a.re) || is_inf(a.im), b_inf = is_inf(b.re) || is_inf(b.im);
  auto overflowed = is_inf(ac) || is_inf(bd) || is_inf(ad) || is_inf(bc);
  Parts<F> p = a, q = b;
  p = select(a_inf, Parts<F>{unit(a.re), unit(a.im)}, p);
  q = select(a_inf, Parts<F>{zero_if_nan(q.re), zero_if_nan(q.im)}, q);
  q = select(b_inf, Parts<F>{unit(b.re), unit(b.im)}, q);
  p = select(b_inf, Parts<F>{zero_if_nan(p.re), zero_if_nan(p.im)}, p);
  auto neither = !a_inf && !b_inf;
  p = select(neither, Parts<F>{zero_if_nan(p.re), zero_if_nan(p.im)}, p);
  q = select(neither, Parts<F>{zero_if_nan(q.re), zero_if_nan(q.im)}, q);
  auto recover = is_nan(r.re) && is_nan(r.im) && (a_inf || b_inf || overflowed);
  const Parts<F> again{inf * (p.re * q.re - p.im * q.im), inf * (p.re * q.im + p.im * q.re)};
  return select(recover, again, r);
}

// z ** w on NumPy's path (npy_cpow): 1 for w = 0; for z = 0, 0 when w is
// real and positive, else NaN; for a real integral w with |w| < 100, the
// products NumPy takes (z, z*z, z*(z*z) for 1 to 3, else squaring and
// multiplying over the bits of |w|, then 1 / that for w < 0), so their bits
// are NumPy's c128 ones; otherwise exp(w log z) with Annex G's product, the
// C library's cpow.
template <class R, class F>
Parts<F> power(Parts<F> z, Parts<F> w) {
  F zero = splat(z.re, 0.0), one = splat(z.re, 1.0), nan = splat(z.re, kNaN);
  Parts<F> r = exp<R>(mul_annex_g(w, log<R>(z)));
  F n = w.re, m = fabs(n);
  auto integral = w.im == 0.0 && (n + splat(n, kRound)) - splat(n, kRound) == n && m < splat(n, 100.0);
  std::array<decltype(n < 0.0), 7> bits{};  // |w|'s bits, from its top (64) down
  F rest = m;
  for (int k = 6; k >= 0; --k) {
    F place = splat(n, std::ldexp(1.0, k));
    bits[k] = rest >= place;
    rest = select(bits[k], rest - place, rest);
  }
  Parts<F> product{one, zero}, square = z;
  for (int k = 0; k < 7; ++k) {
    if (k > 0) square = mul(square, square);
    product = select(bits[k], mul(product, square), product);
  }
  const Parts<F> squared = mul(z, z);
  Parts<F> by_products = select(n < 0.0, div(Parts<F>{one, zero}, product), product);
  by_products = select(n == 3.0, mul(z, squared), select(n == 2.0, squared, select(n == 1.0, z, by_products)));
  r = select(integral, by_products, r);
  auto z_zero = z.re == 0.0 && z.im == 0.0;
  auto w_positive_real = w.re > 0.0 && w.im == 0.0;
  r = select(z_zero, select(w_positive_real, Parts<F>{zero, zero}, Parts<F>{nan, nan}), r);
  return select(w.re == 0.0 && w.im == 0.0, Parts<F>{one, zero}, r);
}

// NumPy's log2 and log10 of a complex number: log's parts times log2(e) or
// log10(e), the constant in two parts (k + k_lo) so that each rounds once.
inline constexpr double kLog2eTail = 0x1.777d0ffda0d24p-56;   // log2(e) - kLog2e
inline constexpr double kLog10eTail = 0x1.95355baaafad3p-57;  // log10(e) - kLog10e
template <class F>
Parts<F> times(Parts<F> z, double k, double k_lo) {
  return {fma(z.re, splat(z.re, k), z.re * splat(z.re, k_lo)), fma(z.im, splat(z.re, k), z.im * splat(z.re, k_lo))};
}

// The recipe of `u` (has_complex_recipe) on z's parts, in f64.
template <UnaryOp U, class R, class F>
Parts<F> run_complex(Parts<F> z) {
  if constexpr (U == UnaryOp::exp)
    return exp<R>(z);
  else if constexpr (U == UnaryOp::exp2)
    return exp2<R>(z);
  else if constexpr (U == UnaryOp::log)
    return log<R>(z);
  else if constexpr (U == UnaryOp::log2)
    return times(log<R>(z), kLog2e, kLog2eTail);
  else if constexpr (U == UnaryOp::log10)
    return times(log<R>(z), kLog10e, kLog10eTail);
  else if constexpr (U == UnaryOp::sqrt)
    return sqrt<R>(z);
  else if constexpr (U == UnaryOp::sin)
    return sin<R>(z);
  else if constexpr (U == UnaryOp::cos)
    return cos<R>(z);
  else if constexpr (U == UnaryOp::sinh)
    return sinh<R>(z);
  else if constexpr (U == UnaryOp::tan)
    return tan<R>(z);
  else if constexpr (U == UnaryOp::tanh)
    return tanh<R>(z);
  else if constexpr (U == UnaryOp::log1p)
    return log1p<R>(z);
  else if constexpr (U == UnaryOp::expm1)
    return expm1<R>(z);
  else if constexpr (U == UnaryOp::arcsin)
    return asin<R>(z);
  else if constexpr (U == UnaryOp::arccos)
    return acos<R>(z);
  else if constexpr (U == UnaryOp::arctan)
    return atan<R>(z);
  else if constexpr (U == UnaryOp::arcsinh)
    return asinh<R>(z);
  else if constexpr (U == UnaryOp::arccosh)
    return acosh<R>(z);
  else if constexpr (U == UnaryOp::arctanh)
    return atanh<R>(z);
  else {
    static_assert(U == UnaryOp::cosh, "a unary op without a complex recipe (has_complex_recipe)");
    return cosh<R>(z);
  }
}

}  // namespace bcast::math::recipes
