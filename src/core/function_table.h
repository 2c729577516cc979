// NOTE: [Function table] Every function an expression or a call can name, one
// row each: its names, the dtypes it has loops for and how other dtypes find
// one, its result's dtype, how exact it is, and what the code generators call
// for it. Every surface reads the row: the grammar and the name lookups, the
// lowering's type resolution, validation, the executors, the emitters, the
// docs' table (bcast-run --functions --markdown prints it; a test holds
// docs/semantics.md to it). Adding a function is adding a row here, a case in
// the evaluator (src/exec/node_ops.h or scalar_ops.h) and in the emitter
// (jit/ir/), and an entry in the enum's list (bcast/ops.h, bcast/expr.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bcast/dtype.h"
#include "bcast/expr.h"
#include "bcast/ops.h"
#include "dtype_set.h"

namespace bcast::detail {

inline constexpr DTypeSet kFloats{DType::f16, DType::bf16, DType::f32, DType::f64};
inline constexpr DTypeSet kIntegers{DType::i8, DType::i16, DType::i32, DType::i64,
                                    DType::u8, DType::u16, DType::u32, DType::u64};
inline constexpr DTypeSet kBool{DType::boolean};
inline constexpr DTypeSet kComplex{DType::c64, DType::c128};
inline constexpr DTypeSet kNumbers = kIntegers | kFloats;  // the real numbers
inline constexpr DTypeSet kInexact = kFloats | kComplex;
inline constexpr DTypeSet kAll = kNumbers | kBool | kComplex;

constexpr bool is_floating_dtype(DType d) { return kFloats.contains(d); }
constexpr bool is_complex_dtype(DType d) { return kComplex.contains(d); }

enum class Arity : std::uint8_t { unary = 1, binary = 2, ternary = 3 };

// The dtype of a function's result, from the dtype of the loop it runs.
enum class Result : std::uint8_t {
  same,          // the loop's dtype
  boolean,       // comparisons, logical ops, predicates
  true_divide,   // div: floats and complex their own, integers and bool f64 (NumPy's `/`)
  real_part,     // abs, real, imag: a complex loop's real partner (c64: f32), else the loop's dtype
  complex_partner,  // complex(a, b): the complex dtype whose parts are the loop's (f32: c64, f64: c128)
};

// How exactly the result is computed: 0 is exact (the correctly rounded
// result, or NumPy's bits); otherwise the most ULPs from the true value, per
// component, in f32 and in f64 (f16 and bf16 compute in f32 and round once).
struct Accuracy {
  float f32_ulp = 0, f64_ulp = 0;
  constexpr bool exact() const { return f32_ulp == 0 && f64_ulp == 0; }
};
inline constexpr Accuracy kExact{};
inline constexpr Accuracy kUlp1{1, 1};
inline constexpr Accuracy kUlp2{2, 2};

struct FunctionRow {
  std::string_view name;     // as keys, messages and the docs print it
  Arity arity;
  std::uint8_t code;         // its Op, UnaryOp or TernaryOp
  std::string_view aliases;  // other names, space-separated (NumPy's, the Array API's, numexpr's)
  DTypeSet loops;            // the dtypes it computes in
  bool bool_casts = true;    // a bool operand without a loop of its own takes the first one it casts to safely;
                             // false: refused (NumPy refuses -True, True - True, sign(True))
  Result result = Result::same;
  Accuracy accuracy = kExact;
  std::string_view math;     // the C library's name of the function it calls ("tan": tanf, tan), if any
  bool keeps_weak = false;   // on a weak scalar it stays weak, as Python computes it (-2, abs(-2))
  std::string_view summary;  // one line for the docs' table
  bool int_exponent = false; // the second operand is an integer exponent (ldexp): i64, not promoted with the first
};

// clang-format off
inline constexpr std::array kBinaryRows = {
  FunctionRow{"add", Arity::binary, 0, "", kAll, true, Result::same, kExact, "", false, "a + b; integers wrap; on bool, or"},
  FunctionRow{"sub", Arity::binary, 1, "subtract", kNumbers | kComplex, false, Result::same, kExact, "", false, "a - b; integers wrap; no bool"},
  FunctionRow{"mul", Arity::binary, 2, "multiply", kAll, true, Result::same, kExact, "", false, "a * b; integers wrap; on bool, and"},
  FunctionRow{"div", Arity::binary, 3, "divide true_divide", kAll, true, Result::true_divide, kExact, "", false, "a / b; integers and bool in f64"},
  FunctionRow{"max", Arity::binary, 4, "maximum", kAll, true, Result::same, kExact, "", false, "the larger; NaN if either is"},
  FunctionRow{"min", Arity::binary, 5, "minimum", kAll, true, Result::same, kExact, "", false, "the smaller; NaN if either is"},
  FunctionRow{"pow", Arity::binary, 6, "power", kNumbers | kComplex, true, Result::same, kUlp1, "pow", false, "a ** b; integers wrap, and a negative integer exponent is an error"},
  FunctionRow{"eq", Arity::binary, 7, "equal", kAll, true, Result::boolean, kExact, "", false, "a == b"},
  FunctionRow{"ne", Arity::binary, 8, "not_equal", kAll, true, Result::boolean, kExact, "", false, "a != b"},
  FunctionRow{"lt", Arity::binary, 9, "less", kAll, true, Result::boolean, kExact, "", false, "a < b"},
  FunctionRow{"le", Arity::binary, 10, "less_equal", kAll, true, Result::boolean, kExact, "", false, "a <= b"},
  FunctionRow{"gt", Arity::binary, 11, "greater", kAll, true, Result::boolean, kExact, "", false, "a > b"},
  FunctionRow{"ge", Arity::binary, 12, "greater_equal", kAll, true, Result::boolean, kExact, "", false, "a >= b"},
  FunctionRow{"logical_and", Arity::binary, 13, "", kAll, true, Result::boolean, kExact, "", false, "a != 0 and b != 0"},
  FunctionRow{"logical_or", Arity::binary, 14, "", kAll, true, Result::boolean, kExact, "", false, "a != 0 or b != 0"},
  FunctionRow{"logical_xor", Arity::binary, 15, "", kAll, true, Result::boolean, kExact, "", false, "(a != 0) != (b != 0)"},
  FunctionRow{"bit_and", Arity::binary, 16, "bitwise_and", kIntegers | kBool, true, Result::same, kExact, "", false, "a & b"},
  FunctionRow{"bit_or", Arity::binary, 17, "bitwise_or", kIntegers | kBool, true, Result::same, kExact, "", false, "a | b"},
  FunctionRow{"bit_xor", Arity::binary, 18, "bitwise_xor", kIntegers | kBool, true, Result::same, kExact, "", false, "a ^ b"},
  FunctionRow{"floor_div", Arity::binary, 19, "floor_divide", kNumbers, true, Result::same, kExact, "", false, "a // b, rounded down; x // 0 is 0 for integers"},
  FunctionRow{"remainder", Arity::binary, 20, "mod", kNumbers, true, Result::same, kExact, "", false, "a % b, with the sign of b; x % 0 is 0 for integers"},
  FunctionRow{"fmod", Arity::binary, 21, "", kNumbers, true, Result::same, kExact, "", false, "C's fmod: the sign of a; x fmod 0 is 0 for integers"},
  FunctionRow{"arctan2", Arity::binary, 22, "atan2", kFloats, true, Result::same, kUlp2, "atan2", false, "the angle of the point (b, a)"},
  FunctionRow{"hypot", Arity::binary, 23, "", kFloats, true, Result::same, kUlp1, "hypot", false, "sqrt(a*a + b*b) without overflow"},
  FunctionRow{"copysign", Arity::binary, 24, "", kFloats, true, Result::same, kExact, "", false, "a's bits with b's sign bit, a NaN's too (a signalling NaN stays one, as NumPy's)"},
  FunctionRow{"nextafter", Arity::binary, 25, "", kFloats, true, Result::same, kExact, "", false, "the next float after a towards b"},
  FunctionRow{"ldexp", Arity::binary, 26, "", kFloats, true, Result::same, kExact, "", false, "a * 2**b, b an integer", true},
  FunctionRow{"logaddexp", Arity::binary, 27, "", kFloats, true, Result::same, kUlp2, "", false, "log(exp(a) + exp(b)) without overflow"},
  FunctionRow{"logaddexp2", Arity::binary, 28, "", kFloats, true, Result::same, kUlp2, "", false, "log2(2**a + 2**b) without overflow"},
  FunctionRow{"fmax", Arity::binary, 29, "", kAll, true, Result::same, kExact, "", false, "the larger, ignoring a NaN"},
  FunctionRow{"fmin", Arity::binary, 30, "", kAll, true, Result::same, kExact, "", false, "the smaller, ignoring a NaN"},
  FunctionRow{"gcd", Arity::binary, 31, "", kIntegers, false, Result::same, kExact, "", false, "greatest common divisor, >= 0"},
  FunctionRow{"lcm", Arity::binary, 32, "", kIntegers, false, Result::same, kExact, "", false, "least common multiple, >= 0"},
  FunctionRow{"left_shift", Arity::binary, 33, "bitwise_left_shift", kIntegers, true, Result::same, kExact, "", false, "a << b; 0 once b reaches the width"},
  FunctionRow{"right_shift", Arity::binary, 34, "bitwise_right_shift", kIntegers, true, Result::same, kExact, "", false, "a >> b, arithmetic; past the width 0 or -1"},
  FunctionRow{"float_power", Arity::binary, 35, "", DTypeSet{DType::f64, DType::c128}, true, Result::same, kUlp1, "pow", false, "a ** b in f64 or c128"},
  FunctionRow{"heaviside", Arity::binary, 36, "", kFloats, true, Result::same, kExact, "", false, "0 for a < 0, b's bits for a == 0 (a NaN's too), 1 for a > 0, NumPy's NaN (positive, quiet) for a NaN a"},
  FunctionRow{"complex", Arity::binary, 37, "", DTypeSet{DType::f32, DType::f64}, true, Result::complex_partner, kExact, "", false, "the complex number a + b*1j, parts as they are (numexpr's complex)"},
};

inline constexpr std::array kUnaryRows = {
  FunctionRow{"neg", Arity::unary, 0, "negative", kNumbers | kComplex, false, Result::same, kExact, "", true, "-x; integers wrap; no bool (use logical_not)"},
  FunctionRow{"abs", Arity::unary, 1, "absolute", kAll, true, Result::real_part, kExact, "", true, "|x|; integers wrap (abs(MIN) is MIN); complex: |z| without overflow (c64 through f64)"},
  FunctionRow{"sqrt", Arity::unary, 2, "", kInexact, true, Result::same, kExact, "", false, "square root, correctly rounded"},
  FunctionRow{"exp", Arity::unary, 3, "", kInexact, true, Result::same, kUlp1, "exp", false, "e ** x"},
  FunctionRow{"log", Arity::unary, 4, "", kInexact, true, Result::same, kUlp1, "log", false, "natural logarithm"},
  FunctionRow{"sin", Arity::unary, 5, "", kInexact, true, Result::same, kUlp1, "sin", false, "sine"},
  FunctionRow{"cos", Arity::unary, 6, "", kInexact, true, Result::same, kUlp1, "cos", false, "cosine"},
  FunctionRow{"tanh", Arity::unary, 7, "", kInexact, true, Result::same, kUlp2, "tanh", false, "hyperbolic tangent"},
  FunctionRow{"sigmoid", Arity::unary, 8, "expit", kFloats, true, Result::same, kUlp2, "", false, "1 / (1 + exp(-x))"},
  FunctionRow{"floor", Arity::unary, 9, "", kNumbers, false, Result::same, kExact, "", false, "rounded down; an integer is its own"},
  FunctionRow{"ceil", Arity::unary, 10, "", kNumbers, false, Result::same, kExact, "", false, "rounded up; an integer is its own"},
  FunctionRow{"round", Arity::unary, 11, "rint", kNumbers | kComplex, false, Result::same, kExact, "", false, "to the nearest, half to even; an integer is its own"},
  FunctionRow{"logical_not", Arity::unary, 12, "", kAll, true, Result::boolean, kExact, "", false, "x == 0"},
  FunctionRow{"bit_not", Arity::unary, 13, "invert bitwise_not bitwise_invert", kIntegers | kBool, true, Result::same, kExact, "", false, "~x; on bool, not"},
  FunctionRow{"positive", Arity::unary, 14, "", kNumbers | kComplex, false, Result::same, kExact, "", true, "+x"},
  FunctionRow{"square", Arity::unary, 15, "", kNumbers | kComplex, true, Result::same, kExact, "", false, "x * x; integers wrap"},
  FunctionRow{"reciprocal", Arity::unary, 16, "", kNumbers | kComplex, true, Result::same, kExact, "", false, "1 / x; for integers, C's integer division (1 / 0 is 0)"},
  FunctionRow{"sign", Arity::unary, 17, "", kNumbers | kComplex, false, Result::same, kExact, "", false, "-1, 0 or 1 (NaN for NaN); complex: z / |z|"},
  FunctionRow{"trunc", Arity::unary, 18, "", kNumbers, false, Result::same, kExact, "", false, "rounded towards zero; an integer is its own"},
  FunctionRow{"fabs", Arity::unary, 19, "", kFloats, true, Result::same, kExact, "", false, "|x| in a float dtype"},
  FunctionRow{"conj", Arity::unary, 20, "conjugate", kNumbers | kComplex, true, Result::same, kExact, "", false, "the complex conjugate: a real number is its own"},
  FunctionRow{"copy", Arity::unary, 21, "", kAll, true, Result::same, kExact, "", false, "x"},
  FunctionRow{"ones_like", Arity::unary, 22, "", kAll, true, Result::same, kExact, "", false, "1 of x's dtype"},
  FunctionRow{"tan", Arity::unary, 23, "", kInexact, true, Result::same, kUlp2, "tan", false, "tangent"},
  FunctionRow{"arcsin", Arity::unary, 24, "asin", kInexact, true, Result::same, kUlp2, "asin", false, "inverse sine; NaN outside [-1, 1]"},
  FunctionRow{"arccos", Arity::unary, 25, "acos", kInexact, true, Result::same, kUlp2, "acos", false, "inverse cosine; NaN outside [-1, 1]"},
  FunctionRow{"arctan", Arity::unary, 26, "atan", kInexact, true, Result::same, kUlp2, "atan", false, "inverse tangent"},
  FunctionRow{"sinh", Arity::unary, 27, "", kInexact, true, Result::same, kUlp2, "sinh", false, "hyperbolic sine"},
  FunctionRow{"cosh", Arity::unary, 28, "", kInexact, true, Result::same, kUlp2, "cosh", false, "hyperbolic cosine"},
  FunctionRow{"arcsinh", Arity::unary, 29, "asinh", kInexact, true, Result::same, kUlp2, "asinh", false, "inverse hyperbolic sine"},
  FunctionRow{"arccosh", Arity::unary, 30, "acosh", kInexact, true, Result::same, kUlp2, "acosh", false, "inverse hyperbolic cosine; NaN below 1"},
  FunctionRow{"arctanh", Arity::unary, 31, "atanh", kInexact, true, Result::same, kUlp2, "atanh", false, "inverse hyperbolic tangent; NaN outside [-1, 1]"},
  FunctionRow{"exp2", Arity::unary, 32, "", kInexact, true, Result::same, kUlp2, "exp2", false, "2 ** x"},
  FunctionRow{"expm1", Arity::unary, 33, "", kInexact, true, Result::same, kUlp2, "expm1", false, "exp(x) - 1, exact near 0"},
  FunctionRow{"log2", Arity::unary, 34, "", kInexact, true, Result::same, kUlp2, "log2", false, "base-2 logarithm"},
  FunctionRow{"log10", Arity::unary, 35, "", kInexact, true, Result::same, kUlp2, "log10", false, "base-10 logarithm"},
  FunctionRow{"log1p", Arity::unary, 36, "", kInexact, true, Result::same, kUlp2, "log1p", false, "log(1 + x), exact near 0"},
  FunctionRow{"cbrt", Arity::unary, 37, "", kFloats, true, Result::same, kUlp2, "cbrt", false, "cube root"},
  FunctionRow{"deg2rad", Arity::unary, 38, "radians", kFloats, true, Result::same, kExact, "", false, "x * (pi / 180), rounded once as NumPy"},
  FunctionRow{"rad2deg", Arity::unary, 39, "degrees", kFloats, true, Result::same, kExact, "", false, "x * (180 / pi), rounded once as NumPy"},
  FunctionRow{"spacing", Arity::unary, 40, "", kFloats, true, Result::same, kExact, "", false, "the distance to the next float away from zero"},
  FunctionRow{"isnan", Arity::unary, 41, "", kAll, true, Result::boolean, kExact, "", false, "x is NaN"},
  FunctionRow{"isinf", Arity::unary, 42, "", kAll, true, Result::boolean, kExact, "", false, "x is infinite"},
  FunctionRow{"isfinite", Arity::unary, 43, "", kAll, true, Result::boolean, kExact, "", false, "x is neither infinite nor NaN"},
  FunctionRow{"signbit", Arity::unary, 44, "", kFloats, true, Result::boolean, kExact, "", false, "x's sign bit is set (-0.0 too)"},
  FunctionRow{"real", Arity::unary, 45, "", kAll, true, Result::real_part, kExact, "", false, "the real part: a real number is its own"},
  FunctionRow{"imag", Arity::unary, 46, "", kAll, true, Result::real_part, kExact, "", false, "the imaginary part: 0 for a real number"},
};

inline constexpr std::array kTernaryRows = {
  FunctionRow{"where", Arity::ternary, 0, "", kAll, true, Result::same, kExact, "", false, "b where a is true, else c"},
  FunctionRow{"clamp", Arity::ternary, 1, "clip", kNumbers, false, Result::same, kExact, "", false, "min(max(a, b), c)"},
  FunctionRow{"fma", Arity::ternary, 2, "", kNumbers, false, Result::same, kExact, "", false, "a * b + c rounded once; integers wrap"},
};
// clang-format on

static_assert(kBinaryRows.size() == kNumOps && kUnaryRows.size() == kNumUnaryOps &&
              kTernaryRows.size() == kNumTernaryOps);
template <std::size_t N>
constexpr bool codes_in_order(const std::array<FunctionRow, N>& rows) {
  for (std::size_t i = 0; i < N; ++i)
    if (rows[i].code != i) return false;
  return true;
}
static_assert(codes_in_order(kBinaryRows) && codes_in_order(kUnaryRows) && codes_in_order(kTernaryRows));

constexpr const FunctionRow& row(Op op) { return kBinaryRows[static_cast<std::size_t>(op)]; }
constexpr const FunctionRow& row(UnaryOp op) { return kUnaryRows[static_cast<std::size_t>(op)]; }
constexpr const FunctionRow& row(TernaryOp op) { return kTernaryRows[static_cast<std::size_t>(op)]; }

// Whether the function has a loop for dtype d (the executors' templates
// exist for these pairs alone).
constexpr bool has_loop(const FunctionRow& r, DType d) { return r.loops.contains(d); }
// Whether a binary kernel (two operands of dtype d) runs op: it has a loop
// for d, and its operands are alike (not ldexp's).
constexpr bool supports(Op op, DType d) { return has_loop(row(op), d) && !row(op).int_exponent; }

constexpr DType result_of(const FunctionRow& r, DType loop) {
  switch (r.result) {
    case Result::boolean: return DType::boolean;
    case Result::true_divide: return is_floating_dtype(loop) || is_complex_dtype(loop) ? loop : DType::f64;
    case Result::real_part: return real_part_dtype(loop);
    case Result::complex_partner: return loop == DType::f64 ? DType::c128 : DType::c64;
    case Result::same: break;
  }
  return loop;
}
constexpr DType result_dtype_of(Op op, DType loop) { return result_of(row(op), loop); }
constexpr DType unary_result_dtype(UnaryOp op, DType loop) { return result_of(row(op), loop); }

// The loop an operand of dtype d runs in, as NumPy's type resolution picks
// it: d's own, else the first loop (bool, integers by width, floats by
// width) that d casts to safely: i16 -> f32 for the float functions, bool
// -> i8 for integer ones. None: the function is not defined for d.
std::optional<DType> loop_for(const FunctionRow& r, DType d);

// Every row, binary first, then unary, then ternary.
std::span<const FunctionRow> all_functions();

// The row's name, then its aliases.
std::vector<std::string_view> names_of(const FunctionRow& r);

// The row of this arity whose name or alias is `name`, or nullptr.
const FunctionRow* find_function(std::string_view name, Arity arity);

}  // namespace bcast::detail
