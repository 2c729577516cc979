// Where the vector-math library stops short of IEEE's range, and what bcast
// computes there instead: one row per function, read by the reference
// evaluator (math_guards::apply, below) and mirrored by the JIT's calls
// (jit/ir/math_calls.cpp), so that both tiers give the same bits.
// LLVM-free.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "float_format.h"

namespace bcast::math {

// NOTE: [Math guards] SLEEF 3.5's functions (NOTE: [Vector math]) give up
// early at the ends of the range, where their intermediates would overflow
// or underflow; measured with tests/python/test_math_vs_mpmath.py:
//  - `tiny`: asinh, log1p and f64 tan flush the smallest subnormals to 0.
//    Below the smallest normal f(x) rounds to x, which bcast returns.
//  - `log_scale`: asinh and acosh return inf above 2**64 (f32) and 2**512
//    (f64), log1p above 1e38 and 1e307. There f(x) = log(2x) or log(x) to
//    the last bit, so bcast computes f(x * 2**-k) + k*ln2 (k*ln2 as an
//    exact high part plus a low part), with x * 2**-k back in the range
//    where the library is exact: 2**40 (f32) and 2**300 (f64).
//  - `exp_shift`: exp (f64) and sinh and cosh (f32 and f64) overflow a few
//    ULPs to a factor 2 early. Above 88 (f32) and 709 (f64) bcast computes
//    f(x - 1) * e (x - 1 is exact there; e as a high and a low part, one
//    rounding): the library's error in ULPs of f(x - 1), at most e/2 times
//    that in ULPs of the result, plus half an ULP (1.86 for a 1-ULP
//    library; f64 exp measured 1.566, MathGuards' test).
//  - pow (f64) overflows from about 2**1023.99 (SLEEF's exp's limit
//    inside it). Where y * exponent(x) > 1000 (x finite, not 0), bcast computes
//    pow(x, y - 1) * x (y > 0) or pow(x, y + 1) / x (y < 0): y -+ 1 is exact
//    there (|y| < 2**52; a larger y overflows anyway), and the product one more rounding. pow(x, 1) is x
//    (but a NaN x, which the library quiets). A signalling NaN operand
//    gives a quiet NaN (docs/semantics.md; SLEEF's pow(1, sNaN) is 1).
//  - NaN: SLEEF's vector and scalar builds make NaNs of different signs and
//    payloads (log(-1): -NaN in the AVX-512 build, +NaN in the scalar one),
//    so every result that is NaN becomes one rule's: a NaN operand's, quieted
//    (x + y, as the arithmetic gives it), else the positive quiet NaN.
//  - `newton_f64`: glibc's f64 cbrt (the library without SLEEF) is up to
//    4 ULP off (2.67 measured at x = 1 - 2**-52). One Newton step on
//    y**3 = x, y - (y**3 - x) / (3 y**2), with y**3 - x from FMAs and y*y's
//    exact rounding error, leaves about half an ULP; SLEEF's is kept alike.
// Each guard is a select, not a branch: a kernel's vector lanes take it
// alike, and a lane outside the guarded range gets the library's bits.
struct Guard {
  std::string_view name;  // the function table's `math` name
  bool tiny = false;
  bool log_scale = false;
  bool exp_shift = false;      // for |x| (sinh, cosh) or, when `positive_only`, x (exp)
  bool positive_only = false;
  bool exp_shift_f32 = true;   // false: f64 only (SLEEF's f32 exp is right to the last float)
  bool newton_f64 = false;     // one Newton step on y**3 = x (cbrt, f64)
};

inline constexpr Guard kGuards[] = {
    {"asinh", true, true},
    {"acosh", false, true},
    {"log1p", true, true},
    {"tan", true},  // f64 only needs it; harmless in f32
    {"exp", false, false, true, true, false},
    {"sinh", false, false, true},
    {"cosh", false, false, true},
    {"cbrt", false, false, false, false, true, true},
};

constexpr Guard guard_of(std::string_view name) {
  for (const Guard& g : kGuards)
    if (g.name == name) return g;
  return Guard{name};
}

// The constants of the guards, per precision.
template <class T>
struct GuardConstants;
template <>
struct GuardConstants<float> : FloatFormat<float> {
  static constexpr int kScaleAbove = 60, kScaleTo = 40;  // log_scale: exponents
  static constexpr float kShiftAbove = 88.0f;            // exp_shift: |x| above
  static constexpr float kLn2Hi = 0.693145751953125f;    // 16 bits: k * kLn2Hi is exact for k < 2**7
  static constexpr float kLn2Lo = 1.42860682030941723e-06f;
  static constexpr float kEHi = 2.71828174591064453f;    // e = kEHi + kELo to twice float's precision
  static constexpr float kELo = 8.25484040e-08f;
};
template <>
struct GuardConstants<double> : FloatFormat<double> {
  static constexpr int kScaleAbove = 500, kScaleTo = 300;
  static constexpr double kShiftAbove = 709.0;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 bits: k * kLn2Hi is exact for k < 2**21
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kEHi = 2.718281828459045090795598298427648842334747314453125;
  static constexpr double kELo = 1.4456468917292501578e-16;
};

// x's unbiased binary exponent, from its bits (the smallest subnormals: -bias).
template <class T>
int exponent_of(T x) {
  using C = GuardConstants<T>;
  using Bits = typename C::Bits;
  constexpr Bits kMask = (Bits{1} << (sizeof(T) * 8 - 1 - C::kMantissa)) - 1;
  return static_cast<int>((std::bit_cast<Bits>(x) >> C::kMantissa) & kMask) - C::kBias;
}

// A NaN result by the NaN rule: an operand's NaN quieted, else +NaN.
template <class T>
T one_nan(T r, T x, T y) {
  if (r == r) return r;
  return x != x || y != y ? x + y : std::numeric_limits<T>::quiet_NaN();
}

template <class T, class F>
T guarded_steps(std::string_view name, F f, T x);

// f(x) with `name`'s guards around it: what the reference evaluator computes
// and the JIT's calls emit the same steps for (jit/ir/math_calls.cpp).
template <class T, class F>
T guarded(std::string_view name, F f, T x) {
  return one_nan(guarded_steps(name, f, x), x, x);
}

// cbrt's Newton step (`newton_f64`); 0, inf and NaN as they are.
inline double polished_cbrt(double y, double x) {
  if (!(y != 0 && std::fabs(y) < std::numeric_limits<double>::infinity())) return y;
  const double square = y * y;
  const double square_error = std::fma(y, y, -square);
  const double residual = std::fma(square_error, y, std::fma(square, y, -x));  // fused: nothing left to contract
  return y - residual / (3.0 * square);
}

template <class T, class F>
T guarded_steps(std::string_view name, F f, T x) {
  using C = GuardConstants<T>;
  using Bits = typename C::Bits;
  const Guard g = guard_of(name);
  const T magnitude = std::fabs(x);
  if (g.tiny && magnitude < std::numeric_limits<T>::min()) return x;
  if (g.log_scale) {
    const int exponent = exponent_of(x);
    if (exponent >= C::kScaleAbove) {
      const int k = exponent - C::kScaleTo;
      const T down = std::bit_cast<T>(static_cast<Bits>(C::kBias - k) << C::kMantissa);
      const T kf = static_cast<T>(k);
      return (f(x * down) + std::copysign(kf * C::kLn2Lo, x)) + std::copysign(kf * C::kLn2Hi, x);
    }
  }
  if (g.exp_shift && (g.exp_shift_f32 || std::is_same_v<T, double>)) {
    if ((g.positive_only ? x : magnitude) > C::kShiftAbove) {
      const T r = f(x - std::copysign(T{1}, x));
      return std::fma(r, C::kEHi, r * C::kELo);
    }
  }
  if constexpr (std::is_same_v<T, double>) {
    if (g.newton_f64) return polished_cbrt(f(x), x);
  }
  return f(x);
}

// A function of two operands with the NaN rule.
template <class T, class F>
T guarded_binary(F f, T x, T y) {
  return one_nan(f(x, y), x, y);
}

// A signalling NaN: a NaN whose quiet bit (the mantissa's top) is clear.
template <class T>
bool is_signalling(T x) {
  using C = GuardConstants<T>;
  using Bits = typename C::Bits;
  return x != x && (std::bit_cast<Bits>(x) & (Bits{1} << (C::kMantissa - 1))) == 0;
}

// pow's steps, before the NaN rule. `library`: f is the library's pow,
// whose f64 one gives up early near overflow (bcast's recipe does not).
template <class T, class F>
T pow_steps(F f, T x, T y, bool library = true) {
  if (is_signalling(x) || is_signalling(y)) return x + y;  // IEEE 754 9.2.1 (docs/semantics.md), not C's pow(1, y) = 1
  if (y == T{1} && x == x) return x;  // a NaN goes to the library, which quiets it
  if constexpr (std::is_same_v<T, double>) {
    const T magnitude = std::fabs(x);  // 0 and inf: the library's special cases
    if (library && y * static_cast<T>(exponent_of(x)) > T{1000} && magnitude > 0 &&
        magnitude < std::numeric_limits<T>::infinity() && std::fabs(y) < T{0x1p52}) {
      const T r = f(x, y - std::copysign(T{1}, y));
      return y > 0 ? r * x : r / x;
    }
  }
  return f(x, y);
}

// pow's guards (f64: the near-overflow shift; both: pow(x, 1) is x).
template <class T, class F>
T guarded_pow(F f, T x, T y, bool library = true) {
  return one_nan(pow_steps(f, x, y, library), x, y);
}

}  // namespace bcast::math
