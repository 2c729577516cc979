// dtype -> LLVM type table, element loads and stores.
#include "ir/ir_dtypes.h"

#include <array>

namespace bcast::jit {
namespace {

enum class IRType : std::uint8_t { half, bf16_bits, f32, f64, i1, i8, i16, i32, i64, f32_pair, f64_pair };

struct IRDType {
  DType dtype;
  NumberKind kind;
  IRType storage;
  IRType compute;
};

// Indexed by DType.
constexpr std::array<IRDType, kNumDTypes> kIRDTypes{{
    {DType::f16, NumberKind::floating, IRType::half, IRType::f32},
    {DType::bf16, NumberKind::floating, IRType::bf16_bits, IRType::f32},
    {DType::f32, NumberKind::floating, IRType::f32, IRType::f32},
    {DType::f64, NumberKind::floating, IRType::f64, IRType::f64},
    {DType::i8, NumberKind::signed_int, IRType::i8, IRType::i8},
    {DType::i16, NumberKind::signed_int, IRType::i16, IRType::i16},
    {DType::i32, NumberKind::signed_int, IRType::i32, IRType::i32},
    {DType::i64, NumberKind::signed_int, IRType::i64, IRType::i64},
    {DType::u8, NumberKind::unsigned_int, IRType::i8, IRType::i8},
    {DType::u16, NumberKind::unsigned_int, IRType::i16, IRType::i16},
    {DType::u32, NumberKind::unsigned_int, IRType::i32, IRType::i32},
    {DType::u64, NumberKind::unsigned_int, IRType::i64, IRType::i64},
    {DType::boolean, NumberKind::boolean, IRType::i8, IRType::i1},
    {DType::c64, NumberKind::complex, IRType::f32_pair, IRType::f32},
    {DType::c128, NumberKind::complex, IRType::f64_pair, IRType::f64},
}};

constexpr bool in_dtype_order() {
  for (std::size_t i = 0; i < kIRDTypes.size(); ++i)
    if (static_cast<std::size_t>(kIRDTypes[i].dtype) != i) return false;
  return true;
}
static_assert(in_dtype_order(), "kIRDTypes has one row per DType, in DType's order");

const IRDType& info(DType d) { return kIRDTypes[static_cast<std::size_t>(d)]; }

llvm::Type* to_llvm(llvm::LLVMContext& c, IRType t) {
  switch (t) {
    case IRType::half: return llvm::Type::getHalfTy(c);
    case IRType::bf16_bits: return llvm::Type::getInt16Ty(c);
    case IRType::f32: return llvm::Type::getFloatTy(c);
    case IRType::f64: return llvm::Type::getDoubleTy(c);
    case IRType::i1: return llvm::Type::getInt1Ty(c);
    case IRType::i8: return llvm::Type::getInt8Ty(c);
    case IRType::i16: return llvm::Type::getInt16Ty(c);
    case IRType::i32: return llvm::Type::getInt32Ty(c);
    case IRType::i64: return llvm::Type::getInt64Ty(c);
    case IRType::f32_pair: return llvm::ArrayType::get(llvm::Type::getFloatTy(c), 2);
    case IRType::f64_pair: return llvm::ArrayType::get(llvm::Type::getDoubleTy(c), 2);
  }
  return nullptr;
}

// f32 -> bf16 bits, rounding to nearest even and quieting NaN; the same
// integer recipe as the reference executor (src/half.h), so results agree bit
// for bit on every host whatever its bf16 instructions.
llvm::Value* f32_to_bf16_bits(llvm::IRBuilder<>& b, llvm::Value* f) {
  llvm::Type* i32 = shaped_like(f, b.getInt32Ty());
  llvm::Value* x = b.CreateBitCast(f, i32);
  llvm::Value* is_nan = b.CreateICmpUGT(b.CreateAnd(x, 0x7fffffffu), llvm::ConstantInt::get(i32, 0x7f800000u));
  llvm::Value* high = b.CreateLShr(x, 16);
  llvm::Value* odd = b.CreateAnd(high, 1u);
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(x, llvm::ConstantInt::get(i32, 0x7fffu)), odd), 16);
  llvm::Value* quiet = b.CreateOr(high, 0x40u);
  return b.CreateTrunc(b.CreateSelect(is_nan, quiet, rounded), shaped_like(f, b.getInt16Ty()));
}

}  // namespace

NumberKind number_kind(DType dtype) { return info(dtype).kind; }
llvm::Type* storage_type(llvm::LLVMContext& c, DType dtype) { return to_llvm(c, info(dtype).storage); }
llvm::Type* compute_type(llvm::LLVMContext& c, DType dtype) { return to_llvm(c, info(dtype).compute); }

llvm::Type* shaped_like(llvm::Value* v, llvm::Type* scalar) {
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(v->getType()))
    return llvm::VectorType::get(scalar, vector->getElementCount());
  return scalar;
}

llvm::Value* to_compute(llvm::IRBuilder<>& b, DType dtype, llvm::Value* v) {
  switch (dtype) {
    case DType::f16: return b.CreateFPExt(v, shaped_like(v, b.getFloatTy()));
    case DType::bf16:
      return b.CreateBitCast(b.CreateShl(b.CreateZExt(v, shaped_like(v, b.getInt32Ty())), 16),
                             shaped_like(v, b.getFloatTy()));
    case DType::boolean: return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));  // non-zero is true
    default: return v;
  }
}

llvm::Value* to_storage(llvm::IRBuilder<>& b, DType dtype, llvm::Value* value) {
  switch (dtype) {
    case DType::f16: return b.CreateFPTrunc(value, shaped_like(value, b.getHalfTy()));  // nearest even
    case DType::bf16: return f32_to_bf16_bits(b, value);
    case DType::boolean: return b.CreateZExt(value, shaped_like(value, b.getInt8Ty()));
    default: return value;
  }
}

llvm::StoreInst* emit_store(llvm::IRBuilder<>& b, DType dtype, llvm::Value* value, llvm::Value* address) {
  return b.CreateStore(to_storage(b, dtype, value), address);
}

}  // namespace bcast::jit
