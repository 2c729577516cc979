// The loop-nest emitter: one nest for every key, the op from ir_ops.
#include "loop_nest_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <array>
#include <cstddef>
#include <vector>

#include "ir_dtypes.h"
#include "ir_ops.h"
#include "odometer.h"
#include "kernel_abi.h"

namespace bcast::jit {
namespace {

using llvm::BasicBlock;
using llvm::Value;

class NestEmitter {
 public:
  NestEmitter(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings, const std::string& symbol)
      : key_(key), b_(module.getContext()), rank_(key.rank) {
    llvm::LLVMContext& c = module.getContext();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, symbol, module);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    fn_->addFnAttr("target-cpu", settings.cpu);
    fn_->addFnAttr("target-features", settings.features);
    if (settings.vector_width_bits > 0)
      fn_->addFnAttr("prefer-vector-width", std::to_string(settings.vector_width_bits));
    fn_->addParamAttr(0, llvm::Attribute::NoCapture);
    fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
    args_ = fn_->getArg(0);
    args_->setName("args");
    b_.SetInsertPoint(BasicBlock::Create(c, "entry", fn_));
    element_type_ = {storage_type(c, result_dtype(key.op, key.dtype)), storage_type(c, key.dtype),
                     storage_type(c, key.dtype)};
  }

