// The lanes NOTE: [Math recipes]' recipes compute on in a kernel: an LLVM
// value (f32 or f64, a scalar or a vector) with its builder, and the
// operators and helpers a recipe calls, each one IEEE operation with no
// fast-math flags, so the kernel computes what the reference evaluator's
// doubles do (src/core/math_lanes.h has those). Read by math_recipes_ir.cpp
// and ir_complex.cpp (NOTE: [Complex math]).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <bit>

#include "ir/math_calls.h"
#include "math_lanes.h"

namespace bcast::jit {

// A value of the kernel (f32 or f64, a scalar or a vector) and its builder.
struct Lanes {
  llvm::Value* v;
  llvm::IRBuilder<>* b;
};

// A comparison's result, lane by lane.
struct Mask {
  llvm::Value* v;
  llvm::IRBuilder<>* b;
};

inline Lanes splat(Lanes like, double value) { return {llvm::ConstantFP::get(like.v->getType(), value), like.b}; }

inline Lanes operator+(Lanes x, Lanes y) { return {x.b->CreateFAdd(x.v, y.v), x.b}; }
inline Lanes operator-(Lanes x, Lanes y) { return {x.b->CreateFSub(x.v, y.v), x.b}; }
inline Lanes operator*(Lanes x, Lanes y) { return {x.b->CreateFMul(x.v, y.v), x.b}; }
inline Lanes operator/(Lanes x, Lanes y) { return {x.b->CreateFDiv(x.v, y.v), x.b}; }
inline Lanes operator-(Lanes x) { return {x.b->CreateFNeg(x.v), x.b}; }
inline Lanes operator+(Lanes x, double c) { return x + splat(x, c); }
inline Lanes operator-(Lanes x, double c) { return x - splat(x, c); }
inline Lanes operator*(Lanes x, double c) { return x * splat(x, c); }
inline Lanes operator+(double c, Lanes x) { return splat(x, c) + x; }
inline Lanes operator-(double c, Lanes x) { return splat(x, c) - x; }
inline Lanes operator*(double c, Lanes x) { return splat(x, c) * x; }

// Ordered comparisons, but != (true for NaN), as C++'s on doubles.
inline Mask operator<(Lanes x, Lanes y) { return {x.b->CreateFCmpOLT(x.v, y.v), x.b}; }
inline Mask operator>(Lanes x, Lanes y) { return {x.b->CreateFCmpOGT(x.v, y.v), x.b}; }
inline Mask operator>=(Lanes x, Lanes y) { return {x.b->CreateFCmpOGE(x.v, y.v), x.b}; }
inline Mask operator<=(Lanes x, Lanes y) { return {x.b->CreateFCmpOLE(x.v, y.v), x.b}; }
inline Mask operator==(Lanes x, Lanes y) { return {x.b->CreateFCmpOEQ(x.v, y.v), x.b}; }
inline Mask operator!=(Lanes x, Lanes y) { return {x.b->CreateFCmpUNE(x.v, y.v), x.b}; }
inline Mask operator<(Lanes x, double c) { return x < splat(x, c); }
inline Mask operator>(Lanes x, double c) { return x > splat(x, c); }
inline Mask operator==(Lanes x, double c) { return x == splat(x, c); }
inline Mask operator!=(Lanes x, double c) { return x != splat(x, c); }
inline Mask operator&&(Mask p, Mask q) { return {p.b->CreateAnd(p.v, q.v), p.b}; }
inline Mask operator||(Mask p, Mask q) { return {p.b->CreateOr(p.v, q.v), p.b}; }
inline Mask operator!(Mask p) { return {p.b->CreateNot(p.v), p.b}; }

inline Lanes select(Mask m, Lanes x, Lanes y) { return {m.b->CreateSelect(m.v, x.v, y.v), m.b}; }
inline Lanes fabs(Lanes x) { return {x.b->CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.v), x.b}; }
inline Lanes copysign(Lanes x, Lanes s) {
  return {x.b->CreateBinaryIntrinsic(llvm::Intrinsic::copysign, x.v, s.v), x.b};
}
inline Lanes sqrt(Lanes x) { return {x.b->CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x.v), x.b}; }
inline Lanes fma(Lanes x, Lanes y, Lanes z) {
  return {x.b->CreateIntrinsic(llvm::Intrinsic::fma, {x.v->getType()}, {x.v, y.v, z.v}), x.b};
}

inline llvm::Type* with_scalar(llvm::Value* like, llvm::Type* scalar) {
  return like->getType()->getWithNewType(scalar);
}
inline Lanes library_function(std::string_view name, Lanes x) {
  return {emit_library_function(*x.b, name, x.v), x.b};
}
inline Lanes widen(Lanes x) { return {x.b->CreateFPExt(x.v, with_scalar(x.v, x.b->getDoubleTy())), x.b}; }
inline Lanes narrow(Lanes x) { return {x.b->CreateFPTrunc(x.v, with_scalar(x.v, x.b->getFloatTy())), x.b}; }

// The steps on bits of math_lanes.h, on the lanes' format F.
template <class F>
llvm::Type* bits_type_of(Lanes like) {  // the lanes' integers of F's width
  return with_scalar(like.v, like.b->getIntNTy(sizeof(F) * 8));
}
template <class F>
llvm::Value* bits_constant(Lanes like, typename math::recipes::Format<F>::Bits v) {
  return llvm::ConstantInt::get(bits_type_of<F>(like), v);
}

