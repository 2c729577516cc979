// Op -> IR, driven by a table for the ops that are one instruction or intrinsic
// per number kind; integer division and the logical ops have their own
// emitters, and the functions of more than one instruction are ir_functions.cpp's.
#include "ir/ir_ops.h"

#include <fmt/format.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>

#include <array>
#include <stdexcept>

#include "ir/ir_dtypes.h"
#include "ir/ir_functions.h"

namespace bcast::jit {
namespace {

using llvm::CmpInst;
using llvm::Instruction;
using llvm::Intrinsic::ID;

// How an op is emitted for one number kind.
struct Lowering {
  enum Form : std::uint8_t { none, binary, compare, intrinsic } form = none;
  unsigned code = 0;  // Instruction::BinaryOps, CmpInst::Predicate or Intrinsic::ID
};
constexpr Lowering bin(Instruction::BinaryOps op) { return {Lowering::binary, op}; }
constexpr Lowering cmp(CmpInst::Predicate p) { return {Lowering::compare, p}; }
constexpr Lowering intr(ID id) { return {Lowering::intrinsic, id}; }

struct OpLowering {
  Op op;
  Lowering floating, signed_int, unsigned_int, boolean;
};

// Float max/min are emit_float_extremum's. On bool (i1), add is or and mul
// is and; max is or, min is and.
const std::array<OpLowering, 14> kTable{{
    {Op::add, bin(Instruction::FAdd), bin(Instruction::Add), bin(Instruction::Add), bin(Instruction::Or)},
    {Op::sub, bin(Instruction::FSub), bin(Instruction::Sub), bin(Instruction::Sub), {}},
    {Op::mul, bin(Instruction::FMul), bin(Instruction::Mul), bin(Instruction::Mul), bin(Instruction::And)},
    {Op::max, {}, intr(llvm::Intrinsic::smax), intr(llvm::Intrinsic::umax), bin(Instruction::Or)},
    {Op::min, {}, intr(llvm::Intrinsic::smin), intr(llvm::Intrinsic::umin), bin(Instruction::And)},
    {Op::eq, cmp(CmpInst::FCMP_OEQ), cmp(CmpInst::ICMP_EQ), cmp(CmpInst::ICMP_EQ), cmp(CmpInst::ICMP_EQ)},
    {Op::ne, cmp(CmpInst::FCMP_UNE), cmp(CmpInst::ICMP_NE), cmp(CmpInst::ICMP_NE), cmp(CmpInst::ICMP_NE)},
    {Op::lt, cmp(CmpInst::FCMP_OLT), cmp(CmpInst::ICMP_SLT), cmp(CmpInst::ICMP_ULT), cmp(CmpInst::ICMP_ULT)},
    {Op::le, cmp(CmpInst::FCMP_OLE), cmp(CmpInst::ICMP_SLE), cmp(CmpInst::ICMP_ULE), cmp(CmpInst::ICMP_ULE)},
    {Op::gt, cmp(CmpInst::FCMP_OGT), cmp(CmpInst::ICMP_SGT), cmp(CmpInst::ICMP_UGT), cmp(CmpInst::ICMP_UGT)},
    {Op::ge, cmp(CmpInst::FCMP_OGE), cmp(CmpInst::ICMP_SGE), cmp(CmpInst::ICMP_UGE), cmp(CmpInst::ICMP_UGE)},
    {Op::bit_and, {}, bin(Instruction::And), bin(Instruction::And), bin(Instruction::And)},
    {Op::bit_or, {}, bin(Instruction::Or), bin(Instruction::Or), bin(Instruction::Or)},
    {Op::bit_xor, {}, bin(Instruction::Xor), bin(Instruction::Xor), bin(Instruction::Xor)},
}};

const Lowering* find_lowering(Op op, NumberKind kind) {
  for (const OpLowering& o : kTable) {
    if (o.op != op) continue;
    const Lowering& l = kind == NumberKind::floating       ? o.floating
                        : kind == NumberKind::signed_int   ? o.signed_int
                        : kind == NumberKind::unsigned_int ? o.unsigned_int
                                                           : o.boolean;
    return l.form == Lowering::none ? nullptr : &l;
  }
  return nullptr;
}

llvm::Value* emit_lowering(llvm::IRBuilder<>& b, const Lowering& l, llvm::Value* x, llvm::Value* y) {
  switch (l.form) {
    case Lowering::binary: return b.CreateBinOp(static_cast<Instruction::BinaryOps>(l.code), x, y);
    case Lowering::compare: return b.CreateCmp(static_cast<CmpInst::Predicate>(l.code), x, y);
    case Lowering::intrinsic: return b.CreateBinaryIntrinsic(static_cast<ID>(l.code), x, y);
    case Lowering::none: break;
  }
  return nullptr;
}

// NumPy's floor_divide: x / 0 == 0, MIN / -1 wraps to MIN, otherwise the
// quotient rounded towards minus infinity. The divisor is made safe first so
// that no path divides by zero or overflows.
llvm::Value* emit_floor_divide(llvm::IRBuilder<>& b, bool is_signed, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantInt::get(t, 0);
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* y_is_zero = b.CreateICmpEQ(y, zero);
  if (!is_signed) return b.CreateSelect(y_is_zero, zero, b.CreateUDiv(x, b.CreateSelect(y_is_zero, one, y)));
  llvm::Value* y_is_minus_one = b.CreateICmpEQ(y, llvm::ConstantInt::getSigned(t, -1));
  llvm::Value* safe_y = b.CreateSelect(b.CreateOr(y_is_zero, y_is_minus_one), one, y);
  llvm::Value* q = b.CreateSDiv(x, safe_y);
  llvm::Value* r = b.CreateSRem(x, safe_y);
  // Truncation rounded towards zero; step down when the remainder and the divisor differ in sign.
  llvm::Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateICmpSLT(b.CreateXor(r, safe_y), zero));
  llvm::Value* floor = b.CreateSub(q, b.CreateZExt(adjust, t));
  llvm::Value* negated = b.CreateSub(zero, x);  // wraps for MIN, as NumPy does
  return b.CreateSelect(y_is_zero, zero, b.CreateSelect(y_is_minus_one, negated, floor));
}

// NumPy's floor_divide on floats (scalar_ops.h's floor_divide_float): the
// quotient of x - fmod(x, y), stepped down when the remainder and y differ in
// sign, floored and rounded to the nearest integer; a signed zero when it is
// 0; x / y when y is 0.
llvm::Value* emit_float_floor_divide(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
  llvm::Value* quotient = b.CreateFDiv(x, y);
  llvm::Value* mod = b.CreateFRem(x, y);
  llvm::Value* div = b.CreateFDiv(b.CreateFSub(x, mod), y);
  llvm::Value* differ = b.CreateICmpNE(b.CreateFCmpOLT(y, zero), b.CreateFCmpOLT(mod, zero));
  div = b.CreateSelect(b.CreateAnd(b.CreateFCmpUNE(mod, zero), differ), b.CreateFSub(div, one), div);
  llvm::Value* floor = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, div);
  floor = b.CreateSelect(b.CreateFCmpOGT(b.CreateFSub(div, floor), llvm::ConstantFP::get(t, 0.5)),
                         b.CreateFAdd(floor, one), floor);
  llvm::Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, quotient);
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOEQ(div, zero), signed_zero, floor);
  return b.CreateSelect(b.CreateFCmpOEQ(y, zero), quotient, result);
}

