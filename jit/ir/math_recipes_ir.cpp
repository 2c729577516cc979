// The recipes' lanes in IR (math_recipes_ir.h, NOTE: [Math recipes]): the
// operators and helpers a recipe calls, each one IEEE operation, no
// fast-math flags, so the kernel computes what the reference evaluator's
// doubles do.
#include "ir/math_recipes_ir.h"

#include "math_recipes.h"

namespace bcast::jit {
namespace {

using llvm::Value;

// A value of the kernel (f32 or f64, a scalar or a vector) and its builder.
struct Lanes {
  Value* v;
  llvm::IRBuilder<>* b;
};

// A comparison's result, lane by lane.
struct Mask {
  Value* v;
  llvm::IRBuilder<>* b;
};

Lanes splat(Lanes like, double value) { return {llvm::ConstantFP::get(like.v->getType(), value), like.b}; }

Lanes operator+(Lanes x, Lanes y) { return {x.b->CreateFAdd(x.v, y.v), x.b}; }
Lanes operator-(Lanes x, Lanes y) { return {x.b->CreateFSub(x.v, y.v), x.b}; }
Lanes operator*(Lanes x, Lanes y) { return {x.b->CreateFMul(x.v, y.v), x.b}; }
Lanes operator/(Lanes x, Lanes y) { return {x.b->CreateFDiv(x.v, y.v), x.b}; }
Lanes operator-(Lanes x) { return {x.b->CreateFNeg(x.v), x.b}; }
Lanes operator+(Lanes x, double c) { return x + splat(x, c); }
Lanes operator-(Lanes x, double c) { return x - splat(x, c); }
Lanes operator*(Lanes x, double c) { return x * splat(x, c); }
Lanes operator+(double c, Lanes x) { return splat(x, c) + x; }
Lanes operator-(double c, Lanes x) { return splat(x, c) - x; }
Lanes operator*(double c, Lanes x) { return splat(x, c) * x; }
Lanes operator/(double c, Lanes x) { return splat(x, c) / x; }

// Ordered comparisons, but != (true for NaN), as C++'s on doubles.
Mask operator<(Lanes x, Lanes y) { return {x.b->CreateFCmpOLT(x.v, y.v), x.b}; }
Mask operator>(Lanes x, Lanes y) { return {x.b->CreateFCmpOGT(x.v, y.v), x.b}; }
Mask operator==(Lanes x, Lanes y) { return {x.b->CreateFCmpOEQ(x.v, y.v), x.b}; }
Mask operator!=(Lanes x, Lanes y) { return {x.b->CreateFCmpUNE(x.v, y.v), x.b}; }
Mask operator<(Lanes x, double c) { return x < splat(x, c); }
Mask operator>(Lanes x, double c) { return x > splat(x, c); }
Mask operator==(Lanes x, double c) { return x == splat(x, c); }
Mask operator!=(Lanes x, double c) { return x != splat(x, c); }
Mask operator&&(Mask p, Mask q) { return {p.b->CreateAnd(p.v, q.v), p.b}; }
Mask operator||(Mask p, Mask q) { return {p.b->CreateOr(p.v, q.v), p.b}; }
Mask operator!(Mask p) { return {p.b->CreateNot(p.v), p.b}; }

Lanes select(Mask m, Lanes x, Lanes y) { return {m.b->CreateSelect(m.v, x.v, y.v), m.b}; }
Lanes fabs(Lanes x) { return {x.b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.v), x.b}; }
Lanes copysign(Lanes x, Lanes s) { return {x.b->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x.v, s.v), x.b}; }
Lanes sqrt(Lanes x) { return {x.b->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x.v), x.b}; }
Lanes fma(Lanes x, Lanes y, Lanes z) {
  return {x.b->CreateIntrinsic(llvm::Intrinsic::fma, {x.v->getType()}, {x.v, y.v, z.v}), x.b};
}

llvm::Type* with_scalar(Value* like, llvm::Type* scalar) { return like->getType()->getWithNewType(scalar); }
Lanes widen(Lanes x) { return {x.b->CreateFPExt(x.v, with_scalar(x.v, x.b->getDoubleTy())), x.b}; }
Lanes narrow(Lanes x) { return {x.b->CreateFPTrunc(x.v, with_scalar(x.v, x.b->getFloatTy())), x.b}; }

Value* bits_of(Lanes x) { return x.b->CreateBitCast(x.v, with_scalar(x.v, x.b->getInt64Ty())); }
Lanes double_of(llvm::IRBuilder<>& b, Value* bits) { return {b.CreateBitCast(bits, with_scalar(bits, b.getDoubleTy())), &b}; }
Value* i64(Value* like, std::uint64_t v) { return llvm::ConstantInt::get(with_scalar(like, llvm::Type::getInt64Ty(like->getContext())), v); }

// recipes::pow2i's steps, in f64 or f32.
Lanes pow2i(Lanes n) {
  llvm::IRBuilder<>& b = *n.b;
  if (n.v->getType()->getScalarType()->isFloatTy()) {
    Value* bits = b.CreateBitCast((n + 0x1.8p23).v, with_scalar(n.v, b.getInt32Ty()));
    Value* r = b.CreateShl(b.CreateAdd(bits, llvm::ConstantInt::get(bits->getType(), 127)),
                           llvm::ConstantInt::get(bits->getType(), 23));
    return {b.CreateBitCast(r, n.v->getType()), &b};
  }
  Value* bits = bits_of(n + math::recipes::kRound);
  return double_of(b, b.CreateShl(b.CreateAdd(bits, i64(bits, 1023)), i64(bits, 52)));
}

// recipes::split's steps.
math::recipes::Split<Lanes> split(Lanes d) {
  using math::recipes::kRound;
  using math::recipes::kSqrtHalfBits;
  llvm::IRBuilder<>& b = *d.b;
  Value* u = b.CreateSub(bits_of(d), i64(d.v, kSqrtHalfBits));
  Value* k = b.CreateAShr(u, i64(u, 52));
  Lanes m = double_of(b, b.CreateAdd(b.CreateAnd(u, i64(u, 0x000fffffffffffff)), i64(u, kSqrtHalfBits)));
  Lanes kd = double_of(b, b.CreateAdd(i64(u, std::bit_cast<std::uint64_t>(kRound)), k)) - kRound;
  return {m, kd};
}

}  // namespace

Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  if (!x->getType()->getScalarType()->isFloatTy()) return nullptr;
  const auto recipe = math::recipes::recipe_for(name, y ? 2 : 1);
  if (!recipe) return nullptr;
  const Lanes lx{x, &b};
  return (y ? math::recipes::run(*recipe, lx, Lanes{y, &b}) : math::recipes::run(*recipe, lx)).v;
}

}  // namespace bcast::jit
