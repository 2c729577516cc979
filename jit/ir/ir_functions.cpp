// The function table's multi-instruction functions as IR (ir_functions.h).
#include "ir/ir_functions.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string>

#include "function_table.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_ops.h"
#include "ir/math_calls.h"

namespace bcast::jit {
namespace {

using llvm::Value;

Value* constant_like(Value* v, std::int64_t c) {
  llvm::Type* t = v->getType();
  if (t->isFPOrFPVectorTy()) return llvm::ConstantFP::get(t, static_cast<double>(c));
  return llvm::ConstantInt::getSigned(t, c);
}

// f(x[i], y[i]) for each lane: for the functions whose scalar IR has loops.
Value* per_lane(llvm::IRBuilder<>& b, Value* x, Value* y, const std::function<Value*(Value*, Value*)>& f) {
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vector) return f(x, y);
  Value* out = nullptr;
  for (unsigned i = 0; i < vector->getNumElements(); ++i) {
    Value* r = f(b.CreateExtractElement(x, i), y ? b.CreateExtractElement(y, i) : nullptr);
    if (!out) out = llvm::PoisonValue::get(llvm::FixedVectorType::get(r->getType(), vector->getNumElements()));
    out = b.CreateInsertElement(out, r, i);
  }
  return out;
}

// Python's %: the sign of y; x % 0 == 0 and MIN % -1 == 0 for integers.
Value* emit_remainder(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y, bool floored) {
  Value* zero = constant_like(x, 0);
  if (kind == NumberKind::floating) {
    Value* mod = b.CreateFRem(x, y);
    if (!floored) return mod;
    Value* differ = b.CreateICmpNE(b.CreateFCmpOLT(y, zero), b.CreateFCmpOLT(mod, zero));
    Value* nonzero = b.CreateSelect(differ, b.CreateFAdd(mod, y), mod);
    Value* signed_zero = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, zero, y);
    return b.CreateSelect(b.CreateFCmpOEQ(y, zero), mod, b.CreateSelect(b.CreateFCmpUNE(mod, zero), nonzero, signed_zero));
  }
  Value* one = constant_like(x, 1);
  Value* y_is_zero = b.CreateICmpEQ(y, zero);
  if (kind == NumberKind::unsigned_int) return b.CreateSelect(y_is_zero, zero, b.CreateURem(x, b.CreateSelect(y_is_zero, one, y)));
  Value* y_is_minus_one = b.CreateICmpEQ(y, constant_like(x, -1));
  Value* trivial = b.CreateOr(y_is_zero, y_is_minus_one);
  Value* safe_y = b.CreateSelect(trivial, one, y);
  Value* r = b.CreateSRem(x, safe_y);
  if (floored) {
    Value* adjust = b.CreateAnd(b.CreateICmpNE(r, zero), b.CreateICmpSLT(b.CreateXor(r, safe_y), zero));
    r = b.CreateSelect(adjust, b.CreateAdd(r, safe_y), r);
  }
  return b.CreateSelect(trivial, zero, r);
}

// NumPy's shifts: a count at or past the width (or negative) gives 0, or -1
// for a negative x shifted right.
Value* emit_shift(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y, bool left) {
  const unsigned bits = x->getType()->getScalarSizeInBits();
  Value* too_far = b.CreateICmpUGE(y, constant_like(y, bits));
  Value* count = b.CreateSelect(too_far, constant_like(y, 0), y);
  if (left) return b.CreateSelect(too_far, constant_like(x, 0), b.CreateShl(x, count));
  if (kind == NumberKind::unsigned_int) return b.CreateSelect(too_far, constant_like(x, 0), b.CreateLShr(x, count));
  Value* fill = b.CreateSelect(b.CreateICmpSLT(x, constant_like(x, 0)), constant_like(x, -1), constant_like(x, 0));
  return b.CreateSelect(too_far, fill, b.CreateAShr(x, count));
}

