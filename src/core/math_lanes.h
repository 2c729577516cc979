// The lanes a math recipe (NOTE: [Math recipes]) computes on in the
// reference evaluator: double, float and bool, and the exact steps on bits
// both tiers take alike (jit/ir/math_recipes_ir.cpp has the kernels' lanes).
// LLVM-free.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string_view>
#include <type_traits>

#include "float_format.h"

namespace bcast::math::recipes {

inline constexpr double kRound = 0x1.8p52;  // v + kRound - kRound: v rounded to an integer (|v| < 2**51), half to even
inline constexpr double kLog2e = 0x1.71547652b82fep0;
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;  // 42 bits: n * kLn2Hi is exact for |n| < 2**11
inline constexpr double kLn2Lo = 0x1.ef35793c76730p-45; // ln 2 - kLn2Hi, rounded
inline constexpr double kLn2 = 0x1.62e42fefa39efp-1, kLn2Tail = 0x1.abc9e3b39803fp-56;  // ln 2 in two doubles
inline constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;
// pi/2 in three doubles (kHalfPiHi + kHalfPiLo within 2**-108, with
// kHalfPiRest within 2**-163), and 2/pi.
inline constexpr double kHalfPiHi = 0x1.921fb54442d18p+0, kHalfPiLo = 0x1.1a62633145c07p-54;
inline constexpr double kHalfPiRest = -0x1.f1976b7ed8fbcp-110;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
inline constexpr double kOneOverPi = 0x1.45f306dc9c883p-2;
inline constexpr double kPiHi = 2 * kHalfPiHi, kPiLo = 2 * kHalfPiLo;  // pi in two doubles: exact doubles of pi/2's
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- The reference evaluator's lanes ----

inline double select(bool m, double a, double b) { return m ? a : b; }
inline double splat(double, double v) { return v; }
inline float select(bool m, float a, float b) { return m ? a : b; }
inline float splat(float, double v) { return static_cast<float>(v); }
inline float fabs(float x) { return std::fabs(x); }
inline float copysign(float x, float s) { return std::copysign(x, s); }
inline float fma(float x, float y, float z) { return std::fma(x, y, z); }
inline float sqrt(float x) { return std::sqrt(x); }
inline double widen(float x) { return x; }
inline float narrow(double x) { return static_cast<float>(x); }
inline double fabs(double x) { return std::fabs(x); }
inline double copysign(double x, double s) { return std::copysign(x, s); }
inline double sqrt(double x) { return std::sqrt(x); }
inline double fma(double x, double y, double z) { return std::fma(x, y, z); }

// The formats' constants for the steps on bits, read by both tiers: the
// layout (float_format.h) and the recipes' own.
template <class T>
struct Format;
template <>
struct Format<double> : FloatFormat<double> {
  static constexpr double kRound = 0x1.8p52;           // v + kRound: v's integer in the low bits (|v| < 2**51)
  static constexpr Bits kSqrtHalf = 0x3fe6a09e667f3bcd;  // sqrt(1/2)'s bits
};
template <>
struct Format<float> : FloatFormat<float> {
  static constexpr float kRound = 0x1.8p23f;
  static constexpr Bits kSqrtHalf = 0x3f3504f3;
  // cbrt_seed's: (127 - 127/3 - 0.0330624) 2**23, the offset that centres
  // the bits-over-three estimate's error on [1, 8).
  static constexpr Bits kCbrtOffset = 0x2a5119f2;
};

// 2**e from the integer e in the low bits of `bits` (higher bits shift out).
template <class T>
  requires std::is_floating_point_v<T>
T scale_of(typename Format<T>::Bits bits) {
  using F = Format<T>;
  return std::bit_cast<T>(static_cast<typename F::Bits>((bits + F::kBias) << F::kMantissa));
}

// 2**n from t = n + kRound (n in its low bits), for a recipe that rounded
// its n that way.
template <class T>
  requires std::is_floating_point_v<T>
T pow2i_rounded(T t) {
  return scale_of<T>(std::bit_cast<typename Format<T>::Bits>(t));
}

// 2**n for an integral n in the format's normal exponents, from n's bits.
template <class T>
  requires std::is_floating_point_v<T>
T pow2i(T n) {
  return pow2i_rounded(n + Format<T>::kRound);  // n + kRound: n in the low bits
}

// v with its sign flipped where bit `bit` of t is set: for t = n + kRound,
// which holds the integer n in its low bits (two's complement), where n's
// bit is (bit 0: n odd; bit 1: n mod 4 is 2 or 3). That bit shifts to the
// sign bit's place.
template <class T>
  requires std::is_floating_point_v<T>
T negated_where_bit(T v, T t, int bit) {
  using Bits = typename Format<T>::Bits;
  const Bits sign = static_cast<Bits>(std::bit_cast<Bits>(t) >> bit) << (sizeof(Bits) * 8 - 1);
  return std::bit_cast<T>(static_cast<Bits>(std::bit_cast<Bits>(v) ^ sign));
}
template <class T>
  requires std::is_floating_point_v<T>
T negated_where_odd(T v, T t) {
  return negated_where_bit(v, t, 0);
}

// Whether t = n + kRound holds an odd n (its lowest bit).
template <class T>
  requires std::is_floating_point_v<T>
bool is_odd(T t) {
  using Bits = typename Format<T>::Bits;
  return (std::bit_cast<Bits>(t) & 1) != 0;
}

// 2**h and 2**(n - h) with h = floor(n / 2), for an integral n in twice
// the format's normal exponents: their product is 2**n, and p times one
// then the other rounds once where p 2**n is subnormal. Integer steps on
// n's bits, fewer than two pow2i.
template <class V>
struct Pow2Halves {
  V first;
  V second;
};
template <class T>
  requires std::is_floating_point_v<T>
Pow2Halves<T> pow2_halves(T n) {
  using F = Format<T>;
  using Bits = typename F::Bits;
  using Signed = std::make_signed_t<Bits>;
  const auto i = static_cast<Signed>(std::bit_cast<Bits>(n + F::kRound) - std::bit_cast<Bits>(F::kRound));
  const Signed h = i >> 1;
  return {scale_of<T>(static_cast<Bits>(h)), scale_of<T>(static_cast<Bits>(i - h))};
}

// cbrt(d) within 4% for d positive, normal and finite: d's bits over
// three, plus an offset (the exponent divided, the mantissa roughly).
template <class T>
  requires std::is_same_v<T, float>
T cbrt_seed(T d) {
  using F = Format<T>;
  return std::bit_cast<T>(static_cast<typename F::Bits>(std::bit_cast<typename F::Bits>(d) / 3 + F::kCbrtOffset));
}

// 1 / cbrt(d) within 3.5% for a double d positive, normal and finite, from
// its high word (the exponent and 20 mantissa bits): an offset less a third
// of it (the offset fitted on [1, 8): 2**-4.87 at most). 32-bit steps: a
// vector divides those by 3 with a multiply, 64-bit ones one lane at a time.
inline constexpr std::uint32_t kRcbrtOffset = 0x553ef0fe;
template <class T>
  requires std::is_same_v<T, double>
T rcbrt_seed(T d) {
  const auto high = static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(d) >> 32);
  return std::bit_cast<T>(static_cast<std::uint64_t>(kRcbrtOffset - high / 3) << 32);
}

