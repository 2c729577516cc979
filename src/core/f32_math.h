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

// ln 2 in two floats, the high one of 17 bits.
inline constexpr double kLn2HiF = 0x1.62e4p-1;
inline constexpr double kLn2LoF = 0x1.7f7d1cp-20;  // ln 2 - kLn2HiF, rounded to float

// From tools/math-recipes-fit.py's f32 section.
inline constexpr double kExpm1G32[] = {0.5, 0.1666657702559799, 0.041666554662050534, 0.008363173074513711,
                                       0.001392617611993558};
inline constexpr double kTanhP32[] = {-0.3333333274440396, 0.13333261841465857, -0.05395388951973762,
                                      0.02175940978601938, -0.008450872527807168, 0.002759119258875984,
                                      -0.0005203526888253506};

inline constexpr double kSinhQ32[] = {0.16666666668524452, 0.008333332920579865, 0.00019841416433958524,
                                      2.75391216688735e-06, 2.5971333609178057e-08};

// ln(1 + f) = f + f**2 l(f), f in [sqrt(1/2) - 1, sqrt(2) - 1]: within 2**-26.8.
inline constexpr double kLog1pL32[] = {-0.4999999764977098, 0.33333330028354796, -0.25000781239812697,
                                       0.20001234461093456, -0.16626645629127462, 0.14204855952571013,
                                       -0.1312755565128765,  0.1272267278801096,   -0.07673641501674025};

// e**y for y in [-88, 88]: y = n ln2 + r (Cody and Waite's two parts of
// ln2; y - n * kLn2HiF in one FMA is exact), e**r = 1 + r + r**2 g(r)
// (kExpm1G32: g within 2**-25.3), times 2**n.
template <class V>
struct ScaledExp {
  V q;  // e**r - 1
  V p;  // e**r, q + 1, in [sqrt(1/2), sqrt(2)]
  V n;  // e**y = p * 2**n
};
template <class F>
ScaledExp<F> exp_f32_parts(F y) {
  F n = (y * splat(y, kLog2e) + splat(y, 0x1.8p23)) - splat(y, 0x1.8p23);
  F r = fma(n, splat(y, -kLn2HiF), y);
  r = fma(n, splat(y, -kLn2LoF), r);
  F q = fma(r * r, horner(r, kExpm1G32), r);
  return {q, q + splat(y, 1.0), n};
}
template <class V>
V scaled(const ScaledExp<V>& e) {  // p 2**n for n in [-126, 127]
  return e.p * pow2i(e.n);
}
template <class F>
F exp_f32_core(F y) {
  return scaled(exp_f32_parts(y));
}

// e**x for |x| < 87 (2**n and the result normal): s + s q in one FMA, s =
// 2**n and q = e**r - 1 = r + (r_lo + r**2 g(r)) with r's rounding error
// r_lo carried, so that the FMA's rounding dominates (exp's bound is 1
// ULP). NOTE: [Rare lanes]: from 87 on, inf and NaN, the library's expf.
// Where 1 + q was summed with its exact error and then scaled, the recipe
// took six steps more a vector (f32 exp(x) 2.05-2.19 -> 1.75-1.78 ms on 4 Mi
// elements, the Zen 3 VM, one thread).
template <class F>
F exp_f32_main(F x) {
  F t = fma(x, splat(x, kLog2e), splat(x, 0x1.8p23));  // n + 1.5 2**23, n = x / ln 2 rounded
  F n = t - splat(x, 0x1.8p23);
  F exact = fma(n, splat(x, -kLn2HiF), x);
  F r = fma(n, splat(x, -kLn2LoF), exact);
  F r_lo = fma(n, splat(x, -kLn2LoF), exact - r);
  F q = r + fma(r * r, horner(r, kExpm1G32), r_lo);
  F s = pow2i_rounded(t);
  return fma(s, q, s);
}
template <class F>
auto exp_f32_rare(F x) {
  return !(fabs(x) < splat(x, 87.0));
}
template <class F>
F exp_f32(F x) {
  return select(fabs(x) < splat(x, 87.0), exp_f32_main(x), library_function("exp", x));
}

