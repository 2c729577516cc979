// dtype -> LLVM types, and the IR that loads an element into its compute type
// and stores a computed value back (f16/bf16 compute in f32, bool in i1). A
// complex dtype is stored as [2 x part] and computed as two values of its
// part's type (NOTE: [Complex in IR], ir_complex.h has its loads and stores).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "bcast/dtype.h"

namespace bcast::jit {

enum class NumberKind : std::uint8_t { floating, signed_int, unsigned_int, boolean, complex };

NumberKind number_kind(DType dtype);
llvm::Type* storage_type(llvm::LLVMContext& context, DType dtype);  // what memory holds
llvm::Type* compute_type(llvm::LLVMContext& context, DType dtype);  // what ops work on (a complex one: each part)

// `scalar`, or a vector of it with as many lanes as v when v is a vector: the
// helpers here and in ir_ops.h take scalars and vectors alike.
llvm::Type* shaped_like(llvm::Value* v, llvm::Type* scalar);

// A storage value (what a load of storage_type gives) as a compute value.
llvm::Value* to_compute(llvm::IRBuilder<>& b, DType dtype, llvm::Value* storage);
// A compute value in its storage type (f16 and bf16 round to nearest even).
llvm::Value* to_storage(llvm::IRBuilder<>& b, DType dtype, llvm::Value* value);
// Stores a compute value in its storage type; the caller may set the store's
// alignment and metadata.
llvm::StoreInst* emit_store(llvm::IRBuilder<>& b, DType dtype, llvm::Value* value, llvm::Value* address);

}  // namespace bcast::jit
