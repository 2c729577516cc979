// The element arithmetic of oracle_values.h, from docs/semantics.md alone.
#include "oracle_values.h"

#include "function_table.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

namespace bcast::test {
namespace oracle_values {
namespace {

__extension__ typedef unsigned __int128 UInt;

// ---- floats: decode bits exactly, encode with round to nearest even ----

struct FloatFormat {
  int exponent_bits, mantissa_bits;
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  std::uint64_t max_exponent() const { return (std::uint64_t{1} << exponent_bits) - 1; }
  std::uint64_t quiet_bit() const { return std::uint64_t{1} << (mantissa_bits - 1); }
};

FloatFormat format_of(DType d) {
  switch (d) {
    case DType::f16: return {5, 10};
    case DType::bf16: return {8, 7};
    case DType::f32: return {8, 23};
    default: return {11, 52};  // f64
  }
}

struct Float {
  double value;     // exact; NaN for a NaN
  bool signalling;  // a NaN without its quiet bit
};

Float decode(std::uint64_t bits, const FloatFormat& f) {
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << f.mantissa_bits) - 1);
  const std::uint64_t exponent = (bits >> f.mantissa_bits) & f.max_exponent();
  const bool negative = (bits >> (f.exponent_bits + f.mantissa_bits)) & 1;
  double magnitude;
  if (exponent == f.max_exponent()) {
    if (mantissa != 0) return {std::nan(""), (mantissa & f.quiet_bit()) == 0};
    magnitude = INFINITY;
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias() - f.mantissa_bits);
  } else {
    const std::uint64_t significand = mantissa | (std::uint64_t{1} << f.mantissa_bits);
    magnitude = std::ldexp(static_cast<double>(significand), static_cast<int>(exponent) - f.bias() - f.mantissa_bits);
  }
  return {std::copysign(magnitude, negative ? -1.0 : 1.0), false};
}

// The nearest value of format f to x (not a NaN), ties to even, as bits.
std::uint64_t encode(double x, const FloatFormat& f) {
  const std::uint64_t sign = std::signbit(x) ? std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits) : 0;
  const double magnitude = std::fabs(x);
  const std::uint64_t infinity = sign | (f.max_exponent() << f.mantissa_bits);
  if (std::isinf(magnitude)) return infinity;
  if (magnitude == 0) return sign;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int e = exponent - 1;  // magnitude is in [2^e, 2^(e+1))
  const int e_min = 1 - f.bias();
  // The quantum of x's binade (of the subnormals below e_min); the quotient
  // is exact, and nearbyint rounds ties to even in the default mode.
  const double n = std::nearbyint(std::ldexp(magnitude, f.mantissa_bits - std::max(e, e_min)));
  auto significand = static_cast<std::uint64_t>(n);
  if (e < e_min) return sign | significand;  // a subnormal, or the smallest normal when it rounds up to it
  if (significand == std::uint64_t{2} << f.mantissa_bits) {  // rounded up into the next binade
    significand >>= 1;
    ++e;
  }
  const auto biased = static_cast<std::uint64_t>(e + f.bias());
  if (biased >= f.max_exponent()) return infinity;
  return sign | (biased << f.mantissa_bits) | (significand & ((std::uint64_t{1} << f.mantissa_bits) - 1));
}

// NumPy's NaN: positive, quiet, no payload.
std::uint64_t canonical_nan(DType d) {
  const FloatFormat f = format_of(d);
  return (f.max_exponent() << f.mantissa_bits) | f.quiet_bit();
}

// NOTE: [Oracle precision]. Sums, differences, products and quotients are
// computed in double from exact inputs and rounded once more to the result
// dtype. For a format of p significand bits, rounding first to q >= 2p + 2
// bits and then to p gives the correctly rounded result for these four
// operations (Figueroa, "When is double rounding innocuous?", 1995): double's
// 53 bits cover f32 (p = 24), f16 (11) and bf16 (8), and f64's are done by the
// FPU's own IEEE 754 arithmetic. bcast documents f16 and bf16 as computed in
// f32 and rounded to nearest even, which the same theorem makes correctly
// rounded too, so both must agree bit for bit.
Expected float_result(double r, DType out) {
  if (std::isnan(r)) return {0, true};
  return {encode(r, format_of(out)), false};
}

Expected bool_result(bool r) { return {r ? 1u : 0u, false}; }

// The comparisons and logical ops, alike on every number type (a NaN compares
// false but for ne, and is true); nothing for the other ops.
template <class T>
std::optional<Expected> predicate(Op op, T a, T b) {
  switch (op) {
    case Op::eq: return bool_result(a == b);
    case Op::ne: return bool_result(a != b);
    case Op::lt: return bool_result(a < b);
    case Op::le: return bool_result(a <= b);
    case Op::gt: return bool_result(a > b);
    case Op::ge: return bool_result(a >= b);
    case Op::logical_and: return bool_result(a != 0 && b != 0);
    case Op::logical_or: return bool_result(a != 0 || b != 0);
    case Op::logical_xor: return bool_result((a != 0) != (b != 0));
    default: return std::nullopt;
  }
}

