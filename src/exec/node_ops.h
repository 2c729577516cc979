// Per-element semantics of an expression's unary ops, casts and ternary ops,
// on storage values (scalar_ops.h has the binary ops). The reference
// evaluator runs them; the JIT's IR is held to them bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "bcast/expr.h"
#include "scalar_ops.h"

namespace bcast::detail {

// ---- unary ops on compute values ----

template <UnaryOp U, class T>
auto apply_unary(T x) {
  constexpr bool floating = std::is_floating_point_v<T>, boolean = std::is_same_v<T, bool>;
  if constexpr (U == UnaryOp::neg) {
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
    else if constexpr (U == UnaryOp::exp) return std::exp(x);
    else if constexpr (U == UnaryOp::log) return std::log(x);
    else if constexpr (U == UnaryOp::sin) return std::sin(x);
    else if constexpr (U == UnaryOp::cos) return std::cos(x);
    else if constexpr (U == UnaryOp::tanh) return std::tanh(x);
    else return T{1} / (T{1} + std::exp(-x));  // sigmoid
  }
}

template <UnaryOp U, DType D>
struct UnaryElement {
  using In = Element<D>;
  using Out = Element<unary_result_dtype(U, D)>;
  static typename Out::storage run(typename In::storage x) {
    return Out::store(static_cast<typename Out::compute>(apply_unary<U>(In::load(x))));
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