// d = m * 2**k with m in [sqrt(1/2), sqrt(2)): d positive, normal, finite.
template <class V>
struct Split {
  V m;
  V k;  // an integer
};
template <class T>
  requires std::is_floating_point_v<T>
Split<T> split(T d) {
  using F = Format<T>;
  using Bits = typename F::Bits;
  using Signed = std::make_signed_t<Bits>;
  const Bits u = std::bit_cast<Bits>(d) - F::kSqrtHalf;
  const Signed k = static_cast<Signed>(u) >> F::kMantissa;
  const T m = std::bit_cast<T>(static_cast<Bits>((u & ((Bits{1} << F::kMantissa) - 1)) + F::kSqrtHalf));
  const T kd = std::bit_cast<T>(static_cast<Bits>(std::bit_cast<Bits>(F::kRound) + static_cast<Bits>(k))) - F::kRound;
  return {m, kd};
}

// a + b and its exact rounding error (Knuth's two-sum).
template <class V>
struct TwoSum {
  V sum;
  V error;
};
template <class F>
TwoSum<F> two_sum(F a, F b) {
  F sum = a + b;
  F b_part = sum - a;
  return {sum, (a - (sum - b_part)) + (b - b_part)};
}

// a + b as a sum and its exact error, |a| >= |b| (Dekker's fast two-sum).
template <class F>
TwoSum<F> fast_two_sum(F a, F b) {
  F sum = a + b;
  return {sum, b - (sum - a)};
}

// sqrt(hi + lo) for hi > 0 and |lo| small beside it, in two parts: the
// rounded root s of hi and (hi - s**2 + lo) / 2s, the residual (one FMA,
// exact) over the root's derivative.
template <class F>
TwoSum<F> sqrt_two_parts(F hi, F lo) {
  F s = sqrt(hi);
  return {s, (fma(-s, s, hi) + lo) / (s + s)};
}

