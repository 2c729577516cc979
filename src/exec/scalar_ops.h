// Per-element semantics of every op and dtype, as templates shared by the
// executors in src/. NumPy's behaviour unless bcast/ops.h says otherwise.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "half.h"
#include "op_traits.h"

namespace bcast::detail {

// ---- dtype -> storage type, compute type, load and store ----

template <class Storage, class Compute>
struct PlainElement {
  using storage = Storage;
  using compute = Compute;
  static Compute load(Storage s) { return static_cast<Compute>(s); }
  static Storage store(Compute c) { return static_cast<Storage>(c); }
};

template <float (*ToF32)(std::uint16_t), std::uint16_t (*FromF32)(float)>
struct HalfElement {
  using storage = std::uint16_t;
  using compute = float;
  static float load(std::uint16_t s) { return ToF32(s); }
  static std::uint16_t store(float c) { return FromF32(c); }
};

struct BoolElement {
  using storage = std::uint8_t;
  using compute = bool;
  static bool load(std::uint8_t s) { return s != 0; }
  static std::uint8_t store(bool c) { return c ? 1 : 0; }
};

template <DType D> struct Element;
template <> struct Element<DType::f16> : HalfElement<f16_to_f32, f32_to_f16> {};
template <> struct Element<DType::bf16> : HalfElement<bf16_to_f32, f32_to_bf16> {};
template <> struct Element<DType::f32> : PlainElement<float, float> {};
template <> struct Element<DType::f64> : PlainElement<double, double> {};
template <> struct Element<DType::i8> : PlainElement<std::int8_t, std::int8_t> {};
template <> struct Element<DType::i16> : PlainElement<std::int16_t, std::int16_t> {};
template <> struct Element<DType::i32> : PlainElement<std::int32_t, std::int32_t> {};
template <> struct Element<DType::i64> : PlainElement<std::int64_t, std::int64_t> {};
template <> struct Element<DType::u8> : PlainElement<std::uint8_t, std::uint8_t> {};
template <> struct Element<DType::u16> : PlainElement<std::uint16_t, std::uint16_t> {};
template <> struct Element<DType::u32> : PlainElement<std::uint32_t, std::uint32_t> {};
template <> struct Element<DType::u64> : PlainElement<std::uint64_t, std::uint64_t> {};
template <> struct Element<DType::boolean> : BoolElement {};

// ---- the ops on compute types ----

// Integer add/sub/mul wrap: computed in an unsigned type at least as wide as
// `unsigned`, so that small types do not promote to a signed int and overflow.
template <class T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <class T, class F>
T wrapping(T a, T b, F f) {
  return static_cast<T>(f(static_cast<WrapType<T>>(a), static_cast<WrapType<T>>(b)));
}

// NumPy's floor_divide on integers: rounds towards minus infinity, x / 0 == 0,
// and MIN / -1 wraps to MIN.
template <class T>
T floor_divide(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrapping(T{0}, a, std::minus<>());
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

// NumPy's floor_divide on floats, through fmod as its npy_divmod: the
// quotient of a - fmod(a, b), stepped down when the remainder and b differ
// in sign, floored and then rounded to the nearest integer; a signed zero
// when it is 0; a / b when b is 0.
template <class T>
T floor_divide_float(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) div -= T{1};
  }
  if (div == 0) return std::copysign(T{0}, a / b);
  T floor = std::floor(div);
  if (div - floor > T{0.5}) floor += T{1};
  return floor;
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

// IEEE 754-2019 maximum / minimum: NaN in either operand wins (NumPy's
// maximum / minimum), and -0 orders below +0 (NumPy leaves that tie to its
// code path; LLVM's llvm.maximum agrees with us). Says whether the result is a:
// the result is always one input, copied bit for bit (ScalarOp).
template <bool Max, class T>
bool extremum_picks_a(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (is_nan(a)) return true;
    if (is_nan(b)) return false;
    if (a == b) return std::signbit(a) != Max;  // equal: differ at most in the sign of zero
  }
  if constexpr (Max) return a > b;
  else return a < b;
}

