// The lanes a math recipe (NOTE: [Math recipes]) computes on in the
// reference evaluator: double, float and bool, and the exact steps on bits
// both tiers take alike (jit/ir/math_recipes_ir.cpp has the kernels' lanes).
// LLVM-free.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "float_format.h"

namespace bcast::math::recipes {

inline constexpr double kRound = 0x1.8p52;  // v + kRound - kRound: v rounded to an integer (|v| < 2**51), half to even
inline constexpr double kLog2e = 0x1.71547652b82fep0;
inline constexpr double kLn2Hi = 0x1.62e42fefa3800p-1;  // 42 bits: n * kLn2Hi is exact for |n| < 2**11
inline constexpr double kLn2Lo = 0x1.ef35793c76730p-45; // ln 2 - kLn2Hi, rounded
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
};

// 2**n for an integral n in the format's normal exponents, from n's bits.
template <class T>
  requires std::is_floating_point_v<T>
T pow2i(T n) {
  using F = Format<T>;
  const auto bits = std::bit_cast<typename F::Bits>(n + F::kRound);  // n + kRound / 3 in the low bits
  return std::bit_cast<T>(static_cast<typename F::Bits>((bits + F::kBias) << F::kMantissa));
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

template <class V, std::size_t N>
V horner(V x, const double (&c)[N]) {
  V p = splat(x, c[N - 1]);
  for (std::size_t j = N - 1; j-- > 0;) p = fma(p, x, splat(x, c[j]));
  return p;
}

}  // namespace bcast::math::recipes
