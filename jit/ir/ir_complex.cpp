// Complex values in IR (NOTE: [Complex in IR]): complex_ops.h's arithmetic on
// pairs of parts.
#include "ir/ir_complex.h"

#include <llvm/IR/Intrinsics.h>

#include <limits>
#include <stdexcept>
#include <vector>

#include "bcast/expr.h"
#include "bcast/ops.h"
#include "complex_math.h"
#include "function_table.h"
#include "ir/ir_dtypes.h"
#include "ir/rare_lanes.h"
#include "ir/ir_nodes.h"
#include "ir/math_calls.h"
#include "ir/recipe_lanes.h"

namespace bcast::jit {
namespace {

using llvm::Value;

// A complex value's parts as recipe lanes, and back.
math::recipes::Parts<Lanes> lanes_of(llvm::IRBuilder<>& b, Parts x) { return {{x.re, &b}, {x.im, &b}}; }
Parts values_of(math::recipes::Parts<Lanes> x) { return {x.re.v, x.im.v}; }

// Helpers on parts; `like` gives a constant the shape of a part.
class ComplexIR {
 public:
  explicit ComplexIR(llvm::IRBuilder<>& b) : b_(b) {}

  Value* constant(Value* like, double v) { return llvm::ConstantFP::get(like->getType(), v); }
  Value* fabs(Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }
  Value* select(Value* c, Value* x, Value* y) { return b_.CreateSelect(c, x, y); }
  Parts select(Value* c, Parts x, Parts y) { return {select(c, x.re, y.re), select(c, x.im, y.im)}; }
  Value* any(Value* x, Value* y) { return b_.CreateOr(x, y); }
  Value* all(Value* x, Value* y) { return b_.CreateAnd(x, y); }
  Value* is_nan(Value* x) { return b_.CreateFCmpUNO(x, x); }
  Value* is_inf(Value* x) { return b_.CreateFCmpOEQ(fabs(x), llvm::ConstantFP::getInfinity(x->getType())); }

  // complex_math.h's product, quotient and reciprocal (NOTE: [Complex
  // arithmetic]), on the parts as recipe lanes.
  Parts mul(Parts a, Parts c) { return values_of(math::recipes::mul(lanes_of(b_, a), lanes_of(b_, c))); }
  Parts div(Parts a, Parts c) { return values_of(math::recipes::div(lanes_of(b_, a), lanes_of(b_, c))); }
  Parts reciprocal(Parts x) { return values_of(math::recipes::reciprocal(lanes_of(b_, x))); }

  // complex_ops::ordered<greater, strict>: lexicographic.
  Value* ordered(bool greater, bool strict, Parts a, Parts c) {
    Value* first = greater ? b_.CreateFCmpOGT(a.re, c.re) : b_.CreateFCmpOLT(a.re, c.re);
    Value* second = strict ? (greater ? b_.CreateFCmpOGT(a.im, c.im) : b_.CreateFCmpOLT(a.im, c.im))
                           : (greater ? b_.CreateFCmpOGE(a.im, c.im) : b_.CreateFCmpOLE(a.im, c.im));
    Value* parts_ordered = b_.CreateFCmpORD(a.im, c.im);  // neither imaginary part NaN
    return any(all(first, parts_ordered), all(b_.CreateFCmpOEQ(a.re, c.re), second));
  }

  Value* has_nan(Parts x) { return any(is_nan(x.re), is_nan(x.im)); }
  Value* nonzero(Parts x) {
    return any(b_.CreateFCmpUNE(x.re, constant(x.re, 0.0)), b_.CreateFCmpUNE(x.im, constant(x.im, 0.0)));
  }
  // complex_ops::magnitude: c64 through f64, c128 the math library's hypot.
  Value* magnitude(Parts x) {
    if (!x.re->getType()->getScalarType()->isFloatTy()) return emit_math_call(b_, "hypot", x.re, x.im);
    llvm::Type* wide = shaped_like(x.re, b_.getDoubleTy());
    Value *r = b_.CreateFPExt(x.re, wide), *i = b_.CreateFPExt(x.im, wide);
    Value* sum = b_.CreateFAdd(b_.CreateFMul(r, r), b_.CreateFMul(i, i));
    Value* m = b_.CreateFPTrunc(b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, sum), x.re->getType());
    m = select(is_nan(m), b_.CreateFAdd(x.re, x.im), m);
    return select(any(is_inf(x.re), is_inf(x.im)), llvm::ConstantFP::getInfinity(x.re->getType()), m);
  }

