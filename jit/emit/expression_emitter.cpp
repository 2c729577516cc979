// The expression kernel's nest: N operands, one program per element.
#include "emit/expression_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <cstddef>
#include <vector>

#include "expr_kernel.h"
#include "function_table.h"
#include "ir/ir_complex.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_helpers.h"
#include "ir/ir_nodes.h"
#include "ir/ir_ops.h"
#include "ir/odometer.h"
#include "host_target.h"
#include "kernel_abi.h"
#include "math_recipes.h"
#include "target/codegen_target.h"

namespace bcast::jit {
namespace {

using llvm::BasicBlock;
using llvm::Value;

constexpr std::int64_t kLineBytes = HostTarget::kLineBytes;  // what one streaming store writes

// NOTE: [Math recipes]: a program that runs a recipe inline computes a long
// chain of dependent steps per vector, which one vector an iteration leaves
// waiting on latency: its vectorised loop interleaves four (measured on the
// Zen 5 VM, 4 Mi elements: f32 log2 0.69x -> 0.87x NumPy, arctan 0.98x ->
// 1.2x). Other programs keep the vectoriser's choice.
unsigned interleave_for(const ExprProgram& program) {
  for (const ExprInstr& s : program.code) {
    if ((s.kind != InstrKind::unary && s.kind != InstrKind::binary) || !is_floating(s.in)) continue;
    const detail::FunctionRow& row = s.kind == InstrKind::unary ? detail::row(static_cast<UnaryOp>(s.code))
                                                                : detail::row(static_cast<Op>(s.code));
    const DType precision = s.in == DType::f64 ? DType::f64 : DType::f32;  // f16 and bf16 compute in f32
    if (!row.math.empty() && math::recipes::recipe_for(row.math, s.arity(), precision)) return 4;
  }
  return 0;
}

class ExpressionEmitter {
 public:
  ExpressionEmitter(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                    const std::string& symbol)
      : key_(key), module_(module), spec_(expr_kernel_spec(key.expr)), program_(spec_.program),
        b_(module.getContext()), rank_(key.rank),
        operands_(1 + static_cast<int>(program_.inputs.size())), interleave_(interleave_for(program_)) {
    fn_ = begin_kernel(b_, module, llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false), symbol, settings);
    fn_->addParamAttr(0, llvm::Attribute::NoCapture);
    fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
    args_ = fn_->getArg(0);
    args_->setName("args");
    llvm::LLVMContext& c = module.getContext();
    dtype_.push_back(program_.out_dtype);
    for (DType d : program_.inputs) dtype_.push_back(d);
    for (DType d : dtype_) element_type_.push_back(storage_type(c, d));
  }

