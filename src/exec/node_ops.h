// Per-element semantics of an expression's unary ops, casts and ternary ops,
// on storage values (scalar_ops.h has the binary ops). The reference
// evaluator runs them; the JIT's IR is held to them bit for bit.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "bcast/expr.h"
#include "complex_ops.h"
#include "scalar_ops.h"

namespace bcast::detail {

// ---- unary ops on compute values ----

// The distance from x to the next float away from zero, in D's own format
// (NumPy's spacing for f32 and f64): NaN for infinities and NaN; for +-0 the
// smallest positive subnormal.
template <DType D>
typename Element<D>::storage spacing(typename Element<D>::storage s) {  // NOLINT: s is adjusted
  using E = Element<D>;
  using S = typename E::storage;
  if (E::load(s) == 0) s = 0;  // -0 too: the smallest positive subnormal, as NumPy's
  const auto x = E::load(s);
  if (std::isinf(x) || x != x) return E::store(std::numeric_limits<typename E::compute>::quiet_NaN());
  if constexpr (std::is_floating_point_v<S>) {
    return std::nextafter(x, std::copysign(std::numeric_limits<S>::infinity(), x)) - x;
  } else {
    const auto next = E::load(static_cast<S>(s + 1));  // one step away from zero on the bits
    return E::store(next - x);                          // exact: a power of two, or infinity
  }
}

template <UnaryOp U, class T>
auto apply_unary(T x) {
  constexpr bool floating = std::is_floating_point_v<T>, boolean = std::is_same_v<T, bool>;
  if constexpr (is_complex_v<T>) {
    return complex_ops::unary<U>(x);  // NOTE: [Complex arithmetic]
  } else if constexpr (U == UnaryOp::positive || U == UnaryOp::conj || U == UnaryOp::copy ||
                       U == UnaryOp::real) {
    return x;
  } else if constexpr (U == UnaryOp::imag) {
    return T{0};
  } else if constexpr (U == UnaryOp::ones_like) {
    return T{1};
  } else if constexpr (U == UnaryOp::square) {
    if constexpr (floating) return x * x;
    else return wrapping(x, x, std::multiplies<>());
  } else if constexpr (U == UnaryOp::reciprocal) {
    if constexpr (floating) return T{1} / x;
    else if constexpr (std::is_signed_v<T>) return x == 0 ? T{0} : static_cast<T>(x == -1 ? -1 : 1 / x);
    else return x == 0 ? T{0} : static_cast<T>(1 / x);
  } else if constexpr (U == UnaryOp::sign) {
    if constexpr (floating) return x > 0 ? T{1} : x < 0 ? T{-1} : x == 0 ? T{0} : x;  // NaN stays
    else if constexpr (std::is_signed_v<T>) return static_cast<T>((x > 0) - (x < 0));
    else return static_cast<T>(x > 0);
  } else if constexpr (U == UnaryOp::trunc) {
    if constexpr (floating) return std::trunc(x);
    else return x;
  } else if constexpr (U == UnaryOp::fabs) {
    return std::fabs(x);
  } else if constexpr (U == UnaryOp::deg2rad || U == UnaryOp::rad2deg) {
    // NumPy's npy_deg2rad: one product with the constant rounded to T.
    constexpr long double kPi = 3.141592653589793238462643383279502884L;
    constexpr T k = U == UnaryOp::deg2rad ? static_cast<T>(static_cast<T>(kPi) / T{180})
                                          : static_cast<T>(T{180} / static_cast<T>(kPi));
    return x * k;
  } else if constexpr (U == UnaryOp::isnan) {
    return x != x;
  } else if constexpr (U == UnaryOp::isinf) {
    if constexpr (floating) return std::isinf(x);
    else return false;
  } else if constexpr (U == UnaryOp::isfinite) {
    if constexpr (floating) return std::isfinite(x);
    else return true;
  } else if constexpr (U == UnaryOp::neg) {
    if constexpr (floating) return -x;
    else return wrapping(T{0}, x, std::minus<>());
  } else if constexpr (U == UnaryOp::abs) {
    if constexpr (floating) return std::fabs(x);
    else if constexpr (std::is_signed_v<T>) return x < 0 ? wrapping(T{0}, x, std::minus<>()) : x;
    else return x;
  } else if constexpr (U == UnaryOp::floor || U == UnaryOp::ceil || U == UnaryOp::round) {
    // Integers are their own floor, ceiling and rounding (the Array API's rule).
    if constexpr (!floating) return x;
    else if constexpr (U == UnaryOp::floor) return std::floor(x);
    else if constexpr (U == UnaryOp::ceil) return std::ceil(x);
    else return std::nearbyint(x);  // half to even in the default rounding mode
  } else if constexpr (U == UnaryOp::logical_not) {
    return !(x != T{0});
  } else if constexpr (U == UnaryOp::bit_not) {
    if constexpr (boolean) return !x;
    else return static_cast<T>(~x);
  } else {
    static_assert(floating, "the float functions compute in a float dtype (unary_compute_dtype)");
    if constexpr (U == UnaryOp::sqrt) return std::sqrt(x);
    else if constexpr (U == UnaryOp::sigmoid) return T{1} / (T{1} + math_function<UnaryOp::exp>(-x));
    else return math_function<U>(x);
  }
}

template <UnaryOp U, DType D>
struct UnaryElement {
  using In = Element<D>;
  using Out = Element<unary_result_dtype(U, D)>;
  static typename Out::storage run(typename In::storage x) {
    if constexpr (U == UnaryOp::spacing) {
      return spacing<D>(x);
    } else if constexpr (U == UnaryOp::signbit) {  // on the storage's bits (GCC 12 fails on a vectorised std::signbit)
      using S = typename In::storage;
      using Bits = std::conditional_t<sizeof(S) == 2, std::uint16_t, std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>>;
      return Out::store((std::bit_cast<Bits>(x) >> (8 * sizeof(S) - 1)) != 0);
    }
    else {
      return Out::store(static_cast<typename Out::compute>(apply_unary<U>(In::load(x))));
    }
  }
};

// ---- casts ----

// NOTE: [Float to integer] A float cast to an integer truncates towards
// zero, saturates at the integer's limits, and gives 0 for NaN (LLVM's
// fptosi.sat; NumPy leaves out-of-range values to the C compiler).
template <class Int>
Int saturate(double x) {
  if (std::isnan(x)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi_excl = 2.0 * (static_cast<double>(std::numeric_limits<Int>::max() / 2 + 1));  // 2^bits(-1)
  if (x <= lo) return std::numeric_limits<Int>::min();
  if (x >= hi_excl) return std::numeric_limits<Int>::max();
  return static_cast<Int>(x);
}

template <DType From, DType To>
struct CastElement {
  using In = Element<From>;
  using Out = Element<To>;
  static typename Out::storage run(typename In::storage s) {
    if constexpr (From == To) {
      return s;
    } else if constexpr (is_complex_dtype(From) && is_complex_dtype(To)) {
      return Out::store(static_cast<typename Out::compute>(s));
    } else if constexpr (is_complex_dtype(From)) {
      // NumPy's cast of a complex number to a real dtype drops the imaginary
      // part (with a ComplexWarning); to bool it asks whether either part is nonzero.
      if constexpr (To == DType::boolean) return Out::store(s.real() != 0 || s.imag() != 0);
      else return CastElement<real_part_dtype(From), To>::run(s.real());
    } else if constexpr (is_complex_dtype(To)) {
      using Part = typename Out::compute::value_type;
      return Out::store({static_cast<Part>(In::load(s)), Part{0}});  // one rounding, from the value itself
    } else if constexpr (To == DType::boolean) {
      return Out::store(In::load(s) != 0);
    } else if constexpr (is_floating_dtype(From) && !is_floating_dtype(To)) {
      return Out::store(saturate<typename Out::storage>(static_cast<double>(In::load(s))));
    } else if constexpr (To == DType::f16 || To == DType::bf16) {
      // One rounding from f64 (and from every integer, exact in f64 up to
      // 2^53); f16 and bf16 sources go through f32 exactly.
      if constexpr (From == DType::f32 || From == DType::f16 || From == DType::bf16)
        return Out::store(static_cast<float>(In::load(s)));
      else if constexpr (To == DType::f16)
        return f64_to_f16(static_cast<double>(In::load(s)));
      else
        return f64_to_bf16(static_cast<double>(In::load(s)));
    } else {
      return Out::store(static_cast<typename Out::compute>(In::load(s)));
    }
  }
};

// ---- ternary ops ----

template <TernaryOp T, DType D>
struct TernaryElement {
  using E = Element<D>;
  using S = typename E::storage;
  // where's first operand is a bool byte; clamp and fma take three of D.
  using First = std::conditional_t<T == TernaryOp::where, std::uint8_t, S>;
  static S run(First a, S b, S c) {
    if constexpr (T == TernaryOp::where) {
      return a != 0 ? b : c;
    } else if constexpr (T == TernaryOp::clamp) {
      const S low = extremum_picks_a<true>(E::load(a), E::load(b)) ? a : b;  // max(x, lo)
      return extremum_picks_a<false>(E::load(low), E::load(c)) ? low : c;   // min(.., hi)
    } else {
      using C = typename E::compute;
      if constexpr (std::is_floating_point_v<C>) return E::store(std::fma(E::load(a), E::load(b), E::load(c)));
      else return E::store(wrapping(wrapping(E::load(a), E::load(b), std::multiplies<>()), E::load(c), std::plus<>()));
    }
  }
};

}  // namespace bcast::detail
