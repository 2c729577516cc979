// The intrinsic calls of an Ascend-style kernel, built in IR (NOTE: [Ascend
// intrinsics]): each declared from its shared prototype, the instruction
// structures (CopyCall, VectorCall) filled field by field through offsetof.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>

#include "ascend_abi.h"

namespace bcast::jit {

class AscendCalls {
 public:
  // A vector instruction's fields: what is null takes VectorCall's default
  // (count: -1, the level-0 form).
  struct Vector {
    ascend::Instr instr = ascend::Instr::Add;
    DType dtype = DType::f32, src_dtype = DType::f32;
    llvm::Value* dst = nullptr;
    llvm::Value* src0 = nullptr;
    llvm::Value* src1 = nullptr;
    llvm::Value* sel = nullptr;  // Select's bit array
    llvm::Value* scalar = nullptr;
    llvm::Value* mask = nullptr;
    llvm::Value* repeat = nullptr;
    llvm::Value* count = nullptr;
    ascend::RepeatParams params;
    llvm::Value* rep[3] = {nullptr, nullptr, nullptr};  // run-time repeat strides (dst, src0, src1) over params'
    std::uint8_t mode = 0;
    // Per operand (dst, src0, src1), for the emitter's rows: element size
    // (0 when absent), whether a column (read through a block a row) or a row
    // input (the same every row), and a column's step a row.
    std::int64_t size[3] = {0, 0, 0};
    bool column[3] = {false, false, false}, row_input[3] = {false, false, false};
    llvm::Value* column_step[3] = {nullptr, nullptr, nullptr};
  };

  // The call structures live in allocas made at the builder's position (the
  // kernel's entry); ctx is the kernel's block context argument.
  AscendCalls(llvm::Module& module, llvm::IRBuilder<>& b, llvm::Value* ctx);

  void vector(const Vector& f);
  void copy(ascend::Instr instr, ascend::CopyDir dir, llvm::Value* ub, llvm::Value* gm, int operand,
            std::int64_t element_bytes, llvm::Value* count, llvm::Value* len, llvm::Value* src_gap, llvm::Value* dst_gap);
  void queue(ascend::QueueOp op, int queue, llvm::Value* slot32);
  void flag(bool set, ascend::Pipe from, ascend::Pipe to, int event);
  llvm::Value* get_value(llvm::Value* ub, int bytes);
  void tile_done();

 private:
  enum class Intrinsic : int;
  llvm::Value* call(Intrinsic which, std::initializer_list<llvm::Value*> args);
  void store8(llvm::Value* base, std::size_t offset, std::uint8_t v);
  void store64(llvm::Value* base, std::size_t offset, llvm::Value* v);

  llvm::Module& module_;
  llvm::IRBuilder<>& b_;
  llvm::Value* ctx_;
  llvm::Value* copy_call_;
  llvm::Value* vector_call_;
};

}  // namespace bcast::jit
