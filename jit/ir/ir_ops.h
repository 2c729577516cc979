// The IR of one op on two compute-typed values, scalars or vectors alike (see
// ir_dtypes.h).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "bcast/ops.h"

namespace bcast::jit {

// Returns op(x, y) in the compute type of the result dtype (i1 for bool);
// nullptr when op is not defined for dtype. Semantics are those of
// src/scalar_ops.h, which the differential tests hold this to bit for bit.
llvm::Value* emit_op(llvm::IRBuilder<>& b, Op op, DType dtype, llvm::Value* x, llvm::Value* y);

// "x is true": non-zero, a NaN included (NumPy's truth), of a compute value:
// an i1 is its own truth. Scalars and vectors alike.
llvm::Value* truth(llvm::IRBuilder<>& b, llvm::Value* v);

// For float max and min: true where the result is x (x NaN, or x wins, -0
// below +0), false where it is y. Lets f16 and bf16 copy the chosen input's
// stored bits, as NumPy does, instead of rounding a float result back.
llvm::Value* emit_extremum_picks_a(llvm::IRBuilder<>& b, Op op, llvm::Value* x, llvm::Value* y);

}  // namespace bcast::jit