// Integer power by squaring, one step per exponent bit, no branches (the
// loop vectoriser keeps it). A negative exponent: 1 for 1, +-1 for -1, else
// 0 (NumPy raises there; scalar_ops.h's power agrees).
Value* emit_integer_power(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y) {
  const unsigned bits = x->getType()->getScalarSizeInBits();
  Value* one = constant_like(x, 1);
  Value* r = one;
  Value* base = x;
  for (unsigned i = 0; i < bits; ++i) {
    Value* mask = llvm::ConstantInt::get(y->getType(), llvm::APInt::getOneBitSet(bits, i));
    Value* bit = b.CreateICmpNE(b.CreateAnd(y, mask), constant_like(y, 0));
    r = b.CreateSelect(bit, b.CreateMul(r, base), r);
    if (i + 1 < bits) base = b.CreateMul(base, base);
  }
  if (kind != NumberKind::signed_int) return r;
  Value* minus_one = constant_like(x, -1);
  Value* odd = b.CreateICmpNE(b.CreateAnd(y, one), constant_like(y, 0));
  Value* negative = b.CreateSelect(b.CreateICmpEQ(x, one), one,
                                   b.CreateSelect(b.CreateICmpEQ(x, minus_one), b.CreateSelect(odd, minus_one, one),
                                                  constant_like(x, 0)));
  return b.CreateSelect(b.CreateICmpSLT(y, constant_like(y, 0)), negative, r);
}

// Euclid's on magnitudes (scalar_ops.h's gcd), one scalar with a loop.
Value* emit_gcd_scalar(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y) {
  Value* zero = constant_like(x, 0);
  auto magnitude = [&](Value* v) {
    if (kind != NumberKind::signed_int) return v;
    return b.CreateSelect(b.CreateICmpSLT(v, zero), b.CreateSub(zero, v), v);
  };
  x = magnitude(x);
  y = magnitude(y);
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* fn = before->getParent();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(b.getContext(), "gcd", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "gcd_done", fn);
  b.CreateCondBr(b.CreateICmpEQ(y, zero), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* p = b.CreatePHI(x->getType(), 2, "p");
  llvm::PHINode* q = b.CreatePHI(x->getType(), 2, "q");
  p->addIncoming(x, before);
  q->addIncoming(y, before);
  Value* rem = b.CreateURem(p, q);
  p->addIncoming(q, loop);
  q->addIncoming(rem, loop);
  b.CreateCondBr(b.CreateICmpEQ(rem, zero), done, loop);
  b.SetInsertPoint(done);
  llvm::PHINode* result = b.CreatePHI(x->getType(), 2, "gcd");
  result->addIncoming(x, before);
  result->addIncoming(q, loop);
  return result;
}

// |x| / gcd * |y| in unsigned arithmetic (scalar_ops.h's lcm).
Value* emit_lcm_scalar(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y) {
  Value* zero = constant_like(x, 0);
  Value* g = emit_gcd_scalar(b, kind, x, y);
  auto magnitude = [&](Value* v) {
    if (kind != NumberKind::signed_int) return v;
    return b.CreateSelect(b.CreateICmpSLT(v, zero), b.CreateSub(zero, v), v);
  };
  Value* safe_g = b.CreateSelect(b.CreateICmpEQ(g, zero), constant_like(x, 1), g);
  Value* r = b.CreateMul(b.CreateUDiv(magnitude(x), safe_g), magnitude(y));
  return b.CreateSelect(b.CreateICmpEQ(g, zero), zero, r);
}

// x's storage bits as an integer of the storage's width, and back.
Value* bits_of(llvm::IRBuilder<>& b, DType dtype, Value* v) {
  Value* s = to_storage(b, dtype, v);
  if (s->getType()->isIntOrIntVectorTy()) return s;  // bf16 is stored as i16
  return b.CreateBitCast(s, shaped_like(s, b.getIntNTy(s->getType()->getScalarSizeInBits())));
}
Value* value_of_bits(llvm::IRBuilder<>& b, DType dtype, Value* bits) {
  llvm::Type* storage = storage_type(b.getContext(), dtype);
  if (storage->isIntegerTy()) return to_compute(b, dtype, bits);
  return to_compute(b, dtype, b.CreateBitCast(bits, shaped_like(bits, storage)));
}

// The float next to x towards y, stepping x's bits in dtype's own format.
Value* emit_next_after(llvm::IRBuilder<>& b, DType dtype, Value* x, Value* y) {
  Value* bits = bits_of(b, dtype, x);
  Value* y_bits = bits_of(b, dtype, y);
  Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
  const unsigned width = bits->getType()->getScalarSizeInBits();
  Value* sign = llvm::ConstantInt::get(bits->getType(), llvm::APInt::getSignMask(width));
  Value* away = b.CreateICmpEQ(b.CreateFCmpOLT(x, y), b.CreateFCmpOGT(x, zero));
  Value* one = llvm::ConstantInt::get(bits->getType(), 1);
  Value* stepped = b.CreateSelect(away, b.CreateAdd(bits, one), b.CreateSub(bits, one));
  Value* from_zero = b.CreateOr(b.CreateAnd(y_bits, sign), one);
  Value* r = b.CreateSelect(b.CreateFCmpOEQ(x, zero), from_zero, stepped);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, y), y_bits, r);
  Value* unordered = b.CreateFCmpUNO(x, y);  // a quiet NaN, as NumPy's x + y
  return b.CreateSelect(unordered, b.CreateFAdd(x, y), value_of_bits(b, dtype, r));
}

