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

// acc = max(acc, v) (min) of a reduction's step on float vectors, emit_op's
// bits: the ordered extremum, and NumPy's NaN rule behind one test of the
// lanes and a branch taken only where a lane of either is NaN. A row max's
// step was otherwise four blends of NaN and signed-zero order a vector, the
// chain through its accumulator (NOTE: [Reduction kernels]).
llvm::Value* emit_extremum_step(llvm::IRBuilder<>& b, bool max, llvm::Value* acc, llvm::Value* v);

// "x is true": non-zero, a NaN included (NumPy's truth), of a compute value:
// an i1 is its own truth. Scalars and vectors alike.
llvm::Value* truth(llvm::IRBuilder<>& b, llvm::Value* v);

// The ops whose result is made of the inputs' bits (max, min, fmax and fmin
// pick one; copysign is a's bits with b's sign bit; heaviside is b where a
// is 0) on f16 and bf16: the
// result in the storage type, from x and y as stored, so a signalling NaN
// is not quieted by a round trip through f32, as NumPy's loops do not
// quiet it. nullptr for every other op and dtype.
llvm::Value* emit_on_stored_bits(llvm::IRBuilder<>& b, Op op, DType dtype, llvm::Value* x, llvm::Value* y);
// Whether emit_on_stored_bits computes `op` on `dtype`.
bool on_stored_bits(Op op, DType dtype);

}  // namespace bcast::jit