// tanh |x|: below 0.9, |x| + |x|**3 p(x**2) (kTanhP32: within 2**-27.7 of
// tanh); above, 1 - 2 / (e**(2|x|) + 1), whose error shrinks as the
// quotient does (1.35 ULP at most at 0.9 by the error's bound). NaN passes
// through both.
template <class F>
F tanh_f32(F x) {
  F t = fabs(x);
  F small = odd_polynomial(t, kTanhP32);
  F tc = at_most(t, 10.0);  // tanh rounds to 1 from 9.01
  F e = exp_f32_core(tc + tc);
  F large = splat(t, 1.0) - splat(t, 2.0) / (e + splat(t, 1.0));
  return copysign(select(t < splat(t, 0.9), small, large), x);
}

// p * 2**n for an integral n in [-62, 191], as p * 2**(n - 64) * 2**64:
// finite past 2**127 * p where the result is (pow2i alone stops at 127).
template <class F>
F times_pow2(F p, F n) {
  return (p * pow2i(n - splat(p, 64.0))) * splat(p, 0x1p64);
}

// e**|x| / 2: finite up to cosh's and sinh's own overflow (89.4), past
// e**|x|'s (88.7); t is at most 90.
template <class F>
F half_exp_f32(F t) {
  const ScaledExp<F> e = exp_f32_parts(t);
  return times_pow2(e.p, e.n - splat(t, 1.0));
}

// cosh |x| = e/2 + 1/(4 (e/2)) with e = e**|x| (once e/2 overflows, 1/inf
// is 0). NaN passes.
template <class F>
F cosh_f32(F x) {
  F t = fabs(x);
  F half_e = half_exp_f32(at_most(t, 90.0));  // cosh 90 overflows f32
  return half_e + splat(t, 0.25) / half_e;
}

// sinh |x|: below 1.5, |x| + |x|**3 q(x**2) (kSinhQ32: within 2**-35 of
// sinh); above, e/2 - 1/(4 (e/2)) as cosh_f32 (1/e is under a tenth of e:
// no cancellation to speak of).
template <class F>
F sinh_f32(F x) {
  F t = fabs(x);
  F small = odd_polynomial(t, kSinhQ32);
  F half_e = half_exp_f32(at_most(t, 90.0));  // sinh 90 overflows f32
  return copysign(select(t < splat(t, 1.5), small, half_e - splat(t, 0.25) / half_e), x);
}

// e**x - 1 = 2**n q + (2**n - 1) with q = e**r - 1 (exactly q where n is
// 0), one rounding; from n = 65 on e**x, as cosh_f32's e / 2. -0 stays -0.
template <class F>
F expm1_f32(F x) {
  F xc = clamped(x, -20.0, 90.0);
  const ScaledExp<F> e = exp_f32_parts(xc);
  F s = pow2i(select(e.n > splat(x, 64.0), splat(x, 0.0), e.n));
  F mid = fma(s, e.q, s - splat(x, 1.0));
  F large = times_pow2(e.p, e.n);
  return select(x == splat(x, 0.0), x, select(e.n > splat(x, 64.0), large, mid));
}
// NOTE: [Rare lanes]: in (-20, 40) but 0, n is at most 58: the middle form
// alone, no clamp.
template <class F>
auto expm1_f32_rare(F x) {
  return !(x > splat(x, -20.0) && x < splat(x, 40.0)) || x == splat(x, 0.0);
}
template <class F>
F expm1_f32_main(F x) {
  const ScaledExp<F> e = exp_f32_parts(x);
  F s = pow2i(e.n);
  return fma(s, e.q, s - splat(x, 1.0));
}

