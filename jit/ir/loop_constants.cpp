// Vector constants of a kernel's loops, loaded once (NOTE: [Loop constants]).
#include "ir/loop_constants.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <map>
#include <utility>
#include <vector>

namespace bcast::jit {
namespace {

// Fewer distinct constants than this stay as they are: a loop has room for them.
constexpr std::size_t kFewestConstants = 8;

// The lane value of a floating-point vector constant whose lanes are all
// one value; null for anything else.
llvm::Constant* splat_of(const llvm::Value* v) {
  const auto* c = llvm::dyn_cast<llvm::Constant>(v);
  if (c == nullptr || !c->getType()->isVectorTy() || !c->getType()->getScalarType()->isFloatingPointTy() ||
      llvm::isa<llvm::UndefValue>(c))
    return nullptr;
  return c->getSplatValue();
}

bool has_32_vector_registers(const llvm::Function& fn) {
  return fn.getFnAttribute("target-features").getValueAsString().contains("+avx512f");
}

bool load_in(llvm::Function& fn) {
  if (fn.isDeclaration() || has_32_vector_registers(fn)) return false;
  llvm::BasicBlock& entry = fn.getEntryBlock();
  std::vector<llvm::Use*> uses;
  std::map<std::pair<llvm::Type*, llvm::Constant*>, llvm::Value*> loaded;  // by vector type and lane value
  for (llvm::BasicBlock& block : fn) {
    if (&block == &entry) continue;
    for (llvm::Instruction& i : block)
      for (llvm::Use& u : i.operands())
        if (llvm::Constant* lane = splat_of(u.get())) {
          uses.push_back(&u);
          loaded.emplace(std::pair{u->getType(), lane}, nullptr);
        }
  }
  if (loaded.size() < kFewestConstants) return false;
  llvm::IRBuilder<> b(&entry, entry.getFirstInsertionPt());
  llvm::Module& module = *fn.getParent();
  for (auto& [key, value] : loaded) {
    const auto [type, lane] = key;
    // Read with a volatile load, which nothing folds back into the constant
    // (kernel memory has no writable segment: NOTE: [Kernel memory]).
    auto* cell = new llvm::GlobalVariable(module, lane->getType(), /*isConstant=*/true,
                                          llvm::GlobalValue::PrivateLinkage, lane, fn.getName() + ".loop_constant");
    llvm::LoadInst* scalar = b.CreateLoad(lane->getType(), cell, "loop_constant");
    scalar->setVolatile(true);
    value = b.CreateVectorSplat(llvm::cast<llvm::FixedVectorType>(type)->getNumElements(), scalar);
  }
  for (llvm::Use* u : uses) u->set(loaded.at({u->get()->getType(), splat_of(u->get())}));
  return true;
}

}  // namespace

bool load_loop_constants_once(llvm::Module& module) {
  bool changed = false;
  for (llvm::Function& fn : module) changed = load_in(fn) || changed;
  return changed;
}

}  // namespace bcast::jit
