// Math calls with vector variants (math_calls.h, NOTE: [Vector math]).
#include "ir/math_calls.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ir/ir_helpers.h"
#include "ir/math_recipes_ir.h"
#include "ir/rare_lanes.h"
#include "math_guards.h"
#include "math_library.h"
#include "target/codegen_target.h"

namespace bcast::jit {
namespace {

using llvm::Value;

// A library function that only computes: LLVM may hoist, drop or widen it.
llvm::Function* declare_pure(llvm::Module& module, const std::string& symbol, llvm::Type* type, int arity) {
  if (llvm::Function* existing = module.getFunction(symbol)) return existing;
  std::vector<llvm::Type*> params(static_cast<std::size_t>(arity), type);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(type, params, false), llvm::Function::ExternalLinkage,
                                    symbol, module);
  mark_pure(*fn);
  return fn;
}

// A vector build the kernel may call: its lanes and its declaration.
struct Variant {
  unsigned lanes;
  llvm::Function* fn;
};

// The vector builds of `name` the kernel's target can call, widest first:
// those of the library's flavour only (NOTE: [Vector math]), so that a lane's
// bits are the scalar function's.
std::vector<Variant> variants_for(llvm::Function& kernel, std::string_view name, llvm::Type* scalar, int arity) {
  const math::Flavour flavour = math::library().flavour;
  if (flavour == math::Flavour::libm) return {};
  llvm::Module& module = *kernel.getParent();
  const std::string features = kernel.getFnAttribute("target-features").getValueAsString().str();
  const CodegenTarget& target = codegen_target(llvm::Triple(module.getTargetTriple()));
  const bool f64 = scalar->isDoubleTy();
  // A kernel held to narrower registers (begin_kernel's minimum legal width,
  // NOTE: [Memory-bound vector width]) passes no wider vector to a call: a
  // 512-bit argument would travel in two 256-bit registers where the
  // library's AVX-512 build reads one (wrong lanes, never an error).
  unsigned widest = ~0u;
  if (kernel.hasFnAttribute("min-legal-vector-width"))
    kernel.getFnAttribute("prefer-vector-width").getValueAsString().getAsInteger(10, widest);
  std::vector<Variant> variants;
  for (const VectorAbiIsa& isa : target.vector_abi_isas(features)) {
    if (isa.fma != (flavour == math::Flavour::sleef_purecfma)) continue;
    if (static_cast<unsigned>(isa.bits) > widest) continue;
    const auto lanes = static_cast<unsigned>(static_cast<unsigned>(isa.bits) / scalar->getPrimitiveSizeInBits());
    const std::string symbol = math::vector_symbol(name, f64, isa.letter, static_cast<int>(lanes), arity);
    if (symbol.empty()) continue;
    const bool known = module.getFunction(symbol) != nullptr;
    llvm::Function* fn = declare_pure(module, symbol, llvm::FixedVectorType::get(scalar, lanes), arity);
    // Kept through the pipeline's dead-global passes until the vectoriser
    // has used it (O3 runs globaldce first).
    if (!known) llvm::appendToCompilerUsed(module, {fn});
    variants.push_back({lanes, fn});
  }
  return variants;
}

// "_ZGV_LLVM_N16v_<scalar>(_ZGVeN16v_expf),...": the attribute the loop
// vectoriser reads to call `variants` in place of the scalar function.
std::string abi_variant_list(const std::vector<Variant>& variants, const std::string& scalar, int arity) {
  std::string list;
  for (const Variant& v : variants)
    list += (list.empty() ? "" : ",") + ("_ZGV_LLVM_N" + std::to_string(v.lanes)) + std::string(arity, 'v') + "_" +
            scalar + "(" + v.fn->getName().str() + ")";
  return list;
}

// An explicit vector of `lanes` lanes: the widest variant whose width divides
// it, called on each slice, or null to go lane by lane.
Value* call_on_slices(llvm::IRBuilder<>& b, const std::vector<Variant>& variants, unsigned lanes, Value* x, Value* y) {
  for (const Variant& v : variants) {
    if (lanes % v.lanes != 0) continue;
    std::vector<Value*> parts;
    for (unsigned start = 0; start < lanes; start += v.lanes) {
      std::vector<int> slice;
      for (unsigned i = 0; i < v.lanes; ++i) slice.push_back(static_cast<int>(start + i));
      std::vector<Value*> args{b.CreateShuffleVector(x, slice)};
      if (y) args.push_back(b.CreateShuffleVector(y, slice));
      parts.push_back(b.CreateCall(v.fn, args));
    }
    return llvm::concatenateVectors(b, parts);
  }
  return nullptr;
}

// The library's function, no guard.
Value* emit_library_call(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Type* scalar = x->getType()->getScalarType();
  const int arity = y ? 2 : 1;
  const std::string symbol = math::scalar_symbol(name, scalar->isDoubleTy());
  llvm::Function* fn = declare_pure(*kernel->getParent(), symbol, scalar, arity);
  const std::vector<Variant> variants = variants_for(*kernel, name, scalar, arity);
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (vector) {
    if (Value* r = call_on_slices(b, variants, vector->getNumElements(), x, y)) return r;
  }
  const std::string list = abi_variant_list(variants, symbol, arity);
  auto call = [&](Value* u, Value* v) -> Value* {
    llvm::CallInst* c = v ? b.CreateCall(fn, {u, v}) : b.CreateCall(fn, {u});
    if (!list.empty()) c->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant", list));
    return c;
  };
  if (!vector) return call(x, y);
  Value* out = llvm::PoisonValue::get(vector);
  for (unsigned i = 0; i < vector->getNumElements(); ++i)
    out = b.CreateInsertElement(out, call(b.CreateExtractElement(x, i), y ? b.CreateExtractElement(y, i) : nullptr), i);
  return out;
}

// math::polished_cbrt: one Newton step on y**3 = x.
Value* emit_polished_cbrt(llvm::IRBuilder<>& b, Value* y, Value* x) {
  llvm::Type* type = y->getType();
  auto fma = [&](Value* p, Value* q, Value* r) { return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {p, q, r}); };
  Value* square = b.CreateFMul(y, y);
  Value* square_error = fma(y, y, b.CreateFNeg(square));
  Value* residual = fma(square_error, y, fma(square, y, b.CreateFNeg(x)));
  Value* polished = b.CreateFSub(y, b.CreateFDiv(residual, b.CreateFMul(llvm::ConstantFP::get(type, 3.0), square)));
  Value* finite_nonzero = b.CreateAnd(b.CreateFCmpONE(y, llvm::ConstantFP::get(type, 0.0)),
                                      b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y),
                                                      llvm::ConstantFP::getInfinity(type)));
  return b.CreateSelect(finite_nonzero, polished, y);
}