// ln(1 + x) = k ln2 + ln m + c: u = 1 + x rounded = m 2**k, ln m = f + f**2
// l(f) with f = m - 1 exact (no division), and c = (x - (u - 1)) / u, u's
// rounding error over u (u - 1 is exact where c matters: u in [1/2, 2]).
// -0 stays -0; -1 is -inf, below it NaN, inf is inf.
template <class F>
F log1p_f32_core(F x, F u) {
  const Split<F> s = split(u);
  F f = s.m - splat(x, 1.0);
  F correction = (x - (u - splat(x, 1.0))) / u;
  F m_log = fma(f * f, horner(f, kLog1pL32), f + correction);
  return fma(s.k, splat(x, kLn2HiF), fma(s.k, splat(x, kLn2LoF), m_log));
}
template <class F>
F log1p_f32(F x) {
  F u = x + splat(x, 1.0);
  F r = log1p_f32_core(x, u);
  r = select(u == splat(x, 0.0), splat(x, -kInf), r);
  r = select(u < splat(x, 0.0), splat(x, kNaN), r);
  r = select(x == splat(x, kInf), x, r);
  return select(x == splat(x, 0.0) || x != x, x, r);
}

// ---- Logarithms and 2**x ----

// log2 e, log10 e and ln 2 as a float and the float nearest the rest.
inline constexpr double kLog2eHiF = 0x1.715476p+0, kLog2eLoF = 0x1.4ae0cp-26;
inline constexpr double kLog10eHiF = 0x1.bcb7b2p-2, kLog10eLoF = -0x1.5b235ep-27;
inline constexpr double kLn2F = 0x1.62e43p-1;
// log10 2 in two parts, the high one of 15 bits: k times it is exact.
inline constexpr double kLog10TwoHiF = 0x1.344p-2, kLog10TwoLoF = 0x1.3509f8p-18;
// ln(1 + f) = f + f**2 l(f) (kLog1pL32), scaled: log2(1 + f) = f log2 e + f**2 l2(f).
inline constexpr auto kLog2L32 = scaled(kLog1pL32, kLog2e);
inline constexpr auto kLog10L32 = scaled(kLog1pL32, 0x1.bcb7b1526e50ep-2);  // log10 e

// x = (1 + f) 2**k, 1 + f in [sqrt(1/2), sqrt(2)), f exact: x positive and
// finite (a subnormal is scaled by 2**23 first); other lanes: any value.
template <class V>
struct LogParts {
  V f;
  V k;  // an integer
};
template <class F>
LogParts<F> log_parts_f32(F x) {
  auto subnormal = x < splat(x, 0x1p-126);
  const Split<F> s = split(select(subnormal, x * splat(x, 0x1p23), x));
  return {s.m - splat(x, 1.0), s.k - select(subnormal, splat(x, 23.0), splat(x, 0.0))};
}

// log2 x = k + f log2 e + f**2 l2(f): f log2 e in two parts, so that the
// sum rounds about once; l2 by Estrin's scheme (a shorter chain: 13% faster
// in the streaming loop than Horner's, at 1.42 ULP where Horner's gave
// 1.18). log2 1 is +0.
template <class F>
F log2_f32_sum(const LogParts<F>& p) {
  F tail = fma(p.f, splat(p.f, kLog2eLoF), p.f * p.f * estrin(p.f, kLog2L32));
  return p.k + fma(p.f, splat(p.f, kLog2eHiF), tail);
}
template <class F>
F log2_f32(F x) {
  return log_specials(x, log2_f32_sum(log_parts_f32(x)));
}

// ln x = k ln 2 + f + f**2 l(f): k kLn2HiF (exact: 15 bits times at most
// 8) plus f summed with its exact error, and the small terms (k kLn2LoF,
// f**2 l(f)) added to that error, so that the sum rounds about once (log's
// bound is 1 ULP). l by Horner's scheme: by Estrin's, x = 0.69698608 was
// 1.068 ULP off, where k ln 2 and f cancel.
template <class F>
F log_f32_sum(const LogParts<F>& p) {
  const TwoSum<F> head = fast_two_sum(p.k * splat(p.f, kLn2HiF), p.f);
  F tail = fma(p.k, splat(p.f, kLn2LoF), fma(p.f * p.f, horner(p.f, kLog1pL32), head.error));
  return head.sum + tail;
}
template <class F>
F log_f32(F x) {
  return log_specials(x, log_f32_sum(log_parts_f32(x)));
}