  // complex_ops::sign: z / |z|, with its special cases as selects.
  Parts sign(Parts x) {
    Value *r = x.re, *i = x.im, *m = magnitude(x);
    Value *nan = constant(r, std::numeric_limits<double>::quiet_NaN()), *zero = constant(r, 0.0);
    auto unit = [&](Value* v) { return select(b_.CreateFCmpOGT(v, zero), constant(v, 1.0), constant(v, -1.0)); };
    const Parts infinite = select(all(is_inf(r), is_inf(i)), Parts{nan, nan},
                                  select(is_inf(r), Parts{unit(r), zero}, Parts{zero, unit(i)}));
    const Parts finite = select(b_.CreateFCmpOEQ(m, zero), Parts{zero, zero},
                                Parts{b_.CreateFDiv(r, m), b_.CreateFDiv(i, m)});
    return select(is_nan(m), Parts{nan, nan}, select(is_inf(m), infinite, finite));
  }

 private:
  llvm::IRBuilder<>& b_;
};

// NOTE: [Complex math]'s real functions in a kernel: the calls the real
// kernels make, on f64 lanes.
struct KernelTier {
  template <UnaryOp U>
  static Lanes unary(Lanes x) {
    return {emit_math_call(*x.b, detail::row(U).math, x.v), x.b};
  }
  template <Op O>
  static Lanes binary(Lanes x, Lanes y) {
    return {emit_math_call(*x.b, detail::row(O).math, x.v, y.v), x.b};
  }
  template <UnaryOp U>
  static Lanes beyond(Lanes x, double limit, Lanes main) {
    return {emit_beyond(*x.b, detail::row(U).math, x.v, limit, main.v), x.b};
  }
};
using R = math::recipes::Real<KernelTier>;
using RPairs = math::recipes::RealPairs<KernelTier>;  // a c128's (NOTE: [Two-part math])

bool is_c64(Parts x) { return x.re->getType()->getScalarType()->isFloatTy(); }

// A recipe's argument: x's parts in f64 lanes (a c64's widened); and its
// result rounded back to `like`'s part type (a c64's once, to f32).
math::recipes::Parts<Lanes> in_f64(llvm::IRBuilder<>& b, Parts x) {
  math::recipes::Parts<Lanes> r = lanes_of(b, x);
  if (!is_f32(r.re)) return r;
  return {widen(r.re), widen(r.im)};
}
Parts rounded_like(Parts like, math::recipes::Parts<Lanes> r) {
  if (is_c64(like)) r = {narrow(r.re), narrow(r.im)};
  return values_of(r);
}

template <UnaryOp U>
Parts complex_recipe(llvm::IRBuilder<>& b, Parts x) {
  return rounded_like(x, is_c64(x) ? math::recipes::run_complex<U, R>(in_f64(b, x))
                                   : math::recipes::run_complex<U, RPairs>(in_f64(b, x)));
}
Parts power_recipe(llvm::IRBuilder<>& b, Parts z, Parts w) {
  return rounded_like(z, is_c64(z) ? math::recipes::power<R>(in_f64(b, z), in_f64(b, w))
                                   : math::recipes::power<RPairs>(in_f64(b, z), in_f64(b, w)));
}

Parts binary(llvm::IRBuilder<>& b, Op op, Parts x, Parts y) {
  ComplexIR c(b);
  switch (op) {
    case Op::add: return {b.CreateFAdd(x.re, y.re), b.CreateFAdd(x.im, y.im)};
    case Op::sub: return {b.CreateFSub(x.re, y.re), b.CreateFSub(x.im, y.im)};
    case Op::mul: return c.mul(x, y);
    case Op::div: return c.div(x, y);
    case Op::eq: return {c.all(b.CreateFCmpOEQ(x.re, y.re), b.CreateFCmpOEQ(x.im, y.im))};
    case Op::ne: return {c.any(b.CreateFCmpUNE(x.re, y.re), b.CreateFCmpUNE(x.im, y.im))};
    case Op::lt: return {c.ordered(false, true, x, y)};
    case Op::le: return {c.ordered(false, false, x, y)};
    case Op::gt: return {c.ordered(true, true, x, y)};
    case Op::ge: return {c.ordered(true, false, x, y)};
    case Op::logical_and: return {c.all(c.nonzero(x), c.nonzero(y))};
    case Op::logical_or: return {c.any(c.nonzero(x), c.nonzero(y))};
    case Op::logical_xor: return {b.CreateXor(c.nonzero(x), c.nonzero(y))};
    case Op::max: return c.select(c.any(c.has_nan(x), c.ordered(true, false, x, y)), x, y);
    case Op::min: return c.select(c.any(c.has_nan(x), c.ordered(false, false, x, y)), x, y);
    case Op::fmax: return c.select(c.any(c.has_nan(y), c.ordered(true, false, x, y)), x, y);
    case Op::fmin: return c.select(c.any(c.has_nan(y), c.ordered(false, false, x, y)), x, y);
    case Op::complex: return {x.re, y.re};  // two real operands: the parts as they are
    case Op::pow:
    case Op::float_power: return power_recipe(b, x, y);
    default: return {};
  }
}

Parts unary(llvm::IRBuilder<>& b, UnaryOp op, Parts x) {
  ComplexIR c(b);
  switch (op) {
    case UnaryOp::positive:
    case UnaryOp::copy: return x;
    case UnaryOp::neg: return {b.CreateFNeg(x.re), b.CreateFNeg(x.im)};
    case UnaryOp::conj: return {x.re, b.CreateFNeg(x.im)};
    case UnaryOp::real: return {x.re};
    case UnaryOp::imag: return {x.im};
    case UnaryOp::abs: return {c.magnitude(x)};
    case UnaryOp::ones_like: return {c.constant(x.re, 1.0), c.constant(x.im, 0.0)};
    case UnaryOp::square: return c.mul(x, x);
    case UnaryOp::reciprocal: return c.reciprocal(x);
    case UnaryOp::sign: return c.sign(x);
    case UnaryOp::round:
      return {b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x.re),
              b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x.im)};
    case UnaryOp::logical_not: return {b.CreateNot(c.nonzero(x))};
    case UnaryOp::isnan: return {c.has_nan(x)};
    case UnaryOp::isinf: return {c.any(c.is_inf(x.re), c.is_inf(x.im))};
    case UnaryOp::isfinite: {
      Value* inf = llvm::ConstantFP::getInfinity(x.re->getType());
      return {c.all(b.CreateFCmpOLT(c.fabs(x.re), inf), b.CreateFCmpOLT(c.fabs(x.im), inf))};
    }
#define BCAST_RECIPE_CASE(name) \
  case UnaryOp::name:            \
    return complex_recipe<UnaryOp::name>(b, x);
      BCAST_FOR_EACH_COMPLEX_RECIPE(BCAST_RECIPE_CASE)
#undef BCAST_RECIPE_CASE
    default: return {};
  }
}

