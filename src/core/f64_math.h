// f64 functions in f64 arithmetic (NOTE: [F64 math]): recipes over the
// lanes of math_lanes.h (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include "math_lanes.h"

namespace bcast::math::recipes {

// NOTE: [F64 math] Where SLEEF's f64 function is behind NumPy's SVML
// loops, a recipe computes it in f64 itself, 8 lanes to an AVX-512
// register, with no table (a gather of 8 doubles costs about 1.5 cycles an
// element on Zen 5, more than the longer polynomial it would save):
//  - exp's family (exp, expm1, sinh, cosh, tanh) shares one reduction,
//    exp_f64_parts; log's (log, log2, log10, log1p and the inverse
//    hyperbolics) shares log_f64_split and one division per call;
//  - where one rounding must dominate, a sum keeps its exact error (two_sum,
//    fast_two_sum) or an argument is carried in two parts;
//  - every branch is a select, so a function's branches share one log or
//    one exp rather than run one each.
// Its bound is its row's in kRecipes, checked against long double (whose
// own error is 2**-11 of an f64 ULP) on special values, random bit patterns
// and random values over exp's range; the figure by each row is the most
// tests/test_math_recipes.cpp's samples gave on 2026-12-03.

// From tools/math-recipes-fit.py's f64 section: e**r = 1 + r + r**2 g(r)
// on |r| <= ln2 / 2 (within 2**-60.0), and ln(1 + f) = 2t + t**3 h(t**2),
// t = f / (2 + f), on 1 + f in [sqrt(1/2), sqrt(2)] (within 2**-57.6).
inline constexpr double kExpG64[] = {
    0x1.0000000000000p-1,  0x1.5555555555557p-3,  0x1.5555555555556p-5,  0x1.11111111100dfp-7,
    0x1.6c16c16c162d6p-10, 0x1.a01a01abe62ddp-13, 0x1.a01a01a6d7808p-16, 0x1.71de02375656cp-19,
    0x1.27e4db67b4303p-22, 0x1.af4ddd84882fep-26, 0x1.1f72fc730b4ffp-29};
inline constexpr double kLogH64[] = {0x1.5555555555558p-1, 0x1.99999999952e2p-2, 0x1.2492492df148dp-2,
                                     0x1.c71c62e5800a1p-3, 0x1.7462b4ab2ef6bp-3, 0x1.39fe606542ddep-3,
                                     0x1.2b584aae78a57p-3};

// e**x = 2**n e**r: n = x log2 e rounded, r = x - n ln 2 in Cody and
// Waite's two parts (x - n * kLn2Hi is exact), kept as r + r_lo, and e**r =
// 1 + r + tail with tail = r_lo + r**2 g(r) (g by Estrin's scheme). x in
// [-760, 710]; other lanes: any value.
template <class V>
struct ExpF64 {
  V n;  // an integer
  V r;
  V tail;  // e**x = 2**n (1 + r + tail), |tail| < r**2
};
// x = n ln 2 + r + r_lo, the reduction of exp_f64_parts (and of NOTE:
// [Two-part math]'s exp_pair).
template <class V>
struct ExpReduction {
  V n;  // an integer
  V r;
  V r_lo;
};
template <class F>
ExpReduction<F> exp_f64_reduction(F x) {
  F n = (x * splat(x, kLog2e) + splat(x, kRound)) - splat(x, kRound);
  F exact = fma(n, splat(x, -kLn2Hi), x);
  F r = fma(n, splat(x, -kLn2Lo), exact);
  return {n, r, fma(n, splat(x, -kLn2Lo), exact - r)};
}
template <class F>
ExpF64<F> exp_f64_of(const ExpReduction<F>& e) {  // e**(r + r_lo)'s tail: exp's and exp2's
  return {e.n, e.r, fma(e.r * e.r, estrin(e.r, kExpG64), e.r_lo)};
}
template <class F>
ExpF64<F> exp_f64_parts(F x) {
  return exp_f64_of(exp_f64_reduction(x));
}

// 1 + r + tail summed with 1 + r's exact error, so that one rounding
// dominates (below 1, where an ULP is half 1's, the plain sum reached
// 1.002 ULP).
template <class F>
TwoSum<F> exp_f64_mantissa_sum(const ExpF64<F>& e) {  // unrounded: the sum and the rest
  F one = splat(e.r, 1.0);
  F s = one + e.r;
  return {s, ((one - s) + e.r) + e.tail};
}
template <class F>
F exp_f64_mantissa(const ExpF64<F>& e) {
  const TwoSum<F> m = exp_f64_mantissa_sum(e);
  return m.sum + m.error;
}
// The mantissa times 2**n where the result is a normal double: one factor
// (the main paths' form of times_pow2_f64 below).
template <class F>
F normal_scaled(const ExpF64<F>& e) {
  return exp_f64_mantissa(e) * pow2i(e.n);
}

// p 2**n for an integral n in [-1100, 1100], in two halves: a subnormal
// result rounds once, and 2**1024 p stays finite where p < 1.
template <class F>
F times_pow2_f64(F p, F n) {
  const Pow2Halves<F> s = pow2_halves(n);
  return (p * s.first) * s.second;
}

// e**x, x clamped to [-760, 710], beyond both ends of the finite non-zero
// results. A NaN stays one through every step (both tiers then apply NOTE:
// [Math guards]' NaN rule: no select for it here).
template <class F>
F exp_f64(F x) {
  const ExpF64<F> e = exp_f64_parts(clamped(x, -760.0, 710.0));
  return times_pow2_f64(exp_f64_mantissa(e), e.n);
}
// NOTE: [Rare lanes]: below 708 in magnitude e**x is a normal double, the
// clamp does nothing and 2**n is one factor: exp_f64's bits.
template <class F>
auto exp_f64_rare(F x) {
  return !(fabs(x) < splat(x, 708.0));
}
template <class F>
F exp_f64_main(F x) {
  return normal_scaled(exp_f64_parts(x));
}

// 2**x = 2**n e**(f ln 2), n = x rounded and f = x - n exact: r + r_lo =
// f ln 2 (the product's error by FMA, ln 2 in two parts), for |x| < 2**51;
// then exp's mantissa. exp2_f64 clamps x to [-1100, 1100]; NOTE: [Rare
// lanes]: below 1020 in magnitude 2**n is normal and one factor.
template <class F>
ExpReduction<F> exp2_f64_reduction(F x) {
  F n = (x + splat(x, kRound)) - splat(x, kRound);
  F f = x - n;
  F r = f * splat(x, kLn2);
  return {n, r, fma(f, splat(x, kLn2), -r) + f * splat(x, kLn2Tail)};
}
template <class F>
F exp2_f64(F x) {
  const ExpF64<F> e = exp_f64_of(exp2_f64_reduction(clamped(x, -1100.0, 1100.0)));
  return times_pow2_f64(exp_f64_mantissa(e), e.n);
}
template <class F>
auto exp2_f64_rare(F x) {
  return !(fabs(x) < splat(x, 1020.0));
}
template <class F>
F exp2_f64_main(F x) {
  return normal_scaled(exp_f64_of(exp2_f64_reduction(x)));
}

// For s = 2**n, n at most 56: e**x - 1 = (2**n - 1) + 2**n r + 2**n tail,
// the first two exact (n in [-53, 56]) and summed with their exact error:
// the sum and the rest (2**n tail and that error: not always small),
// unrounded.
template <class F>
TwoSum<F> expm1_f64_sum(const ExpF64<F>& e, F s) {
  const TwoSum<F> head = two_sum(s - splat(s, 1.0), s * e.r);
  return {head.sum, fma(s, e.tail, head.error)};
}

// e**x - 1 from expm1_f64_sum, rounded once at the end. From n = 57 on,
// e**x (1 is under 2**-57 of it); below -38, -1 (e**x is under a quarter
// of an ULP of 1). -0 stays -0; NaN passes.
template <class F>
F expm1_f64(F x) {
  const ExpF64<F> e = exp_f64_parts(clamped(x, -38.0, 710.0));
  auto big = e.n > splat(x, 56.0);
  const TwoSum<F> mid = expm1_f64_sum(e, pow2i(select(big, splat(x, 0.0), e.n)));
  F r = select(big, times_pow2_f64(exp_f64_mantissa(e), e.n), mid.sum + mid.error);
  return select(x == splat(x, 0.0), x, r);
}
// NOTE: [Rare lanes]: in (-38, 38) but 0, n is at most 55: the sum alone,
// no clamp.
template <class F>
auto expm1_f64_rare(F x) {
  return !(fabs(x) < splat(x, 38.0)) || x == splat(x, 0.0);
}
template <class F>
F expm1_f64_main(F x) {
  const ExpF64<F> e = exp_f64_parts(x);
  const TwoSum<F> mid = expm1_f64_sum(e, pow2i(e.n));
  return mid.sum + mid.error;
}

// sinh x = x + x**3 q(x**2) on |x| <= 1 (within 2**-56.6).
inline constexpr double kSinhQ64[] = {0x1.5555555555555p-3,  0x1.11111111110fdp-7,  0x1.a01a01a01ee70p-13,
                                      0x1.71de3a4e14f40p-19, 0x1.ae6460fae3728p-26, 0x1.611cb330c1fe8p-33,
                                      0x1.b41232cf9950fp-41};

// e**t / 2 for t in [0, 711]: finite up to cosh's and sinh's own overflow
// (710.48), past e**t's (709.78).
template <class F>
F half_exp_f64(F t) {
  const ExpF64<F> e = exp_f64_parts(at_most(t, 711.0));
  return times_pow2_f64(exp_f64_mantissa(e), e.n - splat(t, 1.0));
}

// cosh |x| = e/2 + 1/(4 (e/2)) with e = e**|x| (once e/2 overflows, 1/inf
// is 0). NaN passes.
template <class F>
F cosh_f64(F x) {
  F half_e = half_exp_f64(fabs(x));
  return half_e + splat(x, 0.25) / half_e;
}

// sinh |x|: below 1, |x| + |x|**3 q(x**2); above, e/2 - 1/(4 (e/2)) as
// cosh_f64 (1/e is under 0.14 of e: little cancellation). x's sign.
template <class F>
F sinh_of(F x, F half_e) {
  F t = fabs(x);
  F t2 = t * t;
  F small = fma(t * t2, estrin(t2, kSinhQ64), t);
  return copysign(select(t < splat(x, 1.0), small, half_e - splat(x, 0.25) / half_e), x);
}
template <class F>
F sinh_f64(F x) {
  return sinh_of(x, half_exp_f64(fabs(x)));
}

// NOTE: [Rare lanes]: below 708 in magnitude e**|x| / 2 is a normal double
// and 2**(n - 1) one factor, as exp_f64_main's; NaN and the rest take the
// full recipes.
template <class F>
F half_exp_f64_main(F t) {
  const ExpF64<F> e = exp_f64_parts(t);
  return normal_scaled(ExpF64<F>{e.n - splat(t, 1.0), e.r, e.tail});
}
template <class F>
F cosh_f64_main(F x) {
  F half_e = half_exp_f64_main(fabs(x));
  return half_e + splat(x, 0.25) / half_e;
}
template <class F>
F sinh_f64_main(F x) {
  return sinh_of(x, half_exp_f64_main(fabs(x)));
}

// tanh |x| = E / (E + 2) with E = e**(2|x|) - 1 in expm1_f64's two parts
// (0 at 0) and E + 2 in two too: below 2, the quotient q rounded, then
// corrected by its residual E - q (E + 2) (an FMA, exact) times 1 / (E + 2)
// = (1 - q) / 2 (the plain quotient reached 2.3 ULP near 0.12); above,
// where 1 - q loses its bits, 1 - 2 / (E + 2). |x| is clamped to 19.1, from
// where tanh rounds to 1. x's sign; NaN passes.
template <class F>
F tanh_f64(F x) {
  F t = fabs(x);
  F tc = at_most(t, 19.1);
  const ExpF64<F> e = exp_f64_parts(tc + tc);
  const TwoSum<F> rest = expm1_f64_sum(e, pow2i(e.n));
  const TwoSum<F> m = two_sum(rest.sum, rest.error);
  const TwoSum<F> d = two_sum(m.sum, splat(x, 2.0));
  F q = m.sum / d.sum;
  F residual = fma(-q, d.sum, m.sum) + fma(-q, d.error + m.error, m.error);
  F small = fma(residual * (splat(x, 1.0) - q), splat(x, 0.5), q);
  F large = splat(x, 1.0) - splat(x, 2.0) / d.sum;
  return copysign(select(tc < splat(x, 2.0), small, large), x);
}

// ln x = k ln 2 + f + c: x = (1 + f) 2**k with 1 + f in [sqrt(1/2),
// sqrt(2)) (f exact; a subnormal x is scaled by 2**54 first), and c the
// small rest of ln(1 + f): with t = f / (2 + f) and R = t**2 h(t**2),
// ln(1 + f) = 2t + tR, and as f - 2t = tf = (1 - t) f**2 / 2, ln(1 + f) =
// f - (f**2/2 - t (f**2/2 + R)): the big term f exact, the roundings in
// the small ones. x positive and finite; other lanes: any value.
template <class V>
struct LogF64 {
  V k;  // an integer
  V f;
  V c;  // ln x = k ln 2 + f + c, |c| < f**2 / 2
};
template <class F>
LogF64<F> log_f64_split_normal(F x) {  // k and f of a normal x; c left 0
  const Split<F> s = split(x);
  return {s.k, s.m - splat(x, 1.0), splat(x, 0.0)};
}
template <class F>
LogF64<F> log_f64_split(F x) {  // and of a subnormal one, scaled by 2**54 first
  auto subnormal = x < splat(x, 0x1p-1022);
  LogF64<F> p = log_f64_split_normal(select(subnormal, x * splat(x, 0x1p54), x));
  p.k = p.k - select(subnormal, splat(x, 54.0), splat(x, 0.0));
  return p;
}
template <class F>
F log_f64_rest(F f, F t) {  // c from f and t = f / (2 + f)
  F t2 = t * t;
  F half_f2 = splat(f, 0.5) * f * f;
  return fma(t, half_f2 + t2 * estrin(t2, kLogH64), -half_f2);
}
template <class F>
LogF64<F> log_f64_with_rest(LogF64<F> p) {
  p.c = log_f64_rest(p.f, p.f / (p.f + splat(p.f, 2.0)));
  return p;
}
template <class F>
LogF64<F> log_f64_parts(F x) {
  return log_f64_with_rest(log_f64_split(x));
}

// k ln 2 + f + c: k ln2's high part (exact) plus the rest summed small to
// large.
template <class F>
F log_f64_sum(const LogF64<F>& p) {
  return fma(p.k, splat(p.f, kLn2Hi), p.f + fma(p.k, splat(p.f, kLn2Lo), p.c));
}
template <class F>
F log_f64(F x) {
  return log_specials(x, log_f64_sum(log_f64_parts(x)));
}
// NOTE: [Rare lanes]: on a positive, normal and finite x the log family's
// subnormal scaling and special values do nothing; the main paths skip them.
template <class F>
LogF64<F> log_f64_parts_normal(F x) {
  return log_f64_with_rest(log_f64_split_normal(x));
}
template <class F>
F log_f64_main(F x) {
  return log_f64_sum(log_f64_parts_normal(x));
}

// ln u + n / (u d) + k ln 2, one log_f64 for every branch of a function:
// u in [2**-53, inf) (a normal number: no subnormal scaling, whose 5 steps
// cost about 20% of a log), n / (u d) small, d positive. With u = (1 + f)
// 2**k', one division serves both quotients, t = f / (2 + f) and n / (u
// d): 1 / ((2 + f)(1 + f) d), rounded, times f (1 + f) d and n (2 + f)
// 2**-k'. t is then within about 2 ULP, which the result hardly sees: in
// ln(1 + f) = f - (f**2/2 - t (...)) it multiplies terms under f**2 / 2.
// d = 1 (ln u + n / u) takes the same steps as a quotient without it.
template <class F>
F log_f64_plus(F u, F n, F k, F d) {
  LogF64<F> p = log_f64_split_normal(u);
  F m = p.f + splat(u, 1.0);
  F two_f = p.f + splat(u, 2.0);
  F reciprocal = splat(u, 1.0) / (two_f * m * d);
  F scale = pow2i(-select(p.k > splat(u, 1000.0), splat(u, 1000.0), p.k));  // u up to 2**1024; n / u is 0 there
  p.c = log_f64_rest(p.f, p.f * m * d * reciprocal) + n * two_f * reciprocal * scale;
  p.k = p.k + k;
  return log_f64_sum(p);
}
template <class F>
F log_f64_plus(F u, F n, F k) {
  return log_f64_plus(u, n, k, splat(u, 1.0));
}

// ln(1 + a + a_lo) = ln u + c: u = 1 + a rounded and c = ((a - (u - 1)) +
// a_lo) / u, u's rounding error and a_lo over u (u - 1 is exact where it
// matters); c's numerator and u, for a caller to divide.
template <class V>
struct OnePlus {
  V u;
  V numerator;  // c = numerator / u
};
template <class F>
OnePlus<F> one_plus(F a, F a_lo) {
  F u = a + splat(a, 1.0);
  return {u, (a - (u - splat(a, 1.0))) + a_lo};
}

// ln(1 + x); -0 stays -0, -1 is -inf, below it NaN, inf is inf.
template <class F>
F log1p_f64(F x) {
  const OnePlus<F> o = one_plus(x, splat(x, 0.0));
  F r = log_specials(o.u, log_f64_plus(o.u, o.numerator, splat(x, 0.0)));
  // Below 2**-27, x - x**2 / 2 (x**3 / 3 is under 2**-55 of it): there the
  // sum above is x through three products, up to an ULP off.
  r = select(fabs(x) < splat(x, 0x1p-27), fma(x * splat(x, -0.5), x, x), r);
  return select(x == splat(x, 0.0), x, r);  // -0; a NaN is one already
}
// NOTE: [Rare lanes]: x above -1 (1 + x is then a normal double), finite
// and at least 2**-27 in magnitude: the log alone.
template <class F>
auto log1p_f64_rare(F x) {
  return !(x > splat(x, -1.0) && x < splat(x, kInf) && fabs(x) >= splat(x, 0x1p-27));
}
template <class F>
F log1p_f64_main(F x) {
  const OnePlus<F> o = one_plus(x, splat(x, 0.0));
  return log_f64_plus(o.u, o.numerator, splat(x, 0.0));
}

// u.sum + u.error, the sum of s = sqrt(v) rounded (v + v_lo the radicand
// in two parts) and another term, as log_f64_plus's u, n and d: ln(u + n /
// (u d)) = ln of the sum with the root unrounded: u's error and the
// root's, (v + v_lo - s**2) / (2s), carried into the log's one division
// (d = 2s), so that the log keeps every bit of both terms where their sum
// is near 1, with no division for the root's error ahead of the log's. s
// = 0 only where the sum is 1 and the rest 0.
template <class V>
struct LogArguments {
  V u;
  V n;
  V d;
};
template <class F>
LogArguments<F> with_root_error(const TwoSum<F>& u, F s, F v, F v_lo) {
  F twice = select(s == splat(s, 0.0), splat(s, 1.0), s + s);
  return {u.sum, fma(u.error, twice, fma(-s, s, v) + v_lo), twice};
}

// asinh t = ln(t + s), s = sqrt(1 + t**2), for t in [0, 2**28]: t + s is 1
// + t + t**2/2 + ... near 0, where t's low bits would round away but for
// with_root_error. 1 + t**2's error is exact below t = 1, where it matters
// (above, off by an ULP of 1 + t**2 at most, 2**-55 of the result).
template <class F>
LogArguments<F> asinh_f64_arguments(F t) {
  F square = t * t;
  const TwoSum<F> v = fast_two_sum(splat(t, 1.0), square);
  F s = sqrt(v.sum);
  return with_root_error(fast_two_sum(s, t), s, v.sum, v.error + fma(t, t, -square));
}

// asinh |x|, one log for every branch: asinh_f64_arguments up to 2**28;
// above, ln |x| + ln 2 (1 + t**2 is t**2 there, and would overflow past
// 2**511). x's sign; zeros, infinities and NaN pass. Where it took ln(1 +
// a), a = t + t**2 / (1 + s), below 2 (fdlibm's split), a division and the
// pair 1 + a stood between the root and the log (1.259 ULP at most on
// MathRecipes' samples; 1.0 since). With that and a main path (NOTE: [Rare
// lanes]), on the Zen 5 VM (2026-12-07, 4 Mi elements, one thread,
// alternated runs, el/ns): asinh 0.43-0.44 -> 0.56-0.59, acosh 0.42-0.43
// -> 0.51-0.68 (NumPy's SVML loops 0.65-0.80).
template <class F>
F asinh_f64(F x) {
  F t = fabs(x);
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  auto huge = t > splat(x, 0x1p28);
  const LogArguments<F> a = asinh_f64_arguments(select(huge || t != t, one, t));
  F r = log_f64_plus(select(huge, t, a.u), select(huge, zero, a.n), select(huge, one, zero), a.d);
  return copysign(select(t == splat(x, kInf) || t == splat(x, 0.0) || t != t, t, r), x);
}
// NOTE: [Rare lanes]: |x| up to 2**28 (zeros included: ln 1 is +0).
template <class F>
auto asinh_f64_rare(F x) {
  return !(fabs(x) <= splat(x, 0x1p28));
}
template <class F>
F asinh_f64_main(F x) {
  const LogArguments<F> a = asinh_f64_arguments(fabs(x));
  return copysign(log_f64_plus(a.u, a.n, splat(x, 0.0), a.d), x);
}

// acosh x = ln(x + s), s = sqrt(2d + d**2), d = x - 1 (exact), for x in
// [1, 2**28]: the radicand and its error by one FMA each (2d + d**2
// rounded once is x**2 - 1 rounded once) and the root's error carried into
// the log (with_root_error): near 1, s is most of the result.
template <class F>
LogArguments<F> acosh_f64_arguments(F x) {
  F d = x - splat(x, 1.0);
  F v = fma(d, d, d + d);
  F s = sqrt(v);
  return with_root_error(fast_two_sum(x, s), s, v, fma(d, d, (d + d) - v));
}

// acosh x: acosh_f64_arguments up to 2**28; above, ln x + ln 2. NaN below
// 1. (Its pair ln(1 + a) below 2, as asinh's: 1.262 ULP at most; 0.776
// since.)
template <class F>
F acosh_f64(F x) {
  F one = splat(x, 1.0), zero = splat(x, 0.0);
  auto huge = x > splat(x, 0x1p28);
  const LogArguments<F> a = acosh_f64_arguments(select(huge || x < one || x != x, splat(x, 2.0), x));
  F r = log_f64_plus(select(huge, x, a.u), select(huge, zero, a.n), select(huge, one, zero), a.d);
  r = select(x == splat(x, kInf), x, r);
  return select(x < one || x != x, splat(x, kNaN), r);
}
// NOTE: [Rare lanes]: x in [1, 2**28].
template <class F>
auto acosh_f64_rare(F x) {
  return !(x >= splat(x, 1.0) && x <= splat(x, 0x1p28));
}
template <class F>
F acosh_f64_main(F x) {
  const LogArguments<F> a = acosh_f64_arguments(x);
  return log_f64_plus(a.u, a.n, splat(x, 0.0), a.d);
}

// atanh t = ln(1 + a) / 2 for t = |x| < 1, a = 2t / (1 - t) = 2t + 2t**2
// / (1 - t) (the second form below 1/2, fdlibm's split: the quotient's
// rounding lands on the smaller term, and the sum is kept in two parts);
// one division for both. Other lanes: any value.
template <class F>
F atanh_f64_core(F t) {
  F one = splat(t, 1.0);
  auto small = t < splat(t, 0.5);
  F twice = t + t;
  F q = select(small, twice * t, twice) / (one - t);
  const TwoSum<F> a = fast_two_sum(twice, q);
  const OnePlus<F> o = one_plus(select(small, a.sum, q), select(small, a.error, splat(t, 0.0)));
  return splat(t, 0.5) * log_f64_plus(o.u, o.numerator, splat(t, 0.0));
}
// +-1 are +-inf, NaN past them; x's sign.
template <class F>
F atanh_f64(F x) {
  F t = fabs(x);
  F one = splat(x, 1.0);
  F r = atanh_f64_core(select(t < one, t, splat(x, 0.5)));
  r = select(t == one, splat(x, kInf), select(t > one, splat(x, kNaN), r));
  return copysign(select(t == splat(x, 0.0) || t != t, t, r), x);
}
// NOTE: [Rare lanes]: |x| < 1 (zeros included: ln 1 is +0).
template <class F>
auto atanh_f64_rare(F x) {
  return !(fabs(x) < splat(x, 1.0));
}
template <class F>
F atanh_f64_main(F x) {
  return copysign(atanh_f64_core(fabs(x)), x);
}

// log_b x = k log_b 2 + (f + c) log_b e, the sum kept in two parts: f
// log_b e is a product and its exact error (an FMA), k log_b 2's high part
// (exact) plus it a sum and its exact error (|k log_b 2| is the larger
// where k is not 0), and the small terms added to the errors before the
// last rounding.
template <class F>
F log_base_sum(const LogF64<F>& p, double log_b_e, double log_b_2_hi, double log_b_2_lo) {
  F hi = p.f * splat(p.f, log_b_e);
  F lo = fma(p.f, splat(p.f, log_b_e), -hi);
  const TwoSum<F> head = fast_two_sum(p.k * splat(p.f, log_b_2_hi), hi);
  F small = fma(p.c, splat(p.f, log_b_e), fma(p.k, splat(p.f, log_b_2_lo), lo));
  return head.sum + (head.error + small);
}

// log2 e; log10 e; log10 2 in two parts, the high one of 42 bits (k times
// it is exact).
inline constexpr double kLog10e = 0x1.bcb7b1526e50ep-2;
inline constexpr double kLog10TwoHi = 0x1.34413509f7800p-2, kLog10TwoLo = 0x1.fef311f12b358p-46;

template <class F>
F log2_f64(F x) {
  return log_specials(x, log_base_sum(log_f64_parts(x), kLog2e, 1.0, 0.0));
}
template <class F>
F log10_f64(F x) {
  return log_specials(x, log_base_sum(log_f64_parts(x), kLog10e, kLog10TwoHi, kLog10TwoLo));
}
// Their main paths (log_f64_rare names the other lanes).
template <class F>
F log2_f64_main(F x) {
  return log_base_sum(log_f64_parts_normal(x), kLog2e, 1.0, 0.0);
}
template <class F>
F log10_f64_main(F x) {
  return log_base_sum(log_f64_parts_normal(x), kLog10e, kLog10TwoHi, kLog10TwoLo);
}

// cbrt |x| = t r**2 with r = 1 / cbrt(t): rcbrt_seed's estimate (within
// 2**-4.87) and three Newton steps r + r (1 - t r**3) / 3, no division, to
// within 2**-32; then y = t r**2 takes one Newton step y - (y**3 - t) r**2 /
// 3 whose residual is an FMA on y**2 rounded (its error, 2**-53 of t, a
// sixth of the step): 0.74 ULP at most on 2 * 10**7 random arguments. t is
// first scaled by a cube (2**108, 2**-60) into [2**-966, 2**1000], where
// the residual stays a normal number, and the root scales the result back
// exactly. The sign is x's; zeros, infinities and NaN pass.
template <class F>
F cbrt_f64_root(F t) {  // t in [2**-900, 2**1000]
  F r = rcbrt_seed(t);
  F third = splat(t, 1.0 / 3.0);
  for (int step = 0; step < 3; ++step) r = fma(r * third, fma(-t, r * r * r, splat(t, 1.0)), r);
  F r2 = r * r;
  F y = t * r2;
  return fma(-fma(y * y, y, -t), r2 * third, y);
}
template <class F>
F cbrt_f64(F x) {
  F t = fabs(x);
  const CubeScaled<F> s = scale_by_cube(t, 0x1p-900, 108, 0x1p1000, -60);
  return cbrt_of(x, t, cbrt_f64_root(s.t) * s.back);
}
// NOTE: [Rare lanes]: |x| in [2**-900, 2**1000] scales nothing and is
// neither 0, inf nor NaN.
template <class F>
auto cbrt_f64_rare(F x) {
  return outside_cube_range(x, 0x1p-900, 0x1p1000);
}
template <class F>
F cbrt_f64_main(F x) {
  return copysign(cbrt_f64_root(fabs(x)), x);
}

}  // namespace bcast::math::recipes