// The distance to the next float away from zero, in dtype's format; NaN for
// infinities and NaN.
Value* emit_spacing(llvm::IRBuilder<>& b, DType dtype, Value* x) {
  Value* bits = bits_of(b, dtype, x);
  Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
  bits = b.CreateSelect(b.CreateFCmpOEQ(x, zero), llvm::Constant::getNullValue(bits->getType()), bits);  // -0 as +0
  x = b.CreateSelect(b.CreateFCmpOEQ(x, zero), zero, x);
  Value* next = value_of_bits(b, dtype, b.CreateAdd(bits, llvm::ConstantInt::get(bits->getType(), 1)));
  Value* finite = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                  llvm::ConstantFP::getInfinity(x->getType()));
  return b.CreateSelect(finite, b.CreateFSub(next, x), llvm::ConstantFP::getNaN(x->getType()));
}

// NumPy's logaddexp(2): exact for equal operands, else the larger plus the
// log1p of the smaller's share.
Value* emit_log_add_exp(llvm::IRBuilder<>& b, Value* x, Value* y, bool base2) {
  Value* d = b.CreateFSub(x, y);
  Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
  auto tail = [&](Value* t) {
    if (!base2) return emit_math_call(b, "log1p", emit_math_call(b, "exp", t));
    Value* log2e = llvm::ConstantFP::get(x->getType(), 1.44269504088896340735992468100189214);
    return b.CreateFMul(log2e, emit_math_call(b, "log1p", emit_math_call(b, "exp2", t)));
  };
  Value* x_wins = b.CreateFAdd(x, tail(b.CreateFNeg(d)));
  Value* y_wins = b.CreateFAdd(y, tail(d));
  Value* r = b.CreateSelect(b.CreateFCmpOGT(d, zero), x_wins, b.CreateSelect(b.CreateFCmpOLE(d, zero), y_wins, d));
  Value* equal = b.CreateFAdd(x, llvm::ConstantFP::get(x->getType(), base2 ? 1.0 : 0.693147180559945309417232121458176568));
  return b.CreateSelect(b.CreateFCmpOEQ(x, y), equal, r);
}

// fmax / fmin: a NaN loses to a number (x wins when both are), -0 < +0.
Value* emit_nan_ignoring(llvm::IRBuilder<>& b, NumberKind kind, Value* x, Value* y, bool max) {
  if (kind == NumberKind::floating) return b.CreateSelect(emit_nan_ignoring_picks_x(b, x, y, max), x, y);
  if (kind == NumberKind::boolean) return max ? b.CreateOr(x, y) : b.CreateAnd(x, y);
  const bool s = kind == NumberKind::signed_int;
  const auto id = max ? (s ? llvm::Intrinsic::smax : llvm::Intrinsic::umax) : (s ? llvm::Intrinsic::smin : llvm::Intrinsic::umin);
  return b.CreateBinaryIntrinsic(id, x, y);
}