// docs/semantics.md's pow: the C library's, computed in the input precision (f32
// for f16 and bf16); a signalling NaN operand gives a quiet NaN (IEEE 754
// 9.2.1), but f16's conversion to f32 quiets a signalling NaN first, as F16C
// does, while bf16 widens to f32 bit for bit.
Expected float_power(DType d, const Float& x, const Float& y) {
  const bool quieted_on_load = d == DType::f16;
  if (!quieted_on_load && (x.signalling || y.signalling)) return {0, true};
  if (d == DType::f64) return float_result(std::pow(x.value, y.value), d);
  return float_result(static_cast<double>(::powf(static_cast<float>(x.value), static_cast<float>(y.value))), d);
}

// docs/semantics.md's floor_div on floats, NumPy's floor_divide: the quotient of
// a - fmod(a, b) (fmod is exact), one less when the remainder's sign differs
// from b's, floored and rounded to the nearest integer; a zero carries the
// sign of a / b; b == 0 gives a / b. Computed in T, the input's compute
// precision (float for f16, bf16 and f32), step by step as NumPy does.
template <class T>
T numpy_floor_divide(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div = div - 1;
  if (div == 0) return std::copysign(T{0}, a / b);
  T floor = std::floor(div);
  if (div - floor > T(0.5)) floor = floor + 1;
  return floor;
}

Expected float_floor_divide(DType d, double a, double b) {
  if (d == DType::f64) return float_result(numpy_floor_divide(a, b), d);
  return float_result(numpy_floor_divide(static_cast<float>(a), static_cast<float>(b)), d);
}

// max and min: NaN wins (a's when both are), -0 orders below +0, and the
// result is the chosen input's bits.
bool extremum_picks_a(bool max, double a, double b) {
  if (std::isnan(a)) return true;
  if (std::isnan(b)) return false;
  if (a == b) return std::signbit(a) != max;
  return max ? a > b : a < b;
}

// A function of the C library in the input's compute precision (f32 for
// f16 and bf16), rounded once more to d: the convention docs/semantics.md
// states for the inexact functions.
template <class F>
Expected in_precision(DType d, F f, double a, double b = 0) {
  if (d == DType::f64) return float_result(f(a, b), d);
  return float_result(static_cast<double>(f(static_cast<float>(a), static_cast<float>(b))), d);
}

// The neighbour of x towards +infinity (up) or -infinity in format f, found
// by value: of the two codes next to x's, the one on that side.
std::uint64_t neighbour(std::uint64_t bits, DType d, bool up) {
  const FloatFormat f = format_of(d);
  const double x = decode(bits, f).value;
  const std::uint64_t sign = std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits);
  if (x == 0) return up ? 1 : sign | 1;  // the smallest subnormals
  const std::uint64_t a = bits + 1, b = bits - 1;  // one may be a NaN's code (next to an infinity)
  const double va = decode(a, f).value;
  return (up ? va > x : va < x) ? a : b;
}

// NumPy's remainder on floats: fmod (exact), moved by b when its sign differs
// from b's; a zero takes b's sign; b == 0 gives NaN.
double python_remainder(double a, double b) {
  if (b == 0 || std::isnan(a) || std::isnan(b) || std::isinf(a)) return std::nan("");
  const double r = std::fmod(a, b);
  if (r == 0) return std::copysign(0.0, b);
  return (r < 0) != (b < 0) ? r + b : r;
}

Expected float_function2(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits, double a, double b) {
  switch (op) {
    case Op::remainder: {
      const double r = python_remainder(a, b);
      // r + b rounds once in d's precision (f32 for f16: innocuous twice)
      return float_result(r, d);
    }
    case Op::fmod: return float_result(std::fmod(a, b), d);
    case Op::arctan2: return in_precision(d, [](auto u, auto v) { return std::atan2(u, v); }, a, b);
    case Op::hypot: return in_precision(d, [](auto u, auto v) { return std::hypot(u, v); }, a, b);
    case Op::copysign: {  // on the bits, NaNs too: b's sign bit counts, a signalling a stays signalling
      const FloatFormat f = format_of(d);
      const std::uint64_t sign = std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits);
      return {(a_bits & ~sign) | (b_bits & sign), false};
    }
    case Op::nextafter:
      if (std::isnan(a) || std::isnan(b)) return {0, true};
      if (a == b) return {b_bits, false};
      return {neighbour(a_bits, d, b > a), false};
    case Op::logaddexp: case Op::logaddexp2: {
      const bool two = op == Op::logaddexp2;
      return in_precision(d, [two](auto u, auto v) {
        using T = decltype(u);
        if (u == v) return two ? u + T{1} : u + T(0.693147180559945309417232121458176568L);
        const T big = u > v ? u : v, small = u > v ? v : u;
        if (std::isnan(u - v)) return u - v;
        const T share = two ? T(1.44269504088896340735992468100189214L) * std::log1p(std::exp2(small - big))
                            : std::log1p(std::exp(small - big));
        return big + share;
      }, a, b);
    }
    case Op::fmax: case Op::fmin: {
      if (std::isnan(b)) return {a_bits, false};
      if (std::isnan(a)) return {b_bits, false};
      return {extremum_picks_a(op == Op::fmax, a, b) ? a_bits : b_bits, false};  // -0 below +0, as max
    }
    case Op::heaviside:  // NumPy's: its own NaN for a NaN a, b's bits (a NaN's too) at zero
      if (std::isnan(a)) return {canonical_nan(d), false};
      if (a == 0) return {b_bits, false};
      return float_result(a < 0 ? 0.0 : 1.0, d);
    default: return {};
  }
}

