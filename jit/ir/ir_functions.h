// The function table's functions that are more than one instruction
// (NOTE: [Function table]), as IR with scalar_ops.h's and node_ops.h's
// semantics: remainders, shifts, gcd and lcm, integer power, the float
// helpers that work on a dtype's bits; calls to the math library are
// math_calls.h's.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "bcast/dtype.h"
#include "bcast/expr.h"

namespace bcast::jit {

// The binary function `op` on compute values of `dtype`, or nullptr when
// it is none of these (ir_ops.cpp's table has the rest).
llvm::Value* emit_binary_function(llvm::IRBuilder<>& b, Op op, DType dtype, llvm::Value* x, llvm::Value* y);

// fmax / fmin on float compute values: true where the result is x (a NaN
// loses to a number, x wins when both are NaN, -0 below +0).
llvm::Value* emit_nan_ignoring_picks_x(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, bool max);

// The unary function `op`, or nullptr (ir_nodes.cpp has the rest).
llvm::Value* emit_unary_function(llvm::IRBuilder<>& b, UnaryOp op, DType dtype, llvm::Value* x);

}  // namespace bcast::jit
