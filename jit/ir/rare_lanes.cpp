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
// AVX-512's getexp and getmant) into a loop-vectorised kernel; it brings a
// library function on the lanes beyond a limit (emit_beyond: NOTE:
// [Two-part math]'s sin and cos past 2**20). Names, for recipe `log` on f64
// and for sin beyond 2**20:
//   bcast.rare.log.f64.fix      fix(x, main): run(x) where x is rare, else main
//   bcast.rare.log.f64.fix.v4   fix on 4 lanes, defined after the vectoriser
//   bcast.rare.pow.f32.fix      fix(x, y, main): a recipe of two arguments
//   bcast.beyond.sin.4130000000000000.f64.fix   main where |x| <= 2**20, else sin(x)
#include "ir/rare_lanes.h"

#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/ir_helpers.h"
#include "ir/math_calls.h"
#include "ir/recipe_lanes.h"

namespace bcast::jit {
namespace {

using llvm::Value;
namespace recipes = math::recipes;

constexpr std::string_view kRarePrefix = "bcast.rare.";
constexpr std::string_view kBeyondPrefix = "bcast.beyond.";
constexpr std::string_view kVariant = ".fix.v";
// The vector widths the vectoriser may pick: a variant is declared for each
// and defined only where called.
constexpr unsigned kWidths[] = {2, 4, 8, 16, 32, 64};

// What a fix stands for: a recipe's rare lanes (bcast.rare.<math>.<ty>), or
// the library's `math` on the lanes beyond a limit (bcast.beyond.<math>.<the
// limit's bits in hex>.<ty>), read back from its name after the vectoriser.
struct Fix {
  std::string base;  // the name, less ".fix"
  std::optional<recipes::Recipe> recipe;
  std::string math;
  double limit = 0;
};

// A fix's operands: x, and y for a recipe of two arguments (pow).
struct Operands {
  Value* x;
  Value* y = nullptr;
};

// Which lanes of the operands take the slow path, and what it computes there.
Value* rare_lanes(llvm::IRBuilder<>& b, const Fix& f, Operands in) {
  if (f.recipe && in.y) return recipes::rare_of(*f.recipe, Lanes{in.x, &b}, Lanes{in.y, &b}).v;
  if (f.recipe) return recipes::rare_of(*f.recipe, Lanes{in.x, &b}).v;
  Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, in.x);
  return b.CreateFCmpUGT(magnitude, llvm::ConstantFP::get(in.x->getType(), f.limit));  // NaN too
}
Value* slow_path(llvm::IRBuilder<>& b, const Fix& f, Operands in, Value* main) {
  if (f.recipe && in.y) return emit_binary_math(b, f.math, in.x, in.y);  // the guards too
  if (f.recipe) return emit_one_nan(b, recipes::run(*f.recipe, Lanes{in.x, &b}).v, in.x, in.x);
  return b.CreateSelect(rare_lanes(b, f, in), emit_math_call(b, f.math, in.x), main);
}

// fix(x, main) or fix(x, y, main): main where no lane is rare (one branch),
// else the slow path on every lane (its bits are main's on the lanes that
// are not rare).
// A vector with a rare lane costs the main path and the full
// recipe: log of f32 data all negative ran at 0.91 to 1.05 of the recipe
// alone (the Intel VM, 2026-12-04). Lane by lane, with a scalar call for
// each rare lane, log of data of random sign ran 11 times slower.
void write_fix(llvm::Function& fn, const Fix& f) {
  llvm::LLVMContext& context = fn.getContext();
  const bool binary = fn.arg_size() == 3;
  const Operands in{fn.getArg(0), binary ? fn.getArg(1) : nullptr};
  Value* x = in.x;
  Value* main = fn.getArg(binary ? 2 : 1);
  auto* entry = llvm::BasicBlock::Create(context, "entry", &fn);
  auto* slow = llvm::BasicBlock::Create(context, "rare", &fn);
  auto* done = llvm::BasicBlock::Create(context, "done", &fn);
  llvm::IRBuilder<> b(entry);
  Value* rare = rare_lanes(b, f, in);
  b.CreateCondBr(x->getType()->isVectorTy() ? b.CreateOrReduce(rare) : rare, slow, done);
  b.SetInsertPoint(slow);
  Value* full = slow_path(b, f, in, main);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* out = b.CreatePHI(x->getType(), 2);
  out->addIncoming(main, entry);
  out->addIncoming(full, slow);
  b.CreateRet(out);
}

// <base>.fix.v<lanes>, declared: finish_rare_lanes writes it once the
// vectoriser has chosen its widths.
llvm::Function* declare_variant(llvm::Module& module, const std::string& fix_name, llvm::Type* scalar, unsigned lanes,
                                unsigned arity) {
  const std::string name = fix_name + ".v" + std::to_string(lanes);
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  llvm::Type* vector = llvm::FixedVectorType::get(scalar, lanes);
  const std::vector<llvm::Type*> parameters(arity + 1, vector);  // the operands, then main
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(vector, parameters, false), llvm::Function::ExternalLinkage,
                                    name, module);
  mark_pure(*fn);
  llvm::appendToCompilerUsed(module, {fn});  // kept until the vectoriser has seen it
  return fn;
}