// x limited to [lo, hi], or to at most hi; NaN stays NaN.
template <class V>
V clamped(V x, double lo, double hi) {
  return select(x > splat(x, hi), splat(x, hi), select(x < splat(x, lo), splat(x, lo), x));
}
template <class V>
V at_most(V x, double hi) {
  return select(x > splat(x, hi), splat(x, hi), x);
}
template <class V>
V at_least(V x, double lo) {
  return select(x < splat(x, lo), splat(x, lo), x);
}

// The polynomial of coefficients c (a C array or std::array of doubles, c[0]
// the constant) at x, with FMA.
template <class V, class Coefficients>
V horner(V x, const Coefficients& c) {
  const std::size_t n = std::size(c);
  V p = splat(x, c[n - 1]);
  for (std::size_t j = n - 1; j-- > 0;) p = fma(p, x, splat(x, c[j]));
  return p;
}

// t + t**3 p(t**2) for an odd function's polynomial p (Horner's), the
// form of the f32 recipes' series.
template <class V, class Coefficients>
V odd_polynomial(V t, const Coefficients& c) {
  V t2 = t * t;
  return fma(t * t2, horner(t2, c), t);
}

// The same polynomial by Estrin's scheme: pairs c[2j] + c[2j+1] x, then
// pairs of those with x**2, x**4, ...: about log2(n) dependent FMAs where
// Horner's takes n, for a recipe's long polynomials (at most 16 terms).
template <class V, class Coefficients>
V estrin(V x, const Coefficients& c) {
  const std::size_t n = std::size(c);
  std::array<V, 8> level{};
  std::size_t m = 0;
  for (std::size_t j = 0; j < n; j += 2)
    level[m++] = j + 1 < n ? fma(splat(x, c[j + 1]), x, splat(x, c[j])) : splat(x, c[j]);
  V power = x * x;
  while (m > 1) {
    std::size_t k = 0;
    for (std::size_t j = 0; j < m; j += 2) level[k++] = j + 1 < m ? fma(level[j + 1], power, level[j]) : level[j];
    m = k;
    if (m > 1) power = power * power;
  }
  return level[0];
}

// c's coefficients times k: a polynomial scaled (ln's to log2's).
template <std::size_t N>
constexpr std::array<double, N> scaled(const double (&c)[N], double k) {
  std::array<double, N> r{};
  for (std::size_t j = 0; j < N; ++j) r[j] = c[j] * k;
  return r;
}

// For a cube root: t scaled by 2**k (k = up below `low`, down above `high`,
// else 0: multiples of 3), and 2**(-k/3), which scales its root back exactly.
template <class V>
struct CubeScaled {
  V t;
  V back;
};
template <class V>
CubeScaled<V> scale_by_cube(V t, double low, int up, double high, int down) {
  auto tiny = t < splat(t, low), huge = t > splat(t, high);
  V one = splat(t, 1.0);
  return {t * select(tiny, splat(t, std::ldexp(1.0, up)), select(huge, splat(t, std::ldexp(1.0, down)), one)),
          select(tiny, splat(t, std::ldexp(1.0, -up / 3)), select(huge, splat(t, std::ldexp(1.0, -down / 3)), one))};
}

// NOTE: [Rare lanes]: the lanes where scale_by_cube(|x|, low, ..., high,
// ...) and cbrt_of act: |x| outside [low, high], zeros, infinities and NaN.
template <class V>
auto outside_cube_range(V x, double low, double high) {
  V t = fabs(x);
  return !(t >= splat(t, low) && t <= splat(t, high));
}

// cbrt x from the root r of t = |x|: x's sign, and zeros, infinities and
// NaN as they are.
template <class V>
V cbrt_of(V x, V t, V r) {
  return copysign(select(t == splat(t, 0.0) || t == splat(t, kInf) || t != t, t, r), x);
}

// ln d's special values (C99 F.9.3.7) in place of a recipe's lanes r there:
// -inf at +-0, inf at inf, NaN below 0 and at NaN (any NaN: both tiers then
// apply NOTE: [Math guards]' NaN rule).
template <class V>
V log_specials(V d, V r) {
  r = select(d == 0.0, splat(d, -kInf), r);
  r = select(d == kInf, d, r);
  return select(!(d >= splat(d, 0.0)), splat(d, kNaN), r);
}

