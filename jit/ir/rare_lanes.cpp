// A recipe's rare lanes in a kernel (rare_lanes.h, NOTE: [Rare lanes]).
//
// The loop vectoriser widens scalar IR and turns every branch into selects,
// so a rare path written in the element step would run on every lane. It
// does keep a call whose function names a vector variant
// (`vector-function-abi-variant`, as NOTE: [Vector math]'s library calls
// do): the element step calls `fix(x, main)`, the loop vectoriser calls
// `fix.v<N>` on N lanes, and after the pipeline finish_rare_lanes writes
// that variant's body (a test of the lanes, one branch, the full recipe
// behind it) and the inliner puts it, and the scalar fix, in the loops.
// The same way could bring any explicit vector code (in-register tables,
// AVX-512's getexp and getmant) into a loop-vectorised kernel. Names, for
// recipe `log` on f64:
//   bcast.rare.log.f64.fix      fix(x, main): run(x) where x is rare, else main
//   bcast.rare.log.f64.fix.v4   fix on 4 lanes, defined after the vectoriser
#include "ir/rare_lanes.h"

#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir_helpers.h"
#include "ir/recipe_lanes.h"

namespace bcast::jit {
namespace {

using llvm::Value;
namespace recipes = math::recipes;

constexpr std::string_view kPrefix = "bcast.rare.";
constexpr std::string_view kVariant = ".fix.v";
// The vector widths the vectoriser may pick: a variant is declared for each
// and defined only where called.
constexpr unsigned kWidths[] = {2, 4, 8, 16, 32, 64};

// fix(x, main): main where no lane of x is rare (one branch), else the
// full recipe on every lane (its bits are main's on the lanes that are not
// rare). A vector with a rare lane costs the main path and the full
// recipe: log of f32 data all negative ran at 0.91 to 1.05 of the recipe
// alone (the Intel VM, 2026-12-04). Lane by lane, with a scalar call for
// each rare lane, log of data of random sign ran 11 times slower.
void write_fix(llvm::Function& fn, recipes::Recipe r) {
  llvm::LLVMContext& context = fn.getContext();
  Value* x = fn.getArg(0);
  Value* main = fn.getArg(1);
  auto* entry = llvm::BasicBlock::Create(context, "entry", &fn);
  auto* slow = llvm::BasicBlock::Create(context, "rare", &fn);
  auto* done = llvm::BasicBlock::Create(context, "done", &fn);
  llvm::IRBuilder<> b(entry);
  Value* rare = recipes::rare_of(r, Lanes{x, &b}).v;
  b.CreateCondBr(x->getType()->isVectorTy() ? b.CreateOrReduce(rare) : rare, slow, done);
  b.SetInsertPoint(slow);
  Value* full = recipes::run(r, Lanes{x, &b}).v;
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* out = b.CreatePHI(x->getType(), 2);
  out->addIncoming(main, entry);
  out->addIncoming(full, slow);
  b.CreateRet(out);
}

// bcast.rare.<math>.<ty>.fix.v<lanes>, declared: finish_rare_lanes
// writes it once the vectoriser has chosen its widths.
llvm::Function* declare_variant(llvm::Module& module, const std::string& fix_name, llvm::Type* scalar,
                                unsigned lanes) {
  const std::string name = fix_name + ".v" + std::to_string(lanes);
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  llvm::Type* vector = llvm::FixedVectorType::get(scalar, lanes);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(vector, {vector, vector}, false),
                                    llvm::Function::ExternalLinkage, name, module);
  mark_pure(*fn);
  llvm::appendToCompilerUsed(module, {fn});  // kept until the vectoriser has seen it
  return fn;
}

// bcast.rare.<math>.<ty>.fix, with the attribute that names its variants.
llvm::Function* scalar_fix(llvm::Module& module, const llvm::Function& kernel, const std::string& base,
                           recipes::Recipe r, llvm::Type* scalar) {
  const std::string name = base + ".fix";
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(scalar, {scalar, scalar}, false),
                                    llvm::Function::InternalLinkage, name, module);
  mark_pure(*fn);
  copy_target_attributes(kernel, *fn);
  fn->addFnAttr(llvm::Attribute::NoInline);  // else an inliner before the vectoriser would undo it
  write_fix(*fn, r);
  return fn;
}