  llvm::Function* emit() {
    Value* data = field(offsetof(KernelArgs, data), "data");
    for (int k = 0; k < operands_; ++k)
      base_.push_back(load_field(b_, data, k * sizeof(void*), b_.getPtrTy(), k == 0 ? "out" : "in"));
    load_scalars();
    Value* count = load_field(b_, args_, offsetof(KernelArgs, count), b_.getInt64Ty(), "count");
    BasicBlock* exit = new_block(b_, "exit");
    if (rank_ == 0) {
      BasicBlock* body = new_block(b_, "scalar");
      b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), body, exit);
      b_.SetInsertPoint(body);
      std::vector<Parts> in;
      for (int k = 1; k < operands_; ++k) in.push_back(load(k, base_[k]));
      store(compute(in, 1), base_[0]);
      b_.CreateBr(exit);
    } else {
      emit_nest(count, exit);
    }
    b_.SetInsertPoint(exit);
    // NOTE: [Streaming stores]: the fence orders the weakly ordered stores.
    if (key_.stream) codegen_target(llvm::Triple(module_.getTargetTriple())).emit_store_fence(b_);
    b_.CreateRetVoid();
    return fn_;
  }

 private:
  Value* field(std::size_t offset, const char* name) { return load_field(b_, args_, offset, b_.getPtrTy(), name); }

  // Operand k's element at `address` as a compute value (NOTE: [Complex in IR]).
  Parts load(int k, Value* address) {
    if (is_complex(dtype_[k])) return load_complex(b_, dtype_[k], address);
    return {to_compute(b_, dtype_[k], b_.CreateLoad(element_type_[k], address))};
  }

  void store(Parts value, Value* address) {
    if (is_complex(dtype_[0])) return store_complex(b_, dtype_[0], value, address);
    emit_store(b_, dtype_[0], value.re, address);
  }

  static Parts splat(unsigned lanes, Parts x, llvm::IRBuilder<>& b) {
    return {b.CreateVectorSplat(lanes, x.re), x.im ? b.CreateVectorSplat(lanes, x.im) : nullptr};
  }

  // Scalar j lives in ScalarSlot j of the context, stored in its dtype.
  void load_scalars() {
    if (program_.scalars.empty()) return;
    Value* context = field(offsetof(KernelArgs, context), "scalars");
    llvm::LLVMContext& c = b_.getContext();
    for (std::size_t j = 0; j < program_.scalars.size(); ++j) {
      const DType d = program_.scalars[j];
      Value* slot = b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), context, kScalarSlotBytes * j);
      if (is_complex(d)) scalars_.push_back(load_complex(b_, d, slot));
      else scalars_.push_back({to_compute(b_, d, b_.CreateLoad(storage_type(c, d), slot, "s"))});
    }
  }

  // The program on the inputs' compute values (`lanes` of them in vectors):
  // every value in registers, f16 and bf16 rounded after each node.
  Parts compute(const std::vector<Parts>& inputs, unsigned lanes) {
    std::vector<Parts> values = inputs;
    for (Parts s : scalars_) values.push_back(lanes > 1 ? splat(lanes, s, b_) : s);
    for (const ExprInstr& s : program_.code) {
      if (is_complex(s.in) || is_complex(s.out)) {
        const Parts args[3] = {values[static_cast<std::size_t>(s.args[0])],
                               s.arity() > 1 ? values[static_cast<std::size_t>(s.args[1])] : Parts{},
                               s.arity() > 2 ? values[static_cast<std::size_t>(s.args[2])] : Parts{}};
        const Parts v = emit_complex_instr(b_, s, args);
        values.push_back(v.im ? v : Parts{round_to_storage(b_, s.out, v.re)});
        continue;
      }
      auto arg = [&](int a) { return values[static_cast<std::size_t>(s.args[a])].re; };
      Value* v = nullptr;
      switch (s.kind) {
        case InstrKind::binary: v = emit_op(b_, static_cast<Op>(s.code), s.in, arg(0), arg(1)); break;
        case InstrKind::unary: v = emit_unary(b_, static_cast<UnaryOp>(s.code), s.in, arg(0)); break;
        case InstrKind::cast: v = emit_cast(b_, s.in, s.out, arg(0)); break;
        case InstrKind::ternary: v = emit_ternary(b_, static_cast<TernaryOp>(s.code), s.in, arg(0), arg(1), arg(2)); break;
      }
      values.push_back({round_to_storage(b_, s.out, v)});
    }
    return values[static_cast<std::size_t>(program_.result)];
  }

  // ---- the nest ----

  void emit_nest(Value* count, BasicBlock* exit) {
    Value* extents = field(offsetof(KernelArgs, extents), "extents");
    Value* strides = field(offsetof(KernelArgs, strides), "strides");
    Value* spans = field(offsetof(KernelArgs, spans), "spans");
    Value* index = field(offsetof(KernelArgs, index), "index");
    const int inner = rank_ - 1;
    Odometer odometer(operands_);
    for (int l = 0; l < inner; ++l) {
      odometer.extent.push_back(load_i64(b_, extents, l, "extent"));
      odometer.index.push_back(new_local(b_, "i" + std::to_string(l), load_i64(b_, index, l, "start")));
    }
    std::vector<Value*> inner_stride;
    for (int k = 0; k < operands_; ++k) {
      // Row k of the [operands][rank] arrays starts at k * rank: a constant here.
      for (int l = 0; l < inner; ++l) {
        odometer.stride[k].push_back(load_i64(b_, strides, k * rank_ + l, "stride"));
        odometer.span[k].push_back(load_i64(b_, spans, k * rank_ + l, "span"));
      }
      odometer.offset[k] = new_local(b_, "offset", b_.getInt64(0));
      inner_stride.push_back(load_i64(b_, strides, k * rank_ + inner, "inner_stride"));
    }
    Value* n = load_i64(b_, extents, inner, "n");
    Value* remaining = new_local(b_, "remaining", count);
    BasicBlock* row = new_block(b_, "row");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), row, exit);

    b_.SetInsertPoint(row);
    std::vector<Value*> row_base;
    for (int k = 0; k < operands_; ++k)
      row_base.push_back(b_.CreateGEP(element_type_[k], base_[k], b_.CreateLoad(b_.getInt64Ty(), odometer.offset[k]),
                                      "row_base"));
    emit_inner_loop(row_base, inner_stride, n);
    Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), remaining), b_.getInt64(1), "left");
    b_.CreateStore(left, remaining);
    BasicBlock* carry = new_block(b_, "carry");
    b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt64(0)), exit, carry);
    b_.SetInsertPoint(carry);
    odometer.emit_step(b_, row, exit);
  }

  // The innermost level: one loop, or NOTE: [Streaming stores]'s three.
  void emit_inner_loop(const std::vector<Value*>& row_base, const std::vector<Value*>& inner_stride, Value* n) {
    std::vector<Parts> fixed(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      if (spec_.inner[k] == InnerStride::zero) fixed[k] = load(k, row_base[k]);  // repeats: loaded once
    if (!key_.stream) {
      emit_element_loop(row_base, inner_stride, fixed, b_.getInt64(0), n, /*vectorise=*/true);
      return;
    }
    // Elements up to out's first line boundary one at a time, then whole
    // lines as vectors stored past the caches, then the rest one at a time.
    const std::int64_t out_bytes = static_cast<std::int64_t>(dtype_size(dtype_[0]));  // a complex one: both parts
    const std::int64_t lanes = kLineBytes / out_bytes;
    Value* address = b_.CreatePtrToInt(row_base[0], b_.getInt64Ty());
    Value* head = b_.CreateUDiv(b_.CreateAnd(b_.CreateNeg(address), b_.getInt64(kLineBytes - 1)), b_.getInt64(out_bytes));
    head = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, head, n, nullptr, "head");
    Value* lines_end = b_.CreateAdd(head, b_.CreateAnd(b_.CreateSub(n, head), b_.getInt64(~(lanes - 1))), "lines_end");
    emit_element_loop(row_base, inner_stride, fixed, b_.getInt64(0), head, false);
    emit_line_loop(row_base, fixed, head, lines_end, static_cast<unsigned>(lanes));
    emit_element_loop(row_base, inner_stride, fixed, lines_end, n, false);
  }

  // Elements [begin, end) from row_base, each input loaded by its class
  // (`fixed`: the repeated inputs' values). A strided operand keeps a running
  // offset from 0, so begin is 0 whenever one is strided (streaming rows have none).
  void emit_element_loop(const std::vector<Value*>& row_base, const std::vector<Value*>& inner_stride,
                         const std::vector<Parts>& fixed, Value* begin, Value* end, bool vectorise) {
    CountedLoop loop = open_loop(b_, begin, end, "inner");
    std::vector<llvm::PHINode*> running(static_cast<std::size_t>(operands_), nullptr);
    std::vector<Value*> address(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 0; k < operands_; ++k) {  // the phis first: they head the block
      if (spec_.inner[k] != InnerStride::strided) continue;
      running[k] = b_.CreatePHI(b_.getInt64Ty(), 2, "j");
      running[k]->addIncoming(b_.getInt64(0), loop.preheader);
    }
    for (int k = 0; k < operands_; ++k) {
      if (spec_.inner[k] == InnerStride::unit) address[k] = b_.CreateGEP(element_type_[k], row_base[k], loop.i);
      if (spec_.inner[k] == InnerStride::strided) address[k] = b_.CreateGEP(element_type_[k], row_base[k], running[k]);
    }
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k) in.push_back(fixed[k].re ? fixed[k] : load(k, address[k]));
    // out's class is unit or strided (out never repeats).
    store(compute(in, 1), address[0]);
    for (int k = 0; k < operands_; ++k)
      if (running[k]) running[k]->addIncoming(b_.CreateAdd(running[k], inner_stride[k]), b_.GetInsertBlock());
    close_loop(b_, loop, b_.getInt64(1), vectorise, vectorise ? interleave_ : 0);
  }

  // Whole lines of out [begin, end), `lanes` elements a line: in groups of
  // interleave_for()'s count where the program runs a recipe (the copies'
  // chains independent, for the scheduler to interleave), then one at a time.
  void emit_line_loop(const std::vector<Value*>& row_base, const std::vector<Parts>& fixed, Value* begin, Value* end,
                      unsigned lanes) {
    const unsigned copies = interleave_;
    if (copies > 1) {
      Value* group = b_.getInt64(static_cast<std::int64_t>(copies * lanes));
      Value* groups_end = b_.CreateAdd(begin, b_.CreateMul(b_.CreateUDiv(b_.CreateSub(end, begin), group), group));
      emit_lines(row_base, fixed, begin, groups_end, lanes, copies);
      begin = groups_end;
    }
    emit_lines(row_base, fixed, begin, end, lanes, 1);
  }

  // Lines [begin, end), `copies` lines a step: each input a vector (unit) or
  // a splat (repeated), out one aligned non-temporal store a line.
  void emit_lines(const std::vector<Value*>& row_base, const std::vector<Parts>& fixed, Value* begin, Value* end,
                  unsigned lanes, unsigned copies) {
    CountedLoop loop = open_loop(b_, begin, end, "lines");
    for (unsigned c = 0; c < copies; ++c) {
      Value* at = c == 0 ? static_cast<Value*>(loop.i) : b_.CreateAdd(loop.i, b_.getInt64(static_cast<std::int64_t>(c * lanes)));
      std::vector<Parts> in;
      for (int k = 1; k < operands_; ++k) {
        if (fixed[k].re) {
          in.push_back(splat(lanes, fixed[k], b_));
          continue;
        }
        Value* address = b_.CreateGEP(element_type_[k], row_base[k], at);
        if (is_complex(dtype_[k])) {
          in.push_back(load_complex_vector(b_, dtype_[k], address, lanes));
          continue;
        }
        llvm::Type* vector = llvm::FixedVectorType::get(element_type_[k], lanes);
        in.push_back(
            {to_compute(b_, dtype_[k], b_.CreateAlignedLoad(vector, address, llvm::Align(dtype_size(dtype_[k]))))});
      }
      const Parts result = compute(in, lanes);
      Value* address = b_.CreateGEP(element_type_[0], row_base[0], at);
      llvm::StoreInst* store = is_complex(dtype_[0]) ? store_complex_vector(b_, dtype_[0], result, address)
                                                     : emit_store(b_, dtype_[0], result.re, address);
      make_nontemporal(b_, store, kLineBytes);
    }
    close_loop(b_, loop, b_.getInt64(static_cast<std::int64_t>(copies * lanes)), /*vectorise=*/false);
  }

  const KernelKey& key_;
  llvm::Module& module_;
  const ExprKernelSpec& spec_;
  const ExprProgram& program_;
  llvm::IRBuilder<> b_;
  int rank_, operands_;
  unsigned interleave_;  // interleave_for(program_)
  llvm::Function* fn_ = nullptr;
  llvm::Argument* args_ = nullptr;
  std::vector<DType> dtype_;                // out, then each input
  std::vector<llvm::Type*> element_type_;   // storage types, same order
  std::vector<Value*> base_;
  std::vector<Parts> scalars_;
};

}  // namespace

llvm::Function* emit_expression_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                       const std::string& symbol) {
  return ExpressionEmitter(module, key, settings, symbol).emit();
}

}  // namespace bcast::jit
