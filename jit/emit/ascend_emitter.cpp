// The Ascend-style emitter: the kernel of NOTE: [Ascend lowering] as LLVM IR.
// Per block: find the first tile from the block's index (NOTE: [Ascend
// tiling]), read scalar inputs into registers; then per tile, as an Ascend C
// kernel's Process loop: CopyIn (AllocTensor, DataCopy, EnQue per input),
// Compute (DeQue, Brcb for columns, the lowering's vector steps, EnQue out,
// FreeTensor), CopyOut (DeQue, DataCopy, FreeTensor), then step the offsets.
#include "emit/ascend_emitter.h"

#include <llvm/IR/IRBuilder.h>

#include <cstddef>
#include <map>
#include <optional>

#include "ascend_abi.h"
#include "ascend_lowering.h"
#include "emit/ascend_calls.h"
#include "expr_kernel.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_helpers.h"
#include "ir/ir_nodes.h"
#include "ir/ir_ops.h"
#include "ir/odometer.h"

namespace bcast::jit {
namespace {

using namespace bcast::ascend;
using llvm::BasicBlock;
using llvm::Value;

std::int64_t size_of(DType t) { return static_cast<std::int64_t>(dtype_size(t)); }

class AscendEmitter {
 public:
  using Vector = AscendCalls::Vector;

  AscendEmitter(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings, const std::string& symbol)
      : b_(module.getContext()), product_(products()[key.model - 1u]),
        lw_(lower_for_ascend(key, product_)), inputs_(static_cast<int>(lw_.inputs.size())),
        outer_(std::max<int>(key.rank, 2) - 2),
        odometer_(1 + inputs_) {
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getVoidTy(), {i64, i64, ptr, ptr, ptr}, false);
    fn_ = begin_kernel(b_, module, type, symbol, settings);
    const char* names[] = {"block_idx", "block_num", "gm", "tiling", "ctx"};
    for (unsigned i = 0; i < 5; ++i) fn_->getArg(i)->setName(names[i]);
    tiling_ = fn_->getArg(3);
    ctx_ = fn_->getArg(4);
    calls_.emplace(module, b_, ctx_);
    for (int k = 0; k <= inputs_; ++k)
      gm_.push_back(load_field(b_, fn_->getArg(2), k * sizeof(void*), ptr, k == 0 ? "gm_out" : "gm_in"));
  }

  llvm::Function* emit() {
    BasicBlock* exit = block("exit");
    if (!lw_.refused.empty()) {  // the dispatcher never runs such a key
      b_.CreateBr(exit);
      b_.SetInsertPoint(exit);
      b_.CreateRetVoid();
      return fn_;
    }
    // This block's tiles: [share(tiles, block_num, idx), share(tiles, block_num, idx + 1)).
    Value* tiles = t64(offsetof(TilingData, tiles), "tiles");
    Value* first = share(tiles, fn_->getArg(1), fn_->getArg(0));
    Value* count = b_.CreateSub(share(tiles, fn_->getArg(1), b_.CreateAdd(fn_->getArg(0), b_.getInt64(1))), first);
    BasicBlock* body = block("body");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), body, exit);
    b_.SetInsertPoint(body);
    load_tiling();
    find_start(first);
    load_registers();
    Value* remaining = local("remaining", count);
    Value* slot = local("slot", b_.getInt64(0));
    BasicBlock* tile = block("tile");
    b_.CreateBr(tile);