Expected float_op(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits) {
  const Float x = decode(a_bits, format_of(d)), y = decode(b_bits, format_of(d));
  const double a = x.value, b = y.value;
  if (const std::optional<Expected> p = predicate(op, a, b)) return *p;
  if (op == Op::ldexp) {  // b's bits are an i64 exponent
    const auto e = static_cast<std::int64_t>(b_bits);
    return float_result(std::ldexp(a, static_cast<int>(std::clamp<std::int64_t>(e, -100'000, 100'000))), d);
  }
  switch (op) {
    case Op::add: return float_result(a + b, d);
    case Op::sub: return float_result(a - b, d);
    case Op::mul: return float_result(a * b, d);
    case Op::div: return float_result(a / b, d);
    case Op::floor_div: return float_floor_divide(d, a, b);
    case Op::max: return {extremum_picks_a(true, a, b) ? a_bits : b_bits, false};
    case Op::min: return {extremum_picks_a(false, a, b) ? a_bits : b_bits, false};
    case Op::pow: return float_power(d, x, y);
    case Op::float_power:  // in f64: a narrower float's widening quiets a signalling NaN first, f64's stays for pow
      return d == DType::f64 ? float_power(d, x, y) : float_result(std::pow(a, b), d);
    default: return float_function2(op, d, a_bits, b_bits, a, b);  // bitwise ops are refused on floats
  }
}

// ---- integers and bool: exact in 128 bits, wrapped to the dtype ----

struct IntFormat {
  int bits;
  bool is_signed;
};

IntFormat int_format_of(DType d) {
  switch (d) {
    case DType::i8: return {8, true};
    case DType::i16: return {16, true};
    case DType::i32: return {32, true};
    case DType::i64: return {64, true};
    case DType::u16: return {16, false};
    case DType::u32: return {32, false};
    case DType::u64: return {64, false};
    default: return {8, false};  // u8, bool
  }
}

Int int_value(std::uint64_t bits, const IntFormat& f) {
  if (!f.is_signed || (bits >> (f.bits - 1) & 1) == 0) return static_cast<Int>(bits);
  return static_cast<Int>(bits) - (Int{1} << f.bits);
}

// x's two's-complement bits in the dtype's width: wrapping arithmetic.
std::uint64_t wrapped(Int x, const IntFormat& f) {
  const UInt low = static_cast<UInt>(x) & ((UInt{1} << f.bits) - 1);
  return static_cast<std::uint64_t>(low);
}

// Euclid's on the magnitudes, exact in 128 bits.
UInt magnitude_gcd(Int a, Int b) {
  UInt x = a < 0 ? static_cast<UInt>(-a) : static_cast<UInt>(a), y = b < 0 ? static_cast<UInt>(-b) : static_cast<UInt>(b);
  while (y != 0) {
    const UInt t = x % y;
    x = y;
    y = t;
  }
  return x;
}