// The larger (smaller) of x and y, neither NaN, with -0 < +0. Each `pick`
// is `a > b ? a : b`, x86's maxps exactly (minps with <), a tie going to b;
// its two orders differ only on a tie of signed zeros, where the and (or)
// of their bits is +0 (-0).
llvm::Value* emit_ordered_extremum(llvm::IRBuilder<>& b, bool max, llvm::Value* x, llvm::Value* y) {
  auto pick = [&](llvm::Value* a, llvm::Value* c) {
    return b.CreateSelect(max ? b.CreateFCmpOGT(a, c) : b.CreateFCmpOLT(a, c), a, c);
  };
  llvm::Type* bits = x->getType()->getWithNewType(b.getIntNTy(x->getType()->getScalarSizeInBits()));
  llvm::Value* t = b.CreateBitCast(pick(y, x), bits);
  llvm::Value* u = b.CreateBitCast(pick(x, y), bits);
  return b.CreateBitCast(max ? b.CreateAnd(t, u) : b.CreateOr(t, u), x->getType());
}

// NumPy's NaN order for maximum and minimum (the reference's): x's NaN,
// payload and all, else y's, else `ordered`, their extremum.
llvm::Value* emit_nan_first(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* y, llvm::Value* ordered) {
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, b.CreateSelect(b.CreateFCmpUNO(y, y), y, ordered));
}

// NumPy's maximum and minimum on floats.
llvm::Value* emit_float_extremum(llvm::IRBuilder<>& b, bool max, llvm::Value* x, llvm::Value* y) {
  return emit_nan_first(b, x, y, emit_ordered_extremum(b, max, x, y));
}

}  // namespace

llvm::Value* truth(llvm::IRBuilder<>& b, llvm::Value* v) {
  llvm::Type* element = v->getType()->getScalarType();
  if (element->isIntegerTy(1)) return v;
  if (element->isFloatingPointTy()) return b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
  return b.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
}

bool on_stored_bits(Op op, DType dtype) {
  if (dtype != DType::f16 && dtype != DType::bf16) return false;
  return op == Op::copysign || op == Op::heaviside || op == Op::max || op == Op::min || op == Op::fmax ||
         op == Op::fmin;
}