// math::guarded's steps (NOTE: [Math guards]) in IR, in the precision of T.
template <class T>
Value* emit_guarded(llvm::IRBuilder<>& b, std::string_view name, Value* x) {
  using C = math::GuardConstants<T>;
  const math::Guard g = math::guard_of(name);
  llvm::Type* type = x->getType();
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  auto copysign = [&](Value* v, Value* sign) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, v, sign); };
  Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  Value* argument = x;
  std::function<Value*(Value*)> finish = [](Value* r) { return r; };
  Value* taken = nullptr;  // the lanes whose guard changes the argument and the result
  if (g.log_scale) {
    llvm::Type* bits_type = b.getIntNTy(sizeof(T) * 8);
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(type)) bits_type = llvm::VectorType::get(bits_type, v);
    auto integer = [&](std::int64_t v) { return llvm::ConstantInt::get(bits_type, static_cast<std::uint64_t>(v)); };
    const std::int64_t exponent_mask = (std::int64_t{1} << (sizeof(T) * 8 - 1 - C::kMantissa)) - 1;
    Value* exponent = b.CreateSub(b.CreateAnd(b.CreateLShr(b.CreateBitCast(x, bits_type), integer(C::kMantissa)),
                                              integer(exponent_mask)),
                                  integer(C::kBias));
    taken = b.CreateICmpSGE(exponent, integer(C::kScaleAbove));
    Value* k = b.CreateSub(exponent, integer(C::kScaleTo));
    Value* down = b.CreateBitCast(b.CreateShl(b.CreateSub(integer(C::kBias), k), integer(C::kMantissa)), type);
    argument = b.CreateSelect(taken, b.CreateFMul(x, down), x);
    Value* kf = b.CreateSIToFP(k, type);
    finish = [&, kf, x](Value* r) {
      return b.CreateFAdd(b.CreateFAdd(r, copysign(b.CreateFMul(kf, constant(C::kLn2Lo)), x)),
                          copysign(b.CreateFMul(kf, constant(C::kLn2Hi)), x));
    };
  } else if (g.exp_shift && (g.exp_shift_f32 || std::is_same_v<T, double>)) {
    taken = b.CreateFCmpOGT(g.positive_only ? x : magnitude, constant(C::kShiftAbove));
    argument = b.CreateSelect(taken, b.CreateFSub(x, copysign(constant(1.0), x)), x);
    finish = [&](Value* r) {
      return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {r, constant(C::kEHi), b.CreateFMul(r, constant(C::kELo))});
    };
  }
  Value* r = emit_library_call(b, name, argument, nullptr);
  if (taken) r = b.CreateSelect(taken, finish(r), r);
  if (g.newton_f64 && std::is_same_v<T, double>) r = emit_polished_cbrt(b, r, x);
  if (g.tiny) r = b.CreateSelect(b.CreateFCmpOLT(magnitude, constant(std::numeric_limits<T>::min())), x, r);
  return r;
}