    b_.SetInsertPoint(tile);
    emit_tile(b_.CreateLoad(b_.getInt64Ty(), slot, "slot"));
    Value* s = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), slot), b_.getInt64(1));
    b_.CreateStore(b_.CreateSelect(b_.CreateICmpEQ(s, slots_), b_.getInt64(0), s), slot);
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

  // ---- the block's start ----

  void load_tiling() {
    const int levels = outer_ + 2;
    for (int l = 0; l < levels; ++l) extent_.push_back(t64(offsetof(TilingData, extents) + 8 * l, "extent"));
    for (int k = 0; k <= inputs_; ++k) {
      std::vector<Value*> s;
      for (int l = 0; l < levels; ++l)
        s.push_back(t64(offsetof(TilingData, strides) + 8 * (k * kMaxLevels + l), "stride"));
      stride_.push_back(s);
    }
    rows_ = t64(offsetof(TilingData, rows), "rows");
    cols_ = t64(offsetof(TilingData, cols), "cols");
    pitch_ = t64(offsetof(TilingData, pitch), "pitch");
    row_tiles_ = t64(offsetof(TilingData, row_tiles), "row_tiles");
    col_tiles_ = t64(offsetof(TilingData, col_tiles), "col_tiles");
    slots_ = t64(offsetof(TilingData, slots), "slots");
    m_ = extent_[outer_];
    n_ = extent_[outer_ + 1];
    // A tile's elements in the UB, rows times pitch: a full tile's, and the
    // last row tile's (fewer rows), so that tiles add and never multiply.
    full_elems_ = b_.CreateMul(rows_, pitch_, "full_elems");
    for (std::int64_t size : {1, 2, 4, 8}) pitch_bytes_[size] = b_.CreateMul(pitch_, b_.getInt64(size), "pitch_bytes");
    last_elems_ = b_.CreateMul(b_.CreateSub(m_, b_.CreateMul(b_.CreateSub(row_tiles_, b_.getInt64(1)), rows_)), pitch_,
                               "last_elems");
  }

  // The first tile's place: the only divisions and products of a block.
  void find_start(Value* first) {
    Value* ct = b_.CreateSRem(first, col_tiles_);
    Value* rest = b_.CreateSDiv(first, col_tiles_);
    Value* rt = b_.CreateSRem(rest, row_tiles_);
    Value* slab = b_.CreateSDiv(rest, row_tiles_);
    col0_ = local("col0", b_.CreateMul(ct, cols_));
    row0_ = local("row0", b_.CreateMul(rt, rows_));
    std::vector<Value*> index(static_cast<std::size_t>(outer_));
    for (int d = outer_ - 1; d >= 0; --d) {
      index[d] = b_.CreateSRem(slab, extent_[d]);
      slab = b_.CreateSDiv(slab, extent_[d]);
    }
    for (int d = 0; d < outer_; ++d) {
      odometer_.extent.push_back(extent_[d]);
      odometer_.index.push_back(local("i" + std::to_string(d), index[d]));
    }
    for (int k = 0; k <= inputs_; ++k) {
      Value* offset = t64(offsetof(TilingData, base) + 8 * k, "base");
      for (int d = 0; d < outer_; ++d) {
        offset = b_.CreateAdd(offset, b_.CreateMul(index[d], stride_[k][d]));
        odometer_.stride[k].push_back(stride_[k][d]);
        odometer_.span[k].push_back(b_.CreateMul(b_.CreateSub(extent_[d], b_.getInt64(1)), stride_[k][d]));
      }
      Value* row_stride = stride_[k][outer_];
      Value* inner_stride = stride_[k][outer_ + 1];
      offset = b_.CreateAdd(offset, b_.CreateMul(b_.CreateLoad(b_.getInt64Ty(), row0_), row_stride));
      offset = b_.CreateAdd(offset, b_.CreateMul(b_.CreateLoad(b_.getInt64Ty(), col0_), inner_stride));
      odometer_.offset[k] = local("offset", offset);
      col_step_.push_back(b_.CreateMul(cols_, inner_stride));
      col_rewind_.push_back(b_.CreateMul(col_tiles_, col_step_.back()));
      row_step_.push_back(b_.CreateMul(rows_, row_stride));
      row_rewind_.push_back(b_.CreateMul(row_tiles_, row_step_.back()));
    }
  }

  // One pipe waiting for another: Set and Wait adjacent, on the event ID a
  // TPipe's FetchEventID gives when none is held (0).
  void event_pair(Pipe from, Pipe to) {
    calls_->flag(true, from, to, 0);
    calls_->flag(false, from, to, 0);
  }

  // Scalar inputs (copied and read with GetValue once a block), the
  // expression's scalars, and the steps the scalar unit computes.
  void load_registers() {
    registers_.assign(static_cast<std::size_t>(inputs_), nullptr);
    for (int k = 0; k < inputs_; ++k) {
      if (lw_.fetch[k] != Fetch::scalar) continue;
      const std::int64_t size = size_of(lw_.inputs[k]);
      Value* ub = t64(offsetof(TilingData, ub_scalar) + 8 * (k + 1), "ub_scalar");
      copy(CopyDir::gm_to_ub, ub, gm_at(k + 1), k + 1, size, b_.getInt64(1), whole_or_bytes(b_.getInt64(size)),
           b_.getInt64(0), b_.getInt64(0));
      event_pair(Pipe::mte2, Pipe::scalar);
      registers_[k] = calls_->get_value(ub, static_cast<int>(size));
    }
    for (int k = 0; k < inputs_; ++k) {  // resident rows: copied once a block, before V reads them
      if (lw_.fetch[k] != Fetch::row) continue;
      when(resident(k), "load_resident_row", [&] {
        const std::int64_t size = size_of(lw_.inputs[k]);
        copy(CopyDir::gm_to_ub, resident_row(k), gm_at(k + 1), k + 1, size, b_.getInt64(1),
             whole_or_bytes(b_.CreateMul(n_, b_.getInt64(size))), b_.getInt64(0), b_.getInt64(0));
        event_pair(Pipe::mte2, Pipe::vector);
      });
    }
    for (std::size_t j = 0; j < lw_.scalars.size(); ++j)
      scalar_args_.push_back(t64(offsetof(TilingData, scalars) + 8 * j, "scalar"));
    if (lw_.gathers) {  // Gather's byte offsets, 0, 32, 64, ...: a block a lane, as the gather copy lays them
      Value* offsets = t64(offsetof(TilingData, ub_offsets), "ub_offsets");
      calls_->vector(Vector{.instr = Instr::CreateVecIndex, .dtype = DType::i32, .dst = offsets, .scalar = b_.getInt64(0),
                          .count = cols_});
      calls_->vector(Vector{.instr = Instr::Muls, .dtype = DType::i32, .dst = offsets, .src0 = offsets,
                          .scalar = b_.getInt64(kBlockBytes), .count = cols_});
    }
    step_registers_.assign(lw_.steps.size(), nullptr);
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit) step_registers_[i] = scalar_unit(st);
      else if (st.negate_scalar) step_registers_[i] = negate(register_of(st.args[1]), st.dtype);
    }
  }

  // ---- one tile ----

  void emit_tile(Value* slot) {
    Value* row0 = b_.CreateLoad(b_.getInt64Ty(), row0_);
    Value* col0 = b_.CreateLoad(b_.getInt64Ty(), col0_);
    Value* rows = min(rows_, b_.CreateSub(m_, row0), "rows_here");
    Value* cols = min(cols_, b_.CreateSub(n_, col0), "cols_here");
    Value* slot32 = b_.CreateTrunc(slot, b_.getInt32Ty());
    // CopyIn (a resident row is in the UB already)
    for (int k = 0; k < inputs_; ++k) {
      if (lw_.fetch[k] == Fetch::scalar) continue;
      unless_resident(k, "copy_in", [&] {
        queue(QueueOp::alloc, queue_of(k), slot32);
        Value* ub = queue_buffer(1 + k, slot);
        if (lw_.fetch[k] == Fetch::column) copy_column(k, ub, rows);
        else if (lw_.fetch[k] == Fetch::gather) copy_gather(k, ub, cols);
        else copy_rows(CopyDir::gm_to_ub, 1 + k, ub, lw_.fetch[k] == Fetch::row ? b_.getInt64(1) : rows, cols);
        queue(QueueOp::enque, queue_of(k), slot32);
      });
    }
    // Compute
    for (int k = 0; k < inputs_; ++k)
      if (lw_.fetch[k] != Fetch::scalar)
        unless_resident(k, "deque", [&] { queue(QueueOp::deque, queue_of(k), slot32); });
    queue(QueueOp::alloc, kQueueOut, slot32);
    for (int k = 0; k < inputs_; ++k) {
      if (lw_.fetch[k] == Fetch::column) spread_column(k, queue_buffer(1 + k, slot), rows);
      if (lw_.fetch[k] == Fetch::gather)
        calls_->vector(Vector{.instr = Instr::Gather, .dtype = lw_.inputs[k], .dst = gathered(k),
                            .src0 = queue_buffer(1 + k, slot), .src1 = t64(offsetof(TilingData, ub_offsets), "ub_offsets"),
                            .count = cols});
    }
    if (lw_.per_row) {  // NOTE: [Rows in repeats]
      // The tiling's rows, not this tile's piece: the pitch (a repeat stride)
      // is the full tile's, so only short full rows keep it within 255 blocks.
      Value* fits = b_.CreateICmpSLE(cols_, b_.getInt64(row_repeat_cols(lw_)));
      when(fits, "row_repeats", [&] { emit_row_repeats(slot, rows, cols); });
      when(b_.CreateNot(fits), "rows", [&] { emit_rows(slot, rows, cols); });
    } else {
      emit_steps(slot, b_.CreateSelect(b_.CreateICmpEQ(rows, rows_), full_elems_, last_elems_));
    }
    queue(QueueOp::enque, kQueueOut, slot32);
    for (int k = 0; k < inputs_; ++k)
      if (lw_.fetch[k] != Fetch::scalar)
        unless_resident(k, "free", [&] { queue(QueueOp::free, queue_of(k), slot32); });
    // CopyOut
    queue(QueueOp::deque, kQueueOut, slot32);
    copy_rows(CopyDir::ub_to_gm, kQueueOut, queue_buffer(kQueueOut, slot), rows, cols);
    queue(QueueOp::free, kQueueOut, slot32);
    calls_->tile_done();
  }

  // A tile's rows of operand k (a stream, a row input, or out), `rows`
  // blocks of `cols` elements, each row of the UB `pitch` elements apart.
  void copy_rows(CopyDir dir, int k, Value* ub, Value* rows, Value* cols) {
    const std::int64_t size = size_of(k == 0 ? lw_.out : lw_.inputs[k - 1]);
    Value* len = b_.CreateMul(cols, b_.getInt64(size), "len");
    Value* ub_row = pitch_bytes_.at(size);
    Value* several = b_.CreateICmpSGT(rows, b_.getInt64(1));
    Value* gm_gap = b_.CreateSelect(several, b_.CreateSub(stride_[k][outer_], len), b_.getInt64(0));
    Value* ub_gap_blocks =
        b_.CreateSDiv(b_.CreateSub(ub_row, round_up32(len)), b_.getInt64(kBlockBytes));  // the row's pad
    if (!product_.has_data_copy_pad) {  // whole blocks (the launcher checked they are)
      len = b_.CreateSDiv(len, b_.getInt64(kBlockBytes));
      gm_gap = b_.CreateSDiv(gm_gap, b_.getInt64(kBlockBytes));
    }
    const bool in = dir == CopyDir::gm_to_ub;
    copy(dir, ub, gm_at(k), k, size, rows, len, in ? gm_gap : ub_gap_blocks, in ? ub_gap_blocks : gm_gap);
  }

  // A column input's values for the tile's rows (NOTE: [Ascend tiling]'s ColumnMode).
  void copy_column(int k, Value* ub, Value* rows) {
    const std::int64_t size = size_of(lw_.inputs[k]);
    Value* mode = t64(offsetof(TilingData, column_mode) + 8 * (k + 1), "column_mode");
    Value* strided = b_.CreateICmpEQ(mode, b_.getInt64(kStrided));
    Value* one = b_.CreateICmpEQ(mode, b_.getInt64(kOneValue));
    Value* values = b_.CreateSelect(one, b_.getInt64(1), rows);
    Value* count = b_.CreateSelect(strided, rows, b_.getInt64(1));
    Value* len = b_.CreateSelect(strided, b_.getInt64(size), b_.CreateMul(values, b_.getInt64(size)));
    Value* several = b_.CreateAnd(strided, b_.CreateICmpSGT(rows, b_.getInt64(1)));
    Value* gap = b_.CreateSelect(several, b_.CreateSub(stride_[k + 1][outer_], b_.getInt64(size)), b_.getInt64(0));
    if (!product_.has_data_copy_pad) {  // DataCopy counts whole blocks (the launcher refuses what is not)
      len = b_.CreateSDiv(len, b_.getInt64(kBlockBytes));
      gap = b_.CreateSDiv(gap, b_.getInt64(kBlockBytes));
    }
    copy(CopyDir::gm_to_ub, ub, gm_at(k + 1), k + 1, size, count, len, gap, b_.getInt64(0));
  }

  // A gather input's row piece: each element into a 32-byte block of its own.
  void copy_gather(int k, Value* ub, Value* cols) {
    const std::int64_t size = size_of(lw_.inputs[k]);
    Value* gap = b_.CreateSub(stride_[k + 1][outer_ + 1], b_.getInt64(size));
    copy(CopyDir::gm_to_ub, ub, gm_at(k + 1), k + 1, size, cols, b_.getInt64(size), gap, b_.getInt64(0));
  }
  Value* gathered(int k) { return t64(offsetof(TilingData, ub_gathered) + 8 * (k + 1), "ub_gathered"); }

  // A row input resident for the block (NOTE: [Ascend lowering]): its UB row,
  // and whether this call keeps it so.
  Value* resident_row(int k) { return t64(offsetof(TilingData, ub_resident) + 8 * (k + 1), "ub_resident"); }
  Value* resident(int k) {
    return b_.CreateICmpNE(t64(offsetof(TilingData, row_resident) + 8 * (k + 1), "row_resident"), b_.getInt64(0));
  }
  // Emits `body` for input k's queue steps, skipped at run time for a resident row.
  template <class Body>
  void unless_resident(int k, const char* name, Body body) {
    if (lw_.fetch[k] != Fetch::row) return body();
    when(b_.CreateNot(resident(k)), name, body);
  }

  // Brcb: each value into a 32-byte block of its own (a strided column's
  // copy already put them so).
  void spread_column(int k, Value* ub, Value* rows) {
    Value* mode = t64(offsetof(TilingData, column_mode) + 8 * (k + 1), "column_mode");
    BasicBlock* spread = block("brcb");
    BasicBlock* after = block("after_brcb");
    b_.CreateCondBr(b_.CreateICmpNE(mode, b_.getInt64(kStrided)), spread, after);
    b_.SetInsertPoint(spread);
    Value* values = b_.CreateSelect(b_.CreateICmpEQ(mode, b_.getInt64(kOneValue)), b_.getInt64(1), rows);
    Vector f{.instr = Instr::Brcb, .dtype = lw_.inputs[k]};
    f.dst = t64(offsetof(TilingData, ub_brcb) + 8 * (k + 1), "ub_brcb");
    f.src0 = ub;
    f.repeat = b_.CreateSDiv(b_.CreateAdd(values, b_.getInt64(7)), b_.getInt64(8));
    f.params = {1, 1, 1, 8, 8, 8};
    calls_->vector(f);
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  }

  // ---- the steps ----

  // Whole-tile steps: count-form instructions over `count` elements.
  void emit_steps(Value* slot, Value* count) {
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit) continue;
      Vector f = fields_of(st, i, slot);
      f.count = count;
      calls_->vector(f);
    }
  }

  // Per-row steps: a row at a time; an instruction with a column operand
  // reads it with block and repeat strides of 0, in full repeats and a tail.
  void emit_rows(Value* slot, Value* rows, Value* cols) {
    Value* row_elems = local("row_elems", b_.getInt64(0));  // r * pitch
    Value* column_bytes = local("column_bytes", b_.getInt64(0));  // r * 32 (a block a row)
    const CountedLoop loop = open_loop(b_, b_.getInt64(0), rows, "row");
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit) continue;
      Vector f = fields_of(st, i, slot);
      Value* r = b_.CreateLoad(b_.getInt64Ty(), row_elems);
      Value* cb = b_.CreateLoad(b_.getInt64Ty(), column_bytes);
      bool any_column = false;
      for (int a = 0; a < 3; ++a) {
        Value** address = a == 0 ? &f.dst : a == 1 ? &f.src0 : &f.src1;
        if (*address == nullptr) continue;
        if (f.column[a]) {
          any_column = true;
          *address = b_.CreateAdd(*address, b_.CreateSelect(f.column_step[a], cb, b_.getInt64(0)));
        } else if (!f.row_input[a]) {
          *address = b_.CreateAdd(*address, b_.CreateMul(r, b_.getInt64(f.size[a])));
        }
      }
      if (!any_column) {
        f.count = cols;
        calls_->vector(f);
      } else {
        strided_row(f, cols);
      }
    }
    add_to_local(b_, row_elems, pitch_);
    add_to_local(b_, column_bytes, b_.getInt64(kBlockBytes));
    close_loop(b_, loop, b_.getInt64(1), false);
  }

  // Per-row steps as NOTE: [Rows in repeats] says: a level-0 call per step
  // and 255 rows, a repeat a row.
  void emit_row_repeats(Value* slot, Value* rows, Value* cols) {
    // Running offsets of the chunk's first row r (additions only): r, r * pitch, r * 32.
    Value* first = local("first_row", b_.getInt64(0));
    Value* first_elems = local("first_row_elems", b_.getInt64(0));
    Value* first_column_bytes = local("first_row_column_bytes", b_.getInt64(0));
    Value* chunk_elems = b_.CreateMul(pitch_, b_.getInt64(kMaxRepeatTimes));
    const CountedLoop loop = open_loop(
        b_, b_.getInt64(0),
        b_.CreateSDiv(b_.CreateAdd(rows, b_.getInt64(kMaxRepeatTimes - 1)), b_.getInt64(kMaxRepeatTimes)), "row_chunk");
    Value* r = b_.CreateLoad(b_.getInt64Ty(), first);
    Value* r_elems = b_.CreateLoad(b_.getInt64Ty(), first_elems);
    Value* r_column_bytes = b_.CreateLoad(b_.getInt64Ty(), first_column_bytes);
    Value* n = b_.CreateSelect(b_.CreateICmpSLT(b_.CreateSub(rows, r), b_.getInt64(kMaxRepeatTimes)),
                               b_.CreateSub(rows, r), b_.getInt64(kMaxRepeatTimes));
    for (std::size_t i = 0; i < lw_.steps.size(); ++i) {
      const Step& st = lw_.steps[i];
      if (st.scalar_unit) continue;
      Vector f = fields_of(st, i, slot);
      std::int64_t* blk[] = {&f.params.dst_blk, &f.params.src0_blk, &f.params.src1_blk};
      for (int a = 0; a < 3; ++a) {
        Value** address = a == 0 ? &f.dst : a == 1 ? &f.src0 : &f.src1;
        if (*address == nullptr) continue;
        *blk[a] = f.column[a] ? 0 : 1;
        if (f.column[a]) {  // a block a row, or one block
          *address = b_.CreateAdd(*address, b_.CreateSelect(f.column_step[a], r_column_bytes, b_.getInt64(0)));
          f.rep[a] = b_.CreateSelect(f.column_step[a], b_.getInt64(1), b_.getInt64(0));
        } else if (f.row_input[a]) {  // the same row every repeat
          f.rep[a] = b_.getInt64(0);
        } else {
          *address = b_.CreateAdd(*address, b_.CreateMul(r_elems, b_.getInt64(f.size[a])));
          f.rep[a] = b_.CreateSDiv(b_.CreateMul(pitch_, b_.getInt64(f.size[a])), b_.getInt64(kBlockBytes));
        }
      }
      f.mask = cols;
      f.repeat = n;
      calls_->vector(f);
    }
    add_to_local(b_, first, b_.getInt64(kMaxRepeatTimes));
    add_to_local(b_, first_elems, chunk_elems);
    add_to_local(b_, first_column_bytes, b_.getInt64(kMaxRepeatTimes * kBlockBytes));
    close_loop(b_, loop, b_.getInt64(1), false);
  }

  // A row of `cols` elements with column operands: full repeats, then the tail.
  void strided_row(Vector f, Value* cols) {
    std::int64_t widest = 1;
    for (int a = 0; a < 3; ++a) widest = std::max(widest, f.size[a]);
    const std::int64_t per_repeat = kRepeatBytes / widest;
    std::int64_t* blk[] = {&f.params.dst_blk, &f.params.src0_blk, &f.params.src1_blk};
    std::int64_t* rep[] = {&f.params.dst_rep, &f.params.src0_rep, &f.params.src1_rep};
    for (int a = 0; a < 3; ++a) {
      *blk[a] = f.column[a] ? 0 : 1;
      *rep[a] = f.column[a] || f.size[a] == 0 ? 0 : per_repeat * f.size[a] / kBlockBytes;
    }
    Value* full = b_.CreateSDiv(cols, b_.getInt64(per_repeat), "full");
    Value* tail = b_.CreateSRem(cols, b_.getInt64(per_repeat), "tail");
    when(b_.CreateICmpSGT(full, b_.getInt64(0)), "full_repeats", [&] {
      Vector g = f;
      g.mask = b_.getInt64(per_repeat);
      g.repeat = full;
      calls_->vector(g);
    });
    when(b_.CreateICmpSGT(tail, b_.getInt64(0)), "tail_repeat", [&] {
      Vector g = f;
      Value** address[] = {&g.dst, &g.src0, &g.src1};
      for (int a = 0; a < 3; ++a)
        if (*address[a] != nullptr && !g.column[a])
          *address[a] = b_.CreateAdd(*address[a], b_.CreateMul(full, b_.getInt64(per_repeat * f.size[a])));
      g.mask = tail;
      g.repeat = b_.getInt64(1);
      calls_->vector(g);
    });
  }

  Vector fields_of(const Step& st, std::size_t i, Value* slot) {
    Vector f{.instr = st.instr, .dtype = st.dtype, .src_dtype = st.src_dtype};
    f.mode = st.instr == Instr::Cast ? static_cast<std::uint8_t>(st.round) : st.mode;
    if (st.instr == Instr::Select) f.sel = t64(offsetof(TilingData, ub_step) + 8 * st.args[2].index, "ub_step");
    const bool last = i + 1 == lw_.steps.size();
    f.dst = last ? queue_buffer(kQueueOut, slot) : t64(offsetof(TilingData, ub_step) + 8 * i, "ub_step");
    f.size[0] = size_of(st.dtype);
    for (int a = 0; a < 2; ++a) {
      const Ref& r = st.args[a];
      if (st.instr == Instr::Duplicate && a == 0) {
        f.scalar = register_of(r);
        break;
      }
      if (a == 1 && r.is_register()) {
        f.scalar = st.negate_scalar ? step_registers_[i] : register_of(r);
        continue;
      }
      if (a == 1 && st.instr == Instr::Cast) break;
      Value*& address = a == 0 ? f.src0 : f.src1;
      f.size[1 + a] = size_of(st.instr == Instr::Cast ? st.src_dtype : st.dtype);
      if (r.kind == Ref::step) {
        address = static_cast<std::size_t>(r.index) + 1 == lw_.steps.size()
                      ? queue_buffer(kQueueOut, slot)
                      : t64(offsetof(TilingData, ub_step) + 8 * r.index, "ub_step");
        continue;
      }
      const int k = r.index;
      address = lw_.fetch[k] == Fetch::gather ? gathered(k) : queue_buffer(1 + k, slot);
      if (lw_.fetch[k] == Fetch::row) {
        f.row_input[1 + a] = true;
        address = b_.CreateSelect(resident(k), resident_row(k), address);
      }
      if (lw_.fetch[k] == Fetch::column) {
        Value* mode = t64(offsetof(TilingData, column_mode) + 8 * (k + 1), "column_mode");
        Value* brcb = t64(offsetof(TilingData, ub_brcb) + 8 * (k + 1), "ub_brcb");
        address = b_.CreateSelect(b_.CreateICmpEQ(mode, b_.getInt64(kStrided)), address, brcb);
        f.column[1 + a] = true;
        f.column_step[1 + a] = b_.CreateICmpNE(mode, b_.getInt64(kOneValue));  // a block a row, or one block
      }
    }
    return f;
  }

  // ---- registers ----

  Value* register_of(const Ref& r) {
    switch (r.kind) {
      case Ref::scalar_input: return registers_[static_cast<std::size_t>(r.index)];
      case Ref::scalar_arg: return scalar_args_[static_cast<std::size_t>(r.index)];
      case Ref::scalar_step: return step_registers_[static_cast<std::size_t>(r.index)];
      case Ref::constant: return b_.getInt64(r.index);
      default: return b_.getInt64(0);
    }
  }

  // A register's bits as a compute value of `t`, and back.
  Value* compute_value(Value* bits, DType t) {
    llvm::Type* storage = storage_type(b_.getContext(), t);
    Value* narrow = b_.CreateTrunc(bits, b_.getIntNTy(static_cast<unsigned>(8 * size_of(t))));
    return to_compute(b_, t, storage->isIntegerTy() ? narrow : b_.CreateBitCast(narrow, storage));
  }
  Value* bits_of(Value* value, DType t) {
    Value* storage = to_storage(b_, t, value);
    Value* as_int = storage->getType()->isIntegerTy()
                        ? storage
                        : b_.CreateBitCast(storage, b_.getIntNTy(static_cast<unsigned>(8 * size_of(t))));
    return b_.CreateZExt(as_int, b_.getInt64Ty());
  }

  Value* scalar_unit(const Step& st) {
    const ExprInstr& n = st.node;
    std::vector<Value*> x;
    for (int a = 0; a < n.arity(); ++a) {
      const DType t = n.kind == InstrKind::ternary && n.code == static_cast<std::uint8_t>(TernaryOp::where) && a == 0
                          ? DType::boolean
                          : n.in;
      x.push_back(compute_value(register_of(st.args[a]), t));
    }
    Value* r = nullptr;
    switch (n.kind) {
      case InstrKind::cast: r = emit_cast(b_, n.in, n.out, x[0]); break;
      case InstrKind::binary: r = emit_op(b_, static_cast<Op>(n.code), n.in, x[0], x[1]); break;
      case InstrKind::unary: r = emit_unary(b_, static_cast<UnaryOp>(n.code), n.in, x[0]); break;
      case InstrKind::ternary: r = emit_ternary(b_, static_cast<TernaryOp>(n.code), n.in, x[0], x[1], x[2]); break;
    }
    return bits_of(r, n.out);
  }

  Value* negate(Value* bits, DType t) {
    Value* v = compute_value(bits, t);
    return bits_of(v->getType()->isFloatingPointTy() ? b_.CreateFNeg(v) : b_.CreateNeg(v), t);
  }

  // ---- advancing ----

  // Next tile: the next piece along the row, else the next row tile, else
  // the next slab through the odometer; a level that wraps takes back what
  // its steps added.
  void emit_advance(BasicBlock* tile, BasicBlock* exit) {
    struct TileLevel {
      Value* position;  // local: col0 or row0
      Value* step;      // cols or rows
      Value* extent;    // n or m
      const std::vector<Value*>& add;     // per operand, a step's bytes
      const std::vector<Value*>& rewind;  // per operand, a level's
      const char* name;
    };
    const TileLevel levels[] = {{col0_, cols_, n_, col_step_, col_rewind_, "column_tiles"},
                                {row0_, rows_, m_, row_step_, row_rewind_, "row_tiles"}};
    for (const TileLevel& l : levels) {
      Value* next = b_.CreateAdd(b_.CreateLoad(b_.getInt64Ty(), l.position), l.step);
      for (std::size_t k = 0; k < l.add.size(); ++k) add_to_local(b_, odometer_.offset[k], l.add[k]);
      BasicBlock* same = block(std::string("same_") + l.name);
      BasicBlock* wrap = block(std::string("wrap_") + l.name);
      b_.CreateCondBr(b_.CreateICmpSLT(next, l.extent), same, wrap);
      b_.SetInsertPoint(same);
      b_.CreateStore(next, l.position);
      b_.CreateBr(tile);
      b_.SetInsertPoint(wrap);
      b_.CreateStore(b_.getInt64(0), l.position);
      for (std::size_t k = 0; k < l.rewind.size(); ++k) add_to_local(b_, odometer_.offset[k], b_.CreateNeg(l.rewind[k]));
    }
    odometer_.emit_step(b_, tile, exit);
  }

  // ---- helpers ----

  // A copy with the product's instruction (DataCopyPad where it has it).
  void copy(CopyDir dir, Value* ub, Value* gm, int operand, std::int64_t element_bytes, Value* count, Value* len,
            Value* src_gap, Value* dst_gap) {
    calls_->copy(product_.has_data_copy_pad ? Instr::DataCopyPad : Instr::DataCopy, dir, ub, gm, operand,
                 element_bytes, count, len, src_gap, dst_gap);
  }
  void queue(QueueOp op, int q, Value* slot32) { calls_->queue(op, q, slot32); }

  // A length in bytes as the product's copies count it.
  Value* whole_or_bytes(Value* bytes) {
    if (product_.has_data_copy_pad) return bytes;
    return b_.CreateSDiv(round_up32(bytes), b_.getInt64(kBlockBytes));
  }

  // Input k's VECIN queue (NOTE: [Ascend tiling]'s numbering).
  int queue_of(int k) const {
    int q = 1;
    for (int i = 0; i < k; ++i) q += lw_.fetch[i] != Fetch::scalar;
    return q;
  }
  Value* queue_buffer(int q, Value* slot) {
    Value* s0 = t64(offsetof(TilingData, ub_queue) + 8 * (2 * q), "ub_queue");
    Value* s1 = t64(offsetof(TilingData, ub_queue) + 8 * (2 * q + 1), "ub_queue");
    return b_.CreateSelect(b_.CreateICmpEQ(slot, b_.getInt64(0)), s0, s1);
  }
  Value* gm_at(int k) {
    return b_.CreateGEP(b_.getInt8Ty(), gm_[k], b_.CreateLoad(b_.getInt64Ty(), odometer_.offset[k]));
  }
  Value* share(Value* total, Value* parts, Value* part) {  // thread_pool.h's share()
    Value* rest = b_.CreateSRem(total, parts);
    return b_.CreateAdd(b_.CreateMul(b_.CreateSDiv(total, parts), part),
                        b_.CreateSelect(b_.CreateICmpSLT(part, rest), part, rest));
  }
  Value* min(Value* x, Value* y, const char* name) { return b_.CreateSelect(b_.CreateICmpSLT(x, y), x, y, name); }
  Value* round_up32(Value* x) {
    return b_.CreateMul(b_.CreateSDiv(b_.CreateAdd(x, b_.getInt64(kBlockBytes - 1)), b_.getInt64(kBlockBytes)),
                        b_.getInt64(kBlockBytes));
  }
  template <class Body>
  void when(Value* condition, const char* name, Body body) {
    BasicBlock* then = block(name);
    BasicBlock* after = block(std::string("after_") + name);
    b_.CreateCondBr(condition, then, after);
    b_.SetInsertPoint(then);
    body();
    b_.CreateBr(after);
    b_.SetInsertPoint(after);
  }
  Value* t64(std::size_t offset, const char* name) { return load_field(b_, tiling_, offset, b_.getInt64Ty(), name); }
  Value* local(const std::string& name, Value* init) { return new_local(b_, name, init); }
  BasicBlock* block(const std::string& name) { return new_block(b_, name); }

  llvm::IRBuilder<> b_;
  const Product& product_;
  Lowering lw_;
  int inputs_;
  int outer_;  // levels above the rows
  Odometer odometer_;
  llvm::Function* fn_ = nullptr;
  Value* tiling_ = nullptr;
  Value* ctx_ = nullptr;
  std::optional<AscendCalls> calls_;
  std::vector<Value*> gm_, extent_;
  std::vector<std::vector<Value*>> stride_;
  std::vector<Value*> col_step_, col_rewind_, row_step_, row_rewind_;
  std::vector<Value*> registers_, scalar_args_, step_registers_;
  Value *rows_ = nullptr, *cols_ = nullptr, *pitch_ = nullptr, *row_tiles_ = nullptr, *col_tiles_ = nullptr;
  Value *slots_ = nullptr, *m_ = nullptr, *n_ = nullptr, *row0_ = nullptr, *col0_ = nullptr;
  Value *full_elems_ = nullptr, *last_elems_ = nullptr;
  std::map<std::int64_t, Value*> pitch_bytes_;  // a UB row's bytes, by element size
};


}  // namespace

llvm::Function* emit_ascend_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                   const std::string& symbol) {
  return AscendEmitter(module, key, settings, symbol).emit();
}

}  // namespace bcast::jit