// NumPy's floor_divide: towards minus infinity, x // 0 == 0 (MIN // -1
// wraps to MIN through `wrapped`).
Int floor_quotient(Int a, Int b) {
  if (b == 0) return 0;
  Int q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

Expected int_op(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits) {
  const IntFormat f = int_format_of(d);
  const bool boolean = d == DType::boolean;
  // A bool element is true when its byte is not 0.
  const Int a = boolean ? Int{a_bits != 0} : int_value(a_bits, f);
  const Int b = boolean ? Int{b_bits != 0} : int_value(b_bits, f);
  auto same = [&](Int r) { return Expected{wrapped(r, f), false}; };
  if (const std::optional<Expected> p = predicate(op, a, b)) return *p;
  switch (op) {
    case Op::add: return same(boolean ? Int{a || b} : a + b);  // bool: or
    case Op::sub: return same(a - b);
    // bool: and. Two u64 values can multiply past 2^127: the product is taken
    // modulo 2^128 (unsigned), whose low bits are the wrapped result.
    case Op::mul: return same(boolean ? Int{a && b} : static_cast<Int>(static_cast<UInt>(a) * static_cast<UInt>(b)));
    // True division: both operands converted to f64, one IEEE quotient.
    case Op::div: return float_result(static_cast<double>(a) / static_cast<double>(b), DType::f64);
    case Op::floor_div: return same(floor_quotient(a, b));
    case Op::max: return same(a > b ? a : b);
    case Op::min: return same(a < b ? a : b);
    case Op::bit_and: return same(a & b);
    case Op::bit_or: return same(a | b);
    case Op::bit_xor: return same(a ^ b);
    case Op::fmax: return same(a > b ? a : b);
    case Op::fmin: return same(a < b ? a : b);
    case Op::remainder: return same(b == 0 ? 0 : a - floor_quotient(a, b) * b);
    case Op::fmod: return same(b == 0 ? 0 : a - (a / b) * b);  // C's division truncates
    case Op::gcd: return same(static_cast<Int>(magnitude_gcd(a, b)));
    case Op::lcm: {
      const Int g = static_cast<Int>(magnitude_gcd(a, b));
      if (g == 0) return same(0);
      // NumPy's: the exact |a| / g * |b|, wrapped to the dtype (lcm(127, 2) on i8 is -2).
      const UInt product = static_cast<UInt>(a < 0 ? -a : a) / static_cast<UInt>(g) * static_cast<UInt>(b < 0 ? -b : b);
      return same(static_cast<Int>(product));  // mod 2^128: the low bits are the wrapped result
    }
    case Op::left_shift: case Op::right_shift: {
      const auto count = static_cast<std::uint64_t>(wrapped(b, f));  // as the dtype's unsigned
      if (count >= static_cast<std::uint64_t>(f.bits)) return same(op == Op::left_shift || a >= 0 ? 0 : -1);
      const Int power = Int{1} << count;
      if (op == Op::left_shift) return same(static_cast<Int>(static_cast<UInt>(a) * static_cast<UInt>(power)));  // mod 2^128
      return same(a >= 0 ? a / power : -((-a + power - 1) / power));  // floor division: an arithmetic shift
    }
    case Op::pow: {
      if (b < 0) return same(a == 1 ? 1 : a == -1 ? (b % 2 != 0 ? -1 : 1) : 0);  // NumPy raises; bcast documents these
      UInt r = 1, base = static_cast<UInt>(a);
      for (UInt e = static_cast<UInt>(b); e != 0; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
      }
      return same(static_cast<Int>(r));
    }
    default: break;  // the predicates are above
  }
  return {};
}

Expected element(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits) {
  return is_floating(d) ? float_op(op, d, a_bits, b_bits) : int_op(op, d, a_bits, b_bits);
}

// ---- values across dtypes ----

// An expected value's bits, a quiet NaN's standing for any quiet NaN.
std::uint64_t bits_of(const Expected& x, DType d) { return x.any_quiet_nan ? canonical_nan(d) : x.bits; }

double float_of(const Expected& x, DType d) { return decode(bits_of(x, d), format_of(d)).value; }

Int int_of(const Expected& x, DType d) {
  if (d == DType::boolean) return x.bits != 0;
  return int_value(x.bits, int_format_of(d));
}

// An exact integer rounded once to the nearest value of float format f,
// ties to even: |v| is cut to the format's precision in integer
// arithmetic (an i64 or u64 has up to 64 significant bits, more than a
// double holds, so converting it to double first would round twice).
Expected integer_to_float(Int v, DType d) {
  const FloatFormat f = format_of(d);
  const int precision = f.mantissa_bits + 1;
  UInt magnitude = v < 0 ? static_cast<UInt>(-v) : static_cast<UInt>(v);
  int length = 0;
  for (UInt m = magnitude; m != 0; m >>= 1) ++length;
  int shift = 0;
  if (length > precision) {
    shift = length - precision;
    const UInt rest = magnitude & ((UInt{1} << shift) - 1), half = UInt{1} << (shift - 1);
    magnitude >>= shift;
    if (rest > half || (rest == half && (magnitude & 1) != 0)) ++magnitude;
  }
  // magnitude has at most precision + 1 <= 54 bits: the double is exact.
  const double exact = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(magnitude)), shift);
  return float_result(v < 0 ? -exact : exact, d);
}

// NOTE: [Float to integer] in docs/semantics.md: truncation towards zero,
// saturated at the dtype's limits, NaN to 0.
Expected float_to_integer(double v, DType d) {
  if (d == DType::boolean) return bool_result(v != 0 || std::isnan(v));
  const IntFormat f = int_format_of(d);
  if (std::isnan(v)) return {0, false};
  const Int lowest = f.is_signed ? -(Int{1} << (f.bits - 1)) : 0;
  const Int highest = f.is_signed ? (Int{1} << (f.bits - 1)) - 1 : (Int{1} << f.bits) - 1;
  const double t = std::trunc(v);
  // Compared as doubles: every limit here is a power of two or one less,
  // and a double beyond 2^64 in magnitude saturates before it is converted.
  if (t <= static_cast<double>(lowest)) return {wrapped(lowest, f), false};
  if (t >= static_cast<double>(highest)) return {wrapped(highest, f), false};
  return {wrapped(static_cast<Int>(t), f), false};
}

bool truth(const Expected& x, DType d) {
  if (is_complex(d)) return truth(part_of(x, 0), real_part_dtype(d)) || truth(part_of(x, 1), real_part_dtype(d));
  if (is_floating(d)) {
    const double v = float_of(x, d);
    return std::isnan(v) || v != 0;
  }
  return x.bits != 0;
}