// node_ops.h's CastElement with a complex end: a real value becomes the real
// part (one rounding), a complex one keeps its real part for a real dtype and
// its truth (either part nonzero) for bool.
Parts cast(llvm::IRBuilder<>& b, DType from, DType to, Parts x) {
  const DType from_part = real_part_dtype(from), to_part = real_part_dtype(to);
  if (is_complex(from) && is_complex(to)) return {emit_cast(b, from_part, to_part, x.re), emit_cast(b, from_part, to_part, x.im)};
  if (is_complex(to)) {
    Value* re = emit_cast(b, from, to_part, x.re);
    return {re, llvm::ConstantFP::get(re->getType(), 0.0)};
  }
  if (to == DType::boolean) return {ComplexIR(b).nonzero(x)};
  return {emit_cast(b, from_part, to, x.re)};
}

bool has_binary_ir(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::eq: case Op::ne: case Op::lt: case Op::le:
    case Op::gt: case Op::ge: case Op::logical_and: case Op::logical_or: case Op::logical_xor: case Op::max:
    case Op::min: case Op::fmax: case Op::fmin: case Op::complex: case Op::pow: case Op::float_power:
      return true;
    default: return false;
  }
}

bool has_unary_ir(UnaryOp op) {
  switch (op) {
    case UnaryOp::positive: case UnaryOp::copy: case UnaryOp::neg: case UnaryOp::conj: case UnaryOp::real:
    case UnaryOp::imag: case UnaryOp::abs: case UnaryOp::ones_like: case UnaryOp::square: case UnaryOp::reciprocal:
    case UnaryOp::sign: case UnaryOp::round: case UnaryOp::logical_not: case UnaryOp::isnan: case UnaryOp::isinf:
    case UnaryOp::isfinite:
      return true;
    default: return math::recipes::has_complex_recipe(op);
  }
}

