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

// 2**n for an integral n in [-1022, 1023], from n's bits.
inline double pow2i(double n) {
  const auto bits = std::bit_cast<std::uint64_t>(n + kRound);  // n + 2**51 in the low bits
  return std::bit_cast<double>((bits + 1023) << 52);
}

// 2**n for an integral n in [-126, 127].
inline float pow2i(float n) {
  const auto bits = std::bit_cast<std::uint32_t>(n + 0x1.8p23f);  // n + 2**22 in the low bits
  return std::bit_cast<float>((bits + 127) << 23);
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

template <class V, std::size_t N>
V horner(V x, const double (&c)[N]) {
  V p = splat(x, c[N - 1]);
  for (std::size_t j = N - 1; j-- > 0;) p = fma(p, x, splat(x, c[j]));
  return p;
}

}  // namespace bcast::math::recipes