// log10 x = k log10 2 + f log10 e + f**2 l10(f), each product in two parts
// (l10 by Estrin's scheme, as log2_f32's l2).
template <class F>
F log10_f32_sum(const LogParts<F>& p) {
  F tail = fma(p.f, splat(p.f, kLog10eLoF), p.f * p.f * estrin(p.f, kLog10L32));
  F m_log = fma(p.f, splat(p.f, kLog10eHiF), tail);
  return fma(p.k, splat(p.f, kLog10TwoHiF), fma(p.k, splat(p.f, kLog10TwoLoF), m_log));
}
template <class F>
F log10_f32(F x) {
  return log_specials(x, log10_f32_sum(log_parts_f32(x)));
}

// NOTE: [Rare lanes]: on a positive, normal and finite x the subnormal
// scaling and the special values do nothing; the main paths skip them.
template <class F>
LogParts<F> log_parts_f32_normal(F x) {
  const Split<F> s = split(x);
  return {s.m - splat(x, 1.0), s.k};
}
template <class F>
F log_f32_main(F x) {
  return log_f32_sum(log_parts_f32_normal(x));
}
template <class F>
F log2_f32_main(F x) {
  return log2_f32_sum(log_parts_f32_normal(x));
}
template <class F>
F log10_f32_main(F x) {
  return log10_f32_sum(log_parts_f32_normal(x));
}

// atanh(x) = x + x**3 c(x**2) for |x| < 1/2: within 2**-27.6.
inline constexpr double kAtanhC32[] = {0.3333333168479454,  0.2000047330953935,  0.1426397985264627,
                                       0.11469875161618762, 0.06493489567669346, 0.15751780259152603};
// ln m = 2t + t**3 h(t**2), t = (m - 1) / (m + 1), m in [sqrt(1/2), sqrt(2)): within 2**-28.4.
inline constexpr double kLogH32[] = {0.6666668503957586, 0.3998878056602198, 0.2957994939197279};
inline constexpr auto kHalfLogH32 = scaled(kLogH32, 0.5);  // (ln m) / 2 = t + t**3 h(t**2) / 2

// atanh |x|: below 1/2 its series, |x| + |x|**3 c(x**2). From 1/2 on, ln(a
// / b) / 2 for b = 1 - |x| (exact, Sterbenz) and a = 1 + |x| in [3/2, 2]
// (rounded, its error a_lo exact). a / b is never rounded: with m_a = a / 2
// and b = m_b 2**k_b (m_b in [sqrt(1/2), sqrt(2)), halved when m_a / m_b
// is below sqrt(1/2)), ln(a / b) = (1 - k_b) ln 2 + ln(m_a / m_b), and
// ln m = 2t + t**3 h(t**2) for t = (m_a + a_lo / 2 - m_b) / (m_a + a_lo / 2
// + m_b), m_a - m_b exact. 1 is inf, beyond it NaN; -0 stays -0.
template <class F>
F atanh_f32(F x) {
  F t = fabs(x);
  F one = splat(x, 1.0);
  F series = odd_polynomial(t, kAtanhC32);
  F a = one + t;
  F half = splat(x, 0.5);
  F ma = a * half;
  F ma_lo = (t - (a - one)) * half;
  const Split<F> sb = split(one - t);
  auto down = ma * splat(x, kSqrt2) < sb.m;  // m_a / m_b below sqrt(1/2)
  F mb = select(down, sb.m * half, sb.m);
  F k = select(down, splat(x, 0.0), one) - sb.k;
  F q = ((ma - mb) + ma_lo) / ((ma + mb) + ma_lo);
  F half_m_log = odd_polynomial(q, kHalfLogH32);
  F logs = fma(k, splat(x, kLn2HiF / 2), fma(k, splat(x, kLn2LoF / 2), half_m_log));
  F r = select(t < half, series, logs);
  r = select(t == one, splat(x, kInf), r);
  r = select(t > one, splat(x, kNaN), r);
  return copysign(select(t != t, t, r), x);
}

