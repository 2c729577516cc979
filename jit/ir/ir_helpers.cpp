// IR helpers shared by the emitters.
#include "ir/ir_helpers.h"

namespace bcast::jit {

llvm::Function* begin_kernel(llvm::IRBuilder<>& b, llvm::Module& module, llvm::FunctionType* type,
                             const std::string& symbol, const CodegenSettings& settings) {
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr("target-cpu", settings.cpu);
  fn->addFnAttr("target-features", settings.features);
  if (settings.vector_width_bits > 0) fn->addFnAttr("prefer-vector-width", std::to_string(settings.vector_width_bits));
  b.SetInsertPoint(llvm::BasicBlock::Create(module.getContext(), "entry", fn));
  return fn;
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

}  // namespace bcast::jit