llvm::Type* part_type(llvm::IRBuilder<>& b, DType dtype) { return compute_type(b.getContext(), dtype); }

}  // namespace

bool has_complex_ir(const ExprInstr& s) {
  switch (s.kind) {
    case InstrKind::binary: return has_binary_ir(static_cast<Op>(s.code));
    case InstrKind::unary: return has_unary_ir(static_cast<UnaryOp>(s.code));
    case InstrKind::cast: return true;
    case InstrKind::ternary: return static_cast<TernaryOp>(s.code) == TernaryOp::where;
  }
  return false;
}

Parts emit_complex_instr(llvm::IRBuilder<>& b, const ExprInstr& s, const Parts* args) {
  Parts v;
  switch (s.kind) {
    case InstrKind::binary: v = binary(b, static_cast<Op>(s.code), args[0], args[1]); break;
    case InstrKind::unary: v = unary(b, static_cast<UnaryOp>(s.code), args[0]); break;
    case InstrKind::cast: v = cast(b, s.in, s.out, args[0]); break;
    case InstrKind::ternary:
      if (static_cast<TernaryOp>(s.code) == TernaryOp::where) v = ComplexIR(b).select(args[0].re, args[1], args[2]);
      break;
  }
  // A failed compile, which the call survives on the reference executor.
  if (v.re == nullptr) throw std::logic_error("the JIT has no complex IR for this instruction (has_complex_ir)");
  return v;
}

Parts splat_parts(llvm::IRBuilder<>& b, unsigned lanes, Parts x) {
  return {b.CreateVectorSplat(lanes, x.re), x.im ? b.CreateVectorSplat(lanes, x.im) : nullptr};
}

Parts load_complex(llvm::IRBuilder<>& b, DType dtype, Value* address) {
  llvm::Type* pair = storage_type(b.getContext(), dtype);
  llvm::Type* part = part_type(b, dtype);
  return {b.CreateLoad(part, b.CreateConstInBoundsGEP2_32(pair, address, 0, 0), "re"),
          b.CreateLoad(part, b.CreateConstInBoundsGEP2_32(pair, address, 0, 1), "im")};
}

void store_complex(llvm::IRBuilder<>& b, DType dtype, Parts value, Value* address) {
  llvm::Type* pair = storage_type(b.getContext(), dtype);
  b.CreateStore(value.re, b.CreateConstInBoundsGEP2_32(pair, address, 0, 0));
  b.CreateStore(value.im, b.CreateConstInBoundsGEP2_32(pair, address, 0, 1));
}

Parts load_complex_vector(llvm::IRBuilder<>& b, DType dtype, Value* address, unsigned lanes) {
  llvm::Type* part = part_type(b, dtype);
  const llvm::Align align(part->getPrimitiveSizeInBits() / 8);
  Value* both = b.CreateAlignedLoad(llvm::FixedVectorType::get(part, 2 * lanes), address, align, "pairs");
  std::vector<int> even, odd;
  for (unsigned i = 0; i < lanes; ++i) {
    even.push_back(static_cast<int>(2 * i));
    odd.push_back(static_cast<int>(2 * i + 1));
  }
  return {b.CreateShuffleVector(both, even, "re"), b.CreateShuffleVector(both, odd, "im")};
}

llvm::StoreInst* store_complex_vector(llvm::IRBuilder<>& b, DType dtype, Parts value, Value* address) {
  llvm::Type* part = part_type(b, dtype);
  const auto lanes = static_cast<unsigned>(llvm::cast<llvm::FixedVectorType>(value.re->getType())->getNumElements());
  std::vector<int> interleave;
  for (unsigned i = 0; i < lanes; ++i) {
    interleave.push_back(static_cast<int>(i));
    interleave.push_back(static_cast<int>(lanes + i));
  }
  return b.CreateAlignedStore(b.CreateShuffleVector(value.re, value.im, interleave), address,
                              llvm::Align(part->getPrimitiveSizeInBits() / 8));
}

}  // namespace bcast::jit
