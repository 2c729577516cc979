// Real functions carried in two parts, for the complex recipes (NOTE:
// [Two-part math]). LLVM-free.
#pragma once

#include <array>
#include <cstddef>

#include "f64_math.h"
#include "math_lanes.h"

namespace bcast::math::recipes {

// NOTE: [Two-part math] A c128 result's part is a product or a quotient of
// real functions' values: exp's e**x cos y, sinh's sinh x cos y, tanh's
// sinh x cosh x / (sinh**2 x + cos**2 y). Rounded to f64 first, each factor
// brings its own ULP to the part (1.24 ULP for exp, 2.6 for cos, 4.6 for
// tan, measured on 2026-12-03). So a c128's recipes take these factors as
// pairs, hi + lo (TwoSum), within 2**-55 of the true value (2**-55.9 at
// most in TwoPartMath's test), multiply and divide them as pairs, and round
// once at the end:
//  - sin and cos of y: r = y - k pi/2 exactly (the first product by FMA is
//    exact, the second split by FMA, pi/2 in three parts), while |y| <=
//    2**20 (|k| < 2**20); then Taylor's series of r**2 = s, with the terms
//    that are not small summed in two parts (1 - s/6 and 1 - s/2 below).
//    Beyond 2**20 (the range for sin and cos is 1e6), the tier's
//    real sin and cos, each within its own bound: such a part is within its
//    real function's ULP plus the rounding;
//  - e**x (exp_pair): the reduction of exp_f64_parts, then 1 + r + r**2/2
//    summed with their exact errors and the small rest added;
//  - sinh and cosh of x up to 22 in magnitude: e**|x| as a pair and its
//    reciprocal in two (one division and its exact residual), halved; sinh
//    below 0.75 by its series, where e**x - e**-x would cancel; e**x - 1
//    from the same pair;
//  - each function's pair is renormalised (|lo| within half an ULP of hi),
//    so that the pairs' products and quotients may drop lo times lo: they
//    keep the high product's exact error (FMA) and the cross terms.
// Taylor's coefficients are 1/n! rounded once (the factorials up to 18! are
// exact doubles); each series stops where its next term is under 2**-62
// of the function on |r| <= pi/4 plus a hair (sinh: 0.75).

// 1/n!, times -1 on every other term when `alternating`: the coefficient of
// s**j is 1/(first + 2j)!, s = r**2, for an odd (first 1) or even series.
template <std::size_t N>
constexpr std::array<double, N> taylor_terms(int first, bool alternating) {
  std::array<double, N> c{};
  double factorial = 1;
  for (int i = 2; i <= first; ++i) factorial *= i;
  for (std::size_t j = 0; j < N; ++j) {
    c[j] = (alternating && j % 2 == 1 ? -1.0 : 1.0) / factorial;
    const int n = first + 2 * static_cast<int>(j);
    factorial *= static_cast<double>(n + 1) * (n + 2);
  }
  return c;
}
// sin r = r (1 - s/6 + s**2 S(s)): S's terms are r**5/5! to r**17/17!.
inline constexpr auto kSinSeries = taylor_terms<7>(5, true);
inline constexpr auto kSinhSeries = taylor_terms<7>(5, false);
// cos r = 1 - s/2 + s**2 C(s): r**4/4! to r**18/18!.
inline constexpr auto kCosSeries = taylor_terms<8>(4, true);

inline constexpr double kSixth = 0x1.5555555555555p-3, kSixthTail = 0x1.5555555555555p-57;  // 1/6 in two parts
inline constexpr double kTwoPartTrigBelow = 0x1p20;  // |y| for sin_cos_two_parts' own reduction

// hi + lo, rounded once; a zero lo leaves hi as it is (-0 + 0 would be +0).
template <class F>
F rounded(const TwoSum<F>& a) {
  return select(a.error == 0.0, a.sum, a.sum + a.error);
}

template <class F>
TwoSum<F> negated(const TwoSum<F>& a) {
  return {-a.sum, -a.error};
}
template <class F>
F negated(F a) {
  return -a;
}

template <class F, class M>
TwoSum<F> select(M m, const TwoSum<F>& a, const TwoSum<F>& b) {
  return {select(m, a.sum, b.sum), select(m, a.error, b.error)};
}

// a b: the high product's exact error by FMA, and the cross terms.
template <class F>
TwoSum<F> product(const TwoSum<F>& a, const TwoSum<F>& b) {
  F hi = a.sum * b.sum;
  return {hi, fma(a.sum, b.sum, -hi) + (a.sum * b.error + a.error * b.sum)};
}

// a b rounded once: hi times hi where the cross terms are zero (its zero's
// sign: sinh(-0) cos y is -0).
template <class F>
F product_rounded(const TwoSum<F>& a, const TwoSum<F>& b) {
  F cross = a.sum * b.error + a.error * b.sum;
  return select(cross == 0.0, a.sum * b.sum, fma(a.sum, b.sum, cross));
}

// a + b: the high sum's exact error, and the low parts.
template <class F>
TwoSum<F> plus(const TwoSum<F>& a, const TwoSum<F>& b) {
  const TwoSum<F> s = two_sum(a.sum, b.sum);
  return {s.sum, s.error + (a.error + b.error)};
}

// a / b: the quotient q and (a - q b) / b, its residual by FMA (exact for a
// rounded quotient) with the low parts.
template <class F>
TwoSum<F> quotient(const TwoSum<F>& a, const TwoSum<F>& b) {
  F q = a.sum / b.sum;
  return {q, (fma(-q, b.sum, a.sum) + (a.error - q * b.error)) / b.sum};
}

// (r + r_lo)**2 as s + s_lo, the square's error by FMA.
template <class F>
TwoSum<F> squared(F r, F r_lo) {
  F s = r * r;
  return {s, fma(r, r, -s) + (r + r) * r_lo};
}

// sqrt(a) of a pair, 0 where a is not positive (sqrt_two_parts' residual
// would divide by 0).
template <class F>
TwoSum<F> root_of(const TwoSum<F>& a) {
  F zero = splat(a.sum, 0.0);
  return select(a.sum > 0.0, sqrt_two_parts(a.sum, a.error), TwoSum<F>{zero, zero});
}

// r (1 + sign s/6 + s**2 S(s)) for r = r_hi + r_lo and its square s +
// s_lo (squared): sin r (sign -1, kSinSeries) or sinh r (sign +1,
// kSinhSeries); s/6 from s in two parts and 1/6 in two.
template <class F, class Series>
TwoSum<F> odd_series(F r, F r_lo, const TwoSum<F>& square, double sign, const Series& series) {
  F s = square.sum, s_lo = square.error;
  F sixth = s * splat(r, kSixth);
  F sixth_lo = fma(s, splat(r, kSixth), -sixth) + (s * splat(r, kSixthTail) + s_lo * splat(r, kSixth));
  const TwoSum<F> factor = fast_two_sum(splat(r, 1.0), sixth * sign);
  F factor_lo = factor.error + fma(s * s, estrin(s, series), sixth_lo * sign);
  F hi = r * factor.sum;
  return fast_two_sum(hi, fma(r, factor.sum, -hi) + (r * factor_lo + r_lo * factor.sum));
}

template <class F>
struct SinCos {
  TwoSum<F> sin;
  TwoSum<F> cos;
};

// sin r and cos r for |r| <= pi/4 (plus a hair), r = r_hi + r_lo.
template <class F>
SinCos<F> sin_cos_reduced(F r, F r_lo) {
  const TwoSum<F> square = squared(r, r_lo);
  F s = square.sum, s_lo = square.error;
  const TwoSum<F> c = fast_two_sum(splat(r, 1.0), s * -0.5);  // s/2 is exact
  return {odd_series(r, r_lo, square, -1.0, kSinSeries),
          fast_two_sum(c.sum, c.error + fma(s * s, estrin(s, kCosSeries), s_lo * -0.5))};
}

// y = k pi/2 + r + r_lo, exact for |y| <= 2**20 (NOTE: [Two-part math]'s
// reduction), with t = k + kRound (k's low bits, for negated_where_bit and
// is_odd). r_lo is within half an ULP of r and a hair (not renormalised).
template <class F>
struct HalfPiReduction {
  F t;
  F k;  // an integer
  TwoSum<F> r;
};
template <class F>
HalfPiReduction<F> half_pi_reduction(F y) {
  F t = y * splat(y, kTwoOverPi) + splat(y, kRound);
  F k = t - splat(y, kRound);
  return {t, k, minus_half_pis(y, k, kHalfPiHi, kHalfPiLo, kHalfPiRest)};
}

// The same, r + r_lo renormalised, and k mod 4 in [-2, 2]: the quarter turn.
template <class F>
struct QuarterTurns {
  F k;  // an integer
  TwoSum<F> r;
  F m;  // k mod 4, in [-2, 2]
};
template <class F>
QuarterTurns<F> reduced_by_half_pi(F y) {
  const HalfPiReduction<F> h = half_pi_reduction(y);
  F k = h.k;
  return {k, fast_two_sum(h.r.sum, h.r.error), k - ((k * 0.25 + splat(k, kRound)) - splat(k, kRound)) * 4.0};
}

// sin y and cos y from the reduced pair's sin r and cos r: the quarter
// turn m swaps them (m odd) and sets their signs.
template <class V>
struct Turned {
  V sin;
  V cos;
};
template <class F, class V>
Turned<V> turned(F m, const V& sin_r, const V& cos_r) {
  auto swap = fabs(m) == 1.0;
  V sin = select(swap, cos_r, sin_r), cos = select(swap, sin_r, cos_r);
  return {select(m < 0.0 || m == 2.0, negated(sin), sin), select(m == 1.0 || fabs(m) == 2.0, negated(cos), cos)};
}

// sin y and cos y in two parts (NOTE: [Two-part math]): y - k pi/2 reduced
// exactly for |y| <= 2**20, the quarter turn k mod 4 chosen by selects;
// beyond, `R`'s sin and cos (the tier's real functions) with no low part,
// which a kernel calls only for a vector with such a lane (R::sin_beyond).
template <class R, class F>
SinCos<F> sin_cos_two_parts(F y) {
  const QuarterTurns<F> q = reduced_by_half_pi(y);
  const SinCos<F> base = sin_cos_reduced(q.r.sum, q.r.error);
  const auto t = turned(q.m, base.sin, base.cos);
  auto own = fabs(y) <= splat(y, kTwoPartTrigBelow);
  F zero = splat(y, 0.0);
  return {{R::sin_beyond(y, kTwoPartTrigBelow, t.sin.sum), select(own, t.sin.error, zero)},
          {R::cos_beyond(y, kTwoPartTrigBelow, t.cos.sum), select(own, t.cos.error, zero)}};
}

// h(r) = (g(r) - 1/2) / r for exp_f64_parts' g(r) (whose first term is 1/2).
inline constexpr auto kExpH64 = [] {
  static_assert(kExpG64[0] == 0.5);
  std::array<double, std::size(kExpG64) - 1> h{};
  for (std::size_t j = 0; j < h.size(); ++j) h[j] = kExpG64[j + 1];
  return h;
}();

// e**(r + r_lo) - 1 and e**(r + r_lo) as pairs, for |r| <= ln2/2 (and a
// hair): r + r**2/2 summed with its exact error (r**2's own by FMA), then
// the small rest, r_lo (1 + r) + r**3 h(r).
template <class F>
struct ExpReduced {
  TwoSum<F> minus_one;
  TwoSum<F> value;
};
template <class F>
ExpReduced<F> exp_reduced(F r, F r_lo) {
  F rr = r * r;
  F rest = fma(r_lo, r, r_lo) + fma(rr * r, estrin(r, kExpH64), fma(r, r, -rr) * 0.5);
  const TwoSum<F> q = fast_two_sum(r, rr * 0.5);
  const TwoSum<F> minus_one = fast_two_sum(q.sum, q.error + rest);
  const TwoSum<F> one = fast_two_sum(splat(r, 1.0), minus_one.sum);
  return {minus_one, fast_two_sum(one.sum, one.error + minus_one.error)};
}

// e**x = 2**n e**(r + r_lo) (exp_f64_reduction), for |x| up to 1418 (n up
// to 2046, where n ln 2's first part stays exact).
template <class F>
struct ExpPair {
  F n;  // an integer
  ExpReduced<F> reduced;
};
template <class F>
ExpPair<F> exp_pair(F x) {
  const ExpReduction<F> e = exp_f64_reduction(x);
  return {e.n, exp_reduced(e.r, e.r_lo)};
}

// e**x - 1 in two parts for x up to 90 (the caller takes e**x beyond): for n
// = 0, exp_reduced's; else 2**n e**(r + r_lo) - 1 summed with its exact
// error (|e**x - 1| is at least 0.29 there). x below -760 is -760: -1.
template <class F>
TwoSum<F> expm1_two_parts(F x) {
  const ExpPair<F> e = exp_pair(clamped(x, -760.0, 90.0));
  const TwoSum<F> d = two_sum(times_pow2_f64(e.reduced.value.sum, e.n), splat(x, -1.0));
  const TwoSum<F> far = fast_two_sum(d.sum, d.error + times_pow2_f64(e.reduced.value.error, e.n));
  return select(e.n == 0.0, e.reduced.minus_one, far);
}

template <class F>
struct SinhCosh {
  TwoSum<F> sinh;
  TwoSum<F> cosh;
};

// sinh x and cosh x in two parts for |x| <= 22 (other lanes: any values):
// e = e**|x| in two parts (exp_pair, 2**n exact), cosh = (e + 1/e) / 2
// and sinh = (e - 1/e) / 2 with 1/e in two parts; below 0.75, sinh by its
// series. x's sign on sinh.
template <class F>
SinhCosh<F> sinh_cosh_two_parts(F x) {
  F t = fabs(x);
  const ExpPair<F> parts = exp_pair(t);
  const TwoSum<F>& v = parts.reduced.value;
  const TwoSum<F> e{times_pow2_f64(v.sum, parts.n), times_pow2_f64(v.error, parts.n)};
  F inv = splat(x, 1.0) / e.sum;
  F inv_lo = (fma(-inv, e.sum, splat(x, 1.0)) - inv * e.error) * inv;
  const TwoSum<F> e_plus = two_sum(e.sum, inv), e_minus = two_sum(e.sum, -inv);
  const TwoSum<F> cosh = fast_two_sum(e_plus.sum * 0.5, (e_plus.error + (e.error + inv_lo)) * 0.5);
  const TwoSum<F> far = fast_two_sum(e_minus.sum * 0.5, (e_minus.error + (e.error - inv_lo)) * 0.5);
  F zero = splat(x, 0.0);
  TwoSum<F> sinh = select(t < splat(x, 0.75), odd_series(t, zero, squared(t, zero), 1.0, kSinhSeries), far);
  return {{copysign(sinh.sum, x), select(x < 0.0, -sinh.error, sinh.error)}, cosh};  // -0 keeps its sign
}

}  // namespace bcast::math::recipes