// "_ZGV_LLVM_N4vv_<fix>(<fix>.v4),...".
std::string variant_list(llvm::Module& module, const std::string& fix_name, llvm::Type* scalar) {
  std::string list;
  for (unsigned lanes : kWidths) {
    const llvm::Function* variant = declare_variant(module, fix_name, scalar, lanes);
    list += (list.empty() ? "" : ",") + ("_ZGV_LLVM_N" + std::to_string(lanes)) + "vv_" + fix_name + "(" +
            variant->getName().str() + ")";
  }
  return list;
}

// The recipe and the base name (bcast.rare.<math>.<ty>) of a variant's
// name, if it is one.
struct VariantName {
  recipes::Recipe recipe;
  std::string base;
};
std::optional<VariantName> parse_variant(llvm::StringRef name) {
  if (!name.starts_with(kPrefix)) return std::nullopt;
  const std::size_t at = name.rfind(kVariant);
  if (at == llvm::StringRef::npos) return std::nullopt;
  const llvm::StringRef base = name.substr(0, at);  // bcast.rare.<math>.<ty>
  const std::size_t dot = base.rfind('.');
  const llvm::StringRef math = base.substr(kPrefix.size(), dot - kPrefix.size());
  const llvm::StringRef type = base.substr(dot + 1);
  if (type != "f32" && type != "f64") return std::nullopt;
  const auto r = recipes::recipe_for(std::string_view(math.data(), math.size()), 1,
                                     type == "f64" ? DType::f64 : DType::f32);
  if (!r || !recipes::has_main_path(*r)) return std::nullopt;
  return VariantName{*r, base.str()};
}

}  // namespace

Value* emit_with_rare_lanes(llvm::IRBuilder<>& b, recipes::Recipe r, std::string_view math, Value* x) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Module& module = *kernel->getParent();
  llvm::Type* scalar = x->getType()->getScalarType();
  const std::string base = std::string(kPrefix) + std::string(math) + (scalar->isDoubleTy() ? ".f64" : ".f32");
  Value* main = recipes::run_main(r, Lanes{x, &b}).v;
  llvm::Function* fix = scalar_fix(module, *kernel, base, r, scalar);
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
    return b.CreateCall(declare_variant(module, fix->getName().str(), scalar, vector->getNumElements()), {x, main});
  llvm::CallInst* call = b.CreateCall(fix, {x, main});
  call->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant",
                                       variant_list(module, fix->getName().str(), scalar)));
  return call;
}

bool finish_rare_lanes(llvm::Module& module) {
  std::vector<std::pair<llvm::Function*, VariantName>> variants;
  std::vector<llvm::Function*> fixes;
  for (llvm::Function& fn : module) {
    if (!fn.isDeclaration()) {
      if (fn.getName().starts_with(kPrefix) && fn.getName().ends_with(".fix")) fixes.push_back(&fn);
    } else if (std::optional<VariantName> v = parse_variant(fn.getName())) {
      variants.emplace_back(&fn, std::move(*v));
    }
  }
  llvm::removeFromUsedLists(module, [&](llvm::Constant* c) {
    const llvm::Constant* used = c->stripPointerCasts();
    return std::any_of(variants.begin(), variants.end(), [&](const auto& v) { return v.first == used; });
  });
  for (auto& [fn, v] : variants) {
    if (fn->use_empty()) {
      fn->eraseFromParent();
      continue;
    }
    fn->setLinkage(llvm::Function::InternalLinkage);
    if (const llvm::Function* fix = module.getFunction(v.base + ".fix")) copy_target_attributes(*fix, *fn);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
    write_fix(*fn, v.recipe);
  }
  // The scalar fix too, now that the vectoriser is done: the remainder loop
  // (all of a row shorter than a vector iteration) tests its lane inline.
  for (llvm::Function* fn : fixes) {
    fn->removeFnAttr(llvm::Attribute::NoInline);
    fn->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  return !fixes.empty();
}

}  // namespace bcast::jit