// NumPy's heaviside: its NaN (positive, quiet) for a NaN x, 0 below zero, h
// at zero, 1 above.
Value* emit_heaviside(llvm::IRBuilder<>& b, Value* x, Value* h) {
  Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
  Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
  Value* r = b.CreateSelect(b.CreateFCmpOLT(x, zero), zero, one);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, zero), h, r);
  return b.CreateSelect(b.CreateFCmpUNO(x, x), llvm::ConstantFP::getNaN(x->getType()), r);
}

// ldexp: the exponent clamped to a count past every float's range, then
// llvm.ldexp (one rounding, subnormals included).
Value* emit_ldexp(llvm::IRBuilder<>& b, Value* x, Value* e) {
  constexpr std::int64_t kFar = 100'000;
  e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, constant_like(e, -kFar));
  e = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, e, constant_like(e, kFar));
  Value* e32 = b.CreateTrunc(e, shaped_like(e, b.getInt32Ty()));
  return b.CreateIntrinsic(llvm::Intrinsic::ldexp, {x->getType(), e32->getType()}, {x, e32});
}

Value* emit_sign(llvm::IRBuilder<>& b, NumberKind kind, Value* x) {
  Value* zero = constant_like(x, 0);
  if (kind == NumberKind::floating) {
    Value* r = b.CreateSelect(b.CreateFCmpOGT(x, zero), constant_like(x, 1),
                              b.CreateSelect(b.CreateFCmpOLT(x, zero), constant_like(x, -1), zero));
    return b.CreateSelect(b.CreateFCmpUNO(x, x), x, r);
  }
  Value* positive = b.CreateZExt(b.CreateICmpSGT(x, zero), x->getType());
  if (kind == NumberKind::unsigned_int) return b.CreateZExt(b.CreateICmpNE(x, zero), x->getType());
  return b.CreateSub(positive, b.CreateZExt(b.CreateICmpSLT(x, zero), x->getType()));
}

Value* emit_reciprocal(llvm::IRBuilder<>& b, NumberKind kind, Value* x) {
  if (kind == NumberKind::floating) return b.CreateFDiv(constant_like(x, 1), x);
  Value* zero = constant_like(x, 0);
  Value* one = constant_like(x, 1);
  Value* is_zero = b.CreateICmpEQ(x, zero);
  Value* safe = b.CreateSelect(is_zero, one, x);
  Value* q = kind == NumberKind::signed_int ? b.CreateSDiv(one, safe) : b.CreateUDiv(one, safe);
  return b.CreateSelect(is_zero, zero, q);
}

// x * (pi / 180) or x * (180 / pi), the constant rounded to x's precision
// first, as NumPy's npy_deg2rad.
Value* emit_angle(llvm::IRBuilder<>& b, Value* x, bool to_radians) {
  constexpr long double kPi = 3.141592653589793238462643383279502884L;
  const bool f64 = x->getType()->getScalarType()->isDoubleTy();
  const double k = f64 ? (to_radians ? static_cast<double>(kPi) / 180.0 : 180.0 / static_cast<double>(kPi))
                       : static_cast<double>(to_radians ? static_cast<float>(kPi) / 180.0f : 180.0f / static_cast<float>(kPi));
  return b.CreateFMul(x, llvm::ConstantFP::get(x->getType(), k));
}

Value* all_lanes(llvm::IRBuilder<>& b, Value* like, bool value) {
  return llvm::ConstantInt::get(shaped_like(like, b.getInt1Ty()), value ? 1 : 0);
}

}  // namespace

Value* emit_nan_ignoring_picks_x(llvm::IRBuilder<>& b, Value* x, Value* y, bool max) {
  llvm::Type* bits = shaped_like(x, b.getIntNTy(x->getType()->getScalarSizeInBits()));
  Value* x_negative = b.CreateICmpSLT(b.CreateBitCast(x, bits), llvm::Constant::getNullValue(bits));
  Value* tie_goes_to_x = max ? b.CreateNot(x_negative) : x_negative;
  Value* x_wins = max ? b.CreateFCmpOGT(x, y) : b.CreateFCmpOLT(x, y);
  x_wins = b.CreateOr(x_wins, b.CreateAnd(b.CreateFCmpOEQ(x, y), tie_goes_to_x));
  x_wins = b.CreateOr(x_wins, b.CreateFCmpUNO(y, y));
  return b.CreateAnd(x_wins, b.CreateNot(b.CreateAnd(b.CreateFCmpUNO(x, x), b.CreateFCmpORD(y, y))));
}