llvm::Value* emit_on_stored_bits(llvm::IRBuilder<>& b, Op op, DType dtype, llvm::Value* x, llvm::Value* y) {
  if (!on_stored_bits(op, dtype)) return nullptr;
  llvm::Type* bits = shaped_like(x, b.getInt16Ty());
  if (op == Op::copysign) {
    auto as_bits = [&](llvm::Value* v) { return b.CreateBitCast(v, bits); };
    llvm::Value* r = b.CreateOr(b.CreateAnd(as_bits(x), 0x7fffu), b.CreateAnd(as_bits(y), 0x8000u));
    return b.CreateBitCast(r, x->getType());
  }
  llvm::Value* cx = to_compute(b, dtype, x);
  llvm::Value* cy = to_compute(b, dtype, y);
  if (op == Op::heaviside) {  // b as stored where a is 0; 0, 1 or NaN elsewhere
    llvm::Value* is_zero = b.CreateFCmpOEQ(cx, llvm::ConstantFP::get(cx->getType(), 0.0));
    return b.CreateSelect(is_zero, y, to_storage(b, dtype, emit_op(b, op, dtype, cx, cy)));
  }
  llvm::Value* picks_x = nullptr;
  if (op == Op::max || op == Op::min) {
    llvm::Type* wide = shaped_like(cx, b.getInt32Ty());
    llvm::Value* extremum = emit_float_extremum(b, op == Op::max, cx, cy);
    picks_x = b.CreateICmpEQ(b.CreateBitCast(extremum, wide), b.CreateBitCast(cx, wide));
  } else {  // fmax, fmin
    picks_x = emit_nan_ignoring_picks_x(b, cx, cy, op == Op::fmax);
  }
  return b.CreateSelect(picks_x, x, y);
}

llvm::Value* emit_op(llvm::IRBuilder<>& b, Op op, DType dtype, llvm::Value* x, llvm::Value* y) {
  const NumberKind kind = number_kind(dtype);
  switch (op) {
    case Op::div: {
      if (kind == NumberKind::floating) return b.CreateFDiv(x, y);
      // True division: integers and bool convert to f64 first.
      llvm::Type* f64 = shaped_like(x, b.getDoubleTy());
      auto widen = [&](llvm::Value* v) {
        return kind == NumberKind::signed_int ? b.CreateSIToFP(v, f64) : b.CreateUIToFP(v, f64);
      };
      return b.CreateFDiv(widen(x), widen(y));
    }
    case Op::floor_div:
      if (kind == NumberKind::floating) return emit_float_floor_divide(b, x, y);
      if (kind == NumberKind::boolean) break;
      return emit_floor_divide(b, kind == NumberKind::signed_int, x, y);
    case Op::logical_and: return b.CreateAnd(truth(b, x), truth(b, y));
    case Op::logical_or: return b.CreateOr(truth(b, x), truth(b, y));
    case Op::logical_xor: return b.CreateXor(truth(b, x), truth(b, y));
    default: break;
  }
  if (llvm::Value* v = emit_binary_function(b, op, dtype, x, y)) return v;
  if (kind == NumberKind::floating && (op == Op::max || op == Op::min))
    return emit_float_extremum(b, op == Op::max, x, y);
  const Lowering* l = find_lowering(op, kind);
  // A failed compile, which the call survives on the reference executor.
  if (l == nullptr) throw std::logic_error(fmt::format("the JIT has no IR for {} on {}", op_name(op), dtype_name(dtype)));
  return emit_lowering(b, *l, x, y);
}

llvm::Value* emit_extremum_step(llvm::IRBuilder<>& b, bool max, llvm::Value* acc, llvm::Value* v) {
  llvm::LLVMContext& context = b.getContext();
  llvm::Function* function = b.GetInsertBlock()->getParent();
  llvm::Value* ordered = emit_ordered_extremum(b, max, acc, v);
  llvm::Value* any_nan = b.CreateOrReduce(b.CreateFCmpUNO(acc, v));
  llvm::BasicBlock* fast = b.GetInsertBlock();
  auto* nan_lanes = llvm::BasicBlock::Create(context, "nan_lanes", function);
  auto* joined = llvm::BasicBlock::Create(context, "extremum", function);
  b.CreateCondBr(any_nan, nan_lanes, joined, llvm::MDBuilder(context).createBranchWeights(1, 1 << 20));
  b.SetInsertPoint(nan_lanes);
  llvm::Value* full = emit_nan_first(b, acc, v, ordered);
  b.CreateBr(joined);
  b.SetInsertPoint(joined);
  llvm::PHINode* result = b.CreatePHI(acc->getType(), 2, "extremum");
  result->addIncoming(ordered, fast);
  result->addIncoming(full, nan_lanes);
  return result;
}

}  // namespace bcast::jit
