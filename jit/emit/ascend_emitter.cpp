// The Ascend-style emitter. Per block: load resident operands once, then for
// each tile: bring each input into the UB (copy, or broadcast a scalar),
// run one vector instruction, copy the result out, and step the offsets.
#include "emit/ascend_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <cstddef>
#include <type_traits>

#include "ascend_abi.h"
#include "expr_kernel.h"
#include "ir/ir_helpers.h"
#include "ir/odometer.h"

namespace bcast::jit {
namespace {

using ascend::BlockStart;
using ascend::KernelParams;
using llvm::BasicBlock;
using llvm::Value;

// The LLVM type of a C parameter type of NOTE: [Ascend intrinsics].
template <class T>
llvm::Type* llvm_type(llvm::LLVMContext& c) {
  if constexpr (std::is_pointer_v<T>) return llvm::PointerType::get(c, 0);
  else return llvm::IntegerType::get(c, 8 * sizeof(T));
}

// The LLVM function type of an intrinsic's prototype.
template <class Prototype>
struct FunctionTypeOf;
template <class... Params>
struct FunctionTypeOf<void(Params...)> {
  static llvm::FunctionType* get(llvm::LLVMContext& c) {
    return llvm::FunctionType::get(llvm::Type::getVoidTy(c), {llvm_type<Params>(c)...}, false);
  }
};

// The intrinsics, one value per entry of BCAST_ASCEND_INTRINSICS, and each
// one's symbol and LLVM type, made from the same list.
#define BCAST_INTRINSIC_VALUE(symbol, prototype) symbol,
enum class Intrinsic { BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_VALUE) };
#undef BCAST_INTRINSIC_VALUE

struct IntrinsicDecl {
  const char* symbol;
  llvm::FunctionType* (*type)(llvm::LLVMContext&);
};
#define BCAST_INTRINSIC_DECL(symbol, prototype) {#symbol, &FunctionTypeOf<ascend::prototype>::get},
constexpr IntrinsicDecl kIntrinsics[] = {BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_DECL)};
#undef BCAST_INTRINSIC_DECL