Value* emit_binary_function(llvm::IRBuilder<>& b, Op op, DType dtype, Value* x, Value* y) {
  const NumberKind kind = number_kind(dtype);
  const detail::FunctionRow& row = detail::row(op);
  switch (op) {
    case Op::pow:
      if (kind == NumberKind::floating) return emit_math_call(b, row.math, x, y);
      return emit_integer_power(b, kind, x, y);
    case Op::remainder: return emit_remainder(b, kind, x, y, true);
    case Op::fmod: return emit_remainder(b, kind, x, y, false);
    case Op::copysign: return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x, y);
    case Op::nextafter: return emit_next_after(b, dtype, x, y);
    case Op::ldexp: return emit_ldexp(b, x, y);
    case Op::logaddexp: return emit_log_add_exp(b, x, y, false);
    case Op::logaddexp2: return emit_log_add_exp(b, x, y, true);
    case Op::fmax: return emit_nan_ignoring(b, kind, x, y, true);
    case Op::fmin: return emit_nan_ignoring(b, kind, x, y, false);
    case Op::gcd: return per_lane(b, x, y, [&](Value* u, Value* v) { return emit_gcd_scalar(b, kind, u, v); });
    case Op::lcm: return per_lane(b, x, y, [&](Value* u, Value* v) { return emit_lcm_scalar(b, kind, u, v); });
    case Op::left_shift: return emit_shift(b, kind, x, y, true);
    case Op::right_shift: return emit_shift(b, kind, x, y, false);
    case Op::heaviside: return emit_heaviside(b, x, y);
    default: break;
  }
  if (!row.math.empty()) return emit_math_call(b, row.math, x, y);  // arctan2, hypot, float_power
  return nullptr;
}

Value* emit_unary_function(llvm::IRBuilder<>& b, UnaryOp op, DType dtype, Value* x) {
  const NumberKind kind = number_kind(dtype);
  const bool floating = kind == NumberKind::floating;
  switch (op) {
    case UnaryOp::positive: case UnaryOp::conj: case UnaryOp::copy: case UnaryOp::real: return x;
    case UnaryOp::imag: return kind == NumberKind::boolean ? all_lanes(b, x, false) : constant_like(x, 0);  // a real number's
    case UnaryOp::ones_like:
      return kind == NumberKind::boolean ? all_lanes(b, x, true) : constant_like(x, 1);
    case UnaryOp::square: return floating ? b.CreateFMul(x, x) : b.CreateMul(x, x);
    case UnaryOp::reciprocal: return emit_reciprocal(b, kind, x);
    case UnaryOp::sign: return emit_sign(b, kind, x);
    case UnaryOp::trunc: return floating ? b.CreateUnaryIntrinsic(llvm::Intrinsic::trunc, x) : x;
    case UnaryOp::fabs: return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    case UnaryOp::deg2rad: return emit_angle(b, x, true);
    case UnaryOp::rad2deg: return emit_angle(b, x, false);
    case UnaryOp::spacing: return emit_spacing(b, dtype, x);
    case UnaryOp::isnan: return floating ? b.CreateFCmpUNO(x, x) : all_lanes(b, x, false);
    case UnaryOp::isinf:
      if (!floating) return all_lanes(b, x, false);
      return b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), llvm::ConstantFP::getInfinity(x->getType()));
    case UnaryOp::isfinite:
      if (!floating) return all_lanes(b, x, true);
      return b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), llvm::ConstantFP::getInfinity(x->getType()));
    case UnaryOp::signbit: {
      llvm::Type* bits = shaped_like(x, b.getIntNTy(x->getType()->getScalarSizeInBits()));
      return b.CreateICmpSLT(b.CreateBitCast(x, bits), llvm::Constant::getNullValue(bits));
    }
    default: break;
  }
  const detail::FunctionRow& row = detail::row(op);
  if (!row.math.empty()) return emit_math_call(b, row.math, x);  // exp, tan, arcsin, ...
  return nullptr;
}

}  // namespace bcast::jit