// v rounded to an integer, for any f64 v: below 2**52 in magnitude |v| +
// 2**52 has no fraction left, from 2**52 on v is an integer (2**51 + 0.5
// is not one: an f64 pow's y there, found by a review).
template <class V>
V integer_part(V v) {
  return select(fabs(v) < 0x1p52, copysign((fabs(v) + 0x1p52) - 0x1p52, v), v);
}

// x**y from m = |x|**y (its value for every |x| and y, inf and 0 included):
// the sign and C99 F.9.4.4's special values by selects. x and y in f64.
template <class V>
V pow_specials(V x, V y, V m) {
  auto is_integer = integer_part(y) == y;  // +-inf count as even integers
  auto half = y * 0.5;
  auto odd = is_integer && integer_part(half) != half;
  auto r = select(copysign(splat(x, 1.0), x) < 0.0 && odd, -m, m);  // the sign bit: -0 too
  r = select(x < 0.0 && fabs(x) != kInf && !is_integer, splat(r, kNaN), r);
  r = select(fabs(x) == 1.0 && fabs(y) == kInf, splat(r, 1.0), r);  // (-1) ** +-inf
  return select(x == 1.0 || y == 0.0, splat(r, 1.0), r);
}
// NOTE: [Rare lanes]: the lanes where pow_specials may change a bit: all
// but x positive and finite (an f32's subnormals too) with y finite.
template <class V>
auto pow_rare(V x, V y) {
  return !(x > splat(x, 0.0) && x < splat(x, kInf) && fabs(y) < splat(y, kInf));
}

// NOTE: [Rare lanes]: the lanes where a logarithm's subnormal scaling and
// log_specials act: below the format's smallest normal `min_normal` (zeros,
// subnormals, negatives), infinity and NaN.
template <class V>
auto not_positive_normal(V d, double min_normal) {
  return !(d >= splat(d, min_normal)) || d == splat(d, kInf);
}

// NOTE: [Rare lanes]: the math library's function `name` with NOTE: [Math
// guards]' steps, for the lanes a recipe leaves to it (math_recipes.cpp; a
// kernel's is recipe_lanes.h's, the library's vector build of the same bits).
float library_function(std::string_view name, float x);
double library_function(std::string_view name, double x);

// A recipe's full form around its main path's range: main where |x| <=
// bound, the library's `name` beyond it and at inf and NaN.
template <class F>
F within(F x, double bound, F main, std::string_view name) {
  return select(fabs(x) <= splat(x, bound), main, library_function(name, x));
}

// y - k pi/2 as r + r_lo for an integer k near y 2/pi, pi/2 in three parts
// hi + lo + rest of the lanes' format, hi's ULP that of 1's (so that y - k
// hi is exact: both are multiples of the smaller ULP, under 1 apart): lo's
// product is a sum and its exact error, rest's one rounding (NOTE:
// [Two-part math]'s half_pi_reduction in f64, f32 tan's in f32).
template <class F>
TwoSum<F> minus_half_pis(F y, F k, double hi, double lo, double rest) {
  F a = fma(-k, splat(y, hi), y);
  F p = k * splat(y, lo);
  const TwoSum<F> d = two_sum(a, -p);
  return {d.sum, d.error - (fma(k, splat(y, lo), -p) + k * splat(y, rest))};
}

// tan y from tan r in two parts h + l: h where k is even; where it is odd,
// -1 / (h + l) = -(i + i (e - l i)), i = 1/h rounded and e = 1 - i h
// (exact): tan's last step in f32 and f64.
template <class F, class Odd>
F tan_or_minus_cot(const TwoSum<F>& tan, Odd odd) {
  F one = splat(tan.sum, 1.0);
  F inverse = one / tan.sum;
  F e = fma(-inverse, tan.sum, one);
  return select(odd, -fma(inverse, e - tan.error * inverse, inverse), tan.sum);
}

// x - m pi in f64 for a float x (widened) and m an integer or half an odd
// one, |x| <= 2**30: the first step is exact wherever x and m kPiHi are
// multiples of 2**-52 (all but |x| < 2**-29 with m = +-1/2, where r is
// about pi/2 and one rounding does not matter), their difference within 2;
// the second rounds once, and pi's rest adds at most 2**-76: within 2**-52
// of r wherever r is not 0 (every float below 2**34 is at least 2**-28 from
// a multiple of pi/2). NOTE: [Widened math]'s sin, cos and tan.
template <class V>
V minus_pis(V x, V m) {
  return fma(-m, splat(x, kPiLo), fma(-m, splat(x, kPiHi), x));
}

}  // namespace bcast::math::recipes
