// The outer levels of a loop nest as an odometer of running offsets, shared by
// the host and the Ascend-style emitters (NOTE: [Additive offsets]).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <array>
#include <vector>

#include "broadcast_plan.h"

namespace bcast::jit {

struct Odometer {
  explicit Odometer(int operands) : offset(operands), stride(operands), span(operands) {}

  std::vector<llvm::Value*> index;                        // allocas: position of each outer level
  std::vector<llvm::Value*> offset;                       // allocas: running offset of each operand
  std::vector<llvm::Value*> extent;                       // per outer level
  std::vector<std::vector<llvm::Value*>> stride, span;    // per operand, per outer level

  // Steps to the next outer iteration: the innermost outer level that does
  // not wrap adds its strides and goes to `next`; each level that wraps
  // subtracts its span and carries. When level 0 wraps too, goes to `done`.
  void emit_step(llvm::IRBuilder<>& b, llvm::BasicBlock* next, llvm::BasicBlock* done) const {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::LLVMContext& c = b.getContext();
    for (int l = static_cast<int>(index.size()) - 1; l >= 0; --l) {
      auto* step = llvm::BasicBlock::Create(c, "step" + std::to_string(l), fn);
      auto* wrap = llvm::BasicBlock::Create(c, "wrap" + std::to_string(l), fn);
      llvm::Value* following = b.CreateAdd(b.CreateLoad(b.getInt64Ty(), index[l]), b.getInt64(1));
      b.CreateCondBr(b.CreateICmpSLT(following, extent[l]), step, wrap);

      b.SetInsertPoint(step);
      b.CreateStore(following, index[l]);
      for (std::size_t k = 0; k < offset.size(); ++k)
        b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt64Ty(), offset[k]), stride[k][l]), offset[k]);
      b.CreateBr(next);

      b.SetInsertPoint(wrap);
      b.CreateStore(b.getInt64(0), index[l]);
      for (std::size_t k = 0; k < offset.size(); ++k)
        b.CreateStore(b.CreateSub(b.CreateLoad(b.getInt64Ty(), offset[k]), span[k][l]), offset[k]);
    }
    b.CreateBr(done);
  }
};

}  // namespace bcast::jit
