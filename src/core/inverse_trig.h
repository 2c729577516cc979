// The inverse trigonometric functions atan, atan2, asin and acos in f32
// arithmetic (NOTE: [F32 math]) and in f64 (NOTE: [F64 math]): recipes over
// the lanes of math_lanes.h (NOTE: [Math recipes]), one body per function
// for both precisions, which differ in their polynomials, their constants
// and how far atan reduces its argument (a precision's `Trig` row).
// LLVM-free.
#pragma once

#include "math_lanes.h"

namespace bcast::math::recipes {

// ---- The polynomials (tools/math-recipes-fit.py) ----

// atan(q) = q + q**3 a(q**2) for q in [0, 1]: within 2**-29.1.
inline constexpr double kAtanA32[] = {-0.3333333308107325, 0.19999949321141888, -0.1428400379473353,
                                      0.11088261628735159, -0.08931826777381315, 0.07031914250029966,
                                      -0.04896051402709067, 0.026305001110062377, -0.009144629760592396,
                                      0.0014886919393047597};
// asin(x) = x + x**3 b(x**2) for |x| <= 1/2: within 2**-29.9.
inline constexpr double kAsinB32[] = {0.16666666337430908, 0.07500094543497424, 0.04459940152851218,
                                      0.03110066273549457, 0.017149238357677253, 0.03369084720283012};
// f64: atan on |q| <= tan(pi/8) (within 2**-57.0), asin on |x| <= 1/2
// (within 2**-57.4).
inline constexpr double kAtanA64[] = {-0x1.5555555555555p-2, 0x1.999999999934cp-3,  -0x1.2492492436201p-3,
                                      0x1.c71c71853d7fap-4,  -0x1.745d0b28a7e37p-4, 0x1.3b1263064f6b9p-4,
                                      -0x1.10fa77b1a6d57p-4, 0x1.dfe6497e96323p-5,  -0x1.a0999c632b6edp-5,
                                      0x1.4162c02b1dda3p-5,  -0x1.3a31b1c0fd3b7p-6};
inline constexpr double kAsinB64[] = {0x1.5555555555556p-3, 0x1.3333333332ecap-4, 0x1.6db6db6e31f13p-5,
                                      0x1.f1c71c1db0623p-6, 0x1.6e8bb1c8209a2p-6, 0x1.1c4d35cf95421p-6,
                                      0x1.c9cf07674736ap-7, 0x1.782651caa6547p-7, 0x1.52420b04b37bep-7,
                                      0x1.65a9c4dfcf8b2p-8, 0x1.1d189408314eep-6, -0x1.e6aaa8a0a04ccp-7,
                                      0x1.d72b2bc8155f8p-6};

// ---- Each precision's row ----

// f32: pi / 2 and pi as a float and the float nearest the rest; atan(n /
// d) from q = n / d in [0, 1] and its rounding error q_lo = (n - q d) / d
// (an FMA), atan(q + q_lo) = q + (q_lo / (1 + q**2) + q**3 a(q**2)), the
// quotient's correction to first order (1 / (1 + q**2) by a line: the
// correction is 2**-24 of q, the line within an eighth of it).
struct Trig32 {
  static constexpr double kHalfPiHi = 0x1.921fb6p+0, kHalfPiLo = -0x1.777a5cp-25;
  // The ordinary form's range of max(|x|, |y|) for atan2: every finite float but 0.
  static constexpr double kOrdinaryLow = 0x1p-149, kOrdinaryHigh = 0x1.fffffep127;
  static constexpr double kPiHi = 0x1.921fb6p+1, kPiLo = -0x1.777a5cp-24;

  // k pi / 2 + sign atan(n / d) for 0 <= n <= d, d > 0 (other lanes: any
  // value), k = 0, 1, 2 and sign +-1: the sum rounds twice, first the large
  // part and then the small ones, within 1.2 ULP by the errors' bound.
  template <bool kOrdinary = false, class F>
  static F atan_quotient(F n, F d, F k, F sign) {
    F q = n / d;
    F q_lo = fma(-q, d, n) / d;
    if constexpr (!kOrdinary) q_lo = select(q_lo == q_lo, q_lo, splat(n, 0.0));  // d infinite: q is 0, exactly
    F s = q * q;
    F small = fma(q * s, estrin(s, kAtanA32), fma(s, splat(n, -0.5), splat(n, 1.0)) * q_lo);
    F large = fma(k, splat(n, kHalfPiHi), sign * q);
    return large + fma(k, splat(n, kHalfPiLo), sign * small);
  }
  template <class F>
  static F asin_poly(F s) {
    return horner(s, kAsinB32);
  }
};

// f64: pi / 4 in two parts, the high one of 45 bits (small multiples of it
// are exact); atan(n / d) reduced once more past tan(pi/8), atan(n / d) =
// pi/4 + atan((n - d) / (n + d)), so that |q| <= tan(pi/8) and a degree-10
// polynomial serves, and one division: q = num (1 / den), which q_lo, the
// residual over den, corrects. q_lo takes in the rounding errors of n - d
// and n + d too (fast two-sums: d >= n; without them, 1.7 ULP), and the sum
// with k pi / 2 keeps its error (below 1, where an ULP is half the sum's,
// 1.5 ULP without). n and d are halved near the top of the range, where n
// + d would overflow, and scaled up near the bottom, where 1 / d would.
struct Trig64 {
  static constexpr double kHalfPiHi = 0x1.921fb54442d18p+0, kHalfPiLo = 0x1.1a62633145c07p-54;
  // atan_quotient scales n and d outside this range of d.
  static constexpr double kOrdinaryLow = 0x1p-1000, kOrdinaryHigh = 0x1p1022;
  static constexpr double kPiHi = 0x1.921fb54442d18p+1, kPiLo = 0x1.1a62633145c07p-53;
  static constexpr double kQuarterPiHi = 0x1.921fb54442d00p-1, kQuarterPiLo = 0x1.8469898cc5170p-49;
  static constexpr double kTanEighthPi = 0x1.a827999fcef32p-2;

