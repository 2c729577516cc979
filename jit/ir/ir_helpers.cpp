// IR helpers shared by the emitters.
#include "ir/ir_helpers.h"

#include <set>
#include <vector>

#include <llvm/IR/CFG.h>

namespace bcast::jit {

llvm::Function* begin_kernel(llvm::IRBuilder<>& b, llvm::Module& module, llvm::FunctionType* type,
                             const std::string& symbol, const CodegenSettings& settings) {
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr("target-cpu", settings.cpu);
  fn->addFnAttr("target-features", settings.features);
  if (settings.vector_width_bits > 0) fn->addFnAttr("prefer-vector-width", std::to_string(settings.vector_width_bits));
  // A preference of 256 bits or less holds for the IR's own wide vectors
  // too (NOTE: [Memory-bound vector width]): without a minimum legal width,
  // LLVM keeps any vector type the CPU has registers for (AVX-512's).
  if (settings.vector_width_bits > 0 && settings.vector_width_bits <= 256) fn->addFnAttr("min-legal-vector-width", "0");
  b.SetInsertPoint(llvm::BasicBlock::Create(module.getContext(), "entry", fn));
  return fn;
}

void mark_pure(llvm::Function& fn) {
  fn.setDoesNotThrow();
  fn.setMemoryEffects(llvm::MemoryEffects::none());
  fn.setWillReturn();
}

void copy_target_attributes(const llvm::Function& from, llvm::Function& to) {
  for (const char* attribute : {"target-cpu", "target-features", "prefer-vector-width", "min-legal-vector-width"})
    if (from.hasFnAttribute(attribute)) to.addFnAttr(from.getFnAttribute(attribute));
}

llvm::BasicBlock* new_block(llvm::IRBuilder<>& b, const std::string& name) {
  return llvm::BasicBlock::Create(b.getContext(), name, b.GetInsertBlock()->getParent());
}

llvm::Value* new_local(llvm::IRBuilder<>& b, const std::string& name, llvm::Value* init) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  llvm::Value* slot = entry.CreateAlloca(b.getInt64Ty(), nullptr, name);
  if (init != nullptr) b.CreateStore(init, slot);
  return slot;
}

llvm::Value* load_field(llvm::IRBuilder<>& b, llvm::Value* base, std::size_t offset, llvm::Type* type,
                        const std::string& name) {
  return b.CreateLoad(type, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset), name);
}

llvm::Value* load_i64(llvm::IRBuilder<>& b, llvm::Value* array, std::int64_t i, const std::string& name) {
  return b.CreateLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), array, i), name);
}

void add_to_local(llvm::IRBuilder<>& b, llvm::Value* slot, llvm::Value* amount) {
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt64Ty(), slot), amount), slot);
}

void make_nontemporal(llvm::IRBuilder<>& b, llvm::StoreInst* store, std::uint64_t line_bytes) {
  store->setAlignment(llvm::Align(line_bytes));
  store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                     llvm::MDNode::get(b.getContext(), llvm::ConstantAsMetadata::get(b.getInt32(1))));
}

CountedLoop open_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name) {
  CountedLoop loop;
  loop.preheader = b.GetInsertBlock();
  loop.end = end;
  llvm::BasicBlock* body = new_block(b, name);
  loop.done = new_block(b, name + "_done");
  b.CreateCondBr(b.CreateICmpSLT(begin, end), body, loop.done);
  b.SetInsertPoint(body);
  loop.i = b.CreatePHI(b.getInt64Ty(), 2, name == "inner" ? "i" : name + "_i");
  loop.i->addIncoming(begin, loop.preheader);
  return loop;
}

namespace {

// NOTE: [Independent iterations]: every load and store of the loop from
// `header` to `latch` (blocks reached backwards from the latch) tagged with
// `group`.
void tag_accesses(llvm::BasicBlock* header, llvm::BasicBlock* latch, llvm::MDNode* group) {
  std::vector<llvm::BasicBlock*> work{latch};
  std::set<llvm::BasicBlock*> seen{latch};
  while (!work.empty()) {
    llvm::BasicBlock* block = work.back();
    work.pop_back();
    for (llvm::Instruction& inst : *block)
      if (llvm::isa<llvm::LoadInst, llvm::StoreInst>(inst)) inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
    if (block == header) continue;
    for (llvm::BasicBlock* pred : llvm::predecessors(block))
      if (seen.insert(pred).second) work.push_back(pred);
  }
}

}  // namespace

void close_loop(llvm::IRBuilder<>& b, const CountedLoop& loop, llvm::Value* step, bool vectorise, unsigned interleave,
                bool independent) {
  llvm::Value* next = b.CreateAdd(loop.i, step, loop.i->getName() + "_next");
  loop.i->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* back = b.CreateCondBr(b.CreateICmpSLT(next, loop.end), loop.i->getParent(), loop.done);
  llvm::LLVMContext& c = b.getContext();
  std::vector<llvm::Metadata*> hints{nullptr};  // the loop's own id first
  auto hint = [&](const char* name, llvm::Constant* value) {
    llvm::Metadata* pair[] = {llvm::MDString::get(c, name), llvm::ConstantAsMetadata::get(value)};
    hints.push_back(llvm::MDNode::get(c, pair));
  };
  if (!vectorise) hint("llvm.loop.vectorize.enable", b.getFalse());
  if (vectorise && interleave > 0) hint("llvm.loop.interleave.count", b.getInt32(interleave));
  if (vectorise && independent) {
    llvm::MDNode* group = llvm::MDNode::getDistinct(c, {});
    tag_accesses(loop.i->getParent(), back->getParent(), group);
    llvm::Metadata* pair[] = {llvm::MDString::get(c, "llvm.loop.parallel_accesses"), group};
    hints.push_back(llvm::MDNode::get(c, pair));
  }
  if (hints.size() > 1) {
    llvm::MDNode* id = llvm::MDNode::getDistinct(c, hints);
    id->replaceOperandWith(0, id);
    back->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b.SetInsertPoint(loop.done);
}

}  // namespace bcast::jit