class AscendEmitter {
 public:
  AscendEmitter(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings, const std::string& symbol)
      : module_(module), key_(key), b_(module.getContext()),
        program_(key.expr != 0 ? &expr_kernel_spec(key.expr).program : nullptr),
        operands_(program_ ? 1 + static_cast<int>(program_->inputs.size()) : kNumOperands),
        odometer_(operands_) {
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {i64, i64, ptr, ptr, ptr}, false);
    fn_ = begin_kernel(b_, module, type, symbol, settings);
    const char* names[] = {"block_idx", "block_num", "gm", "params", "ctx"};
    for (unsigned i = 0; i < 5; ++i) fn_->getArg(i)->setName(names[i]);
    params_ = fn_->getArg(3);
    ctx_ = fn_->getArg(4);
    for (int k = 0; k < operands_; ++k)
      gm_.push_back(load_field(b_, fn_->getArg(2), k * sizeof(void*), b_.getPtrTy(), k == 0 ? "gm_out" : "gm_in"));
    inner_stride_.resize(operands_);
    tile_step_.resize(operands_);
    row_rewind_.resize(operands_);
    residency_.resize(operands_);
    ub_resident_.resize(operands_);
    ub_tile_.resize(operands_);
  }

  llvm::Function* emit() {
    BasicBlock* exit = block("exit");
    // This block's start: blocks[block_idx].
    Value* blocks = field(offsetof(KernelParams, blocks), b_.getPtrTy(), "blocks");
    Value* start = b_.CreateGEP(llvm::ArrayType::get(b_.getInt8Ty(), sizeof(BlockStart)), blocks, fn_->getArg(0),
                                "start");
    Value* tiles = load_field(b_, start, offsetof(BlockStart, tiles), b_.getInt64Ty(), "tiles");
    BasicBlock* body = block("body");
    b_.CreateCondBr(b_.CreateICmpSGT(tiles, b_.getInt64(0)), body, exit);
    b_.SetInsertPoint(body);

    load_parameters(start);
    load_residents();
    Value* remaining = local("remaining", tiles);
    Value* slot = local("slot", b_.getInt64(0));
    BasicBlock* tile = block("tile");
    b_.CreateBr(tile);

    b_.SetInsertPoint(tile);
    emit_tile(b_.CreateLoad(b_.getInt64Ty(), slot, "slot"));
    // Next slot (0, 1, 0, ... with double buffering) and next tile.
    Value* s = b_.CreateLoad(b_.getInt64Ty(), slot);
    Value* wrapped = b_.CreateICmpEQ(b_.CreateAdd(s, b_.getInt64(1)), slots_);
    b_.CreateStore(b_.CreateSelect(wrapped, b_.getInt64(0), b_.CreateAdd(s, b_.getInt64(1))), slot);
    Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), remaining), b_.getInt64(1), "left");
    b_.CreateStore(left, remaining);
    BasicBlock* advance = block("advance");
    b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt64(0)), exit, advance);
    b_.SetInsertPoint(advance);
    emit_advance(tile, exit);

    b_.SetInsertPoint(exit);
    b_.CreateRetVoid();
    return fn_;
  }

 private:
  // ---- parameters ----

  void load_parameters(Value* start) {
    const int outer = key_.rank > 0 ? key_.rank - 1 : 0;
    Value* extents = field(offsetof(KernelParams, extents), b_.getPtrTy(), "extents");
    Value* strides = field(offsetof(KernelParams, strides), b_.getPtrTy(), "strides");
    Value* spans = field(offsetof(KernelParams, spans), b_.getPtrTy(), "spans");
    Value* index = load_field(b_, start, offsetof(BlockStart, index), b_.getPtrTy(), "index");
    for (int l = 0; l < outer; ++l) {
      odometer_.extent.push_back(element(extents, l, "extent"));
      odometer_.index.push_back(local("i" + std::to_string(l), element(index, l, "start")));
      for (int k = 0; k < operands_; ++k) {
        odometer_.stride[k].push_back(element(strides, k * outer + l, "stride"));
        odometer_.span[k].push_back(element(spans, k * outer + l, "span"));
      }
    }
    for (int k = 0; k < operands_; ++k) {
      odometer_.offset[k] = local(
          "offset", load_field(b_, start, offsetof(BlockStart, offset) + k * sizeof(std::int64_t), b_.getInt64Ty(),
                               "start_offset"));
      inner_stride_[k] = array_field(offsetof(KernelParams, inner_stride), k, "inner_stride");
      tile_step_[k] = array_field(offsetof(KernelParams, tile_step), k, "tile_step");
      row_rewind_[k] = array_field(offsetof(KernelParams, row_rewind), k, "row_rewind");
      for (int s = 0; s < 2; ++s)
        ub_tile_[k][s] = array_field(offsetof(KernelParams, ub_tile) + s * sizeof(std::int64_t), 2 * k, "ub_tile");
      residency_[k] = array_field(offsetof(KernelParams, residency), k, "residency");
      ub_resident_[k] = array_field(offsetof(KernelParams, ub_resident), k, "ub_resident");
    }
    n_ = field(offsetof(KernelParams, inner_extent), b_.getInt64Ty(), "n");
    tile_ = field(offsetof(KernelParams, tile), b_.getInt64Ty(), "tile_elements");
    slots_ = field(offsetof(KernelParams, slots), b_.getInt64Ty(), "slots");
    pos_ = local("pos", load_field(b_, start, offsetof(BlockStart, pos), b_.getInt64Ty(), "pos"));
    if (program_ != nullptr) {
      Value* values = field(offsetof(KernelParams, ub_values), b_.getPtrTy(), "ub_values");
      for (std::size_t i = 0; i < program_->code.size(); ++i)
        ub_value_.push_back({element(values, static_cast<int>(2 * i), "ub_value"),
                             element(values, static_cast<int>(2 * i + 1), "ub_value")});
    }
  }

  // A resident input is copied whole into the UB once per block.
  void load_residents() {
    for (int k = 1; k < operands_; ++k) {
      BasicBlock* load = block("load_resident");
      BasicBlock* after = block("after_resident");
      b_.CreateCondBr(b_.CreateICmpEQ(residency_[k], b_.getInt64(ascend::kResident)), load, after);
      b_.SetInsertPoint(load);
      Value* count = array_field(offsetof(KernelParams, resident_count), k, "resident_count");
      Value* gm_offset = array_field(offsetof(KernelParams, resident_gm_offset), k, "resident_gm_offset");
      call(Intrinsic::bcast_sim_copy_in, {ctx_, ub_resident_[k], b_.CreateGEP(b_.getInt8Ty(), gm_[k], gm_offset), count,
                                 b_.getInt64(1), b_.getInt32(k)});
      b_.CreateBr(after);
      b_.SetInsertPoint(after);
    }
  }

  // ---- one tile ----

  void emit_tile(Value* slot) {
    // len = min(tile, n - pos): the last tile of a row may be short.
    Value* left_in_row = b_.CreateSub(n_, b_.CreateLoad(b_.getInt64Ty(), pos_));
    Value* len = b_.CreateSelect(b_.CreateICmpSLT(left_in_row, tile_), left_in_row, tile_, "len");
    std::vector<Value*> ub(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 1; k < operands_; ++k) {
      ub[k] = fetch_input(k, slot, len);
      call(Intrinsic::bcast_sim_enque, {ctx_, b_.getInt32(k), b_.CreateTrunc(slot, b_.getInt32Ty())});
    }
    for (int k = 1; k < operands_; ++k)
      call(Intrinsic::bcast_sim_deque, {ctx_, b_.getInt32(k), b_.CreateTrunc(slot, b_.getInt32Ty())});
    Value* out_ub = tile_buffer(kOut, slot);
    if (program_ == nullptr) call(Intrinsic::bcast_sim_vector_binary, {ctx_, out_ub, ub[kA], ub[kB], len});
    else emit_nodes(ub, slot, len);
    call(Intrinsic::bcast_sim_enque, {ctx_, b_.getInt32(ascend::kQueueOut), b_.CreateTrunc(slot, b_.getInt32Ty())});
    call(Intrinsic::bcast_sim_deque, {ctx_, b_.getInt32(ascend::kQueueOut), b_.CreateTrunc(slot, b_.getInt32Ty())});
    call(Intrinsic::bcast_sim_copy_out, {ctx_, gm_at(kOut), out_ub, len, inner_stride_[kOut]});
    call(Intrinsic::bcast_sim_tile_done, {ctx_});
  }

  // NOTE: [Expression kernels]: each node of the program over the tile, from
  // the inputs' tile buffers, the scalars and earlier nodes' buffers into its
  // own (the last one's is out's).
  void emit_nodes(const std::vector<Value*>& ub, Value* slot, Value* len) {
    std::vector<Value*> value;  // each value's UB address, or kScalarArgument - j for scalar j
    for (int k = 1; k < operands_; ++k) value.push_back(ub[k]);
    for (std::size_t j = 0; j < program_->scalars.size(); ++j)
      value.push_back(b_.getInt64(ascend::kScalarArgument - static_cast<std::int64_t>(j)));
    Value* first_slot = b_.CreateICmpEQ(slot, b_.getInt64(0));
    for (std::size_t i = 0; i < program_->code.size(); ++i) {
      const ExprInstr& instr = program_->code[i];
      Value* dst = b_.CreateSelect(first_slot, ub_value_[i][0], ub_value_[i][1], "node_ub");
      Value* args[3] = {b_.getInt64(0), b_.getInt64(0), b_.getInt64(0)};
      for (int a = 0; a < instr.arity(); ++a) args[a] = value[static_cast<std::size_t>(instr.args[a])];
      call(Intrinsic::bcast_sim_vector_node,
           {ctx_, b_.getInt32(static_cast<std::uint32_t>(i)), dst, args[0], args[1], args[2], len});
      value.push_back(dst);
    }
  }

  // The UB address of input k's data for this tile.
  Value* fetch_input(int k, Value* slot, Value* len) {
    const InnerStride inner = program_ ? expr_kernel_spec(key_.expr).inner[k] : key_.inner[k];
    const bool repeated = key_.rank > 0 && inner == InnerStride::zero;
    Value* buffer = tile_buffer(k, slot);
    Value* offset = b_.CreateLoad(b_.getInt64Ty(), odometer_.offset[k]);
    BasicBlock* resident = block("resident");
    BasicBlock* per_tile = block("per_tile");
    BasicBlock* fetched = block("fetched");
    b_.CreateCondBr(b_.CreateICmpEQ(residency_[k], b_.getInt64(ascend::kResident)), resident, per_tile);

    // Resident: the tile's data is already in the UB at ub_resident + offset.
    b_.SetInsertPoint(resident);
    Value* in_resident = b_.CreateAdd(ub_resident_[k], offset);
    Value* from_resident = in_resident;
    if (repeated) {
      call(Intrinsic::bcast_sim_broadcast, {ctx_, buffer, in_resident, len, b_.getInt32(k)});
      from_resident = buffer;
    }
    b_.CreateBr(fetched);
    BasicBlock* resident_end = b_.GetInsertBlock();

    // Per tile: copy the row piece in, or one element and broadcast it.
    b_.SetInsertPoint(per_tile);
    if (repeated) {
      call(Intrinsic::bcast_sim_copy_in, {ctx_, buffer, gm_at(k), b_.getInt64(1), b_.getInt64(1), b_.getInt32(k)});
      call(Intrinsic::bcast_sim_broadcast, {ctx_, buffer, buffer, len, b_.getInt32(k)});
    } else {
      call(Intrinsic::bcast_sim_copy_in, {ctx_, buffer, gm_at(k), len, inner_stride_[k], b_.getInt32(k)});
    }
    b_.CreateBr(fetched);
    BasicBlock* per_tile_end = b_.GetInsertBlock();

    b_.SetInsertPoint(fetched);
    llvm::PHINode* address = b_.CreatePHI(b_.getInt64Ty(), 2, "ub_input");
    address->addIncoming(from_resident, resident_end);
    address->addIncoming(buffer, per_tile_end);
    return address;
  }

  // Next tile: along the row, or to the next row through the odometer.
  void emit_advance(BasicBlock* tile, BasicBlock* exit) {
    Value* pos = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), pos_), tile_);
    for (int k = 0; k < operands_; ++k) add_to(odometer_.offset[k], tile_step_[k]);
    BasicBlock* same_row = block("same_row");
    BasicBlock* next_row = block("next_row");
    b_.CreateCondBr(b_.CreateICmpSLT(pos, n_), same_row, next_row);
    b_.SetInsertPoint(same_row);
    b_.CreateStore(pos, pos_);
    b_.CreateBr(tile);
    b_.SetInsertPoint(next_row);
    b_.CreateStore(b_.getInt64(0), pos_);
    for (int k = 0; k < operands_; ++k)
      b_.CreateStore(b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), odometer_.offset[k]), row_rewind_[k]),
                     odometer_.offset[k]);
    odometer_.emit_step(b_, tile, exit);
  }

  // ---- helpers ----

  Value* tile_buffer(int k, Value* slot) {
    return b_.CreateSelect(b_.CreateICmpEQ(slot, b_.getInt64(0)), ub_tile_[k][0], ub_tile_[k][1]);
  }
  Value* gm_at(int k) { return b_.CreateGEP(b_.getInt8Ty(), gm_[k], b_.CreateLoad(b_.getInt64Ty(), odometer_.offset[k])); }
  void add_to(Value* slot, Value* amount) { add_to_local(b_, slot, amount); }
  Value* local(const std::string& name, Value* init) { return new_local(b_, name, init); }
  Value* field(std::size_t offset, llvm::Type* type, const char* name) {
    return load_field(b_, params_, offset, type, name);
  }
  Value* array_field(std::size_t offset, int i, const char* name) {
    return field(offset + static_cast<std::size_t>(i) * sizeof(std::int64_t), b_.getInt64Ty(), name);
  }
  Value* element(Value* array, int i, const std::string& name) { return load_i64(b_, array, i, name); }
  BasicBlock* block(const std::string& name) { return new_block(b_, name); }

  // Calls an intrinsic, declared from its shared prototype (NOTE: [Ascend
  // intrinsics]); the verifier rejects a call whose arguments do not match it.
  void call(Intrinsic which, std::initializer_list<Value*> args) {
    llvm::FunctionCallee callee = declare(which);
    b_.CreateCall(callee, args);
  }
  llvm::FunctionCallee declare(Intrinsic which) {
    const IntrinsicDecl& decl = kIntrinsics[static_cast<std::size_t>(which)];
    return module_.getOrInsertFunction(decl.symbol, decl.type(module_.getContext()));
  }

  llvm::Module& module_;
  const KernelKey& key_;
  llvm::IRBuilder<> b_;
  const ExprProgram* program_;  // an expression kernel's; null for a binary op's
  int operands_;                // out and the inputs
  Odometer odometer_;
  llvm::Function* fn_ = nullptr;
  Value* params_ = nullptr;
  Value* ctx_ = nullptr;
  std::vector<Value*> gm_;
  std::vector<Value*> inner_stride_, tile_step_, row_rewind_, residency_, ub_resident_;
  std::vector<std::array<Value*, 2>> ub_tile_, ub_value_;
  Value* n_ = nullptr;
  Value* tile_ = nullptr;
  Value* slots_ = nullptr;
  Value* pos_ = nullptr;
};

}  // namespace

llvm::Function* emit_ascend_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                   const std::string& symbol) {
  return AscendEmitter(module, key, settings, symbol).emit();
}

}  // namespace bcast::jit
