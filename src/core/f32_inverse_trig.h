// f32 inverse trigonometric functions in f32 arithmetic (NOTE: [F32
// math]): atan, atan2, asin and acos, recipes over the lanes of
// math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include "f32_math.h"

namespace bcast::math::recipes {

// ---- Inverse tangents ----

// atan(q) = q + q**3 a(q**2) for q in [0, 1]: within 2**-29.1.
inline constexpr double kAtanA32[] = {-0.3333333308107325, 0.19999949321141888, -0.1428400379473353,
                                      0.11088261628735159, -0.08931826777381315, 0.07031914250029966,
                                      -0.04896051402709067, 0.026305001110062377, -0.009144629760592396,
                                      0.0014886919393047597};
// pi / 2 and pi as a float and the float nearest the rest.
inline constexpr double kHalfPiHiF = 0x1.921fb6p+0, kHalfPiLoF = -0x1.777a5cp-25;

// base + sign atan(n / d) for 0 <= n <= d, d > 0 (other lanes: any value):
// q = n / d and its rounding error q_lo = (n - q d) / d (an FMA), and
// atan(q + q_lo) = q + (q_lo / (1 + q**2) + q**3 a(q**2)) (a by Estrin's
// scheme), the quotient's correction to first order (1 / (1 + q**2) by a
// line: the correction is 2**-24 of q, the line within an eighth of it).
// base is k pi / 2 in two parts (k = 0, 1, 2) and sign is +-1: the sum
// rounds twice, first the large part and then the small ones, within 1.2
// ULP by the errors' bound.
template <class F>
F atan_quotient(F n, F d, F k, F sign) {
  F q = n / d;
  F q_lo = fma(-q, d, n) / d;
  q_lo = select(q_lo == q_lo, q_lo, splat(n, 0.0));  // d infinite: q is 0, exactly
  F s = q * q;
  F small = fma(q * s, estrin(s, kAtanA32), fma(s, splat(n, -0.5), splat(n, 1.0)) * q_lo);
  F large = fma(k, splat(n, kHalfPiHiF), sign * q);
  return large + fma(k, splat(n, kHalfPiLoF), sign * small);
}

// atan |x| = atan(|x| / 1), or pi/2 - atan(1 / |x|) above 1; the sign is
// x's. NaN passes (as q), +-inf gives +-pi/2, -0 stays -0.
template <class F>
F atan_f32(F x) {
  F t = fabs(x);
  auto above = t > splat(x, 1.0);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  F r = atan_quotient(select(above, one, t), select(above, t, one), select(above, one, zero),
                      select(above, -one, one));
  return copysign(select(t == splat(x, kInf), splat(x, kHalfPiHiF), r), x);
}

// atan2(y, x) from atan(min / max) of |x| and |y|, by quadrant: pi/2 - a
// where |y| > |x|, then pi - that where x is negative (-0 too), y's sign.
// C99 F.9.1.4's special values: both zeros (0 or pi), both infinities
// (pi/4 or 3pi/4), NaN.
template <class F>
F atan2_f32(F y, F x) {
  F ax = fabs(x), ay = fabs(y);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  auto steep = ay > ax;
  auto left = copysign(one, x) < zero;
  F n = select(steep, ax, ay), d = select(steep, ay, ax);
  // 0 / 0 is atan 0; inf / inf is atan 1; a finite / inf is 0 already.
  auto both_zero = d == zero, both_inf = n == splat(x, kInf);
  n = select(both_inf, one, select(both_zero, zero, n));
  d = select(both_inf || both_zero, one, d);
  // k pi/2 + sign a: a (k 0, +), pi/2 - a (1, -), pi - a (2, -), pi/2 + a (1, +).
  F k = select(steep, one, select(left, splat(x, 2.0), zero));
  F sign = select(steep, select(left, one, -one), select(left, -one, one));
  F r = copysign(atan_quotient(n, d, k, sign), y);
  return select(x != x || y != y, x + y, r);
}

// ---- Inverse sine and cosine ----

// asin(x) = x + x**3 b(x**2) for |x| <= 1/2: within 2**-29.9.
inline constexpr double kAsinB32[] = {0.16666666337430908, 0.07500094543497424, 0.04459940152851218,
                                      0.03110066273549457, 0.017149238357677253, 0.03369084720283012};
inline constexpr double kPiHiF = 0x1.921fb6p+1, kPiLoF = -0x1.777a5cp-24;

// asin(sqrt(w)) = s + tail for w in [0, 1/4]: s = sqrt(w) rounded, and its
// error (w - s**2) / 2s (exact in the FMA, to first order) plus s**3 b(w).
template <class V>
struct RootAsin {
  V s;
  V tail;
};
template <class F>
RootAsin<F> asin_of_root(F w) {
  F s = sqrt(w);
  F s_lo = fma(-s, s, w) / (s + s);
  s_lo = select(s_lo == s_lo, s_lo, splat(w, 0.0));  // w = 0
  return {s, fma(s * w, horner(w, kAsinB32), s_lo)};
}

// k - 2 asin(sqrt(w)) for k (pi/2 or pi) in two parts: k_hi - 2s rounds,
// and its error (Fast2Sum: k_hi > 2s) joins the small terms, so the result
// rounds about once.
template <class F>
F minus_twice(F k_hi, F k_lo, RootAsin<F> a) {
  F two_s = a.s + a.s;
  F large = k_hi - two_s;
  F error = (k_hi - large) - two_s;
  return large + (error + (k_lo - (a.tail + a.tail)));
}

// asin |x|: the series to 1/2, above it pi/2 - 2 asin(sqrt((1 - |x|) / 2))
// (1 - |x| exact). The sign is x's; NaN and |x| > 1 (a negative root) are NaN.
template <class F>
F asin_f32(F x) {
  F t = fabs(x);
  F s = t * t;
  F series = fma(t * s, horner(s, kAsinB32), t);
  F reduced = minus_twice(splat(x, kHalfPiHiF), splat(x, kHalfPiLoF), asin_of_root((splat(x, 1.0) - t) * splat(x, 0.5)));
  return copysign(select(t > splat(x, 0.5), reduced, series), x);
}

// acos x: pi/2 - asin x to |x| = 1/2; above, 2 asin(sqrt((1 - x) / 2)), and
// below -1/2, pi - 2 asin(sqrt((1 + x) / 2)). NaN and |x| > 1 are NaN.
template <class F>
F acos_f32(F x) {
  F t = fabs(x);
  F s = x * x;
  F middle = splat(x, kHalfPiHiF) + (splat(x, kHalfPiLoF) - fma(x * s, horner(s, kAsinB32), x));
  const RootAsin<F> a = asin_of_root((splat(x, 1.0) - t) * splat(x, 0.5));
  F right = (a.s + a.tail) * splat(x, 2.0);
  F left = minus_twice(splat(x, kPiHiF), splat(x, kPiLoF), a);
  return select(t > splat(x, 0.5), select(x > splat(x, 0.0), right, left), middle);
}

}  // namespace bcast::math::recipes
