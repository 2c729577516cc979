// The IR of an expression's unary ops, casts and ternary ops on compute
// values, scalars or vectors alike (ir_ops.h has the binary ops). Semantics
// are those of src/exec/node_ops.h, which the differential tests hold these
// to bit for bit.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "bcast/expr.h"

namespace bcast::jit {

// op(x) in the compute type of its result dtype; `dtype` is the compute
// dtype (the expression's lowering casts first).
llvm::Value* emit_unary(llvm::IRBuilder<>& b, UnaryOp op, DType dtype, llvm::Value* x);

// x of dtype `from` as a value of dtype `to` (NOTE: [Float to integer]; f16
// and bf16 get one rounding from f64 and from integers).
llvm::Value* emit_cast(llvm::IRBuilder<>& b, DType from, DType to, llvm::Value* x);

// op(x, y, z) on values of dtype `dtype` (where's x is bool).
llvm::Value* emit_ternary(llvm::IRBuilder<>& b, TernaryOp op, DType dtype, llvm::Value* x, llvm::Value* y,
                          llvm::Value* z);

// A computed value of `dtype` rounded to what its storage holds and back: f16
// and bf16 round after every node, as NumPy's ops do; other dtypes are their
// own storage.
llvm::Value* round_to_storage(llvm::IRBuilder<>& b, DType dtype, llvm::Value* v);

}  // namespace bcast::jit
