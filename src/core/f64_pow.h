// f64 pow in f64 arithmetic (NOTE: [F64 pow]): a recipe over the lanes of
// math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include <array>
#include <cstddef>

#include "f64_math.h"
#include "math_lanes.h"
#include "two_part_math.h"

namespace bcast::math::recipes {

// NOTE: [F64 pow] x**y = e**(y ln x) rounds once within 1 ULP (pow's bound)
// only if y ln x is known to about 2**-63 of itself: |y ln x| reaches 745 before the
// result overflows or underflows, and each 2**-53 of y ln x's absolute
// error is an ULP of the result. So ln x comes as a pair:
//  - x = (1 + f) 2**k as log_f64_split gives it (f exact, 1 + f in
//    [sqrt(1/2), sqrt(2)]), t = f / (2 + f) with its residual (t + t_lo),
//    and ln(1 + f) = 2t + 2t**3/3 + t**5 R(t**2): 2t exact, 2t**3/3 a
//    product kept with its errors (2/3 in two parts), R Taylor's
//    coefficients 2/(2j + 1) (j = 2 to 11: the first term left out is
//    under 2**-65 of 2t on |t| <= 0.1716), its rounding under 2**-65 too,
//    and t_lo's share in it to first order, 2t**4 t_lo (without it, 2**-62
//    of ln x near x = sqrt(2): 1.84 ULP at pow(1.4142126035991749,
//    2046.0026), found by a review);
//  - k ln 2 with ln 2 in two parts (k times the first is exact), summed
//    with the rest by two-sums, small terms first.
// y ln x is then a product with its exact error (FMA) plus y times ln x's
// low part, and its low part joins exp's reduced argument (r + r_lo
// renormalised) before exp_f64_of's series. The sign and the special
// values are pow_specials', as f32 pow's.
inline constexpr auto kLogPairR = [] {
  std::array<double, 10> c{};
  for (std::size_t j = 0; j < c.size(); ++j) c[j] = 2.0 / static_cast<double>(2 * (j + 2) + 1);
  return c;
}();
inline constexpr double kTwoThirds = 0x1.5555555555555p-1, kTwoThirdsTail = 0x1.5555555555555p-55;

// ln x in two parts for x positive and finite (subnormals too); other
// lanes: any value.
template <class F>
TwoSum<F> log_f64_pair(F x) {
  const LogF64<F> p = log_f64_split(x);
  F f = p.f;
  const TwoSum<F> d = fast_two_sum(splat(f, 2.0), f);  // 2 + f
  F t = f / d.sum;
  F t_lo = (fma(-t, d.sum, f) - t * d.error) / d.sum;
  const TwoSum<F> square = squared(t, t_lo);
  F cube = square.sum * t;
  F cube_lo = fma(square.sum, t, -cube) + (square.error * t + square.sum * t_lo);
  F third = cube * splat(f, kTwoThirds);  // 2t**3/3 and its errors
  F third_lo = fma(cube, splat(f, kTwoThirds), -third) + (cube * splat(f, kTwoThirdsTail) + cube_lo * kTwoThirds);
  F rest = fma(square.sum * square.sum, t_lo + t_lo, cube * square.sum * horner(square.sum, kLogPairR));
  const TwoSum<F> head = two_sum(p.k * splat(f, kLn2Hi), t + t);  // both exact
  const TwoSum<F> sum = two_sum(head.sum, third);
  F small = ((t_lo + t_lo) + fma(p.k, splat(f, kLn2Lo), rest)) + (third_lo + (head.error + sum.error));
  return fast_two_sum(sum.sum, small);
}

// e**(y l) for l = ln x as a pair: y l as a pair, its low part joined to
// exp's reduced argument; 0, inf or NaN where y l is.
template <class F>
F exp_of_product(F y, const TwoSum<F>& l) {
  F p = y * l.sum;
  F p_lo = select(fabs(p) < splat(p, 2048.0), fma(y, l.sum, -p) + y * l.error, splat(p, 0.0));
  const ExpReduction<F> e = exp_f64_reduction(clamped(p, -760.0, 710.0));
  const TwoSum<F> r = two_sum(e.r, e.r_lo + p_lo);
  const ExpF64<F> m = exp_f64_of(ExpReduction<F>{e.n, r.sum, r.error});
  return times_pow2_f64(exp_f64_mantissa(m), e.n);
}

// |x|**y for x positive (inf, 0 and subnormals too), y any.
template <class F>
F pow_f64_magnitude(F x, F y) {
  const TwoSum<F> l = log_f64_pair(x);
  auto finite = x > splat(x, 0.0) && x < splat(x, kInf);
  return exp_of_product(y, TwoSum<F>{log_specials(x, l.sum), select(finite, l.error, splat(x, 0.0))});
}

template <class F>
F pow_f64(F x, F y) {
  return pow_specials(x, y, pow_f64_magnitude(fabs(x), y));
}

// NOTE: [Rare lanes]: off pow_rare's lanes, |x|**y alone.
template <class F>
F pow_f64_main(F x, F y) {
  return exp_of_product(y, log_f64_pair(x));
}

}  // namespace bcast::math::recipes
