// f32 math functions computed in f64: one recipe per function, written once
// over a lane type, run by the reference evaluator on doubles and emitted
// into kernels on LLVM values (jit/ir/widened_math_ir.cpp). LLVM-free.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace bcast::math::widened {

// NOTE: [Widened math] SLEEF's 1-ULP f32 functions (NOTE: [Vector math])
// are slow where they work around f32's range and cancellation: tanh, sinh,
// cosh, expm1, log1p, the inverse hyperbolics and pow. bcast computes those
// f32 functions in f64 instead, where neither matters: a float widens
// exactly, each recipe below keeps its relative error under about 2**-35
// (polynomials on a reduced argument, no cancellation left), and the one
// rounding to float at the end gives at most 0.5 + 2**-11 ULP, correctly
// rounded but near halfway points (tests/test_widened_math.cpp checks it
// against long double on a sweep of every binade). f16 and bf16 compute in
// f32 and inherit it. Measured on 2026-12-03 (2-core Zen 5 VM, one thread,
// 4 Mi floats, two runs each): 1.3x to 2.2x SLEEF's speed for those nine;
// exp2, log2, log10 and cbrt were as fast or slower in f64, and stay SLEEF's.
//  - One source of truth. A recipe is a template over its lanes: double,
//    bool and float for the reference evaluator (widened_math.cpp, built
//    with -ffp-contract=off), llvm::Value wrappers for the JIT, which emits
//    the same IEEE operations in the same order with no fast-math flags. So
//    both tiers give the same bits by construction, not by test alone.
//  - Only + - * /, FMA, sqrt, comparisons, selects, exact integer steps on
//    the bits (2**n, the split of a double into mantissa and exponent) and
//    conversions: nothing a vectoriser cannot widen, and no table.
//  - On a host with FMA only (recipe_for): elsewhere an FMA is a library
//    call per lane, and SLEEF's builds without FMA are faster.
//  - Every branch is a select: all lanes run every step.
//  - Special values: by explicit selects at each recipe's end, C99 Annex F
//    (as NumPy's loops give them); a NaN result then takes NOTE: [Math
//    guards]'s NaN rule, as the library's functions do.

inline constexpr double kRound = 0x1.8p52;  // v + kRound - kRound: v rounded to an integer (|v| < 2**51), half to even
inline constexpr double kLog2e = 0x1.71547652b82fep0;
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;  // 42 bits: n * kLn2Hi is exact for |n| < 2**11
inline constexpr double kLn2Lo = 0x1.ef35793c76730p-45; // ln 2 - kLn2Hi, rounded
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- The lanes of the reference evaluator: double, bool and float ----
// (the JIT's are in jit/ir/widened_math_ir.h; a recipe finds either by its
// argument's type).

inline double select(bool m, double a, double b) { return m ? a : b; }
inline double splat(double, double v) { return v; }
inline double widen(float x) { return x; }
inline float narrow(double x) { return static_cast<float>(x); }
inline double fabs(double x) { return std::fabs(x); }
inline double copysign(double x, double s) { return std::copysign(x, s); }
inline double sqrt(double x) { return std::sqrt(x); }
inline double fma(double x, double y, double z) { return std::fma(x, y, z); }

// 2**n for an integral n in [-1022, 1023], from n's bits.
inline double pow2i(double n) {
  const auto bits = std::bit_cast<std::uint64_t>(n + kRound);  // n + 2**51 in the low bits
  return std::bit_cast<double>((bits + 1023) << 52);
}

// d = m * 2**k with m in [sqrt(1/2), sqrt(2)): d positive, normal, finite.
template <class V>
struct Split {
  V m;
  V k;
};
inline constexpr std::uint64_t kSqrtHalfBits = 0x3fe6a09e667f3bcd;  // sqrt(1/2)'s bits
inline Split<double> split(double d) {
  const std::uint64_t u = std::bit_cast<std::uint64_t>(d) - kSqrtHalfBits;
  const std::int64_t k = static_cast<std::int64_t>(u) >> 52;
  const double m = std::bit_cast<double>((u & 0x000fffffffffffff) + kSqrtHalfBits);
  const double kd = std::bit_cast<double>(std::bit_cast<std::uint64_t>(kRound) + static_cast<std::uint64_t>(k)) - kRound;
  return {m, kd};
}

// ---- Cores, in f64 ----

// The polynomials, from tools/widened-math-fit.py (Chebyshev interpolants,
// the script prints each one's largest relative error), Horner with FMA.
// expm1(r) = r + r**2 g(r) for |r| <= ln2 / 2: within 2**-36.5.
inline constexpr double kExpm1G[] = {0x1.0000000000000p-1,  0x1.5555556750672p-3,  0x1.5555555c85f99p-5,
                                     0x1.1110c63a4eed0p-7,  0x1.6c1685919d367p-10, 0x1.a15169e096556p-13,
                                     0x1.a1131351400c3p-16};