// asinh(x) = x + x**3 s(x**2) for |x| < 1/2: within 2**-27.7.
inline constexpr double kAsinhS32[] = {-0.16666664588074717, 0.07499582630239127, -0.044506510993737654,
                                       0.02878360621982237, -0.014288508088872718};

// ln(v + r) for r = sqrt(P) > 0 given as s + residual / 2s (s = sqrt(P)
// rounded, residual = P - s**2 from FMAs), w = v + s rounded and its exact
// error (Fast2Sum, the larger first), w at least 1: ln w + c with c = (w's
// error + residual / 2s) / w, one division, and ln w = k ln2 + ln(1 + f)
// for w = (1 + f) 2**k (f exact; ln(1 + f) = f + f**2 l(f), kLog1pL32, as
// log1p_f32). Where `large`, ln v + ln 2: r is v there within 2**-26.
// asinh_f32 and acosh_f32 carry their ln's argument this way, as float
// arithmetic would lose a whole ULP of the result to its roundings.
template <class F, class Mask>
F log_of_sum_with_root(const TwoSum<F>& w, F v, F s, F residual, Mask large) {
  F one = splat(v, 1.0), zero = splat(v, 0.0);
  F two_s = s + s;
  F c = select(large || s == zero, zero, fma(w.error, two_s, residual) / (two_s * w.sum));
  const Split<F> p = split(select(large, v, w.sum));
  F f = p.m - one;
  F m_log = fma(f * f, horner(f, kLog1pL32), f + c);
  F k = p.k + select(large, one, zero);
  return fma(k, splat(v, kLn2HiF), fma(k, splat(v, kLn2LoF), m_log));
}

// asinh |x|: below 1/2 its series, |x| + |x|**3 s(x**2). From 1/2 on, ln(|x|
// + sqrt(x**2 + 1)) by log_of_sum_with_root: s2 = x**2 + 1 by one FMA and
// its error e = x**2 - (s2 - 1) by another (s2 - 1 is exact below 2**24),
// s = sqrt(s2) and the residual s2 - s**2 + e. From 2**12 on, ln |x| + ln
// 2: the rest, 1 / 4x**2, is under 2**-26.
template <class F>
F asinh_f32(F x) {
  F t = fabs(x);
  F one = splat(x, 1.0);
  F series = odd_polynomial(t, kAsinhS32);
  F s2 = fma(t, t, one);
  F e = fma(t, t, one - s2);
  F s = sqrt(s2);
  F logs = log_of_sum_with_root(fast_two_sum(s, t), t, s, fma(-s, s, s2) + e, t >= splat(x, 0x1p12));
  F r = select(t < splat(x, 0.5), series, logs);
  r = select(t == splat(x, kInf), t, r);
  return copysign(select(t != t, t, r), x);
}

// acosh x, x >= 1: ln(x + sqrt((x - 1)(x + 1))) by log_of_sum_with_root:
// x - 1 = d is exact and x + 1 = u + u_e (u_e exact, as x is below 2**24),
// so (x - 1)(x + 1) = P + P_lo with P = d u rounded and P_lo = d u - P (one
// FMA, exact) + d u_e; s = sqrt(P), the residual P - s**2 + P_lo. From
// 2**12 on, ln x + ln 2 (the rest, -1 / 4x**2, is under 2**-26). 1 is +0,
// below 1 NaN.
template <class F>
F acosh_f32(F x) {
  F one = splat(x, 1.0);
  F d = x - one;
  F u = x + one;
  F u_e = x - (u - one);
  F p = d * u;
  F p_lo = fma(d, u_e, fma(d, u, -p));
  F s = sqrt(p);
  F r = log_of_sum_with_root(fast_two_sum(x, s), x, s, fma(-s, s, p) + p_lo, x >= splat(x, 0x1p12));
  r = select(x < one, splat(x, kNaN), r);
  r = select(x == splat(x, kInf), x, r);
  return select(x != x, x, r);
}