// math_lanes.h's scale_of: 2**e from the integer e in the low bits.
template <class F>
Lanes scale_of_in(Lanes like, llvm::Value* bits) {
  using Fmt = math::recipes::Format<F>;
  llvm::IRBuilder<>& b = *like.b;
  llvm::Value* r =
      b.CreateShl(b.CreateAdd(bits, bits_constant<F>(like, Fmt::kBias)), bits_constant<F>(like, Fmt::kMantissa));
  return {b.CreateBitCast(r, like.v->getType()), &b};
}

template <class F>
Lanes pow2i_rounded_in(Lanes t) {
  return scale_of_in<F>(t, t.b->CreateBitCast(t.v, bits_type_of<F>(t)));
}

template <class F>
Lanes pow2i_in(Lanes n) {
  return pow2i_rounded_in<F>(n + static_cast<double>(math::recipes::Format<F>::kRound));
}

template <class F>
math::recipes::Pow2Halves<Lanes> pow2_halves_in(Lanes n) {
  using Fmt = math::recipes::Format<F>;
  using Bits = typename Fmt::Bits;
  llvm::IRBuilder<>& b = *n.b;
  llvm::Type* bits_type = bits_type_of<F>(n);
  llvm::Value* i = b.CreateSub(b.CreateBitCast((n + static_cast<double>(Fmt::kRound)).v, bits_type),
                               bits_constant<F>(n, std::bit_cast<Bits>(Fmt::kRound)));
  llvm::Value* h = b.CreateAShr(i, bits_constant<F>(n, 1));
  return {scale_of_in<F>(n, h), scale_of_in<F>(n, b.CreateSub(i, h))};
}

template <class F>
Lanes negated_where_bit_in(Lanes v, Lanes t, int bit) {
  llvm::IRBuilder<>& b = *t.b;
  llvm::Type* bits_type = bits_type_of<F>(t);
  llvm::Value* bits = b.CreateLShr(b.CreateBitCast(t.v, bits_type), bits_constant<F>(t, bit));
  llvm::Value* sign = b.CreateShl(bits, bits_constant<F>(t, sizeof(F) * 8 - 1));
  return {b.CreateBitCast(b.CreateXor(b.CreateBitCast(v.v, bits_type), sign), v.v->getType()), &b};
}

template <class F>
Mask is_odd_in(Lanes t) {
  llvm::IRBuilder<>& b = *t.b;
  llvm::Value* low = b.CreateAnd(b.CreateBitCast(t.v, bits_type_of<F>(t)), bits_constant<F>(t, 1));
  return {b.CreateICmpNE(low, bits_constant<F>(t, 0)), &b};
}

template <class F>
math::recipes::Split<Lanes> split_in(Lanes d) {
  using Fmt = math::recipes::Format<F>;
  using Bits = typename Fmt::Bits;
  llvm::IRBuilder<>& b = *d.b;
  llvm::Type* bits_type = bits_type_of<F>(d);
  auto to_lanes = [&](llvm::Value* bits) { return Lanes{b.CreateBitCast(bits, d.v->getType()), &b}; };
  llvm::Value* u = b.CreateSub(b.CreateBitCast(d.v, bits_type), bits_constant<F>(d, Fmt::kSqrtHalf));
  llvm::Value* k = b.CreateAShr(u, bits_constant<F>(d, Fmt::kMantissa));
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
  llvm::Type* bits_type = bits_type_of<F>(d);
  llvm::Value* third = b.CreateUDiv(b.CreateBitCast(d.v, bits_type), bits_constant<F>(d, 3));
  return {b.CreateBitCast(b.CreateAdd(third, bits_constant<F>(d, Fmt::kCbrtOffset)), d.v->getType()), &b};
}

inline Lanes rcbrt_seed(Lanes d) {  // the f64 recipes' only
  llvm::IRBuilder<>& b = *d.b;
  llvm::Type* i64 = with_scalar(d.v, b.getInt64Ty());
  llvm::Type* i32 = with_scalar(d.v, b.getInt32Ty());
  llvm::Value* high = b.CreateTrunc(b.CreateLShr(b.CreateBitCast(d.v, i64), llvm::ConstantInt::get(i64, 32)), i32);
  llvm::Value* seed = b.CreateSub(llvm::ConstantInt::get(i32, math::recipes::kRcbrtOffset),
                                  b.CreateUDiv(high, llvm::ConstantInt::get(i32, 3)));
  return {b.CreateBitCast(b.CreateShl(b.CreateZExt(seed, i64), llvm::ConstantInt::get(i64, 32)), d.v->getType()), &b};
}

inline bool is_f32(Lanes x) { return x.v->getType()->getScalarType()->isFloatTy(); }
inline Lanes pow2i(Lanes n) { return is_f32(n) ? pow2i_in<float>(n) : pow2i_in<double>(n); }
inline Lanes pow2i_rounded(Lanes t) { return is_f32(t) ? pow2i_rounded_in<float>(t) : pow2i_rounded_in<double>(t); }
inline math::recipes::Split<Lanes> split(Lanes d) { return is_f32(d) ? split_in<float>(d) : split_in<double>(d); }
inline math::recipes::Pow2Halves<Lanes> pow2_halves(Lanes n) {
  return is_f32(n) ? pow2_halves_in<float>(n) : pow2_halves_in<double>(n);
}
inline Lanes negated_where_bit(Lanes v, Lanes t, int bit) {
  return is_f32(t) ? negated_where_bit_in<float>(v, t, bit) : negated_where_bit_in<double>(v, t, bit);
}
inline Lanes negated_where_odd(Lanes v, Lanes t) { return negated_where_bit(v, t, 0); }
inline Mask is_odd(Lanes t) { return is_f32(t) ? is_odd_in<float>(t) : is_odd_in<double>(t); }
inline Lanes cbrt_seed(Lanes d) { return cbrt_seed_in<float>(d); }  // the f32 recipes' only

}  // namespace bcast::jit