  llvm::Function* emit() {
    base_ = {field(offsetof(KernelArgs, out), b_.getPtrTy(), "out"), field(offsetof(KernelArgs, a), b_.getPtrTy(), "a"),
             field(offsetof(KernelArgs, b), b_.getPtrTy(), "b")};
    Value* count = field(offsetof(KernelArgs, count), b_.getInt64Ty(), "count");
    BasicBlock* exit = block("exit");
    if (rank_ == 0) {
      BasicBlock* body = block("scalar");
      b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), body, exit);
      b_.SetInsertPoint(body);
      emit_element(base_[kOut], base_[kA], base_[kB]);
      b_.CreateBr(exit);
    } else if (key_.fixed_row > 0) {
      emit_fixed_rows(count, exit);
    } else {
      emit_nest(count, exit);
    }
    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();
    return fn_;
  }

 private:
  // ---- the outer odometer ----

  void emit_nest(Value* count, BasicBlock* exit) {
    load_levels();
    // Running offsets, the odometer and the remaining count live in allocas;
    // SROA turns them into registers.
    Odometer odometer;
    for (int k = 0; k < kNumOperands; ++k) {
      odometer.offset[k] = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "offset");
      b_.CreateStore(b_.getInt64(0), odometer.offset[k]);
      odometer.stride[k].assign(stride_[k].begin(), stride_[k].end() - 1);
      odometer.span[k].assign(span_[k].begin(), span_[k].end() - 1);
    }
    odometer.extent.assign(extent_.begin(), extent_.end() - 1);
    Value* index_array = field(offsetof(KernelArgs, index), b_.getPtrTy(), "index");
    for (int l = 0; l + 1 < rank_; ++l) {
      odometer.index.push_back(b_.CreateAlloca(b_.getInt64Ty(), nullptr, "i" + std::to_string(l)));
      b_.CreateStore(element(index_array, l, "start"), odometer.index[l]);
    }
    Value* remaining = b_.CreateAlloca(b_.getInt64Ty(), nullptr, "remaining");
    b_.CreateStore(count, remaining);
    BasicBlock* row = block("row");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), row, exit);

    // One pass of the innermost level from the current offsets.
    b_.SetInsertPoint(row);
    std::array<Value*, kNumOperands> row_base{};
    for (int k = 0; k < kNumOperands; ++k)
      row_base[k] =
          b_.CreateGEP(element_type_[k], base_[k], b_.CreateLoad(b_.getInt64Ty(), odometer.offset[k]), "row_base");
    emit_inner_loop(row_base);
    Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), remaining), b_.getInt64(1), "left");
    b_.CreateStore(left, remaining);
    BasicBlock* carry = block("carry");
    b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt64(0)), exit, carry);
    b_.SetInsertPoint(carry);
    odometer.emit_step(b_, row, exit);
  }

  // NOTE: [Fixed rows] Rank 2, rows of a constant m elements, every operand
  // stepping a constant 0, 1 or m elements from row to row: one loop over the
  // rows whose body is the row, unrolled. Every address is a running pointer
  // plus a constant, so the vectoriser sees accesses of constant stride across
  // rows and interleaves them, where a loop of m elements per row could not.
  void emit_fixed_rows(Value* count, BasicBlock* exit) {
    const int m = key_.fixed_row;
    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* loop = block("rows");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), loop, exit);
    b_.SetInsertPoint(loop);
    llvm::PHINode* r = b_.CreatePHI(b_.getInt64Ty(), 2, "r");
    r->addIncoming(b_.getInt64(0), pre);
    std::array<llvm::PHINode*, kNumOperands> row{};
    for (int k = 0; k < kNumOperands; ++k) {
      row[k] = b_.CreatePHI(b_.getPtrTy(), 2, "row");
      row[k]->addIncoming(base_[k], pre);
    }
    for (int j = 0; j < m; ++j) {
      auto at = [&](int k) -> Value* {
        const int offset = key_.inner[k] == InnerStride::unit ? j : 0;
        return b_.CreateConstInBoundsGEP1_64(element_type_[k], row[k], offset);
      };
      emit_element(at(kOut), at(kA), at(kB));
    }
    for (int k = 0; k < kNumOperands; ++k)
      row[k]->addIncoming(b_.CreateConstInBoundsGEP1_64(element_type_[k], row[k], key_.row_step[k]), loop);
    Value* next = b_.CreateAdd(r, b_.getInt64(1), "r_next");
    r->addIncoming(next, loop);
    b_.CreateCondBr(b_.CreateICmpSLT(next, count), loop, exit);
  }

  // Extents, strides and spans of every level, loaded once at entry.
  void load_levels() {
    Value* extents = field(offsetof(KernelArgs, extents), b_.getPtrTy(), "extents");
    Value* strides = field(offsetof(KernelArgs, strides), b_.getPtrTy(), "strides");
    Value* spans = field(offsetof(KernelArgs, spans), b_.getPtrTy(), "spans");
    for (int l = 0; l < rank_; ++l) {
      extent_.push_back(element(extents, l, "extent"));
      for (int k = 0; k < kNumOperands; ++k) {
        // Row k of the [3][rank] arrays starts at k * rank: a constant here.
        stride_[k].push_back(element(strides, k * rank_ + l, "stride"));
        span_[k].push_back(element(spans, k * rank_ + l, "span"));
      }
    }
  }

  // ---- the innermost level ----

  void emit_inner_loop(const std::array<Value*, kNumOperands>& row_base) {
    const int inner = rank_ - 1;
    Value* n = extent_[inner];
    // A repeated operand is loaded once, outside the loop.
    std::array<Value*, kNumOperands> fixed{};
    for (int k = kA; k <= kB; ++k)
      if (key_.inner[k] == InnerStride::zero) fixed[k] = load(k, row_base[k]);

    BasicBlock* pre = b_.GetInsertBlock();
    BasicBlock* loop = block("inner");
    BasicBlock* done = block("inner_done");
    b_.CreateCondBr(b_.CreateICmpSGT(n, b_.getInt64(0)), loop, done);

    b_.SetInsertPoint(loop);
    llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(b_.getInt64(0), pre);
    // Strided operands keep a running offset: a second induction variable.
    std::array<llvm::PHINode*, kNumOperands> running{};
    for (int k = 0; k < kNumOperands; ++k) {
      if (key_.inner[k] != InnerStride::strided) continue;
      running[k] = b_.CreatePHI(b_.getInt64Ty(), 2, "j");
      running[k]->addIncoming(b_.getInt64(0), pre);
    }
    std::array<Value*, kNumOperands> address{};
    for (int k = 0; k < kNumOperands; ++k) {
      if (key_.inner[k] == InnerStride::unit) address[k] = b_.CreateGEP(element_type_[k], row_base[k], i);
      if (key_.inner[k] == InnerStride::strided) address[k] = b_.CreateGEP(element_type_[k], row_base[k], running[k]);
    }
    Value* x = fixed[kA] ? fixed[kA] : load(kA, address[kA]);
    Value* y = fixed[kB] ? fixed[kB] : load(kB, address[kB]);
    store_result(x, y, address[kOut]);
    for (int k = 0; k < kNumOperands; ++k)
      if (running[k]) running[k]->addIncoming(b_.CreateAdd(running[k], stride_[k][inner]), loop);
    Value* next = b_.CreateAdd(i, b_.getInt64(1), "i_next");
    i->addIncoming(next, loop);
    b_.CreateCondBr(b_.CreateICmpSLT(next, n), loop, done);
    b_.SetInsertPoint(done);
  }

  // out = op(x, y), x and y loaded as stored (storage_type).
  void store_result(Value* x, Value* y, Value* out) {
    const DType dtype = key_.dtype;
    Value* cx = to_compute(b_, dtype, x);
    Value* cy = to_compute(b_, dtype, y);
    if ((key_.op == Op::max || key_.op == Op::min) && (dtype == DType::f16 || dtype == DType::bf16)) {
      b_.CreateStore(b_.CreateSelect(emit_extremum_picks_a(b_, key_.op, cx, cy), x, y), out);
      return;
    }
    emit_store(b_, result_dtype(key_.op, dtype), emit_op(b_, key_.op, dtype, cx, cy), out);
  }
  Value* load(int k, Value* address) { return b_.CreateLoad(element_type_[k], address); }
  void emit_element(Value* out, Value* a, Value* b) {
    Value* x = load(kA, a);  // a first: argument order is unspecified
    Value* y = load(kB, b);
    store_result(x, y, out);
  }

  // ---- helpers ----

  Value* field(std::size_t offset, llvm::Type* type, const char* name) {
    return b_.CreateLoad(type, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), args_, offset), name);
  }
  Value* element(Value* array, int i, const std::string& name) {
    return b_.CreateLoad(b_.getInt64Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt64Ty(), array, i), name);
  }
  BasicBlock* block(const std::string& name) { return BasicBlock::Create(b_.getContext(), name, fn_); }

  const KernelKey& key_;
  llvm::IRBuilder<> b_;
  int rank_;
  llvm::Function* fn_ = nullptr;
  Value* args_ = nullptr;
  std::array<llvm::Type*, kNumOperands> element_type_{};
  std::array<Value*, kNumOperands> base_{};
  std::vector<Value*> extent_;
  std::array<std::vector<Value*>, kNumOperands> stride_, span_;
};

}  // namespace

llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol) {
  return NestEmitter(module, key, settings, symbol).emit();
}

}  // namespace bcast::jit
