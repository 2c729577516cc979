// Per-element semantics of every op and dtype, as templates shared by the
// executors in src/. NumPy's behaviour unless bcast/ops.h says otherwise.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "complex_ops.h"
#include "half.h"
#include "function_table.h"
#include "math_guards.h"
#include "math_library.h"
#include "math_recipes.h"

namespace bcast::detail {

// The row's `math` function (NOTE: [Function table]) in the precision of T
// (f16 and bf16 compute in float), from the library the JIT's kernels call
// too (NOTE: [Vector math]): SLEEF's scalar function, else the C library's,
// with the guards the kernels take as well (NOTE: [Math guards]).
// In f32 and f64, NOTE: [Math recipes]' recipe where bcast has one, as the
// kernels.
template <UnaryOp U, class T>
T math_function(T x) {
  static_assert(!row(U).math.empty(), "math_function computes the rows with a `math` name");
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    static const math::recipes::Unary<T> recipe = math::recipes::scalar_unary<T>(row(U).math);
    if (recipe) return math::one_nan(recipe(x), x, x);  // its own range: no guard
  }
  static const math::Unary<T> f = math::unary<T>(row(U).math);
  return math::guarded(row(U).math, f, x);
}

template <Op O, class T>
T math_function(T a, T b) {
  static_assert(!row(O).math.empty(), "math_function computes the rows with a `math` name");
  static const math::Binary<T> recipe = [] {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      return math::recipes::scalar_binary<T>(row(O).math);
    return math::Binary<T>{};
  }();
  static const math::Binary<T> f = recipe ? recipe : math::binary<T>(row(O).math);
  if constexpr (O == Op::pow || O == Op::float_power)
    return math::guarded_pow(f, a, b, recipe == nullptr);
  else return math::guarded_binary(f, a, b);
}

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
template <> struct Element<DType::c64> : PlainElement<std::complex<float>, std::complex<float>> {};
template <> struct Element<DType::c128> : PlainElement<std::complex<double>, std::complex<double>> {};

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
// code path; the JIT's emit_float_extremum agrees). Says whether the result is a:
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
  if constexpr (std::is_floating_point_v<T>) {
    return math_function<Op::pow>(a, b);
  } else {
    // NumPy's integer power: by squaring, wrapping. A negative exponent is
    // NumPy's ValueError; here 1 ** -n is 1, (-1) ** -n is +-1, else 0.
    if (b < T{0}) return a == T{1} ? T{1} : a == static_cast<T>(-1) ? ((b & 1) ? a : T{1}) : T{0};
    WrapType<T> r = 1, base = static_cast<WrapType<T>>(a);
    for (auto e = static_cast<std::make_unsigned_t<T>>(b); e != 0; e >>= 1) {
      if (e & 1) r = static_cast<WrapType<T>>(r * base);
      base = static_cast<WrapType<T>>(base * base);
    }
    return static_cast<T>(r);
  }
}

// NumPy's remainder (Python's %): the sign of b; x % 0 is 0 for integers
// (MIN % -1 too) and NaN for floats, a zero takes b's sign.
template <class T>
T remainder(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;
      const T r = static_cast<T>(a % b);
      return r != 0 && ((r < 0) != (b < 0)) ? static_cast<T>(r + b) : r;
    } else {
      return static_cast<T>(a % b);
    }
  } else {
    T mod = std::fmod(a, b);
    if (b == 0) return mod;
    if (mod != 0) return (b < 0) != (mod < 0) ? mod + b : mod;
    return std::copysign(T{0}, b);
  }
}

// C's fmod: the sign of a; x fmod 0 is 0 for integers (NumPy's).
template <class T>
T fmod(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) if (b == -1) return 0;
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

// NumPy's logaddexp and logaddexp2: exact for equal operands (infinities
// too), else the larger plus log1p of the smaller's share.
template <class T, bool Base2>
T log_add_exp(T a, T b) {
  constexpr T kLn2 = T(0.693147180559945309417232121458176568L), kLog2e = T(1.44269504088896340735992468100189214L);
  if (a == b) return Base2 ? a + T{1} : a + kLn2;
  const T d = a - b;
  auto tail = [&](T t) {
    if constexpr (Base2) return kLog2e * math_function<UnaryOp::log1p>(math_function<UnaryOp::exp2>(t));
    else return math_function<UnaryOp::log1p>(math_function<UnaryOp::exp>(t));
  };
  if (d > 0) return a + tail(-d);
  if (d <= 0) return b + tail(d);
  return d;  // NaN
}

