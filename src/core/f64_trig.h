// f64 sin, cos and tan in f64 arithmetic (NOTE: [F64 trig]): recipes over the
// lanes of math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include <string_view>

#include "two_part_math.h"

namespace bcast::math::recipes {

// NOTE: [F64 trig] SLEEF's 1-ULP f64 sin and cos carry their reduced
// argument and their last steps in two parts on every lane. For |x| <=
// 2**20, bcast reduces x by pi/2 as NOTE: [Two-part math] does (x = k pi/2
// + r + r_lo, exact), computes both series of r on every lane and lets k's
// low bits pick one (k odd: the other function) and its sign (bit 1; for
// cos, bit 1 of k + 1), by a select and a sign flip on bits; each series is
// a big term plus small ones, summed small first, one rounding to dominate:
//  - sin(r + r_lo) = r + (r q + r_lo (1 - s/2)), q = s S(s), s = r**2:
//    |q| < 0.103 on |r| <= pi/4;
//  - cos(r + r_lo) = (1 - s/2) + (its exact error + s**2 C(s) - s_lo/2),
//    s + s_lo = (r + r_lo)**2 (squared): s/2 is exact, and 1 - s/2 keeps
//    its error (fast_two_sum).
// S and C are near-minimax (tools/math-recipes-fit.py: within 2**-57.1
// and 2**-59.5 of sin and cos): 7 and 6 terms where Taylor's series took 8
// and 8. With k's bits in place of turned()'s compares on k mod 4, f64
// sin went from 0.29 to 0.43 elements per ns on the Zen 3 VM
// (docs/performance.md, 2026-12-06); Estrin's scheme for S and C measured
// no faster than Horner's, which takes fewer steps.
// Beyond 2**20, and at inf and NaN, the library's sin and cos: NOTE: [Rare
// lanes] keeps them off the main path. So do zeros for sin (the
// reduction's pair turns -0 into +0): the library's x. The bound is 1 ULP
// (the for sin and cos); tests/test_math_recipes.cpp's samples and
// the mpmath test check it.

inline constexpr double kTrigF64MainUpTo = kTwoPartTrigBelow;
inline constexpr double kSinF64S[] = {-0x1.5555555555555p-3, 0x1.1111111111110p-7,   -0x1.a01a01a019938p-13,
                                      0x1.71de3a5460950p-19, -0x1.ae645412c4390p-26, 0x1.61217f0a95ad6p-33,
                                      -0x1.ab17d37ab5989p-41};
inline constexpr double kCosF64C[] = {0x1.5555555555555p-5,   -0x1.6c16c16c16967p-10, 0x1.a01a019f4eaf9p-16,
                                      -0x1.27e4fa17d9624p-22, 0x1.1eeb68e88cbb9p-29,  -0x1.907da2e9cd397p-37};

// sin(r + r_lo) and cos(r + r_lo) as a big term and a small one, unrounded.
template <class F>
TwoSum<F> sin_of_reduced(const TwoSum<F>& r) {
  F s = r.sum * r.sum;
  F q = s * horner(s, kSinF64S);
  return {r.sum, fma(r.sum, q, fma(r.error * s, splat(s, -0.5), r.error))};
}
template <class F>
TwoSum<F> cos_of_reduced(const TwoSum<F>& r) {
  const TwoSum<F> square = squared(r.sum, r.error);
  F s = square.sum;
  const TwoSum<F> c = fast_two_sum(splat(s, 1.0), s * -0.5);  // s/2 is exact
  return {c.sum, c.error + fma(s * s, horner(s, kCosF64C), square.error * -0.5)};
}

// sin y and cos y from one reduction, for |y| <= 2**20 (other lanes: any
// value): the main paths of sin and cos, and a c64's (NOTE: [Complex
// math]), whose parts need both.
template <class F>
Turned<F> sin_cos_f64_main(F y) {
  const HalfPiReduction<F> q = half_pi_reduction(y);
  const TwoSum<F> s = sin_of_reduced(q.r), c = cos_of_reduced(q.r);
  F sin_r = s.sum + s.error, cos_r = c.sum + c.error;
  auto odd = is_odd(q.t);
  return {negated_where_bit(select(odd, cos_r, sin_r), q.t, 1),
          negated_where_bit(select(odd, sin_r, cos_r), q.t + 1.0, 1)};
}
template <class F>
F sin_f64_main(F x) {
  return sin_cos_f64_main(x).sin;
}
template <class F>
F cos_f64_main(F x) {
  return sin_cos_f64_main(x).cos;
}
// tan r = r + r**3 (1/3 + s P(s) / Q(s)), s = r**2, on |r| <= pi/4 and a
// hair: within 2**-59.8 (tools/math-recipes-fit.py's rational fit; a
// polynomial in s would take some 20 terms there).
inline constexpr double kTanF64P[] = {0x1.1111111111111p-3, -0x1.04340a2de15bdp-7, 0x1.65a50bac171a0p-14};
inline constexpr double kTanF64Q[] = {1.0, -0x1.db761a013ab9cp-2, 0x1.9255523b9cb42p-6, -0x1.0c4a23c305d46p-12};

// tan(r + r_lo) = r + (r**3 (1/3 + s P/Q) + r_lo (1 + s)) where k is even,
// the big term and the small ones (under 0.28 of it) summed first, one
// rounding to dominate; kept in two parts for the odd lanes'
// tan_or_minus_cot. Two divisions and some 30 steps where sin r / cos r took one and
// 60 (both series, their pairs and the quotient's residual): on the Zen 5
// VM (2026-12-07, 4 Mi elements, one thread, three processes of each in
// turn) 6.07-6.62 -> 3.72-4.07 ms, and 0.57x -> 0.83-1.02x NumPy's SVML
// loop (docs/performance.md). 1.143 ULP at most on MathRecipes' samples,
// where the quotient was 0.832: the bound is 2.
template <class F>
F tan_f64_main(F x) {
  const HalfPiReduction<F> q = half_pi_reduction(x);
  F r = q.r.sum, s = r * r, one = splat(x, 1.0);
  F rest = fma(s, horner(s, kTanF64P) / horner(s, kTanF64Q), splat(x, 1.0 / 3.0));
  return tan_or_minus_cot(fast_two_sum(r, fma(r * s, rest, q.r.error * (s + one))), is_odd(q.t));
}

// NOTE: [Rare lanes]: |x| beyond 2**20, inf and NaN; and the zeros of sin
// and tan.
template <class F>
auto sin_f64_rare(F x) {
  return !(fabs(x) <= splat(x, kTrigF64MainUpTo)) || x == splat(x, 0.0);
}
template <class F>
auto tan_f64_rare(F x) {
  return sin_f64_rare(x);
}
template <class F>
auto cos_f64_rare(F x) {
  return !(fabs(x) <= splat(x, kTrigF64MainUpTo));
}
template <class F>
F sin_f64(F x) {
  return select(x == splat(x, 0.0), x, within(x, kTrigF64MainUpTo, sin_f64_main(x), "sin"));
}
template <class F>
F tan_f64(F x) {
  return select(x == splat(x, 0.0), x, within(x, kTrigF64MainUpTo, tan_f64_main(x), "tan"));
}
template <class F>
F cos_f64(F x) {
  return within(x, kTrigF64MainUpTo, cos_f64_main(x), "cos");
}

}  // namespace bcast::math::recipes