// <base>.fix, with the attribute that names its variants.
llvm::Function* scalar_fix(llvm::Module& module, const llvm::Function& kernel, const Fix& f, llvm::Type* scalar,
                           unsigned arity) {
  const std::string name = f.base + ".fix";
  if (llvm::Function* existing = module.getFunction(name)) return existing;
  const std::vector<llvm::Type*> parameters(arity + 1, scalar);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(scalar, parameters, false), llvm::Function::InternalLinkage,
                                    name, module);
  mark_pure(*fn);
  copy_target_attributes(kernel, *fn);
  fn->addFnAttr(llvm::Attribute::NoInline);  // else an inliner before the vectoriser would undo it
  write_fix(*fn, f);
  return fn;
}

// "_ZGV_LLVM_N4vv_<fix>(<fix>.v4),..." (a "v" for each operand and main).
std::string variant_list(llvm::Module& module, const std::string& fix_name, llvm::Type* scalar, unsigned arity) {
  std::string list;
  for (unsigned lanes : kWidths) {
    const llvm::Function* variant = declare_variant(module, fix_name, scalar, lanes, arity);
    list += (list.empty() ? "" : ",") + ("_ZGV_LLVM_N" + std::to_string(lanes)) + std::string(arity + 1, 'v') + "_" +
            fix_name + "(" + variant->getName().str() + ")";
  }
  return list;
}

// The fix a variant's name stands for, if it is one; `arity` is its
// operands' count (its parameters less main).
std::optional<Fix> parse_variant(llvm::StringRef name, unsigned arity) {
  const bool rare = name.starts_with(kRarePrefix), beyond = name.starts_with(kBeyondPrefix);
  if (!rare && !beyond) return std::nullopt;
  const std::size_t at = name.rfind(kVariant);
  if (at == llvm::StringRef::npos) return std::nullopt;
  const llvm::StringRef base = name.substr(0, at);
  const std::size_t dot = base.rfind('.');
  if (dot == llvm::StringRef::npos || dot <= (rare ? kRarePrefix : kBeyondPrefix).size()) return std::nullopt;
  const llvm::StringRef type = base.substr(dot + 1);
  if (type != "f32" && type != "f64") return std::nullopt;
  llvm::StringRef middle = base.substr(0, dot).drop_front((rare ? kRarePrefix : kBeyondPrefix).size());
  Fix f{base.str(), std::nullopt, "", 0};
  if (rare) {
    f.math = middle.str();
    f.recipe = recipes::recipe_for(std::string_view(middle.data(), middle.size()), static_cast<int>(arity),
                                   type == "f64" ? DType::f64 : DType::f32);
    if (!f.recipe || !recipes::has_main_path(*f.recipe)) return std::nullopt;
    return f;
  }
  const auto [math, bits] = middle.rsplit('.');
  std::uint64_t limit_bits = 0;
  if (math.empty() || bits.getAsInteger(16, limit_bits)) return std::nullopt;
  f.math = math.str();
  f.limit = std::bit_cast<double>(limit_bits);
  return f;
}