// Euclid's on magnitudes, in the unsigned type (NumPy's gcd and lcm; the
// magnitude of MIN wraps back to MIN).
template <class T>
T gcd(T a, T b) {
  using U = WrapType<T>;
  U x = a < T{0} ? static_cast<U>(U{0} - static_cast<U>(a)) : static_cast<U>(a);
  U y = b < T{0} ? static_cast<U>(U{0} - static_cast<U>(b)) : static_cast<U>(b);
  while (y != 0) {
    const U t = static_cast<U>(x % y);
    x = y;
    y = t;
  }
  return static_cast<T>(x);
}
// lcm: |a| / gcd * |b| in the unsigned type, cast back (lcm(127, 2) on i8
// is -2, as NumPy's).
template <class T>
T lcm(T a, T b) {
  using U = WrapType<T>;
  const auto g = static_cast<U>(static_cast<std::make_unsigned_t<T>>(gcd(a, b)));
  if (g == 0) return 0;
  const U x = a < T{0} ? static_cast<U>(U{0} - static_cast<U>(a)) : static_cast<U>(a);
  const U y = b < T{0} ? static_cast<U>(U{0} - static_cast<U>(b)) : static_cast<U>(b);
  return static_cast<T>(static_cast<U>(static_cast<U>(x / g) * y));
}

// NumPy's shifts: a count at or past the width (or negative) shifts every
// bit out: 0, or -1 for a negative a shifted right.
template <class T>
T shift(T a, T b, bool left) {
  constexpr auto bits = static_cast<std::make_unsigned_t<T>>(8 * sizeof(T));
  const auto count = static_cast<std::make_unsigned_t<T>>(b);
  if (count >= bits) return left || a >= T{0} ? T{0} : static_cast<T>(-1);
  if (left) return static_cast<T>(static_cast<WrapType<T>>(a) << count);
  return static_cast<T>(a >> count);
}

// NumPy's heaviside: NumPy's NaN (positive, quiet) for a NaN a, 0 below
// zero, b at zero, 1 above.
template <class T>
T heaviside(T a, T b) {
  if (a != a) return std::numeric_limits<T>::quiet_NaN();
  if (a == 0) return b;
  return a < 0 ? T{0} : T{1};
}

// fmax / fmin (IEEE 754-2019's maximumNumber): a NaN loses to a number (a
// wins when both are NaN), and -0 orders below +0, as max and min order them.
template <bool Max, class T>
bool nan_ignoring_picks_a(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (b != b) return true;
    if (a != a) return false;
    if (a == b) return std::signbit(a) != Max;
  }
  if constexpr (Max) return a >= b;
  else return a <= b;
}

template <Op O, class T>
auto apply(T a, T b) {
  constexpr bool integral = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  if constexpr (is_complex_v<T>) {
    return complex_ops::binary<O>(a, b);  // NOTE: [Complex arithmetic]
  } else if constexpr (O == Op::add) {
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
  } else if constexpr (O == Op::bit_xor) {
    return static_cast<T>(a ^ b);
  } else if constexpr (O == Op::remainder) {
    return remainder(a, b);
  } else if constexpr (O == Op::fmod) {
    return detail::fmod(a, b);
  } else if constexpr (O == Op::arctan2) {
    return math_function<Op::arctan2>(a, b);
  } else if constexpr (O == Op::hypot) {
    return math_function<Op::hypot>(a, b);
  } else if constexpr (O == Op::copysign) {
    return std::copysign(a, b);
  } else if constexpr (O == Op::logaddexp || O == Op::logaddexp2) {
    return log_add_exp<T, O == Op::logaddexp2>(a, b);
  } else if constexpr (O == Op::fmax || O == Op::fmin) {
    return nan_ignoring_picks_a<O == Op::fmax>(a, b) ? a : b;
  } else if constexpr (O == Op::gcd) {
    return gcd(a, b);
  } else if constexpr (O == Op::lcm) {
    return lcm(a, b);
  } else if constexpr (O == Op::left_shift || O == Op::right_shift) {
    return shift(a, b, O == Op::left_shift);
  } else if constexpr (O == Op::float_power) {
    return math_function<Op::float_power>(a, b);
  } else {
    static_assert(O == Op::heaviside, "nextafter and ldexp are ScalarOp's: they work on storage and exponents");
    return heaviside(a, b);
  }
}