// 2**x = 2**n e**t, n = x rounded, t = (x - n) ln 2 in [-ln2/2, ln2/2] (x - n
// exact), e**t = 1 + t + t**2 g(t) (kExpm1G32); times 2**n in two halves,
// so that a subnormal result rounds once. x is clamped to [-160, 160],
// beyond both ends of the finite non-zero results; NaN passes.
template <class F>
ScaledExp<F> exp2_f32_parts(F x) {  // 2**x = p 2**n
  F n = (x + splat(x, 0x1.8p23)) - splat(x, 0x1.8p23);
  F t = (x - n) * splat(x, kLn2F);
  F q = fma(t * t, horner(t, kExpm1G32), t);
  return {q, q + splat(x, 1.0), n};
}
template <class F>
F exp2_f32(F x) {
  const ScaledExp<F> e = exp2_f32_parts(clamped(x, -160.0, 160.0));
  F half = (e.n * splat(x, 0.5) + splat(x, 0x1.8p23)) - splat(x, 0x1.8p23);
  return select(x != x, x, (e.p * pow2i(half)) * pow2i(e.n - half));
}

// ---- Cube root ----

// cbrt |x| from cbrt_seed's estimate (within 4%): one Halley step, y (y**3
// + 2t) / (2y**3 + t), to within 2**-14, then one Newton step y - (y**3 -
// t) / 3y**2 whose residual is an FMA on y**2 rounded (its error, 2**-24 of
// t, is a third of an ULP in the step): within 1 ULP by the errors' bound.
// t is first scaled into [2**-126, 2**120] by a cube (2**24 or 2**-120),
// whose root scales the result back exactly. The sign is x's; zeros,
// infinities and NaN pass.
template <class F>
F cbrt_f32_root(F t) {  // t positive and normal
  F y = cbrt_seed(t);
  F y3 = y * y * y;
  y = y * ((y3 + t + t) / (y3 + y3 + t));
  F y2 = y * y;
  return y - fma(y2, y, -t) / (splat(t, 3.0) * y2);
}
template <class F>
F cbrt_f32(F x) {
  F t = fabs(x);
  const CubeScaled<F> s = scale_by_cube(t, 0x1p-126, 24, 0x1p120, -120);
  return cbrt_of(x, t, cbrt_f32_root(s.t) * s.back);
}

// NOTE: [Rare lanes]' main paths. exp2: below 126 in magnitude 2**x is a
// normal float, the clamp does nothing and 2**n is one factor. log1p: above
// -1, finite and not 0, where its special values do nothing. cbrt: |x| in
// [2**-126, 2**120], where it scales nothing and is neither 0, inf nor NaN.
template <class F>
auto exp2_f32_rare(F x) {
  return !(fabs(x) < splat(x, 126.0));
}
template <class F>
F exp2_f32_main(F x) {
  return scaled(exp2_f32_parts(x));
}
template <class F>
auto log1p_f32_rare(F x) {
  return !(x > splat(x, -1.0) && x < splat(x, kInf)) || x == splat(x, 0.0);
}
template <class F>
F log1p_f32_main(F x) {
  return log1p_f32_core(x, x + splat(x, 1.0));
}
template <class F>
auto cbrt_f32_rare(F x) {
  return outside_cube_range(x, 0x1p-126, 0x1p120);
}
template <class F>
F cbrt_f32_main(F x) {
  return copysign(cbrt_f32_root(fabs(x)), x);
}

// ---- Tangent ----

// tan r = r + r**3 t(r**2) on |r| <= pi/4 (and a hair): within 2**-27.8
// (tools/math-recipes-fit.py).
inline constexpr double kTanT32[] = {0.3333333397946845,   0.13333230942921667, 0.053994465108292616,
                                     0.021621124371143018, 0.00996215766086085, 0.0011853046192592533,
                                     0.003843149886137479};
inline constexpr double kTanWidenedBelow = 0x1p20;  // |x| from here on: the library's tanf
// pi/2 in three floats (within 2**-76.3) and 2/pi rounded to float; below
// 2**12 in magnitude tan reduces in f32.
inline constexpr double kHalfPiHiF = 0x1.921fb6p0, kHalfPiLoF = -0x1.777a5cp-25, kHalfPiRestF = -0x1.ee59dap-50;
inline constexpr double kTwoOverPiF = 0x1.45f306p-1;
inline constexpr double kTanMainBelow = 0x1p12;

