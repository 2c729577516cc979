// NumPy 2's type promotion (NEP 50): the dtype that mixed operands compute
// in. Arrays promote by value-independent rules (np.result_type); Python
// scalars are "weak": they take the dtype of the arrays they meet.
#pragma once

#include <span>

#include "bcast/dtype.h"

namespace bcast {

// A scalar's kind as NEP 50 sees it: a weak Python int, float or complex, or
// a strong value of a dtype (a Python bool is strong: bool is the lowest dtype
// anyway).
enum class ScalarKind : std::uint8_t { weak_int, weak_float, strong, weak_complex };

// NOTE: [Promotion] np.result_type of arrays:
//   - bool with anything gives the other;
//   - two integers of one signedness give the wider; a signed and an unsigned
//     integer give the narrowest signed integer holding both (i8, u8 -> i16),
//     and f64 when there is none (i64, u64 -> f64);
//   - an integer with a float gives the wider of the float and the smallest
//     float that holds the integer exactly: bool, i8 and u8 fit f16; i16 and
//     u16 f32; wider integers f64 (i32, f32 -> f64);
//   - floats give the wider; f16 and bf16 give f32 (bf16 is not NumPy's: it
//     holds i8 and u8 exactly like f16, and ranks with it: bf16 with u8 or
//     bool stays bf16);
//   - a complex dtype with anything gives the complex dtype whose parts hold
//     both: c64 where every real part fits f32 (c64 with f16, f32, i16), c128
//     otherwise (c64 with f64 or i32).
// With several dtypes and any float among them, the result is that rule's
// float for all of them at once: np.result_type(i8, u8, f16) is f16, where
// promoting pairwise would give f32.
// promote_types(a, b) is in bcast/dtype.h.
DType promote_types(std::span<const DType> dtypes);

// The smallest float that holds every value of an integer or bool dtype
// exactly; a float or complex dtype is its own. NumPy's loops for the float functions
// (sqrt, exp, ...) on integers pick it.
DType smallest_float_for(DType d);

// What a weak scalar of `kind` makes of the strong dtype `d` it meets: an int
// leaves every dtype but bool alone (bool gives i64); a float leaves floats
// and complex dtypes alone and turns integers and bool into f64; a complex
// leaves complex dtypes alone, lifts a float to its complex partner (f16,
// bf16 and f32 to c64, f64 to c128) and integers and bool to c128.
DType promote_weak(DType d, ScalarKind kind);

// The dtype a weak scalar computes in before it meets an array: i64, f64 or c128.
DType weak_default(ScalarKind kind);

}  // namespace bcast