// The float functions: C's, in double for f64 and in float for the others
// (f16 and bf16 compute in f32), rounded once more to d. sigmoid is
// 1 / (1 + exp(-x)) in that precision.
template <class T>
T float_function(UnaryOp op, T x) {
  switch (op) {
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::sin: return std::sin(x);
    case UnaryOp::cos: return std::cos(x);
    case UnaryOp::tanh: return std::tanh(x);
    case UnaryOp::sigmoid: return T{1} / (T{1} + std::exp(-x));
    case UnaryOp::tan: return std::tan(x);
    case UnaryOp::arcsin: return std::asin(x);
    case UnaryOp::arccos: return std::acos(x);
    case UnaryOp::arctan: return std::atan(x);
    case UnaryOp::sinh: return std::sinh(x);
    case UnaryOp::cosh: return std::cosh(x);
    case UnaryOp::arcsinh: return std::asinh(x);
    case UnaryOp::arccosh: return std::acosh(x);
    case UnaryOp::arctanh: return std::atanh(x);
    case UnaryOp::exp2: return std::exp2(x);
    case UnaryOp::expm1: return std::expm1(x);
    case UnaryOp::log2: return std::log2(x);
    case UnaryOp::log10: return std::log10(x);
    case UnaryOp::log1p: return std::log1p(x);
    case UnaryOp::cbrt:
      // f64: correctly rounded (docs/semantics.md: glibc's f64 cbrt is mended
      // to about half an ULP); from the 64-bit long double's root.
      if constexpr (std::is_same_v<T, double>) return static_cast<double>(std::cbrt(static_cast<long double>(x)));
      else return std::cbrt(x);
    default: return std::sqrt(x);  // correctly rounded in either precision
  }
}

// pi / 180 or 180 / pi rounded to the compute precision, as NumPy's constant.
template <class T>
T angle_factor(bool to_radians) {
  const T pi = static_cast<T>(3.141592653589793238462643383279502884L);
  return to_radians ? static_cast<T>(pi / T{180}) : static_cast<T>(T{180} / pi);
}

// The distance to the next float away from zero, by value.
Expected float_spacing(std::uint64_t bits, DType d) {
  const double x = decode(bits, format_of(d)).value;
  if (std::isnan(x) || std::isinf(x)) return {0, true};
  if (x == 0) return {1, false};  // +-0: the smallest positive subnormal, as NumPy's
  const double next = decode(neighbour(bits, d, !std::signbit(x)), format_of(d)).value;
  return float_result(next - x, d);
}

Expected float_unary(UnaryOp op, DType d, double v) {
  switch (op) {
    case UnaryOp::positive: case UnaryOp::conj: case UnaryOp::copy: case UnaryOp::fabs: case UnaryOp::real:
      return float_result(op == UnaryOp::fabs ? std::fabs(v) : v, d);
    case UnaryOp::imag: return float_result(0.0, d);  // a real number's imaginary part
    case UnaryOp::ones_like: return float_result(1.0, d);
    case UnaryOp::square: return float_result(v * v, d);  // exact in double for f32 and smaller; f64 rounds once
    case UnaryOp::reciprocal: return float_result(1.0 / v, d);
    case UnaryOp::sign: return std::isnan(v) ? Expected{0, true} : float_result(v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0, d);
    case UnaryOp::trunc: return float_result(std::trunc(v), d);
    case UnaryOp::isnan: return bool_result(std::isnan(v));
    case UnaryOp::isinf: return bool_result(std::isinf(v));
    case UnaryOp::isfinite: return bool_result(std::isfinite(v));
    case UnaryOp::deg2rad: case UnaryOp::rad2deg: {
      const bool to_radians = op == UnaryOp::deg2rad;
      if (d == DType::f64) return float_result(v * angle_factor<double>(to_radians), d);
      return float_result(v * static_cast<double>(angle_factor<float>(to_radians)), d);  // exact product, one rounding
    }
    case UnaryOp::neg: return float_result(-v, d);
    case UnaryOp::abs: return float_result(std::fabs(v), d);
    case UnaryOp::floor: return float_result(std::floor(v), d);
    case UnaryOp::ceil: return float_result(std::ceil(v), d);
    case UnaryOp::round: return float_result(std::nearbyint(v), d);  // ties to even in the default mode
    case UnaryOp::logical_not: return bool_result(!(std::isnan(v) || v != 0));
    default: break;
  }
  if (d == DType::f64) return float_result(float_function(op, v), d);
  return float_result(static_cast<double>(float_function(op, static_cast<float>(v))), d);
}

Expected integer_unary(UnaryOp op, DType d, Int a) {
  const IntFormat f = int_format_of(d);
  const bool boolean = d == DType::boolean;
  switch (op) {
    case UnaryOp::neg: return {wrapped(-a, f), false};
    case UnaryOp::abs: return {boolean ? static_cast<std::uint64_t>(a) : wrapped(a < 0 ? -a : a, f), false};
    case UnaryOp::logical_not: return bool_result(a == 0);
    case UnaryOp::bit_not: return boolean ? bool_result(a == 0) : Expected{wrapped(~a, f), false};
    case UnaryOp::ones_like: return {1, false};
    case UnaryOp::square: return {wrapped(static_cast<Int>(static_cast<UInt>(a) * static_cast<UInt>(a)), f), false};  // mod 2^128
    case UnaryOp::reciprocal: return {wrapped(a == 0 ? 0 : 1 / a, f), false};  // C's division truncates
    case UnaryOp::sign: return {wrapped(a > 0 ? 1 : a < 0 ? -1 : 0, f), false};
    case UnaryOp::isnan: case UnaryOp::isinf: return bool_result(false);
    case UnaryOp::isfinite: return bool_result(true);
    case UnaryOp::imag: return {0, false};
    default: return {boolean ? static_cast<std::uint64_t>(a) : wrapped(a, f), false};  // floor ceil round trunc, copies, real
  }
}