// fix(x, main) or fix(x, y, main), called where the loop vectoriser will
// widen it (or its variant on vector operands).
Value* emit_fix_call(llvm::IRBuilder<>& b, const Fix& f, Operands in, Value* main) {
  llvm::Function* kernel = b.GetInsertBlock()->getParent();
  llvm::Module& module = *kernel->getParent();
  llvm::Type* scalar = in.x->getType()->getScalarType();
  const unsigned arity = in.y ? 2 : 1;
  std::vector<Value*> arguments{in.x};
  if (in.y) arguments.push_back(in.y);
  arguments.push_back(main);
  llvm::Function* fix = scalar_fix(module, *kernel, f, scalar, arity);
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(in.x->getType()))
    return b.CreateCall(declare_variant(module, fix->getName().str(), scalar, vector->getNumElements(), arity),
                        arguments);
  llvm::CallInst* call = b.CreateCall(fix, arguments);
  call->addFnAttr(llvm::Attribute::get(b.getContext(), "vector-function-abi-variant",
                                       variant_list(module, fix->getName().str(), scalar, arity)));
  return call;
}

std::string_view type_suffix(Value* x) { return x->getType()->getScalarType()->isDoubleTy() ? ".f64" : ".f32"; }

}  // namespace

Value* emit_with_rare_lanes(llvm::IRBuilder<>& b, recipes::Recipe r, std::string_view math, Value* x, Value* y) {
  const Fix f{std::string(kRarePrefix) + std::string(math) + std::string(type_suffix(x)), r, std::string(math), 0};
  Value* main = y ? recipes::run_main(r, Lanes{x, &b}, Lanes{y, &b}).v : recipes::run_main(r, Lanes{x, &b}).v;
  return emit_fix_call(b, f, {x, y}, main);
}

Value* emit_beyond(llvm::IRBuilder<>& b, std::string_view math, Value* x, double limit, Value* main) {
  char bits[17];
  std::snprintf(bits, sizeof bits, "%016llx", static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(limit)));
  const Fix f{std::string(kBeyondPrefix) + std::string(math) + "." + bits + std::string(type_suffix(x)),
              std::nullopt, std::string(math), limit};
  return emit_fix_call(b, f, {x}, main);
}

bool finish_rare_lanes(llvm::Module& module) {
  // A variant's slow path may call a function with rare lanes of its own
  // (emit_beyond's `math`, should it gain a recipe), declaring more
  // variants: written until none is left.
  for (;;) {
    std::vector<std::pair<llvm::Function*, Fix>> variants;
    for (llvm::Function& fn : module)
      if (fn.isDeclaration())
        if (fn.arg_size() >= 2)
          if (std::optional<Fix> v = parse_variant(fn.getName(), static_cast<unsigned>(fn.arg_size() - 1)))
            variants.emplace_back(&fn, std::move(*v));
    if (variants.empty()) break;
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
      write_fix(*fn, v);
    }
  }
  // The scalar fixes too, now that the vectoriser is done: the remainder
  // loop (all of a row shorter than a vector iteration) tests its lane
  // inline.
  bool any = false;
  for (llvm::Function& fn : module) {
    const bool ours = fn.getName().starts_with(kRarePrefix) || fn.getName().starts_with(kBeyondPrefix);
    if (fn.isDeclaration() || !ours || !fn.getName().ends_with(".fix")) continue;
    fn.removeFnAttr(llvm::Attribute::NoInline);
    fn.addFnAttr(llvm::Attribute::AlwaysInline);
    any = true;
  }
  return any;
}

}  // namespace bcast::jit
