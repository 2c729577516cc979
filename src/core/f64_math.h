// f64 functions in f64 arithmetic (NOTE: [F64 math]): recipes over the
// lanes of math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include "math_lanes.h"

namespace bcast::math::recipes {

// NOTE: [F64 math] Where SLEEF's f64 function is furthest behind NumPy's
// SVML loops, a recipe computes it in f64 itself, 8 lanes to an AVX-512
// register, without division where it can. Its bound is its row's in
// kRecipes, checked against long double (whose own error is 2**-11 of an
// f64 ULP) on special values and random bit patterns.

// cbrt |x| = t r**2 with r = 1 / cbrt(t): rcbrt_seed's estimate (within
// 2**-4.87) and three Newton steps r + r (1 - t r**3) / 3, no division, to
// within 2**-32; then y = t r**2 takes one Newton step y - (y**3 - t) r**2 /
// 3 whose residual is an FMA on y**2 rounded (its error, 2**-53 of t, a
// sixth of the step): 0.74 ULP at most on 2 * 10**7 random arguments. t is
// first scaled by a cube (2**108, 2**-60) into [2**-966, 2**1000], where
// the residual stays a normal number, and the root scales the result back
// exactly. The sign is x's; zeros, infinities and NaN pass.
template <class F>
F cbrt_f64(F x) {
  F t = fabs(x);
  const CubeScaled<F> s = scale_by_cube(t, 0x1p-900, 108, 0x1p1000, -60);
  F r = rcbrt_seed(s.t);
  F third = splat(x, 1.0 / 3.0);
  for (int step = 0; step < 3; ++step) r = fma(r * third, fma(-s.t, r * r * r, splat(x, 1.0)), r);
  F r2 = r * r;
  F y = s.t * r2;
  y = fma(-fma(y * y, y, -s.t), r2 * third, y);
  return cbrt_of(x, t, y * s.back);
}

}  // namespace bcast::math::recipes