// ---- complex numbers: NumPy's complex loops as docs/semantics.md states
// them ("Complex numbers"), each arithmetic step rounded to the part's dtype
// (computed in double, which NOTE: [Oracle precision] makes the IEEE
// result of that step in f32, and is f64's own) ----

struct Complex {
  double re, im;  // exact; NaN for a NaN part
};

class ComplexMath {
 public:
  explicit ComplexMath(DType d) : part_(real_part_dtype(d)) {}

  Complex of(const Expected& x) const { return {float_of(part_of(x, 0), part_), float_of(part_of(x, 1), part_)}; }
  Expected result(Complex z) const;
  double round(double v) const { return std::isnan(v) ? v : float_of(float_result(v, part_), part_); }
  DType part() const { return part_; }

  double add(double a, double b) const { return round(a + b); }
  double sub(double a, double b) const { return round(a - b); }
  double mul(double a, double b) const { return round(a * b); }
  double div(double a, double b) const { return round(a / b); }

  // The schoolbook product, each product and sum rounded (no FMA).
  Complex mul(Complex a, Complex b) const {
    return {sub(mul(a.re, b.re), mul(a.im, b.im)), add(mul(a.re, b.im), mul(a.im, b.re))};
  }
  // Smith's quotient: scaled by b's larger part; b == 0 divides each part by |b.re|.
  Complex div(Complex a, Complex b) const {
    const double abs_re = std::fabs(b.re), abs_im = std::fabs(b.im);
    if (abs_re >= abs_im) {
      if (abs_re == 0 && abs_im == 0) return {div(a.re, abs_re), div(a.im, abs_re)};
      const double ratio = div(b.im, b.re), scale = div(1.0, add(b.re, mul(b.im, ratio)));
      return {mul(add(a.re, mul(a.im, ratio)), scale), mul(sub(a.im, mul(a.re, ratio)), scale)};
    }
    const double ratio = div(b.re, b.im), scale = div(1.0, add(b.im, mul(b.re, ratio)));
    return {mul(add(mul(a.re, ratio), a.im), scale), mul(sub(mul(a.im, ratio), a.re), scale)};
  }
  Complex reciprocal(Complex x) const {
    if (std::fabs(x.im) <= std::fabs(x.re)) {
      const double ratio = div(x.im, x.re), d = add(x.re, mul(x.im, ratio));
      return {div(1.0, d), div(-ratio, d)};
    }
    const double ratio = div(x.re, x.im), d = add(mul(x.re, ratio), x.im);
    return {div(ratio, d), div(-1.0, d)};
  }
  // |x| from long double's hypot, rounded once to the part.
  double magnitude(Complex x) const {
    return round(static_cast<double>(std::hypot(static_cast<long double>(x.re), static_cast<long double>(x.im))));
  }

 private:
  DType part_;
};

// A complex value of two parts.
Expected parts(const Expected& re, const Expected& im) {
  return {re.bits, re.any_quiet_nan, 0, false, im.bits, im.any_quiet_nan};
}

// A part with its sign bit flipped: a NaN keeps its kind, as a negation's does.
Expected negated(const Expected& part, DType p) {
  if (part.any_quiet_nan) return part;
  const FloatFormat f = format_of(p);
  return {part.bits ^ (std::uint64_t{1} << (f.exponent_bits + f.mantissa_bits)), false};
}

bool has_nan(Complex x) { return std::isnan(x.re) || std::isnan(x.im); }

Expected ComplexMath::result(Complex z) const { return parts(float_result(z.re, part_), float_result(z.im, part_)); }
bool nonzero(Complex x) { return has_nan(x) || x.re != 0 || x.im != 0; }

// NumPy's lexicographic order: the real parts decide, then the imaginary
// ones; a NaN anywhere leaves the pair unordered.
bool less(Complex a, Complex b, bool or_equal) {
  const bool ordered_im = !std::isnan(a.im) && !std::isnan(b.im);
  return (a.re < b.re && ordered_im) || (a.re == b.re && (or_equal ? a.im <= b.im : a.im < b.im));
}

