// The arithmetic of one element by docs/semantics.md alone, for the tests'
// oracles (oracle.h, oracle_expr.h): decoding bits, rounding once to nearest
// even, each binary op, unary op, cast and ternary op on values of one dtype.
// It shares no code with bcast (the public dtype and op enums only): floats
// are decoded from their bits (not half.h), integers computed exactly in 128
// bits and wrapped.
#pragma once

#include <cstdint>

#include "bcast/bcast.h"

namespace bcast::test {

// The real dtypes, before c64 and c128: for the tests of a target that has
// no complex numbers (the Ascend-style one) or of an operand that cannot be
// complex.
inline constexpr int kNumRealDTypes = static_cast<int>(DType::c64);
static_assert(static_cast<int>(DType::c128) == kNumDTypes - 1, "the complex dtypes are the last");

// One expected element: its exact bits, or any quiet NaN where IEEE 754
// leaves the payload of an arithmetic result open. A complex element is two
// parts, each of the part's float dtype (c64: f32): `bits` and
// `any_quiet_nan` are its real part, `im_bits` and `im_any_quiet_nan` its
// imaginary part.
struct Expected {
  std::uint64_t bits = 0;
  bool any_quiet_nan = false;
  // How many ULPs of the result's dtype a result may be from `bits`: 0 but
  // for a function that is not exact (NOTE: [Vector math]; tolerance()).
  std::uint32_t ulps = 0;
  // Computed inside an expression from an inexact function's result, which
  // any later step may amplify without bound (a - b cancels, a comparison or
  // a cast to an integer decides on it): not judged against this oracle. The
  // JIT's equality with the reference evaluator and the accuracy tests
  // (tests/python/test_math_vs_mpmath.py) judge such an element.
  bool approximate = false;
  std::uint64_t im_bits = 0;
  bool im_any_quiet_nan = false;
};

// The element of dtype d stored at p (a complex one's two parts), and the
// expected value's part: 0 the real part, 1 the imaginary one, as a value of
// the part's dtype (real_part_dtype(d)).
Expected element_at(const void* p, DType d);
Expected part_of(const Expected& x, int part);

// The tolerance of an inexact function's result against this oracle, which
// computes it with the C library in the dtype's precision: bcast promises the
// row's `accuracy` (function_table.h) from the true value and glibc's own
// error is up to kOracleLibmUlps (its worst on these functions measured
// 2.13 ULP, tanh f32: branch vm30's bench/vector_math), so two correct
// results may be the sum apart, rounded up. f16 and bf16 compute in f32 and
// round once: an f32 difference moves at most one rounding, 1 ULP. 0 for an
// exact function or a non-float dtype.
inline constexpr float kOracleLibmUlps = 2.5f;
std::uint32_t tolerance(Op op, DType d);
std::uint32_t tolerance(UnaryOp op, DType d);

// The bits of a float dtype's element are a NaN with its quiet bit (the top
// bit of the mantissa) set.
bool is_quiet_nan(std::uint64_t bits, DType dtype);

namespace oracle_values {

__extension__ typedef __int128 Int;

// op(a, b) on two values of dtype d (NumPy's semantics, docs/semantics.md's
// table): the result is of op's result dtype for d (bool for comparisons,
// f64 for div on integers and bool).
Expected binary(Op op, DType d, const Expected& a, const Expected& b);
// op(x) computed in dtype d (the float functions' d is already the float
// their loops pick); logical_not gives bool.
Expected unary(UnaryOp op, DType d, const Expected& x);
// where(c, a, b) with c's truth already taken (c is a bool's 0 or 1);
// clamp and fma in dtype d.
Expected ternary(TernaryOp op, DType d, const Expected& a, const Expected& b, const Expected& c);
// x of dtype `from` as dtype `to`: integers wrap, floats round to nearest
// even, float to integer truncates and saturates (NaN gives 0), anything to
// bool is x != 0 (NOTE: [Float to integer] in docs/semantics.md).
Expected convert(const Expected& x, DType from, DType to);
// A value given exactly: an integer (to an integer dtype: wrapped; to a
// float: rounded) or a double (to a float: rounded).
Expected of_integer(Int v, DType d);
Expected of_double(double v, DType d);

}  // namespace oracle_values
}  // namespace bcast::test