  template <bool kOrdinary = false, class F>
  static F atan_quotient(F n, F d, F k, F sign) {
    F zero = splat(n, 0.0);
    auto past = n > d * splat(n, kTanEighthPi);
    F nh = n, dh = d;
    if constexpr (!kOrdinary) {
      F h = select(d > splat(n, 0x1p1022), splat(n, 0.5),
                   select(d < splat(n, 0x1p-1000), splat(n, 0x1p100), splat(n, 1.0)));
      nh = n * h, dh = d * h;  // exact
    }
    const TwoSum<F> minus = fast_two_sum(-dh, nh), plus = fast_two_sum(dh, nh);
    F num = select(past, minus.sum, nh), den = select(past, plus.sum, dh);
    F reciprocal = splat(n, 1.0) / den;
    F q = num * reciprocal;  // within about an ULP; q_lo makes up the rest
    F q_lo = (fma(-q, den, num) + select(past, minus.error - q * plus.error, zero)) * reciprocal;
    if constexpr (!kOrdinary) q_lo = select(q_lo == q_lo, q_lo, zero);  // d infinite: q is 0, exactly
    F s = q * q;
    // k pi/2 + sign (pi/4 + atan q) = quarters pi/4 + sign atan q, and
    // atan(q + q_lo) = q + q_lo / (1 + q**2) + ... (1 / (1 + q**2) by 1 - q**2: within 3%).
    F quarters = k + k + select(past, sign, zero);
    F small = fma(q * s, estrin(s, kAtanA64), fma(-s, q_lo, q_lo));
    F base = quarters * splat(n, kQuarterPiHi);  // exact
    const TwoSum<F> large = fast_two_sum(base, sign * q);  // |base| >= |q| where base is not 0
    return large.sum + (large.error + fma(quarters, splat(n, kQuarterPiLo), sign * small));
  }
  template <class F>
  static F asin_poly(F s) {
    return estrin(s, kAsinB64);
  }
};

// ---- Inverse tangents ----

// atan |x| = atan(|x| / 1), or pi/2 - atan(1 / |x|) above 1; the sign is
// x's. NaN passes (as q), +-inf gives +-pi/2, -0 stays -0.
// atan_quotient's ordinary form (kOrdinary) where |x| <= 2**500: d in [1,
// 2**500] needs no scaling, and q_lo is never NaN.
template <class P, bool kOrdinary = false, class F>
F atan_core(F x) {
  F t = fabs(x);
  auto above = t > splat(x, 1.0);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  return P::template atan_quotient<kOrdinary>(select(above, one, t), select(above, t, one), select(above, one, zero),
                                              select(above, -one, one));
}
template <class P, class F>
F atan_of(F x) {
  return copysign(select(fabs(x) == splat(x, kInf), splat(x, P::kHalfPiHi), atan_core<P>(x)), x);
}
// NOTE: [Rare lanes]: |x| beyond 2**500 (f64), inf and NaN take atan_of.
inline constexpr double kAtanOrdinaryUpTo = 0x1p500;  // a float's splat of it is inf
template <class F>
auto atan_rare(F x) {
  return !(fabs(x) <= splat(x, kAtanOrdinaryUpTo) && fabs(x) < splat(x, kInf));
}
template <class P, class F>
F atan_main_of(F x) {
  return copysign(atan_core<P, true>(x), x);
}

// atan2(y, x) from atan(min / max) of |x| and |y|, by quadrant: pi/2 - a
// where |y| > |x|, then pi - that where x is negative (-0 too), y's sign.
// C99 F.9.1.4's special values: both zeros (0 or pi), both infinities
// (pi/4 or 3pi/4), NaN.
// kOrdinary: max(|x|, |y|) within P's ordinary range, so that neither the
// special values nor atan_quotient's scaling apply (NOTE: [Rare lanes]).
template <class P, bool kOrdinary = false, class F>
F atan2_core(F y, F x) {
  F ax = fabs(x), ay = fabs(y);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  auto steep = ay > ax;
  auto left = copysign(one, x) < zero;
  F n = select(steep, ax, ay), d = select(steep, ay, ax);
  if constexpr (!kOrdinary) {
    // 0 / 0 is atan 0; inf / inf is atan 1; a finite / inf is 0 already.
    auto both_zero = d == zero, both_inf = n == splat(x, kInf);
    n = select(both_inf, one, select(both_zero, zero, n));
    d = select(both_inf || both_zero, one, d);
  }
  // k pi/2 + sign a: a (k 0, +), pi/2 - a (1, -), pi - a (2, -), pi/2 + a (1, +).
  F k = select(steep, one, select(left, splat(x, 2.0), zero));
  F sign = select(steep, select(left, one, -one), select(left, -one, one));
  return copysign(P::template atan_quotient<kOrdinary>(n, d, k, sign), y);
}
template <class P, class F>
F atan2_of(F y, F x) {
  return select(x != x || y != y, x + y, atan2_core<P>(y, x));
}
template <class P, class F>
auto atan2_rare(F y, F x) {
  F ax = fabs(x), ay = fabs(y);
  F high = splat(x, P::kOrdinaryHigh), low = splat(x, P::kOrdinaryLow);
  return !(ax <= high && ay <= high && (ax >= low || ay >= low));
}
template <class P, class F>
F atan2_main_of(F y, F x) {
  return atan2_core<P, true>(y, x);
}

// ---- Inverse sine and cosine ----

// One polynomial a lane for both of asin's forms: asin z = z + z w b(w),
// w = z**2, with z = t, w = t**2 (the series, t = |x| up to 1/2; acos's
// middle takes x itself), or z = sqrt(w) rounded for w = (1 - t) / 2 in [0,
// 1/4] (1 - t exact), whose error (w - z**2) / 2z (exact in the FMA, to
// first order) joins the small terms: big + small, where small rounds once
// with the series' z or the root's error as its last term, so that the
// series lanes are z + z w b(w) in one FMA. Each lane picks its z and w
// before the polynomial, which ran twice on every lane before: the same
// bits (4.5 M arguments, f32 and f64), and on the Zen 5 VM (2026-12-07, 4
// Mi elements, one thread, three alternated runs, el/ns) f64 asin 0.87-0.94
// -> 1.06-1.22, acos 0.84-0.95 -> 0.91-1.06 (f32 within the noise).
template <class V>
struct AsinTerms {
  V z;
  V small;  // z w b(w) + (z's error, or z itself on the series lanes)
};
template <class P, class F, class Mask>
AsinTerms<F> asin_terms(F z_series, F t, Mask root_lanes) {
  F w = select(root_lanes, (splat(t, 1.0) - t) * splat(t, 0.5), z_series * z_series);
  F z = select(root_lanes, sqrt(w), z_series);
  F z_lo = fma(-z, z, w) / (z + z);
  z_lo = select(z_lo == z_lo, z_lo, splat(w, 0.0));  // w = 0
  return {z, fma(z * w, P::asin_poly(w), select(root_lanes, z_lo, z))};
}

// k - 2 asin(sqrt(w)) for k (pi/2 or pi) in two parts: k_hi - 2z rounds,
// and its error (fast_two_sum: k_hi > 2z) joins the small terms, so the
// result rounds about once.
template <class F>
F minus_twice(F k_hi, F k_lo, const AsinTerms<F>& a) {
  const TwoSum<F> large = fast_two_sum(k_hi, -(a.z + a.z));
  return large.sum + (large.error + (k_lo - (a.small + a.small)));
}

// asin |x|: the series to 1/2, above it pi/2 - 2 asin(sqrt((1 - |x|) / 2)).
// The sign is x's; NaN and |x| > 1 (a negative root) are NaN.
template <class P, class F>
F asin_of(F x) {
  F t = fabs(x);
  auto root_lanes = t > splat(x, 0.5);
  const AsinTerms<F> a = asin_terms<P>(t, t, root_lanes);
  return copysign(select(root_lanes, minus_twice(splat(x, P::kHalfPiHi), splat(x, P::kHalfPiLo), a), a.small), x);
}

// acos x: pi/2 - asin x to |x| = 1/2; above, 2 asin(sqrt((1 - x) / 2)), and
// below -1/2, pi - 2 asin(sqrt((1 + x) / 2)). NaN and |x| > 1 are NaN.
template <class P, class F>
F acos_of(F x) {
  F t = fabs(x);
  auto root_lanes = t > splat(x, 0.5);
  const AsinTerms<F> a = asin_terms<P>(x, t, root_lanes);
  F middle = splat(x, P::kHalfPiHi) + (splat(x, P::kHalfPiLo) - a.small);
  F right = (a.z + a.small) * splat(x, 2.0);
  F left = minus_twice(splat(x, P::kPiHi), splat(x, P::kPiLo), a);
  return select(root_lanes, select(x > splat(x, 0.0), right, left), middle);
}

}  // namespace bcast::math::recipes