// math::guarded_pow's steps.
Value* emit_guarded_pow(llvm::IRBuilder<>& b, Value* x, Value* y) {
  llvm::Type* type = x->getType();
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  Value* r = emit_math_recipe(b, "pow", x, y);
  if (!r && type->getScalarType()->isDoubleTy()) {  // the library's pow gives up early near overflow
    using C = math::GuardConstants<double>;
    llvm::Type* bits_type = type->getWithNewType(b.getInt64Ty());
    Value* exponent = b.CreateSub(
        b.CreateAnd(b.CreateLShr(b.CreateBitCast(x, bits_type), llvm::ConstantInt::get(bits_type, C::kMantissa)),
                    llvm::ConstantInt::get(bits_type, 0x7ff)),
        llvm::ConstantInt::get(bits_type, C::kBias));
    Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    Value* taken = b.CreateAnd(b.CreateFCmpOGT(b.CreateFMul(y, b.CreateSIToFP(exponent, type)), constant(1000.0)),
                               b.CreateFCmpOLT(magnitude, llvm::ConstantFP::getInfinity(type)));
    taken = b.CreateAnd(taken, b.CreateFCmpOGT(magnitude, constant(0.0)));  // 0 and inf: the library's special cases
    Value* y_magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
    taken = b.CreateAnd(taken, b.CreateFCmpOLT(y_magnitude, constant(0x1p52)));
    Value* one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, constant(1.0), y);
    Value* shifted = emit_library_call(b, "pow", x, b.CreateSelect(taken, b.CreateFSub(y, one), y));
    Value* back = b.CreateSelect(b.CreateFCmpOGT(y, constant(0.0)), b.CreateFMul(shifted, x), b.CreateFDiv(shifted, x));
    r = b.CreateSelect(taken, back, shifted);
  } else if (!r) {
    r = emit_library_call(b, "pow", x, y);
  }
  Value* identity = b.CreateAnd(b.CreateFCmpOEQ(y, constant(1.0)), b.CreateFCmpORD(x, x));
  r = b.CreateSelect(identity, x, r);
  // math::is_signalling on either operand: x + y, a quiet NaN.
  const unsigned width = type->getScalarSizeInBits();
  const unsigned mantissa = width == 64 ? 52 : 23;
  llvm::Type* bits_type = type->getWithNewType(b.getIntNTy(width));
  auto signalling = [&](Value* v) {
    Value* quiet_bit = b.CreateAnd(b.CreateBitCast(v, bits_type),
                                   llvm::ConstantInt::get(bits_type, llvm::APInt::getOneBitSet(width, mantissa - 1)));
    return b.CreateAnd(b.CreateFCmpUNO(v, v), b.CreateICmpEQ(quiet_bit, llvm::Constant::getNullValue(bits_type)));
  };
  return b.CreateSelect(b.CreateOr(signalling(x), signalling(y)), b.CreateFAdd(x, y), r);
}

}  // namespace

Value* emit_one_nan(llvm::IRBuilder<>& b, Value* r, Value* x, Value* y) {
  Value* operand_nan = b.CreateFCmpUNO(x, y);
  Value* nan = b.CreateSelect(operand_nan, b.CreateFAdd(x, y), llvm::ConstantFP::getQNaN(r->getType()));
  return b.CreateSelect(b.CreateFCmpUNO(r, r), nan, r);
}

Value* emit_library_function(llvm::IRBuilder<>& b, std::string_view name, Value* x) {
  return x->getType()->getScalarType()->isDoubleTy() ? emit_guarded<double>(b, name, x)
                                                     : emit_guarded<float>(b, name, x);
}

Value* emit_binary_math(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  if (name == "pow") return emit_one_nan(b, emit_guarded_pow(b, x, y), x, y);
  Value* r = emit_math_recipe(b, name, x, y);
  return emit_one_nan(b, r ? r : emit_library_call(b, name, x, y), x, y);
}

Value* emit_math_call(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  if (y) {
    // NOTE: [Rare lanes]: a main path is a lane's whole answer, the guards
    // and the NaN rule included (none of them changes a bit there); the
    // rare lanes' vector takes emit_binary_math, all of it.
    if (const auto recipe = recipe_with_main_path(name, 2, x)) return emit_with_rare_lanes(b, *recipe, name, x, y);
    return emit_binary_math(b, name, x, y);
  }
  // So too for one argument: a main path's lanes are never NaN
  // (tests/test_math_recipes.cpp), and the NaN rule is the rare lanes'
  // (on every lane, it cost f32 exp five steps a vector).
  if (const auto recipe = recipe_with_main_path(name, 1, x)) return emit_with_rare_lanes(b, *recipe, name, x);
  Value* r = emit_math_recipe(b, name, x);
  return emit_one_nan(b, r ? r : emit_library_function(b, name, x), x, x);
}

}  // namespace bcast::jit
