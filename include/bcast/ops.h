// The elementwise binary ops on broadcasting tensors.
#pragma once

#include <optional>
#include <string_view>

#include "bcast/tensor.h"

namespace bcast {

// X(name): every binary op, in the order of enum Op.
#define BCAST_FOR_EACH_OP(X)                                                       \
  X(add) X(sub) X(mul) X(div) X(max) X(min) X(pow) X(eq) X(ne) X(lt) X(le) X(gt) \
  X(ge) X(logical_and) X(logical_or) X(logical_xor) X(bit_and) X(bit_or) X(bit_xor) X(floor_div)              \
  X(remainder) X(fmod) X(arctan2) X(hypot) X(copysign) X(nextafter) X(ldexp) X(logaddexp) X(logaddexp2)      \
  X(fmax) X(fmin) X(gcd) X(lcm) X(left_shift) X(right_shift) X(float_power) X(heaviside) X(complex)

enum class Op : std::uint8_t {
#define BCAST_OP_ENUM(name) name,
  BCAST_FOR_EACH_OP(BCAST_OP_ENUM)
#undef BCAST_OP_ENUM
};
inline constexpr int kNumOps = 38;

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);

// Semantics are NumPy's ufuncs' (docs/semantics.md has the table, one row
// per function, printed by `bcast-run --functions`), for example:
//   add sub mul    integers wrap; on bool, add is `or` and mul is `and`; no bool sub
//   div            true division, as NumPy's `/`: floats IEEE; integers and bool
//                  convert both operands to f64 and give f64
//   floor_div      NumPy's `//`: integers round towards minus infinity with
//                  x // 0 == 0 and MIN // -1 == MIN; floats floor(a / b) as
//                  NumPy's floor_divide computes it (through fmod); no bool
//   max min        propagate NaN (NumPy's maximum / minimum); -0 orders below +0
//   arctan2 ...    the float functions take integers and bool to the float
//                  that holds them (i16 -> f32, i32 -> f64), as NumPy's loops
// f16 and bf16 compute in f32 and round to nearest even.
// Whether op is defined on two operands of `dtype`.
bool op_supports(Op op, DType dtype);
// The dtype of op's result on two operands of `dtype` (op_supports holds):
// bool for comparisons and logical ops, f64 for div on integers and bool,
// the float that holds an integer for the float functions, else `dtype`.
DType result_dtype(Op op, DType input);

// Operands of different dtypes promote as NumPy 2 promotes them (NEP 50:
// u8 with f32 computes in f32, i8 with u8 in i16); the call is then the
// one-node expression op(a, b) of bcast/expr.h.
// Runs `op` on a and b, broadcasting, into a new dense tensor laid out in the
// inputs' memory order, as NumPy's order='K' (two Fortran-order inputs give a
// Fortran-order result; NOTE: [Output order] in src/plan/output_layout.h).
Tensor binary(Op op, const TensorView& a, const TensorView& b);
// Writes into `out`, which must have the broadcast shape and the result dtype.
// `out` may be an input exactly (same data, dtype and layout); any other memory
// overlap with an input is an Error(value), raised before anything is written.
void binary(Op op, const TensorView& a, const TensorView& b, const TensorView& out);

#define BCAST_OP_DECL(name)                                                         \
  Tensor name(const TensorView& a, const TensorView& b);                            \
  void name(const TensorView& a, const TensorView& b, const TensorView& out);
BCAST_FOR_EACH_OP(BCAST_OP_DECL)
#undef BCAST_OP_DECL

}  // namespace bcast