// ln m = 2t + t**3 h(t**2), t = (m - 1) / (m + 1), m in [sqrt(1/2), sqrt(2)): within 2**-43.1.
inline constexpr double kLogH[] = {0x1.5555555564e96p-1, 0x1.999998cafbf2ap-2, 0x1.249323e4d7fc7p-2,
                                   0x1.c67ada017cf97p-3, 0x1.8c8c11e54d389p-3};

template <class V, std::size_t N>
V horner(V x, const double (&c)[N]) {
  V p = splat(x, c[N - 1]);
  for (std::size_t j = N - 1; j-- > 0;) p = fma(p, x, splat(x, c[j]));
  return p;
}

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

// x clamped to [-700, 700], where e**x is a finite double; NaN stays.
template <class V>
V clamp_exponent(V x) {
  x = select(x > 700.0, splat(x, 700.0), x);
  return select(x < -700.0, splat(x, -700.0), x);
}

template <class V>
V exp_core(V x) {
  const Reduced<V> t = reduce_ln2(clamp_exponent(x));
  return pow2i(t.n) * (expm1_series(t.r) + 1.0);
}

// e**x - 1 with no cancellation: 2**n (e**r - 1) + (2**n - 1), and exactly
// the series where n is 0 (-0 stays -0).
template <class V>
V expm1_core(V x) {
  const Reduced<V> t = reduce_ln2(clamp_exponent(x));
  const V q = expm1_series(t.r);
  const V s = pow2i(t.n);
  return select(t.n == 0.0, q, s * q + (s - 1.0));
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

// ln(1 + v) for v > -1, finite: ln u of u = 1 + v, plus u's rounding error
// over u (u - 1 is exact where it matters: u in [1/2, 2]).
template <class V>
V log1p_core(V v) {
  const V u = v + 1.0;
  return log_core(u) + (v - (u - 1.0)) / u;
}

// ln d's special values (C99 F.9.3.7) in place of log_core's lanes there.
template <class V>
V log_specials(V d, V r) {
  r = select(d == 0.0, splat(d, -kInf), r);
  r = select(d < 0.0, splat(d, kNaN), r);
  r = select(d == kInf, d, r);
  return select(d != d, d, r);
}

// ---- The f32 functions ----

template <class F>
F expm1_f32(F x) {
  auto d = widen(x);  // beyond +-700 the clamp's value rounds to inf or -1 all the same
  return narrow(select(d == 0.0, d, expm1_core(d)));  // -0 stays -0 (the series' r + r*r*g is +0)
}

template <class F>
F log1p_f32(F x) {
  auto d = widen(x);
  auto r = log_specials(d + 1.0, log1p_core(d));  // d + 1 is 0 and inf exactly where 1 + x is
  return narrow(select(d == 0.0, d, r));        // -0 stays -0
}

// tanh |x| = u / (u + 2) with u = e**(2|x|) - 1; tanh 20 is 1 in f64.
template <class F>
F tanh_f32(F x) {
  auto d = widen(x);
  auto t = fabs(d);
  t = select(t > 20.0, splat(t, 20.0), t);
  auto u = expm1_core(2.0 * t);
  return narrow(copysign(u / (u + 2.0), d));
}

// sinh |x| = (u + u / (u + 1)) / 2 with u = e**|x| - 1.
template <class F>
F sinh_f32(F x) {
  auto d = widen(x);
  auto t = fabs(d);
  t = select(t > 100.0, splat(t, 100.0), t);  // sinh 100 overflows f32
  auto u = expm1_core(t);
  return narrow(copysign(0.5 * (u + u / (u + 1.0)), d));
}

template <class F>
F cosh_f32(F x) {
  auto t = fabs(widen(x));
  t = select(t > 100.0, splat(t, 100.0), t);
  auto e = exp_core(t);
  return narrow(0.5 * e + 0.5 / e);
}

// asinh |x| = log1p(|x| + x**2 / (1 + sqrt(1 + x**2))): no cancellation;
// x**2 of a float is a finite double.
template <class F>
F asinh_f32(F x) {
  auto d = widen(x);
  auto t = fabs(d);
  auto r = log1p_core(t + t * t / (1.0 + sqrt(1.0 + t * t)));
  r = select(t == kInf, t, select(t != t, t, r));
  return narrow(copysign(r, d));
}

// acosh x = log1p(t + sqrt(2t + t**2)), t = x - 1 exact.
template <class F>
F acosh_f32(F x) {
  auto d = widen(x);
  auto t = d - 1.0;
  auto r = log1p_core(t + sqrt(2.0 * t + t * t));
  r = select(d < 1.0, splat(d, kNaN), r);
  r = select(d == kInf, d, r);
  return narrow(select(d != d, d, r));
}

// atanh |x| = log1p(2|x| / (1 - |x|)) / 2.
template <class F>
F atanh_f32(F x) {
  auto d = widen(x);
  auto t = fabs(d);
  auto r = 0.5 * log1p_core(2.0 * t / (1.0 - t));
  r = select(t == 1.0, splat(t, kInf), r);
  r = select(t > 1.0, splat(t, kNaN), r);
  r = select(t != t, t, r);
  return narrow(copysign(r, d));
}

// v rounded to an integer, for any v (|v| >= 2**51 is one).
template <class V>
V integer_part(V v) {
  return select(fabs(v) < 0x1p51, (v + kRound) - kRound, v);
}

// |x|**y = e**(y ln|x|), the sign and C99 F.9.4.4's special values by
// selects. NOTE: [Math guards]'s pow steps (a signalling NaN, y = 1) run
// around it.
template <class F>
F pow_f32(F x, F y) {
  auto dx = widen(x);
  auto dy = widen(y);
  auto ax = fabs(dx);
  auto lx = log_specials(ax, log_core(ax));  // -inf at 0, inf at inf
  auto m = exp_core(dy * lx);
  auto is_integer = integer_part(dy) == dy;  // +-inf count as even integers
  auto half = dy * 0.5;
  auto odd = is_integer && integer_part(half) != half;
  auto r = select(copysign(splat(dx, 1.0), dx) < 0.0 && odd, -m, m);  // the sign bit: -0 too
  r = select(dx < 0.0 && ax != kInf && !is_integer, splat(r, kNaN), r);
  r = select(ax == 1.0 && fabs(dy) == kInf, splat(r, 1.0), r);  // (-1) ** +-inf
  r = select(dx == 1.0 || dy == 0.0, splat(r, 1.0), r);
  return narrow(r);
}

// ---- Which functions have a recipe ----

enum class Recipe { expm1, log1p, tanh, sinh, cosh, asinh, acosh, atanh, pow };  // pow last: the one of two arguments

struct RecipeRow {
  std::string_view math;  // the function table's `math` name
  Recipe recipe;
  int arity;
};

inline constexpr RecipeRow kRecipes[] = {
    {"expm1", Recipe::expm1, 1}, {"log1p", Recipe::log1p, 1}, {"tanh", Recipe::tanh, 1},
    {"sinh", Recipe::sinh, 1},   {"cosh", Recipe::cosh, 1},   {"asinh", Recipe::asinh, 1},
    {"acosh", Recipe::acosh, 1}, {"atanh", Recipe::atanh, 1}, {"pow", Recipe::pow, 2},
};

// The f32 recipe of `math` with `arity` arguments, if bcast has one.
constexpr std::optional<Recipe> f32_recipe(std::string_view math, int arity) {
  for (const RecipeRow& row : kRecipes)
    if (row.math == math && row.arity == arity) return row.recipe;
  return std::nullopt;
}

// Runs recipe `r` on lanes of type F (float, or the JIT's).
template <class F>
F run(Recipe r, F x) {
  switch (r) {
    case Recipe::expm1: return expm1_f32(x);
    case Recipe::log1p: return log1p_f32(x);
    case Recipe::tanh: return tanh_f32(x);
    case Recipe::sinh: return sinh_f32(x);
    case Recipe::cosh: return cosh_f32(x);
    case Recipe::asinh: return asinh_f32(x);
    case Recipe::acosh: return acosh_f32(x);
    case Recipe::atanh: return atanh_f32(x);
    case Recipe::pow: break;
  }
  return x;  // not reached: f32_recipe gives pow for two arguments only
}

template <class F>
F run(Recipe r, F x, F y) {
  return r == Recipe::pow ? pow_f32(x, y) : x;
}

// The recipe both tiers use for `math` on f32: f32_recipe's, on a host with
// FMA (math_library.h); none elsewhere.
std::optional<Recipe> recipe_for(std::string_view math, int arity);

// The reference evaluator's recipes (widened_math.cpp): the f32 function of
// `math`, or null where bcast has no recipe.
using UnaryF32 = float (*)(float);
using BinaryF32 = float (*)(float, float);
UnaryF32 scalar_unary(std::string_view math);
BinaryF32 scalar_binary(std::string_view math);

}  // namespace bcast::math::widened
