// f32 functions in f32 arithmetic (NOTE: [F32 math]): recipes over the
// lanes of math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include "math_lanes.h"

namespace bcast::math::recipes {

// NOTE: [F32 math] Where f64 arithmetic on f32 data (NOTE: [Widened math])
// is still slower than NumPy's SVML loops, a recipe computes in f32 itself,
// 16 lanes to an AVX-512 register: a reduced argument, a short polynomial
// with FMA, and the function's own bound (docs/semantics.md), not correct
// rounding. Each is checked on every f32 input (BCAST_RECIPE_SWEEP_STRIDE=1
// with tests/test_math_recipes.cpp: the figure by its row in kRecipes) and,
// in the default tests, on a sweep.
// Its polynomials come from tools/math-recipes-fit.py's f32 section, the
// coefficients rounded to float by splat.

// From tools/math-recipes-fit.py's f32 section.
inline constexpr double kExpm1G32[] = {0.5, 0.1666657702559799, 0.041666554662050534, 0.008363173074513711,
                                       0.001392617611993558};
inline constexpr double kTanhP32[] = {-0.3333333274440396, 0.13333261841465857, -0.05395388951973762,
                                      0.02175940978601938, -0.008450872527807168, 0.002759119258875984,
                                      -0.0005203526888253506};

// e**y for y in [0, 88]: y = n ln2 + r (Cody and Waite's two parts of ln2,
// n * kLn2Hi exact), e**r = 1 + r + r**2 g(r) (kExpm1G32: g within 2**-25.3),
// times 2**n.
template <class V>
struct ScaledExp {
  V p;  // e**r, in [sqrt(1/2), sqrt(2)]
  V n;  // e**y = p * 2**n
};
template <class F>
ScaledExp<F> exp_f32_parts(F y) {
  F n = (y * splat(y, kLog2e) + splat(y, 0x1.8p23)) - splat(y, 0x1.8p23);
  F r = fma(n, splat(y, -0x1.62e4p-1), y);
  r = fma(n, splat(y, -0x1.7f7d1cp-20), r);
  return {fma(r * r, horner(r, kExpm1G32), r) + splat(y, 1.0), n};
}
template <class F>
F exp_f32_core(F y) {
  const ScaledExp<F> e = exp_f32_parts(y);
  return e.p * pow2i(e.n);
}

// tanh |x|: below 0.9, |x| + |x|**3 p(x**2) (kTanhP32: within 2**-27.7 of
// tanh); above, 1 - 2 / (e**(2|x|) + 1), whose error shrinks as the
// quotient does (1.35 ULP at most at 0.9 by the error's bound). NaN passes
// through both.
template <class F>
F tanh_f32(F x) {
  F t = fabs(x);
  F t2 = t * t;
  F small = fma(t * t2, horner(t2, kTanhP32), t);
  F tc = select(t > splat(t, 10.0), splat(t, 10.0), t);  // tanh rounds to 1 from 9.01
  F e = exp_f32_core(tc + tc);
  F large = splat(t, 1.0) - splat(t, 2.0) / (e + splat(t, 1.0));
  return copysign(select(t < splat(t, 0.9), small, large), x);
}

// cosh |x| = (e + 1/e) / 2 with e = e**|x|; from 20 on, where 1/e is below
// 2**-57 of e, e / 2 as p * 2**(n - 65) * 2**64, which stays finite up to
// cosh's own overflow (89.4), past exp's (88.7). NaN passes.
template <class F>
F cosh_f32(F x) {
  F t = fabs(x);
  F tc = select(t > splat(t, 90.0), splat(t, 90.0), t);  // cosh 90 overflows f32
  const ScaledExp<F> e = exp_f32_parts(tc);
  F small_e = e.p * pow2i(select(tc < splat(t, 20.0), e.n, splat(t, 0.0)));
  F small = fma(small_e, splat(t, 0.5), splat(t, 0.5) / small_e);
  F large = (e.p * pow2i(e.n - splat(t, 65.0))) * splat(t, 0x1p64);
  return select(tc < splat(t, 20.0), small, large);
}

}  // namespace bcast::math::recipes
