// Math calls with vector variants (math_calls.h, NOTE: [Vector math]).
#include "ir/math_calls.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <string>
#include <vector>

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
  fn->setDoesNotThrow();
  fn->setMemoryEffects(llvm::MemoryEffects::none());
  fn->setWillReturn();
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
  std::vector<Variant> variants;
  for (const VectorAbiIsa& isa : target.vector_abi_isas(features)) {
    if (isa.fma != (flavour == math::Flavour::sleef_purecfma)) continue;
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

}  // namespace

Value* emit_math_call(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
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

}  // namespace bcast::jit
