// Unary ops, casts and ternary ops -> IR (node_ops.h's semantics).
#include "ir/ir_nodes.h"

#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <stdexcept>

#include "ir/ir_dtypes.h"
#include "ir/ir_functions.h"
#include "ir/ir_ops.h"
#include "ir/math_calls.h"

namespace bcast::jit {
namespace {

bool is_float(DType d) { return number_kind(d) == NumberKind::floating; }

// f64 to f32 rounded "to odd" (half.h's f64_to_f32_round_to_odd): the
// truncation towards zero with the last bit set when inexact, so that a
// second rounding to f16 or bf16 is the correctly rounded one.
llvm::Value* round_to_odd(llvm::IRBuilder<>& b, llvm::Value* d) {
  llvm::Type* f32 = shaped_like(d, b.getFloatTy());
  llvm::Type* i32 = shaped_like(d, b.getInt32Ty());
  llvm::Value* t = b.CreateFPTrunc(d, f32);
  llvm::Value* back = b.CreateFPExt(t, d->getType());
  llvm::Value* finite = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, t),
                                        llvm::ConstantFP::getInfinity(f32));
  llvm::Value* inexact = b.CreateAnd(finite, b.CreateFCmpONE(back, d));
  llvm::Value* away = b.CreateFCmpOGT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, back),
                                      b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, d));
  llvm::Value* bits = b.CreateBitCast(t, i32);
  bits = b.CreateSelect(away, b.CreateSub(bits, llvm::ConstantInt::get(i32, 1)), bits);
  bits = b.CreateOr(bits, llvm::ConstantInt::get(i32, 1));
  return b.CreateSelect(inexact, b.CreateBitCast(bits, f32), t);
}

}  // namespace

llvm::Value* round_to_storage(llvm::IRBuilder<>& b, DType dtype, llvm::Value* v) {
  if (dtype != DType::f16 && dtype != DType::bf16) return v;
  return to_compute(b, dtype, to_storage(b, dtype, v));
}

llvm::Value* emit_unary(llvm::IRBuilder<>& b, UnaryOp op, DType dtype, llvm::Value* x) {
  const NumberKind kind = number_kind(dtype);
  llvm::Type* t = x->getType();
  switch (op) {
    case UnaryOp::neg: return kind == NumberKind::floating ? b.CreateFNeg(x) : b.CreateSub(llvm::Constant::getNullValue(t), x);
    case UnaryOp::abs:
      if (kind == NumberKind::floating) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
      if (kind == NumberKind::signed_int) return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
      return x;
    case UnaryOp::floor: return kind == NumberKind::floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x) : x;
    case UnaryOp::ceil: return kind == NumberKind::floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::ceil, x) : x;
    case UnaryOp::round: return kind == NumberKind::floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x) : x;
    case UnaryOp::logical_not: return b.CreateNot(truth(b, x));
    case UnaryOp::bit_not: return b.CreateNot(x);
    case UnaryOp::sqrt: return b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
    case UnaryOp::sigmoid: {
      llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
      return b.CreateFDiv(one, b.CreateFAdd(one, emit_math_call(b, "exp", b.CreateFNeg(x))));
    }
    default: break;
  }
  if (llvm::Value* v = emit_unary_function(b, op, dtype, x)) return v;
  // A failed compile, which the call survives on the reference executor.
  throw std::logic_error(fmt::format("the JIT has no IR for {} on {}", unary_name(op), dtype_name(dtype)));
}

llvm::Value* emit_cast(llvm::IRBuilder<>& b, DType from, DType to, llvm::Value* x) {
  if (from == to) return x;
  const NumberKind f = number_kind(from), g = number_kind(to);
  llvm::LLVMContext& c = b.getContext();
  llvm::Type* target = shaped_like(x, compute_type(c, to));
  if (g == NumberKind::boolean) return truth(b, x);
  if (f == NumberKind::floating && g != NumberKind::floating) {
    const auto id = g == NumberKind::signed_int ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    return b.CreateIntrinsic(id, {target, x->getType()}, {x});
  }
  if (f != NumberKind::floating && g != NumberKind::floating) {  // integers and bool
    if (f == NumberKind::signed_int) return b.CreateSExtOrTrunc(x, target);
    return b.CreateZExtOrTrunc(x, target);
  }
  // To a float: from an integer through f64 (exact up to 2^53), from a float as it is.
  llvm::Value* wide = x;
  if (f != NumberKind::floating) {
    llvm::Type* f64 = shaped_like(x, b.getDoubleTy());
    if (to == DType::f32) return f == NumberKind::signed_int ? b.CreateSIToFP(x, target) : b.CreateUIToFP(x, target);
    wide = f == NumberKind::signed_int ? b.CreateSIToFP(x, f64) : b.CreateUIToFP(x, f64);
  }
  const bool from_f64 = wide->getType()->getScalarType()->isDoubleTy();
  switch (to) {
    case DType::f64: return from_f64 ? wide : b.CreateFPExt(wide, target);
    case DType::f32: return from_f64 ? b.CreateFPTrunc(wide, target) : wide;
    case DType::f16:
      if (from_f64) return b.CreateFPExt(b.CreateFPTrunc(wide, shaped_like(x, b.getHalfTy())), target);  // one rounding
      return round_to_storage(b, to, wide);
    default:  // bf16
      return round_to_storage(b, to, from_f64 ? round_to_odd(b, wide) : wide);
  }
}

llvm::Value* emit_ternary(llvm::IRBuilder<>& b, TernaryOp op, DType dtype, llvm::Value* x, llvm::Value* y,
                          llvm::Value* z) {
  switch (op) {
    case TernaryOp::where: return b.CreateSelect(x, y, z);
    case TernaryOp::clamp: return emit_op(b, Op::min, dtype, emit_op(b, Op::max, dtype, x, y), z);
    case TernaryOp::fma:
      if (is_float(dtype)) return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
      return b.CreateAdd(b.CreateMul(x, y), z);
  }
  return nullptr;
}

}  // namespace bcast::jit
