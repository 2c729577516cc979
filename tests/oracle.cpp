// The tests' independent oracle (see oracle.h): plain indices, exact values,
// one rounding.
#include "oracle.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>

namespace bcast::test {
namespace {

__extension__ typedef __int128 Int;  // exact sums, differences and products of two i64 values
__extension__ typedef unsigned __int128 UInt;

// ---- reading and writing raw element bits ----

std::uint64_t bits_at(const TensorView& x, std::int64_t offset) {
  std::uint64_t bits = 0;  // little-endian: an element is the low bytes
  std::memcpy(&bits, static_cast<const char*>(x.data()) + offset * static_cast<std::int64_t>(x.element_size()),
              x.element_size());
  return bits;
}

// Offset (in elements) of output index `index` in x, by NumPy's rule: dims
// align on the right, and a dim of extent 1 always reads its element 0.
std::int64_t offset_of(const TensorView& x, const std::vector<std::int64_t>& index) {
  const std::size_t lead = index.size() - x.shape().size();
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (x.shape()[d] != 1) offset += index[lead + d] * x.strides()[d];
  return offset;
}

// Advances a C-order index over `shape`.
void next_index(std::vector<std::int64_t>& index, const Shape& shape) {
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
}

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

Expected float_op(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits) {
  const Float x = decode(a_bits, format_of(d)), y = decode(b_bits, format_of(d));
  const double a = x.value, b = y.value;
  if (const std::optional<Expected> p = predicate(op, a, b)) return *p;
  switch (op) {
    case Op::add: return float_result(a + b, d);
    case Op::sub: return float_result(a - b, d);
    case Op::mul: return float_result(a * b, d);
    case Op::div: return float_result(a / b, d);
    case Op::floor_div: return float_floor_divide(d, a, b);
    case Op::max: return {extremum_picks_a(true, a, b) ? a_bits : b_bits, false};
    case Op::min: return {extremum_picks_a(false, a, b) ? a_bits : b_bits, false};
    case Op::pow: return float_power(d, x, y);
    default: break;  // bitwise ops are refused on floats, the predicates are above
  }
  return {};
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
    default: break;  // pow is refused on integers, the predicates are above
  }
  return {};
}

Expected element(Op op, DType d, std::uint64_t a_bits, std::uint64_t b_bits) {
  return is_floating(d) ? float_op(op, d, a_bits, b_bits) : int_op(op, d, a_bits, b_bits);
}

bool matches(const Expected& want, std::uint64_t got, DType out) {
  return want.any_quiet_nan ? is_quiet_nan(got, out) : got == want.bits;
}

std::string hex(std::uint64_t bits) {
  std::ostringstream s;
  s << "0x" << std::hex << bits;
  return s.str();
}

std::string describe(const Expected& want) { return want.any_quiet_nan ? "a quiet NaN" : hex(want.bits); }

}  // namespace

bool is_quiet_nan(std::uint64_t bits, DType dtype) {
  const Float f = decode(bits, format_of(dtype));
  return std::isnan(f.value) && !f.signalling;
}

std::vector<Expected> oracle(Op op, const TensorView& a, const TensorView& b, const Shape& out_shape) {
  std::int64_t count = 1;
  for (const std::int64_t e : out_shape) count *= e;
  std::vector<Expected> want;
  want.reserve(static_cast<std::size_t>(count));
  std::vector<std::int64_t> index(out_shape.size(), 0);
  for (std::int64_t i = 0; i < count; ++i, next_index(index, out_shape))
    want.push_back(element(op, a.dtype(), bits_at(a, offset_of(a, index)), bits_at(b, offset_of(b, index))));
  return want;
}

namespace {

// The C-order position of the first element of got that the oracle does not
// expect, or -1.
std::int64_t first_bad(const std::vector<Expected>& want, const TensorView& got) {
  std::vector<std::int64_t> index(got.shape().size(), 0);
  for (std::size_t i = 0; i < want.size(); ++i, next_index(index, got.shape()))
    if (!matches(want[i], bits_at(got, offset_of(got, index)), got.dtype())) return static_cast<std::int64_t>(i);
  return -1;
}

std::vector<std::int64_t> index_of(std::int64_t position, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < position; ++i) next_index(index, shape);
  return index;
}

std::string describe_mismatch(const std::vector<Expected>& want, const TensorView& got, std::int64_t bad) {
  const std::uint64_t bits = bits_at(got, offset_of(got, index_of(bad, got.shape())));
  return "element " + std::to_string(bad) + " of " + to_string(got.shape()) + " is " + hex(bits) +
         ", the oracle expects " + describe(want[static_cast<std::size_t>(bad)]);
}

}  // namespace

std::string oracle_mismatch(const std::vector<Expected>& want, const TensorView& got) {
  if (static_cast<std::int64_t>(want.size()) != got.numel())
    return "the result has " + std::to_string(got.numel()) + " elements, the oracle " + std::to_string(want.size());
  const std::int64_t bad = first_bad(want, got);
  return bad < 0 ? "" : describe_mismatch(want, got, bad);
}

std::string oracle_mismatch(Op op, const TensorView& a, const TensorView& b, const TensorView& got) {
  const std::vector<Expected> want = oracle(op, a, b, got.shape());
  const std::int64_t bad = first_bad(want, got);
  if (bad < 0) return "";
  const std::vector<std::int64_t> index = index_of(bad, got.shape());
  return describe_mismatch(want, got, bad) + " (" + std::string(op_name(op)) + " of " +
         hex(bits_at(a, offset_of(a, index))) + " and " + hex(bits_at(b, offset_of(b, index))) + ")";
}

void fill_sentinel(const TensorView& x, std::uint8_t byte) {
  std::vector<std::int64_t> index(x.shape().size(), 0);
  for (std::int64_t i = 0; i < x.numel(); ++i, next_index(index, x.shape()))
    std::memset(static_cast<char*>(x.data()) + offset_of(x, index) * static_cast<std::int64_t>(x.element_size()), byte,
                x.element_size());
}

}  // namespace bcast::test