template <class T>
T power(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return ::powf(a, b);
  else return std::pow(a, b);
}

template <Op O, class T>
auto apply(T a, T b) {
  constexpr bool integral = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  if constexpr (O == Op::add) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (integral) return wrapping(a, b, std::plus<>());
    else return a + b;
  } else if constexpr (O == Op::sub) {
    if constexpr (integral) return wrapping(a, b, std::minus<>());
    else return a - b;
  } else if constexpr (O == Op::mul) {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else if constexpr (integral) return wrapping(a, b, std::multiplies<>());
    else return a * b;
  } else if constexpr (O == Op::div) {
    if constexpr (std::is_floating_point_v<T>) return a / b;
    else return static_cast<double>(a) / static_cast<double>(b);  // true division of integers and bool
  } else if constexpr (O == Op::floor_div) {
    if constexpr (integral) return floor_divide(a, b);
    else return floor_divide_float(a, b);
  } else if constexpr (O == Op::max || O == Op::min) {
    return extremum_picks_a<O == Op::max>(a, b) ? a : b;
  } else if constexpr (O == Op::pow) {
    return power(a, b);
  } else if constexpr (O == Op::eq) {
    return a == b;
  } else if constexpr (O == Op::ne) {
    return a != b;
  } else if constexpr (O == Op::lt) {
    return a < b;
  } else if constexpr (O == Op::le) {
    return a <= b;
  } else if constexpr (O == Op::gt) {
    return a > b;
  } else if constexpr (O == Op::ge) {
    return a >= b;
  } else if constexpr (O == Op::logical_and) {
    return a != T{0} && b != T{0};
  } else if constexpr (O == Op::logical_or) {
    return a != T{0} || b != T{0};
  } else if constexpr (O == Op::logical_xor) {
    return (a != T{0}) != (b != T{0});
  } else if constexpr (O == Op::bit_and) {
    return static_cast<T>(a & b);
  } else if constexpr (O == Op::bit_or) {
    return static_cast<T>(a | b);
  } else {
    static_assert(O == Op::bit_xor);
    return static_cast<T>(a ^ b);
  }
}

// The whole per-element step: load both inputs, compute, store the result.
template <Op O, DType D>
struct ScalarOp {
  using In = Element<D>;
  using Out = Element<result_dtype_of(O, D)>;
  static typename Out::storage run(typename In::storage a, typename In::storage b) {
    // max and min copy the chosen input's bits, as NumPy's loops do: a
    // signalling NaN of f16 or bf16 must not come back quieted from a float
    // round trip.
    if constexpr (O == Op::max || O == Op::min) return extremum_picks_a<O == Op::max>(In::load(a), In::load(b)) ? a : b;
    else return Out::store(static_cast<typename Out::compute>(apply<O>(In::load(a), In::load(b))));
  }
};

// ---- tables over every (op, dtype) ----

inline constexpr std::size_t table_index(Op op, DType d) {
  return static_cast<std::size_t>(op) * kNumDTypes + static_cast<std::size_t>(d);
}

// Fn<O, D>::run for every supported pair, nullptr elsewhere; Fn is never
// instantiated for an unsupported pair.
template <template <Op, DType> class Fn, class Ptr, std::size_t... I>
constexpr std::array<Ptr, sizeof...(I)> make_table(std::index_sequence<I...>) {
  constexpr auto entry = []<std::size_t J>() -> Ptr {
    constexpr Op op = static_cast<Op>(J / kNumDTypes);
    constexpr DType d = static_cast<DType>(J % kNumDTypes);
    if constexpr (supports(op, d)) return &Fn<op, d>::run;
    else return nullptr;
  };
  return {entry.template operator()<I>()...};
}

template <template <Op, DType> class Fn, class Ptr>
constexpr auto make_op_dtype_table() {
  return make_table<Fn, Ptr>(std::make_index_sequence<kNumOps * kNumDTypes>());
}

}  // namespace bcast::detail