Expected complex_binary(Op op, DType d, const Expected& a, const Expected& b) {
  const ComplexMath m(d);
  const Complex x = m.of(a), y = m.of(b);
  switch (op) {
    case Op::add: return m.result({m.add(x.re, y.re), m.add(x.im, y.im)});
    case Op::sub: return m.result({m.sub(x.re, y.re), m.sub(x.im, y.im)});
    case Op::mul: return m.result(m.mul(x, y));
    case Op::div: return m.result(m.div(x, y));
    case Op::eq: return bool_result(x.re == y.re && x.im == y.im);
    case Op::ne: return bool_result(!(x.re == y.re && x.im == y.im));
    case Op::lt: return bool_result(less(x, y, false));
    case Op::le: return bool_result(less(x, y, true));
    case Op::gt: return bool_result(less(y, x, false));
    case Op::ge: return bool_result(less(y, x, true));
    case Op::logical_and: return bool_result(nonzero(x) && nonzero(y));
    case Op::logical_or: return bool_result(nonzero(x) || nonzero(y));
    case Op::logical_xor: return bool_result(nonzero(x) != nonzero(y));
    // maximum and minimum: the first operand holding a NaN; fmax and fmin:
    // the one holding none; else the larger (smaller), a on a tie.
    case Op::max: return has_nan(x) ? a : has_nan(y) ? b : less(y, x, true) ? a : b;
    case Op::min: return has_nan(x) ? a : has_nan(y) ? b : less(x, y, true) ? a : b;
    case Op::fmax: return has_nan(y) ? a : has_nan(x) ? b : less(y, x, true) ? a : b;
    case Op::fmin: return has_nan(y) ? a : has_nan(x) ? b : less(x, y, true) ? a : b;
    default: {
      // pow and float_power: the C library's cpow but for NumPy's small
      // integer exponents; not judged here (tests/python/test_complex.py
      // holds them to NumPy).
      Expected r;
      r.approximate = true;
      return r;
    }
  }
}

Expected complex_unary(UnaryOp op, DType d, const Expected& x) {
  const ComplexMath m(d);
  const Complex z = m.of(x);
  const DType p = m.part();
  switch (op) {
    case UnaryOp::positive: case UnaryOp::copy: return x;
    case UnaryOp::neg: return parts(negated(part_of(x, 0), p), negated(part_of(x, 1), p));
    case UnaryOp::conj: return parts(part_of(x, 0), negated(part_of(x, 1), p));
    case UnaryOp::real: return part_of(x, 0);
    case UnaryOp::imag: return part_of(x, 1);
    case UnaryOp::ones_like: return m.result({1.0, 0.0});
    case UnaryOp::square: return m.result(m.mul(z, z));
    case UnaryOp::reciprocal: return m.result(m.reciprocal(z));
    case UnaryOp::round: return m.result({std::nearbyint(z.re), std::nearbyint(z.im)});
    case UnaryOp::isnan: return bool_result(has_nan(z));
    case UnaryOp::isinf: return bool_result(std::isinf(z.re) || std::isinf(z.im));
    case UnaryOp::isfinite: return bool_result(std::isfinite(z.re) && std::isfinite(z.im));
    case UnaryOp::logical_not: return bool_result(!nonzero(z));
    case UnaryOp::abs: return float_result(m.magnitude(z), p);
    case UnaryOp::sign: {  // NumPy 2's z / |z|: 0 for 0; an infinite part's direction; NaN else
      const double magnitude = m.magnitude(z);
      if (std::isnan(magnitude) || (std::isinf(z.re) && std::isinf(z.im))) return m.result({NAN, NAN});
      if (std::isinf(z.re)) return m.result({z.re > 0 ? 1.0 : -1.0, 0.0});
      if (std::isinf(z.im)) return m.result({0.0, z.im > 0 ? 1.0 : -1.0});
      if (magnitude == 0) return m.result({0.0, 0.0});
      return m.result({m.div(z.re, magnitude), m.div(z.im, magnitude)});
    }
    default: {
      // The C99 functions (exp, log, sin, ...): the C library's, whose
      // per-part error glibc does not bound; not judged here
      // (tests/python/test_functions_vs_numpy.py holds them to NumPy).
      Expected r;
      r.approximate = true;
      return r;
    }
  }
}

}  // namespace

namespace {

std::uint32_t tolerance_of(const detail::FunctionRow& row, DType d) {
  if (is_complex(d)) return 0;  // complex_unary sets its own
  if (row.accuracy.exact() || !is_floating(d)) return 0;
  if (d == DType::f16 || d == DType::bf16) return 1;
  const float bound = d == DType::f64 ? row.accuracy.f64_ulp : row.accuracy.f32_ulp;
  return static_cast<std::uint32_t>(std::ceil(bound + kOracleLibmUlps));
}

}  // namespace

std::uint32_t tolerance(Op op, DType d) { return tolerance_of(detail::row(op), d); }
std::uint32_t tolerance(UnaryOp op, DType d) { return tolerance_of(detail::row(op), d); }

Expected unary_exact(UnaryOp op, DType d, const Expected& x);