// tan(r + r_lo) where k is even, -1 / tan(r + r_lo) where it is odd, for
// |r| <= pi/4 and a hair: tan(r + r_lo) = r + (r**3 t(r**2) + r_lo (1 +
// r**2)), the big term and the small ones summed first, one rounding to
// dominate; kept in two parts for the odd lanes' tan_or_minus_cot. (tan r
// rounded and then inverted was 2.45 ULP off at x = 2913.9524.)
template <class F, class Odd>
F tan_of_reduced(F r, F r_lo, Odd odd) {
  F s = r * r;
  F one = splat(r, 1.0);
  return tan_or_minus_cot(fast_two_sum(r, fma(r * s, horner(s, kTanT32), r_lo * (s + one))), odd);
}

// tan x for |x| < 2**20: x = (k/2) pi + r in f64 (minus_pis: the first
// step exact, the rest one rounding, r within 2**-52 of itself), r as a
// float r plus r_lo. The full recipe's (rare lanes').
template <class F>
F tan_f32_widened(F x) {
  auto xd = widen(x);
  auto k = fma(xd, splat(xd, kTwoOverPi), splat(xd, kRound)) - splat(xd, kRound);
  auto half = k * splat(k, 0.5);  // exact
  auto rd = minus_pis(xd, half);
  F r = narrow(rd);
  F r_lo = narrow(rd - widen(r));
  return tan_of_reduced(r, r_lo, (half + splat(k, kRound)) - splat(k, kRound) != half);
}

// The main path, |x| < 2**12, reduced in f32 by minus_half_pis as
// half_pi_reduction does in f64 (NOTE: [Two-part math]): k = x 2/pi rounded (t = k + 2**23 1.5 holds
// its bits); a = x - k kHalfPiHiF is exact (where k is not 0, |x| is at
// least pi/4 and both terms are multiples of 2**-24: so is a, under 1 in
// magnitude); a - k kHalfPiLoF is a sum and its exact error, and k
// kHalfPiRestF leaves r within 2**-64 of its true value, which is at
// least 2**-28 where x is not 0 (NOTE: [Widened math]'s minus_pis). k's
// product rounds in f32, so r may pass pi/4 by 2**-12.3: the polynomial's
// error grows from 2**-27.84 to 2**-27.75 there. Half the widened path's
// steps, on twice its lanes; with tan_of_reduced's one series (a cot
// series beside it before), f32 tan went from 0.56x to 0.85-1.00x NumPy's
// SVML loop on the Zen 5 VM (2026-12-07, 4 Mi floats, one thread, three
// runs); 1.299 ULP at most on every f32 input below 2**20, as before.
template <class F>
F tan_f32_main(F x) {
  F t = fma(x, splat(x, kTwoOverPiF), splat(x, Format<float>::kRound));
  const TwoSum<F> r = minus_half_pis(x, t - splat(x, Format<float>::kRound), kHalfPiHiF, kHalfPiLoF, kHalfPiRestF);
  return tan_of_reduced(r.sum, r.error, is_odd(t));
}
// NOTE: [Rare lanes]: tan_f32_main where |x| < 2**12 and x is not 0 (its
// r_lo step would turn -0 into +0); the widened path up to 2**20, the
// library's tanf from there on, and at inf and NaN.
template <class F>
auto tan_f32_rare(F x) {
  return !(fabs(x) < splat(x, kTanMainBelow)) || x == splat(x, 0.0);
}
template <class F>
F tan_f32(F x) {
  F r = select(fabs(x) < splat(x, kTanWidenedBelow), tan_f32_widened(x), library_function("tan", x));
  r = select(fabs(x) < splat(x, kTanMainBelow), tan_f32_main(x), r);  // the main path's bits where it runs
  return select(x == splat(x, 0.0), x, r);
}

}  // namespace bcast::math::recipes
