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

// Ordered comparisons, but != (true for NaN), as C++'s on doubles.
Mask operator<(Lanes x, Lanes y) { return {x.b->CreateFCmpOLT(x.v, y.v), x.b}; }
Mask operator>(Lanes x, Lanes y) { return {x.b->CreateFCmpOGT(x.v, y.v), x.b}; }
Mask operator>=(Lanes x, Lanes y) { return {x.b->CreateFCmpOGE(x.v, y.v), x.b}; }
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

// The steps on bits of math_lanes.h, on the lanes' format F.
template <class F>
Value* bits_constant(Lanes like, typename math::recipes::Format<F>::Bits v) {
  llvm::Type* bits = with_scalar(like.v, like.b->getIntNTy(sizeof(F) * 8));
  return llvm::ConstantInt::get(bits, v);
}

// math_lanes.h's scale_of: 2**e from the integer e in the low bits.
template <class F>
Lanes scale_of_in(Lanes like, Value* bits) {
  using Fmt = math::recipes::Format<F>;
  llvm::IRBuilder<>& b = *like.b;
  Value* r = b.CreateShl(b.CreateAdd(bits, bits_constant<F>(like, Fmt::kBias)), bits_constant<F>(like, Fmt::kMantissa));
  return {b.CreateBitCast(r, like.v->getType()), &b};
}

template <class F>
Lanes pow2i_in(Lanes n) {
  using Fmt = math::recipes::Format<F>;
  llvm::Type* bits_type = with_scalar(n.v, n.b->getIntNTy(sizeof(F) * 8));
  return scale_of_in<F>(n, n.b->CreateBitCast((n + static_cast<double>(Fmt::kRound)).v, bits_type));
}

template <class F>
math::recipes::Pow2Halves<Lanes> pow2_halves_in(Lanes n) {
  using Fmt = math::recipes::Format<F>;
  using Bits = typename Fmt::Bits;
  llvm::IRBuilder<>& b = *n.b;
  llvm::Type* bits_type = with_scalar(n.v, b.getIntNTy(sizeof(F) * 8));
  Value* i = b.CreateSub(b.CreateBitCast((n + static_cast<double>(Fmt::kRound)).v, bits_type),
                         bits_constant<F>(n, std::bit_cast<Bits>(Fmt::kRound)));
  Value* h = b.CreateAShr(i, bits_constant<F>(n, 1));
  return {scale_of_in<F>(n, h), scale_of_in<F>(n, b.CreateSub(i, h))};
}

template <class F>
math::recipes::Split<Lanes> split_in(Lanes d) {
  using Fmt = math::recipes::Format<F>;
  using Bits = typename Fmt::Bits;
  llvm::IRBuilder<>& b = *d.b;
  llvm::Type* bits_type = with_scalar(d.v, b.getIntNTy(sizeof(F) * 8));
  auto to_lanes = [&](Value* bits) { return Lanes{b.CreateBitCast(bits, d.v->getType()), &b}; };
  Value* u = b.CreateSub(b.CreateBitCast(d.v, bits_type), bits_constant<F>(d, Fmt::kSqrtHalf));
  Value* k = b.CreateAShr(u, bits_constant<F>(d, Fmt::kMantissa));
  Lanes m = to_lanes(b.CreateAdd(b.CreateAnd(u, bits_constant<F>(d, (Bits{1} << Fmt::kMantissa) - 1)),
                                 bits_constant<F>(d, Fmt::kSqrtHalf)));
  Lanes kd = to_lanes(b.CreateAdd(bits_constant<F>(d, std::bit_cast<Bits>(Fmt::kRound)), k)) -
             static_cast<double>(Fmt::kRound);
  return {m, kd};
}

template <class F>
Lanes cbrt_seed_in(Lanes d) {
  using Fmt = math::recipes::Format<F>;
  llvm::IRBuilder<>& b = *d.b;
  llvm::Type* bits_type = with_scalar(d.v, b.getIntNTy(sizeof(F) * 8));
  Value* third = b.CreateUDiv(b.CreateBitCast(d.v, bits_type), bits_constant<F>(d, 3));
  return {b.CreateBitCast(b.CreateAdd(third, bits_constant<F>(d, Fmt::kCbrtOffset)), d.v->getType()), &b};
}

Lanes rcbrt_seed(Lanes d) {  // the f64 recipes' only
  llvm::IRBuilder<>& b = *d.b;
  llvm::Type* i64 = with_scalar(d.v, b.getInt64Ty());
  llvm::Type* i32 = with_scalar(d.v, b.getInt32Ty());
  Value* high = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(d.v, i64), llvm::ConstantInt::get(i64, 32)), i32);
  Value* seed = b.CreateSub(llvm::ConstantInt::get(i32, math::recipes::kRcbrtOffset),
                            b.CreateUDiv(high, llvm::ConstantInt::get(i32, 3)));
  return {b.CreateBitCast(b.CreateShl(b.CreateZExt(seed, i64), llvm::ConstantInt::get(i64, 32)), d.v->getType()), &b};
}

bool is_f32(Lanes x) { return x.v->getType()->getScalarType()->isFloatTy(); }
Lanes pow2i(Lanes n) { return is_f32(n) ? pow2i_in<float>(n) : pow2i_in<double>(n); }
math::recipes::Split<Lanes> split(Lanes d) { return is_f32(d) ? split_in<float>(d) : split_in<double>(d); }
math::recipes::Pow2Halves<Lanes> pow2_halves(Lanes n) {
  return is_f32(n) ? pow2_halves_in<float>(n) : pow2_halves_in<double>(n);
}
Lanes cbrt_seed(Lanes d) { return cbrt_seed_in<float>(d); }  // the f32 recipes' only

}  // namespace

Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  llvm::Type* scalar = x->getType()->getScalarType();
  if (!scalar->isFloatTy() && !scalar->isDoubleTy()) return nullptr;
  const auto recipe = math::recipes::recipe_for(name, y ? 2 : 1, scalar->isFloatTy() ? DType::f32 : DType::f64);
  if (!recipe) return nullptr;
  const Lanes lx{x, &b};
  return (y ? math::recipes::run(*recipe, lx, Lanes{y, &b}) : math::recipes::run(*recipe, lx)).v;
}

}  // namespace bcast::jit