Expected binary(Op op, DType d, const Expected& a, const Expected& b) {
  if (op == Op::complex) return parts(a, b);  // numexpr's complex(a, b): the parts as they are
  if (is_complex(d)) return complex_binary(op, d, a, b);
  // max and min return the chosen input, a NaN standing for any included.
  if ((op == Op::max || op == Op::min) && is_floating(d))
    return extremum_picks_a(op == Op::max, float_of(a, d), float_of(b, d)) ? a : b;
  Expected r = element(op, d, bits_of(a, d), bits_of(b, d));
  r.ulps = tolerance(op, d);
  if ((op == Op::logaddexp || op == Op::logaddexp2) && r.ulps > 0) {
    // docs/semantics.md: in ULPs of the larger operand where that is larger
    // than the result (near the result's zero crossing the sum cancels).
    const double larger = std::max(std::fabs(float_of(a, d)), std::fabs(float_of(b, d)));
    const double result = std::fabs(float_of(r, d));
    if (std::isfinite(larger) && std::isfinite(result) && larger > result) {
      const int apart = std::ilogb(larger) - (result == 0 ? std::ilogb(larger) - 60 : std::ilogb(result));
      r.ulps = apart >= 31 ? 0xffffffffu : static_cast<std::uint32_t>(std::min<std::uint64_t>(
                                                 std::uint64_t{r.ulps} << apart, 0xffffffffu));
    }
  }
  return r;
}

Expected unary(UnaryOp op, DType d, const Expected& x) {
  if (is_complex(d)) {
    Expected r = complex_unary(op, d, x);
    // |z| (the kernels': within 0.5001 ULP) and z / |z| (a quotient of it),
    // against this oracle's within half an ULP.
    if (op == UnaryOp::abs) r.ulps = 1;
    if (op == UnaryOp::sign) r.ulps = 2;
    return r;
  }
  Expected r = unary_exact(op, d, x);
  r.ulps = tolerance(op, d);
  return r;
}

Expected unary_exact(UnaryOp op, DType d, const Expected& x) {
  if (is_floating(d) && op == UnaryOp::signbit) {
    const FloatFormat f = format_of(d);
    return bool_result((bits_of(x, d) >> (f.exponent_bits + f.mantissa_bits) & 1) != 0);
  }
  if (is_floating(d) && op == UnaryOp::spacing) return float_spacing(bits_of(x, d), d);
  return is_floating(d) ? float_unary(op, d, float_of(x, d)) : integer_unary(op, d, int_of(x, d));
}

Expected ternary(TernaryOp op, DType d, const Expected& a, const Expected& b, const Expected& c) {
  switch (op) {
    case TernaryOp::where: return a.bits != 0 ? b : c;
    case TernaryOp::clamp: return binary(Op::min, d, binary(Op::max, d, a, b), c);
    case TernaryOp::fma: break;
  }
  if (d == DType::f64) return float_result(std::fma(float_of(a, d), float_of(b, d), float_of(c, d)), d);
  if (is_floating(d)) {
    const float r = std::fma(static_cast<float>(float_of(a, d)), static_cast<float>(float_of(b, d)),
                             static_cast<float>(float_of(c, d)));
    return float_result(static_cast<double>(r), d);
  }
  const UInt r = static_cast<UInt>(int_of(a, d)) * static_cast<UInt>(int_of(b, d)) + static_cast<UInt>(int_of(c, d));
  return {wrapped(static_cast<Int>(r), int_format_of(d)), false};
}

Expected convert(const Expected& x, DType from, DType to) {
  if (from == to) return x;
  if (to == DType::boolean) return bool_result(truth(x, from));
  // NumPy's casts with a complex end: a complex number to a real dtype keeps
  // its real part; a real number becomes the real part, the imaginary +0.
  if (is_complex(from) && !is_complex(to)) return convert(part_of(x, 0), real_part_dtype(from), to);
  if (is_complex(to)) {
    const DType part = real_part_dtype(to);
    const Expected re = is_complex(from) ? convert(part_of(x, 0), real_part_dtype(from), part) : convert(x, from, part);
    const Expected im = is_complex(from) ? convert(part_of(x, 1), real_part_dtype(from), part) : float_result(0.0, part);
    return parts(re, im);
  }
  if (is_floating(from)) {
    const double v = float_of(x, from);
    return is_floating(to) ? float_result(v, to) : float_to_integer(v, to);
  }
  return of_integer(int_of(x, from), to);
}

Expected of_integer(Int v, DType d) {
  if (d == DType::boolean) return bool_result(v != 0);
  if (is_floating(d)) return integer_to_float(v, d);
  return {wrapped(v, int_format_of(d)), false};
}

Expected of_double(double v, DType d) { return is_floating(d) ? float_result(v, d) : float_to_integer(v, d); }

}  // namespace oracle_values

Expected element_at(const void* p, DType d) {
  Expected x;
  const std::size_t size = dtype_size(d);
  if (!is_complex(d)) {
    std::memcpy(&x.bits, p, size);  // little-endian: an element is the low bytes
    return x;
  }
  std::memcpy(&x.bits, p, size / 2);
  std::memcpy(&x.im_bits, static_cast<const char*>(p) + size / 2, size / 2);
  return x;
}

Expected part_of(const Expected& x, int part) {
  Expected r;
  r.bits = part == 0 ? x.bits : x.im_bits;
  r.any_quiet_nan = part == 0 ? x.any_quiet_nan : x.im_any_quiet_nan;
  r.ulps = x.ulps;
  r.approximate = x.approximate;
  return r;
}

bool is_quiet_nan(std::uint64_t bits, DType dtype) {
  const oracle_values::Float f = oracle_values::decode(bits, oracle_values::format_of(dtype));
  return std::isnan(f.value) && !f.signalling;
}

}  // namespace bcast::test
