// f32 functions computed in f64 (NOTE: [Widened math]): recipes over the
// lanes of math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include "math_lanes.h"

namespace bcast::math::recipes {

// NOTE: [Widened math] SLEEF's 1-ULP f32 functions (NOTE: [Vector math])
// are slow where they work around f32's range and cancellation: pow (and
// expm1, log1p, sinh, cosh, tanh and the inverse hyperbolics, which NOTE:
// [F32 math] now computes). bcast computes those f32
// functions in f64 instead, where neither matters: a float widens exactly,
// each recipe below keeps its relative error under about 2**-35 (polynomials
// on a reduced argument, no cancellation left), and the one rounding to
// float at the end gives at most 0.5 + 2**-11 ULP: correctly rounded but
// within a thousandth of an ULP of a halfway point. Measured on 2026-12-03
// (2-core Zen 5 VM, one thread, 4 Mi floats, two runs each): 1.3x to 2.2x
// SLEEF's speed; exp2, log2, log10 and cbrt were as fast or slower in f64
// (NOTE: [F32 math] computes them now). But f64 arithmetic on f32 data runs
// half as many lanes: NumPy's SVML loops stay about twice as fast, which
// NOTE: [F32 math]'s recipes answer where they exist.
//  - Special values: by explicit selects at each recipe's end, C99 Annex F
//    (as NumPy's loops give them).
//  - sin and cos: SLEEF's 1-ULP sinf and cosf keep their speed only for
//    small arguments. On the 2-core Intel Xeon VM (2026-12-05, one thread,
//    256 Ki floats, elements per ns) they ran 1.8 and 1.5 on |x| <= 100 but
//    0.48 on |x| <= 10**4 and 10**6, and NumPy's own loop falls to 0.10
//    beyond 71476 (its scalar path). Reduced by pi in f64 (exact but for one
//    rounding, every float up to 2**30), x - n pi needs only sin's one
//    polynomial on |r| <= pi/2 (n's parity sets the sign; cos reduces by
//    (n + 1/2) pi): 1.25 to 2.0 and 1.3 to 1.9 at every magnitude (docs/
//    performance.md), within 0.5 + 2**-10 ULP (kWidened, tested on its own
//    below 2**30) where SLEEF allows 1. NumPy's loop stays ahead below
//    71476 (2.5 to 2.8): it is a plain f32 reduction and two short
//    polynomials, and its documented bound is 1.49 ULP.

// ---- Cores, in f64 ----

// The polynomials, from tools/math-recipes-fit.py (Chebyshev interpolants,
// the script prints each one's largest relative error), Horner with FMA.
// expm1(r) = r + r**2 g(r) for |r| <= ln2 / 2: within 2**-36.5.
inline constexpr double kExpm1G[] = {0x1.0000000000000p-1,  0x1.5555556750672p-3,  0x1.5555555c85f99p-5,
                                     0x1.1110c63a4eed0p-7,  0x1.6c1685919d367p-10, 0x1.a15169e096556p-13,
                                     0x1.a1131351400c3p-16};
// ln m = 2t + t**3 h(t**2), t = (m - 1) / (m + 1), m in [sqrt(1/2), sqrt(2)): within 2**-43.1.
inline constexpr double kLogH[] = {0x1.5555555564e96p-1, 0x1.999998cafbf2ap-2, 0x1.249323e4d7fc7p-2,
                                   0x1.c67ada017cf97p-3, 0x1.8c8c11e54d389p-3};

// e**r - 1 for |r| <= ln2 / 2.
template <class V>
V expm1_series(V r) {
  return fma(r * r, horner(r, kExpm1G), r);
}

// x = n ln2 + r, n an integer (as a double), |r| <= ln2 / 2 (and a rounding).
template <class V>
struct Reduced {
  V n;
  V r;
};
template <class V>
Reduced<V> reduce_ln2(V x) {
  V n = (x * kLog2e + kRound) - kRound;
  return {n, (x - n * kLn2Hi) - n * kLn2Lo};
}

// e**x for x clamped to [-700, 700], where e**x is a finite double.
template <class V>
V exp_core(V x) {
  const Reduced<V> t = reduce_ln2(clamped(x, -700.0, 700.0));
  return pow2i(t.n) * (expm1_series(t.r) + 1.0);
}

// ln d for d positive, normal and finite (other lanes: any value, which the
// recipes replace): k ln2 + ln m, with ln m from t = f / (f + 2), f = m - 1
// exact, |t| < 0.1716.
template <class V>
V log_core(V d) {
  const Split<V> s = split(d);
  const V f = s.m - 1.0;
  const V t = f / (f + 2.0);
  const V m_log = fma(t * (t * t), horner(t * t, kLogH), 2.0 * t);
  return fma(s.k, splat(d, kLn2Hi), fma(s.k, splat(d, kLn2Lo), m_log));
}

// ---- sin and cos ----

// sin r = r + r**3 S(r**2) on |r| <= pi/2 (and a hair): within 2**-41.5.
inline constexpr double kSinS[] = {-0x1.55555555549cbp-3, 0x1.1111110fc048dp-7,   -0x1.a01a0011bcc57p-13,
                                   0x1.71dd8de2d0e85p-19, -0x1.ae20c4d4c2baep-26, 0x1.54e75d15ad864p-33};
inline constexpr double kWidenedTrigUpTo = 0x1p30;  // |x| beyond: the library's sinf and cosf

template <class V>
V sin_series(V r) {  // r (1 + s S(s)): -0 stays -0
  V s = r * r;
  return r * fma(s, horner(s, kSinS), splat(r, 1.0));
}

// sin x = (-1)**n sin(x - n pi) and cos x = (-1)**(n+1) sin(x - (n + 1/2)
// pi): one polynomial on |r| <= pi/2 for both, its sign from n's lowest bit
// (t = n + kRound holds it), no select. For |x| <= 2**30; elsewhere (NOTE:
// [Rare lanes]) any value.
template <class F>
F sin_f32_main(F x) {
  auto xd = widen(x);
  auto t = xd * kOneOverPi + kRound;
  return narrow(negated_where_odd(sin_series(minus_pis(xd, t - kRound)), t));
}
template <class F>
F cos_f32_main(F x) {
  auto xd = widen(x);
  auto t = fma(xd, splat(xd, kOneOverPi), splat(xd, -0.5)) + kRound;
  return narrow(negated_where_odd(-sin_series(minus_pis(xd, (t - kRound) + 0.5)), t));
}
template <class F>
auto sin_cos_f32_rare(F x) {
  return !(fabs(x) <= splat(x, kWidenedTrigUpTo));
}
template <class F>
F sin_f32(F x) {
  return within(x, kWidenedTrigUpTo, sin_f32_main(x), "sin");
}
template <class F>
F cos_f32(F x) {
  return within(x, kWidenedTrigUpTo, cos_f32_main(x), "cos");
}

// |x|**y = e**(y ln|x|), the sign and C99 F.9.4.4's special values by
// pow_specials. NOTE: [Math guards]'s pow steps (a signalling NaN, y = 1)
// run around it.
template <class F>
F pow_f32(F x, F y) {
  auto dx = widen(x);
  auto dy = widen(y);
  auto ax = fabs(dx);
  auto lx = log_specials(ax, log_core(ax));  // -inf at 0, inf at inf
  return narrow(pow_specials(dx, dy, exp_core(dy * lx)));
}

// NOTE: [Rare lanes]: off pow_rare's lanes, e**(y ln x) alone (x = 1 and
// y = 0 give 1 through it exactly).
template <class F>
F pow_f32_main(F x, F y) {
  return narrow(exp_core(widen(y) * log_core(widen(x))));
}

}  // namespace bcast::math::recipes