// The float next to bits `a` towards `b`, on storage bits (so that f16 and
// bf16 step by their own ULP): NaN if either is, b if they are equal, the
// smallest subnormal of b's sign from zero.
template <DType D>
typename Element<D>::storage next_after(typename Element<D>::storage a, typename Element<D>::storage b) {
  using E = Element<D>;
  using S = typename E::storage;
  const auto x = E::load(a), y = E::load(b);
  if (x != x || y != y) return E::store(x + y);  // a quiet NaN, as NumPy's x + y
  if (x == y) return b;
  S bits = a;
  if constexpr (std::is_floating_point_v<S>) {
    return std::nextafter(x, y);
  } else {
    constexpr S kSign = static_cast<S>(S{1} << (8 * sizeof(S) - 1));
    if (x == 0) return static_cast<S>((b & kSign) | 1);
    const bool away = (x < y) == (x > 0);
    return static_cast<S>(away ? bits + 1 : bits - 1);
  }
}

// The whole per-element step: load both inputs, compute, store the result.
// ldexp's second operand is an i64 exponent (NOTE: [Function table]).
template <Op O, DType D>
struct ScalarOp {
  using In = Element<D>;
  using Out = Element<result_dtype_of(O, D)>;
  using Second = std::conditional_t<row(O).int_exponent, Element<DType::i64>, In>;
  static typename Out::storage run(typename In::storage a, typename Second::storage b) {
    // max, min, fmax and fmin copy the chosen input's bits, as NumPy's loops
    // do, copysign is a's bits with b's sign bit and heaviside is b where a
    // is 0: a signalling NaN of f16 or bf16 must not come back quieted from
    // a float round trip.
    if constexpr (is_complex_dtype(D)) {
      return Out::store(apply<O>(In::load(a), In::load(b)));
    } else if constexpr (O == Op::copysign && std::is_integral_v<typename In::storage> && is_floating_dtype(D)) {
      constexpr auto kSign = static_cast<typename In::storage>(1u << (8 * sizeof(typename In::storage) - 1));
      return static_cast<typename In::storage>((a & ~kSign) | (b & kSign));
    } else if constexpr (O == Op::max || O == Op::min) {
      return extremum_picks_a<O == Op::max>(In::load(a), In::load(b)) ? a : b;
    } else if constexpr ((O == Op::fmax || O == Op::fmin) && is_floating_dtype(D)) {
      return nan_ignoring_picks_a<O == Op::fmax>(In::load(a), In::load(b)) ? a : b;
    } else if constexpr (O == Op::heaviside) {
      return In::load(a) == 0 ? b : Out::store(heaviside(In::load(a), In::load(b)));  // b as stored at zero
    } else if constexpr (O == Op::nextafter) {
      return next_after<D>(a, b);
    } else if constexpr (O == Op::complex) {
      return Out::store({In::load(a), In::load(b)});  // the parts as they are
    } else if constexpr (O == Op::ldexp) {
      constexpr std::int64_t kFar = 100'000;  // past every float's range: the same result as any larger count
      return Out::store(std::ldexp(In::load(a), static_cast<int>(b < -kFar ? -kFar : b > kFar ? kFar : b)));
    } else {
      return Out::store(static_cast<typename Out::compute>(apply<O>(In::load(a), In::load(b))));
    }
  }
};

// ---- tables over every (op, dtype) ----

inline constexpr std::size_t table_index(Op op, DType d) {
  return static_cast<std::size_t>(op) * kNumDTypes + static_cast<std::size_t>(d);
}

// Fn<O, D>::run for every supported pair, nullptr elsewhere; Fn is never
// instantiated for an unsupported pair. Binary kernels (`Exponents` false)
// leave out ldexp, whose operands differ in dtype: a call runs it as an
// expression (NOTE: [Mixed dtypes]).
template <template <Op, DType> class Fn, class Ptr, bool Exponents, std::size_t... I>
constexpr std::array<Ptr, sizeof...(I)> make_table(std::index_sequence<I...>) {
  constexpr auto entry = []<std::size_t J>() -> Ptr {
    constexpr Op op = static_cast<Op>(J / kNumDTypes);
    constexpr DType d = static_cast<DType>(J % kNumDTypes);
    if constexpr (has_loop(row(op), d) && (Exponents || !row(op).int_exponent)) return &Fn<op, d>::run;
    else return nullptr;
  };
  return {entry.template operator()<I>()...};
}

template <template <Op, DType> class Fn, class Ptr, bool Exponents = false>
constexpr auto make_op_dtype_table() {
  return make_table<Fn, Ptr, Exponents>(std::make_index_sequence<kNumOps * kNumDTypes>());
}

}  // namespace bcast::detail
