// The loop nest of every host kernel (NOTE: [Loop variants]): one function
// per variant's nest, over out and N inputs, the per-element work a NestBody's.
#include "emit/loop_nest_emitter.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <numeric>
#include <ranges>
#include <stdexcept>
#include <utility>
#include <vector>

#include "expr_kernel.h"
#include "host_target.h"
#include "ir/ir_dtypes.h"
#include "ir/ir_helpers.h"
#include "ir/odometer.h"
#include "kernel_abi.h"
#include "target/codegen_target.h"
#include "variant.h"

namespace bcast::jit {
namespace {

using llvm::BasicBlock;
using llvm::Value;

constexpr std::int64_t kLineBytes = HostTarget::kLineBytes;  // what one streaming store writes
constexpr std::uint64_t kTransposeBytes = kLineBytes;  // a column of a transposed tile: a line of t (or a register) ...
constexpr std::uint64_t kTransposeLanes = 16;  // ... or 16 elements of 1 or 2 bytes (fewer vectors than registers)

// One value per operand (out first), or a row of them.
using PerOperand = std::vector<Value*>;
using PartsPerOperand = std::vector<Parts>;

class NestEmitter {
 public:
  NestEmitter(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings, const std::string& symbol,
              const std::vector<DType>& dtypes, NestBody& body)
      : key_(key),
        body_(body),
        b_(module.getContext()),
        rank_(key.rank),
        operands_(static_cast<int>(dtypes.size())),
        inner_(key.inner.begin(), key.inner.begin() + operands_),
        dtype_(dtypes),
        target_(codegen_target(llvm::Triple(module.getTargetTriple()))),
        stride_(dtypes.size()),
        span_(dtypes.size()),
        register_bytes_(
            static_cast<std::uint64_t>(vector_register_bits(module.getTargetTriple(), settings.features) / 8)) {
    llvm::LLVMContext& c = module.getContext();
    fn_ = begin_kernel(b_, module, llvm::FunctionType::get(b_.getVoidTy(), {b_.getPtrTy()}, false), symbol, settings);
    fn_->addParamAttr(0, llvm::Attribute::NoCapture);
    fn_->addParamAttr(0, llvm::Attribute::ReadOnly);
    args_ = fn_->getArg(0);
    args_->setName("args");
    for (const DType d : dtypes) {
      element_type_.push_back(storage_type(c, d));
      size_.push_back(dtype_size(d));
    }
  }

  llvm::Function* emit() {
    Value* data = field(offsetof(KernelArgs, data), b_.getPtrTy(), "data");
    for (int k = 0; k < operands_; ++k)
      base_.push_back(load_field(b_, data, k * sizeof(void*), b_.getPtrTy(), k == 0 ? "out" : "in"));
    body_.enter(b_, args_);
    Value* count = field(offsetof(KernelArgs, count), b_.getInt64Ty(), "count");
    BasicBlock* exit = block("exit");
    if (rank_ == 0) {
      BasicBlock* scalar = block("scalar");
      b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), scalar, exit);
      b_.SetInsertPoint(scalar);
      emit_element(base_);
      b_.CreateBr(exit);
    } else {
      // NOTE: [Loop variants]: the nest of the key's variant.
      (this->*kNests[static_cast<int>(nest_variant(key_).emitter)])(count, exit);
    }
    b_.SetInsertPoint(exit);
    // NOTE: [Streaming stores]: the fence orders the weakly ordered stores.
    if (key_.stream) target_.emit_store_fence(b_);
    b_.CreateRetVoid();
    return fn_;
  }

 private:
  // ---- the outer odometer ----

  void emit_nest(Value* count, BasicBlock* exit) {
    if (key_.reduce == ReduceForm::narrow) return emit_narrow_items(count, exit);
    load_levels();
    // Running offsets, the odometer and the remaining count live in allocas;
    // SROA turns them into registers.
    const Odometer odometer = outer_odometer(rank_ - 1, field(offsetof(KernelArgs, index), b_.getPtrTy(), "index"));
    Value* remaining = local("remaining");
    b_.CreateStore(count, remaining);
    BasicBlock* row = block("row");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), row, exit);

    // One pass of the innermost level from the current offsets.
    b_.SetInsertPoint(row);
    PerOperand row_base;
    for (int k = 0; k < operands_; ++k)
      row_base.push_back(
          b_.CreateGEP(element_type_[k], base_[k], b_.CreateLoad(b_.getInt64Ty(), odometer.offset[k]), "row_base"));
    if (key_.reduce == ReduceForm::rows)
      emit_items(row_base, extent_[rank_ - 1]);
    else if (key_.stream)
      emit_streaming_row(row_base);
    else emit_inner_loop(row_base, extent_[rank_ - 1]);
    Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), remaining), b_.getInt64(1), "left");
    b_.CreateStore(left, remaining);
    BasicBlock* carry = block("carry");
    b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt64(0)), exit, carry);
    b_.SetInsertPoint(carry);
    odometer.emit_step(b_, row, exit);
  }

  // NOTE: [Reduction kernels], narrow columns: `count` items from the
  // pointers given, each item's blocks of b rows x w values one vector of
  // b w lanes (NOTE: [Reduction order]), combined block by block into one
  // accumulator, then halved to the item's w results. Where every input's
  // rows lie back to back (whole_block_step) or repeat, a block is one load
  // and a shuffle; where every input's rows lie back to back in the other
  // direction (an image mirrored, `img[:, ::-1]`, or its channels reversed,
  // `img[..., ::-1]`), too; otherwise a row at a time (and a value at a
  // time along a strided w).
  enum class BlockLoad { whole, whole_mirrored, rows };

  void emit_narrow_items(Value* count, BasicBlock* exit) {
    load_levels();
    const auto w = static_cast<std::int64_t>(key_.reduce_width);
    const int rows_level = rank_ - 2;
    Value* whole = b_.getTrue();
    Value* mirrored = b_.getTrue();
    for (int k = 1; k < operands_; ++k) {
      if (repeats_along_rows(k)) continue;
      const std::optional<std::int64_t> step = whole_block_step(k, w);
      if (!step) {  // a strided w: its rows one at a time, whatever their step
        emit_narrow_loop(count, BlockLoad::rows);
        b_.CreateBr(exit);
        return;
      }
      whole = b_.CreateAnd(whole, b_.CreateICmpEQ(stride_[k][rows_level], b_.getInt64(*step)));
      mirrored = b_.CreateAnd(mirrored, b_.CreateICmpEQ(stride_[k][rows_level], b_.getInt64(-*step)));
    }
    BasicBlock* blocks = block("items.blocks");
    BasicBlock* other = block("items.other");
    BasicBlock* mirrored_blocks = block("items.mirrored_blocks");
    BasicBlock* rows = block("items.rows");
    b_.CreateCondBr(whole, blocks, other);
    b_.SetInsertPoint(other);
    b_.CreateCondBr(mirrored, mirrored_blocks, rows);
    for (const auto& [at, load] :
         {std::pair{blocks, BlockLoad::whole}, {mirrored_blocks, BlockLoad::whole_mirrored}, {rows, BlockLoad::rows}}) {
      b_.SetInsertPoint(at);
      emit_narrow_loop(count, load);
      b_.CreateBr(exit);
    }
  }

  void emit_narrow_loop(Value* count, BlockLoad way) {
    const unsigned w = key_.reduce_width;
    const auto rows = static_cast<unsigned>(key_.reduce_block);
    const int items_level = rank_ - 3;
    CountedLoop loop = open_loop(b_, b_.getInt64(0), count, "items");
    std::vector<llvm::PHINode*> at;
    for (int k = 0; k < operands_; ++k) {
      at.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "item"));
      at[k]->addIncoming(base_[k], loop.preheader);
    }
    PerOperand row(at.begin(), at.end());
    const std::optional<std::vector<int>> order = way == BlockLoad::rows ? std::nullopt : memory_order(way);
    Value* acc = body_.identity(b_, rows * w);
    for (std::int64_t block = 0; block < kNarrowBlocks; ++block) {
      std::vector<Parts> in;
      for (int k = 1; k < operands_; ++k) in.push_back(narrow_block(k, row[k], way, order));
      acc = body_.accumulate(b_, in, acc, rows * w);
    }
    if (order) acc = b_.CreateShuffleVector(acc, *order);  // each lane to its row and value
    for (unsigned h = rows / 2; h >= 1; h /= 2) {  // the rows halve
      std::vector<int> low, high;
      for (unsigned l = 0; l < h * w; ++l) {
        low.push_back(static_cast<int>(l));
        high.push_back(static_cast<int>(h * w + l));
      }
      acc = body_.combine(b_, b_.CreateShuffleVector(acc, low), b_.CreateShuffleVector(acc, high));
    }
    if (w == 1) acc = b_.CreateExtractElement(acc, b_.getInt64(0));  // one result: a scalar, as stored
    emit_store(b_, dtype_[0], acc, at[0])->setAlignment(llvm::Align(bytes(0)));
    PerOperand next{b_.CreateConstInBoundsGEP1_64(element_type_[0], at[0], w)};
    for (int k = 1; k < operands_; ++k)
      next.push_back(b_.CreateGEP(element_type_[k], at[k], stride_[k][items_level], "next_item"));
    close_running(loop, at, base_, next);
  }

  // Input k's block of b rows x w values from `row` (its first row), as the
  // body takes it (lanes row by row, or in `order`: see memory_order), and
  // `row` moved past it.
  Parts narrow_block(int k, Value*& row, BlockLoad way, const std::optional<std::vector<int>>& order) {
    const unsigned w = key_.reduce_width;
    const auto rows = static_cast<unsigned>(key_.reduce_block);
    const bool along_w = inner_[k] != InnerStride::zero;  // else one value a row
    const unsigned per_row = along_w ? w : 1;
    if (repeats_along_rows(k)) {
      const Parts values = repeat_rows(row_values(k, row, per_row), per_row, rows, w);
      return order ? shuffle(values, inverse(*order)) : values;
    }
    if (way != BlockLoad::rows) {
      const std::int64_t step = block_step(k, way);
      const Parts values = block_values(k, row, step, rows, per_row, /*as_loaded=*/order.has_value());
      row = b_.CreateConstGEP1_64(element_type_[k], row, step * rows);
      return along_w ? values : widen_rows(values, rows, w);
    }
    std::vector<Parts> each;
    for (unsigned r = 0; r < rows; ++r) {
      each.push_back(row_values(k, row, per_row));
      row = b_.CreateGEP(element_type_[k], row, stride_[k][rank_ - 2], "row");
    }
    while (each.size() > 1) {  // concatenated pairwise: rows is a power of two
      std::vector<Parts> joined;
      for (std::size_t j = 0; j < each.size(); j += 2) joined.push_back(concat(each[j], each[j + 1]));
      each = std::move(joined);
    }
    return along_w ? each[0] : widen_rows(each[0], rows, w);
  }

  // Input k's `rows` rows of `per_row` values from `row`, its rows `step`
  // apart and lying back to back (|step| = per_row), its values 1, -1 or 0
  // apart along the row (its inner stride): one load of the block from its
  // lowest address, then the lanes put row by row (unless `as_loaded`:
  // memory_order's blocks keep the load's order).
  Parts block_values(int k, Value* row, std::int64_t step, unsigned rows, unsigned per_row, bool as_loaded) {
    const Parts stored =
        load(k, b_.CreateConstGEP1_64(element_type_[k], row, lowest_in_block(k, step)), rows * per_row);
    if (as_loaded) return stored;
    const std::vector<int> lanes = block_lanes(k, step);
    return is_identity(lanes) ? stored : shuffle(stored, lanes);
  }

  // Input k's row step in a whole block of `load`.
  std::int64_t block_step(int k, BlockLoad way) const {
    return *whole_block_step(k, key_.reduce_width) * (way == BlockLoad::whole_mirrored ? -1 : 1);
  }
  // The offset of each value of a block (row by row) from its first row's
  // first, for input k's rows `step` apart.
  std::vector<std::int64_t> block_offsets(int k, std::int64_t step) const {
    const unsigned per_row = inner_[k] == InnerStride::zero ? 1 : key_.reduce_width;
    const std::int64_t along = per_row == 1 ? 0 : step_along(inner_[k]);
    std::vector<std::int64_t> offset;
    for (unsigned r = 0; r < static_cast<unsigned>(key_.reduce_block); ++r)
      for (unsigned c = 0; c < per_row; ++c) offset.push_back(r * step + c * along);
    return offset;
  }
  std::int64_t lowest_in_block(int k, std::int64_t step) const {
    const std::vector<std::int64_t> offset = block_offsets(k, step);
    return *std::min_element(offset.begin(), offset.end());
  }
  // Where each value of the block (row by row) lies in its load.
  std::vector<int> block_lanes(int k, std::int64_t step) const {
    const std::int64_t lowest = lowest_in_block(k, step);
    std::vector<int> lanes;
    for (const std::int64_t o : block_offsets(k, step)) lanes.push_back(static_cast<int>(o - lowest));
    return lanes;
  }
  static bool is_identity(const std::vector<int>& lanes) {
    for (std::size_t l = 0; l < lanes.size(); ++l)
      if (lanes[l] != static_cast<int>(l)) return false;
    return true;
  }
  static std::vector<int> inverse(const std::vector<int>& lanes) {
    std::vector<int> back(lanes.size());
    for (std::size_t l = 0; l < lanes.size(); ++l) back[static_cast<std::size_t>(lanes[l])] = static_cast<int>(l);
    return back;
  }

  // Whole blocks whose values are not in row order as loaded (a reversed
  // w, mirrored rows) accumulate as loaded, each lane then taken to its row
  // and value once an item: the lanes' order, where every input that does
  // not repeat along the rows loads its block in the same one (one shuffle
  // an item, not one a block; each lane still combines the same values in
  // the same order). nullopt where the blocks are in row order already, or
  // the inputs' orders differ.
  std::optional<std::vector<int>> memory_order(BlockLoad way) const {
    std::optional<std::vector<int>> order;
    for (int k = 1; k < operands_; ++k) {
      if (repeats_along_rows(k)) continue;
      if (inner_[k] == InnerStride::zero) return std::nullopt;  // widened after its load
      const std::vector<int> lanes = block_lanes(k, block_step(k, way));
      if (order && *order != lanes) return std::nullopt;
      order = lanes;
    }
    if (!order || is_identity(*order)) return std::nullopt;
    return order;
  }

  // Input k's row step where a narrow block's rows lie back to back, as
  // one run of memory: w (unit), -w (reversed), 1 (one value a row); none
  // for a strided w.
  std::optional<std::int64_t> whole_block_step(int k, std::int64_t w) const {
    switch (inner_[k]) {
      case InnerStride::unit:
        return w;
      case InnerStride::reversed:
        return -w;
      case InnerStride::zero:
        return 1;
      case InnerStride::strided:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // Input k's `lanes` values along the w from `at` (its first), in the w's
  // order: one load (reversed where the w runs backwards), or a value at a
  // time along a strided w.
  Parts row_values(int k, Value* at, unsigned lanes) {
    if (inner_[k] == InnerStride::reversed) return load_lanes(k, at, b_.getInt64(0), lanes);
    if (inner_[k] != InnerStride::strided || lanes == 1) return load(k, at, lanes);
    Parts values;
    for (unsigned l = 0; l < lanes; ++l) {
      const Parts one =
          load(k, b_.CreateGEP(element_type_[k], at, b_.CreateMul(b_.getInt64(l), stride_[k][rank_ - 1])), 1);
      values = l == 0 ? splat_parts(b_, lanes, one) : insert_parts(values, one, l);
    }
    return values;
  }
  Parts insert_parts(const Parts& into, const Parts& one, unsigned lane) {
    return {b_.CreateInsertElement(into.re, one.re, lane),
            one.im != nullptr ? b_.CreateInsertElement(into.im, one.im, lane) : nullptr};
  }

  // Whether input k repeats along the rows of a narrow item (stride 0 there:
  // the key's dim class for that level).
  bool repeats_along_rows(int k) const {
    const BroadcastType& type = spec_of(key_).type;
    const auto level = static_cast<std::size_t>(rank_ - 2);
    return level < type.size() && (static_cast<unsigned>(type[level]) >> (k - 1) & 1u) != 0;
  }

  // One row's `per_row` values as `rows` rows of w lanes.
  Parts repeat_rows(const Parts& one, unsigned per_row, unsigned rows, unsigned w) {
    std::vector<int> mask;
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned l = 0; l < w; ++l) mask.push_back(static_cast<int>(per_row == 1 ? 0 : l));
    return shuffle(one, mask);
  }
  // `rows` values, one a row, as rows of w lanes.
  Parts widen_rows(const Parts& values, unsigned rows, unsigned w) {
    std::vector<int> mask;
    for (unsigned r = 0; r < rows; ++r)
      for (unsigned l = 0; l < w; ++l) mask.push_back(static_cast<int>(r));
    return shuffle(values, mask);
  }
  Parts concat(const Parts& a, const Parts& b) {
    const auto n = llvm::cast<llvm::FixedVectorType>(vector_of(a.re)->getType())->getNumElements();
    std::vector<int> mask;
    for (unsigned l = 0; l < 2 * n; ++l) mask.push_back(static_cast<int>(l));
    return {b_.CreateShuffleVector(vector_of(a.re), vector_of(b.re), mask),
            a.im != nullptr ? b_.CreateShuffleVector(vector_of(a.im), vector_of(b.im), mask) : nullptr};
  }
  Parts shuffle(const Parts& x, const std::vector<int>& mask) {
    return {b_.CreateShuffleVector(vector_of(x.re), mask),
            x.im != nullptr ? b_.CreateShuffleVector(vector_of(x.im), mask) : nullptr};
  }
  // A scalar as a vector of one lane, so that shuffles take it.
  Value* vector_of(Value* v) {
    if (v->getType()->isVectorTy()) return v;
    return b_.CreateInsertElement(llvm::FixedVectorType::get(v->getType(), 1), v, b_.getInt64(0));
  }

  // NOTE: [Fixed rows]: one loop over the rows, the row unrolled in its body;
  // above rank 2, a matrix (a pass of the rows level) at a time.
  void emit_fixed_rows(Value* count, BasicBlock* exit) {
    if (rank_ == 2) {
      emit_fixed_rows_from(base_, count);
      b_.CreateBr(exit);
      return;
    }
    load_levels();
    emit_matrices(count, exit, [this](const PerOperand& row_base, Value* n) {
      emit_fixed_rows_from(row_base, n);
      PerOperand end;
      for (int k = 0; k < operands_; ++k) end.push_back(fixed_row_at(row_base[k], k, n));
      return end;
    });
  }

  // n rows from `from`. NOTE: [Streaming stores]: rows up to the first that
  // starts a line of out and after the last whole step of lines as plain
  // rows, whole steps in between; when no row of out starts a line, every
  // row plain.
  void emit_fixed_rows_from(const PerOperand& from, Value* n) {
    if (!key_.stream) {
      emit_fixed_row_range(from, b_.getInt64(0), n, "rows", /*vectorise=*/true);
      return;
    }
    const auto [head, lines_end] = split_at_lines(row_start(from[0]), n, key_.fixed_row * bytes(0), row_step(0) < 0);
    emit_fixed_row_range(from, b_.getInt64(0), head, "head", false);
    emit_streaming_fixed_rows(from, head, lines_end);
    emit_fixed_row_range(from, lines_end, n, "tail", false);
  }

  // Rows [begin, end) of NOTE: [Fixed rows], counted from row 0 at `from`.
  void emit_fixed_row_range(const PerOperand& from, Value* begin, Value* end, const std::string& name, bool vectorise) {
    const int m = key_.fixed_row;
    PerOperand first;
    for (int k = 0; k < operands_; ++k) first.push_back(fixed_row_at(from[k], k, begin));
    CountedLoop rows = open_loop(b_, begin, end, name);
    std::vector<llvm::PHINode*> row;
    for (int k = 0; k < operands_; ++k) {
      row.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "row"));
      row[k]->addIncoming(first[k], rows.preheader);
    }
    for (int j = 0; j < m; ++j) {
      PerOperand at;
      for (int k = 0; k < operands_; ++k) at.push_back(b_.CreateConstGEP1_64(element_type_[k], row[k], j * along(k)));
      emit_element(at);
    }
    for (int k = 0; k < operands_; ++k)
      row[k]->addIncoming(b_.CreateInBoundsGEP(element_type_[k], row[k], b_.getInt64(row_step(k))),
                          b_.GetInsertBlock());
    close_loop(b_, rows, b_.getInt64(1), vectorise, 0, /*independent=*/true);
  }

  // Operand k's step from one element of a row to the next: 1, 0 or -1.
  std::int64_t along(int k) const { return step_along(inner_[k]); }

  // The lowest address of out's row of NOTE: [Fixed rows] at `row`: the row
  // itself, or its last element when out's rows are reversed.
  Value* row_start(Value* row) {
    return along(0) > 0 ? row
                        : b_.CreateConstGEP1_64(element_type_[0], row, 1 - static_cast<std::int64_t>(key_.fixed_row));
  }

  // Operand k's step from row to row in NOTE: [Fixed rows]: 0, +-1 or +-m.
  std::int64_t row_step(int k) const { return fixed_row_step(key_, k); }

  // Operand k's row r of NOTE: [Fixed rows] from row 0 at `at`: r row steps
  // on, as a GEP over rows (no multiplication in the IR).
  Value* fixed_row_at(Value* at, int k, Value* r) {
    const std::int64_t step = row_step(k);
    if (step == 0) return at;
    if (step == 1) return b_.CreateGEP(element_type_[k], at, r);
    llvm::Type* row = llvm::ArrayType::get(element_type_[k], static_cast<std::uint64_t>(step < 0 ? -step : step));
    return b_.CreateGEP(row, at, step < 0 ? b_.CreateNeg(r) : r);
  }

  // Rows [begin, end) of NOTE: [Fixed rows] from `from`, whole lines of out
  // a step (fixed_rows_step_lanes: the fewest rows that fill whole lines),
  // one streaming store a line; begin's row starts a line of out. Each input
  // is one load of the elements the step spans, each line's lanes shuffled
  // from it (fixed_rows_lane_offsets), so the op's body runs a line wide; an
  // input the rows do not step is loaded once, before the loop.
  void emit_streaming_fixed_rows(const PerOperand& from, Value* begin, Value* end) {
    const std::int64_t m = key_.fixed_row;
    const std::int64_t lanes = fixed_rows_step_lanes(key_.fixed_row, bytes(0), kLineBytes);
    const auto line = static_cast<unsigned>(static_cast<std::uint64_t>(kLineBytes) / bytes(0));
    const auto lines = static_cast<unsigned>(lanes / line);
    // Operand k's lanes of each line of the step whose row 0 is at `row0`.
    auto lines_of = [&](int k, Value* row0) {
      const std::vector<std::int64_t> offset = fixed_rows_lane_offsets(key_, k, lanes);
      const auto [lo, hi] = std::ranges::minmax(offset);
      const auto count = static_cast<unsigned>(hi - lo + 1);
      const Parts loaded = load(k, b_.CreateConstGEP1_64(element_type_[k], row0, lo), count);
      std::vector<Parts> parts;
      for (unsigned c = 0; c < lines; ++c) {
        if (count == 1) {
          parts.push_back(splat_parts(b_, line, loaded));
          continue;
        }
        std::vector<int> mask;
        for (unsigned j = 0; j < line; ++j) mask.push_back(static_cast<int>(offset[c * line + j] - lo));
        if (count == line && std::ranges::equal(mask, std::views::iota(0, static_cast<int>(line)))) {
          parts.push_back(loaded);
          continue;
        }
        parts.push_back({b_.CreateShuffleVector(loaded.re, mask),
                         loaded.im != nullptr ? b_.CreateShuffleVector(loaded.im, mask) : nullptr});
      }
      return parts;
    };
    std::vector<std::vector<Parts>> same(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      if (row_step(k) == 0) same[k] = lines_of(k, from[k]);
    CountedLoop steps = open_loop(b_, begin, end, "line_rows");
    std::vector<std::vector<Parts>> in(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      in[k] = row_step(k) == 0 ? same[k] : lines_of(k, fixed_row_at(from[k], k, steps.i));
    // Out's lowest address of the step: in its first row, or its last when out steps back.
    Value* out = row_start(fixed_row_at(
        from[0], 0,
        row_step(0) > 0 ? static_cast<Value*>(steps.i) : b_.CreateAdd(steps.i, b_.getInt64(lanes / m - 1))));
    for (unsigned c = 0; c < lines; ++c) {
      std::vector<Parts> line_in;
      for (int k = 1; k < operands_; ++k) line_in.push_back(in[k][c]);
      Value* at = b_.CreateConstInBoundsGEP1_64(element_type_[0], out, c * line);
      make_nontemporal(b_, body_.compute_and_store(b_, line_in, at, line), kLineBytes);
    }
    close_loop(b_, steps, b_.getInt64(lanes / m));
  }

  // NOTE: [Transposed tiles]: blocks of L x L elements, transposed in
  // registers; the columns and rows left over run the scalar inner loop.
  void emit_transposed_tiles(Value* count, BasicBlock* exit) {
    load_levels();
    auto blocks = [this](bool nontemporal) {
      return [this, nontemporal](const PerOperand& row_base, Value* n) {
        return emit_transposed_rows(row_base, n, nontemporal);
      };
    };
    if (!key_.stream || !transposed_blocks_are_lines()) {
      emit_matrices(count, exit, blocks(false));
      return;
    }
    // NOTE: [Streaming stores]: a block's rows of out are whole lines when a
    // block is a line a side (out's element is t's size) and out and its
    // strides above the columns are line-aligned; otherwise plain stores
    // (NOTE: [Transposed tiles]: half lines with 256-bit registers).
    const std::uint64_t lanes = transpose_lanes();
    Value* address = b_.CreatePtrToInt(base_[0], b_.getInt64Ty());
    Value* misaligned = b_.CreateAnd(address, kLineBytes - 1);
    for (int l = 0; l + 1 < rank_; ++l) misaligned = b_.CreateOr(misaligned, b_.CreateAnd(stride_[0][l], lanes - 1));
    BasicBlock* streaming = block("streaming_blocks");
    BasicBlock* plain = block("plain_blocks");
    b_.CreateCondBr(b_.CreateICmpEQ(misaligned, b_.getInt64(0)), streaming, plain);
    b_.SetInsertPoint(streaming);
    emit_matrices(count, exit, blocks(true));
    b_.SetInsertPoint(plain);
    emit_matrices(count, exit, blocks(false));
  }

  // `count` rows from the odometer's start (NOTE: [Kernel ABI]), one matrix
  // (a pass of the rows level) at a time: the first from its start row, the
  // rest whole; `rows(row_base, n)` emits n rows of a matrix and returns each
  // operand's position one row past the last. The rows' span and stride take
  // it back to the first, and the odometer of the levels above steps from there.
  template <class Rows>
  void emit_matrices(Value* count, BasicBlock* exit, Rows rows_of_matrix) {
    const int rows_level = rank_ - 2;
    Value* index_array = field(offsetof(KernelArgs, index), b_.getPtrTy(), "index");
    const Odometer odometer = outer_odometer(rows_level, index_array);
    Value* first_row = local("first_row");
    b_.CreateStore(element(index_array, rows_level, "start_row"), first_row);
    Value* remaining = local("remaining");
    b_.CreateStore(count, remaining);
    BasicBlock* entry = b_.GetInsertBlock();
    BasicBlock* matrix = block("matrix");
    BasicBlock* next = block("next_matrix");
    b_.CreateCondBr(b_.CreateICmpSGT(count, b_.getInt64(0)), matrix, exit);

    b_.SetInsertPoint(matrix);
    std::vector<llvm::PHINode*> start;
    for (int k = 0; k < operands_; ++k) {
      start.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "matrix_start"));
      start[k]->addIncoming(base_[k], entry);
    }
    Value* left_in_matrix = b_.CreateSub(extent_[rows_level], b_.CreateLoad(b_.getInt64Ty(), first_row));
    Value* rows = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateLoad(b_.getInt64Ty(), remaining),
                                           left_in_matrix, nullptr, "matrix_rows");
    const PerOperand end = rows_of_matrix(PerOperand(start.begin(), start.end()), rows);
    Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt64Ty(), remaining), rows, "left");
    b_.CreateStore(left, remaining);
    BasicBlock* carry = block("matrix_carry");
    b_.CreateCondBr(b_.CreateICmpEQ(left, b_.getInt64(0)), exit, carry);

    b_.SetInsertPoint(carry);
    PerOperand row0;
    for (int k = 0; k < operands_; ++k) {
      Value* back = b_.CreateAdd(span_[k][rows_level], stride_[k][rows_level]);
      row0.push_back(b_.CreateGEP(element_type_[k], end[k], b_.CreateNeg(back), "matrix_row0"));
      b_.CreateStore(b_.getInt64(0), odometer.offset[k]);
    }
    b_.CreateStore(b_.getInt64(0), first_row);
    odometer.emit_step(b_, next, exit);

    b_.SetInsertPoint(next);
    for (int k = 0; k < operands_; ++k)
      start[k]->addIncoming(
          b_.CreateGEP(element_type_[k], row0[k], b_.CreateLoad(b_.getInt64Ty(), odometer.offset[k])), next);
    b_.CreateBr(matrix);
  }

  // `n` rows of one matrix from row_base, in L x L blocks; returns each
  // operand's position one row past the last.
  PerOperand emit_transposed_rows(const PerOperand& row_base, Value* n, bool nontemporal) {
    const int t = key_.transposed;
    const int rows_level = rank_ - 2, cols_level = rank_ - 1;
    const auto lanes = static_cast<unsigned>(transpose_lanes());
    Value* cols = extent_[cols_level];
    Value* full_rows = b_.CreateAnd(n, ~std::uint64_t{lanes - 1}, "full_rows");
    Value* full_cols = b_.CreateAnd(cols, ~std::uint64_t{lanes - 1}, "full_cols");
    BasicBlock* entry = b_.GetInsertBlock();

    // Blocks of `lanes` rows.
    CountedLoop blocks = open_loop(b_, b_.getInt64(0), full_rows, "row_blocks");
    std::vector<llvm::PHINode*> block_row;
    for (int k = 0; k < operands_; ++k) {
      block_row.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "block_row"));
      block_row[k]->addIncoming(row_base[k], blocks.preheader);
    }
    // Row p of the block for every operand but t (p = lanes: the next block).
    std::vector<PerOperand> rows(static_cast<std::size_t>(operands_));
    for (int k = 0; k < operands_; ++k) {
      if (k == t) continue;
      rows[k].push_back(block_row[k]);
      for (unsigned p = 0; p < lanes; ++p)
        rows[k].push_back(b_.CreateGEP(element_type_[k], rows[k].back(), stride_[k][rows_level]));
    }
    // The value of each input that repeats along the row, per row, as a splat.
    std::vector<PartsPerOperand> repeated(lanes, PartsPerOperand(static_cast<std::size_t>(operands_)));
    for (int k = 1; k < operands_; ++k)
      if (k != t && inner_[k] == InnerStride::zero)
        for (unsigned p = 0; p < lanes; ++p) repeated[p][k] = splat_parts(b_, lanes, load(k, rows[k][p], 1));

    CountedLoop col_blocks = open_loop(b_, b_.getInt64(0), full_cols, "col_blocks");
    llvm::PHINode* t_col = b_.CreatePHI(b_.getPtrTy(), 2, "t_col");
    t_col->addIncoming(block_row[t], col_blocks.preheader);
    Value* next_col = emit_transposed_block(t_col, col_blocks.i, rows, repeated, nontemporal);
    t_col->addIncoming(next_col, b_.GetInsertBlock());
    BasicBlock* col_latch = b_.GetInsertBlock();
    close_loop(b_, col_blocks, b_.getInt64(lanes));
    // The columns left over, for the block's rows: t's column there is where the block loop stopped.
    llvm::PHINode* t_rest = b_.CreatePHI(b_.getPtrTy(), 2, "t_rest");
    t_rest->addIncoming(block_row[t], col_blocks.preheader);
    t_rest->addIncoming(next_col, col_latch);
    PerOperand first;
    for (int k = 0; k < operands_; ++k) {
      if (k == t) first.push_back(t_rest);
      else if (inner_[k] == InnerStride::unit) first.push_back(b_.CreateGEP(element_type_[k], block_row[k], full_cols));
      else first.push_back(block_row[k]);
    }
    emit_rows(first, b_.getInt64(lanes), b_.CreateSub(cols, full_cols));
    rows[t].push_back(b_.CreateConstInBoundsGEP1_64(element_type_[t], block_row[t], lanes, "t_next"));
    BasicBlock* block_latch = b_.GetInsertBlock();
    for (int k = 0; k < operands_; ++k) block_row[k]->addIncoming(rows[k].back(), block_latch);
    close_loop(b_, blocks, b_.getInt64(lanes));

    // The rows left over, whole.
    PerOperand rest;
    for (int k = 0; k < operands_; ++k) {
      llvm::PHINode* at = b_.CreatePHI(b_.getPtrTy(), 2, "rest_row");
      at->addIncoming(row_base[k], entry);
      at->addIncoming(rows[k].back(), block_latch);
      rest.push_back(at);
    }
    return emit_rows(rest, b_.CreateSub(n, full_rows), cols);
  }

  // One L x L block of NOTE: [Transposed tiles] at column `col` of the
  // block's rows (`rows` of every operand but t; `repeated`: per row, the
  // splat of each input that repeats along rows); t's columns from t_col.
  // Returns t's column after the block.
  Value* emit_transposed_block(Value* t_col, Value* col, const std::vector<PerOperand>& rows,
                               const std::vector<PartsPerOperand>& repeated, bool nontemporal) {
    const int t = key_.transposed;
    const auto lanes = static_cast<unsigned>(repeated.size());
    std::vector<Value*> columns;
    Value* next_col = t_col;
    const bool whole_lines = transposed_blocks_are_lines();
    for (unsigned q = 0; q < lanes; ++q) {
      columns.push_back(load_vector(t, next_col, lanes));
      // The line after, in the same row of t: the next block of rows reads
      // it (a prefetch never faults past the end). A column of half a line
      // leaves its other half to the next block of rows, in the line loaded.
      if (whole_lines)
        b_.CreateIntrinsic(
            llvm::Intrinsic::prefetch, {b_.getPtrTy()},
            {b_.CreateConstGEP1_64(element_type_[t], next_col, lanes), b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
      next_col = b_.CreateGEP(element_type_[t], next_col, stride_[t][rank_ - 1]);
    }
    const std::vector<Value*> t_rows = transpose(columns);
    for (unsigned p = 0; p < lanes; ++p) {
      std::vector<Parts> in;
      for (int k = 1; k < operands_; ++k) {
        if (k == t) in.push_back({t_rows[p]});
        else if (repeated[p][k].re) in.push_back(repeated[p][k]);
        else in.push_back(load(k, b_.CreateGEP(element_type_[k], rows[k][p], col), lanes));
      }
      llvm::StoreInst* store = body_.compute_and_store(b_, in, b_.CreateGEP(element_type_[0], rows[0][p], col), lanes);
      if (nontemporal) make_nontemporal(b_, store, kLineBytes);
    }
    return next_col;
  }

  // `n` rows of `cols` elements from row_base, each with the scalar inner
  // loop; t (NOTE: [Transposed tiles]) steps 1 element from row to row.
  // Returns each operand's position one row past the last.
  PerOperand emit_rows(const PerOperand& row_base, Value* n, Value* cols) {
    const int rows_level = rank_ - 2;
    CountedLoop rows = open_loop(b_, b_.getInt64(0), n, "rows");
    std::vector<llvm::PHINode*> row;
    for (int k = 0; k < operands_; ++k) {
      row.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "row"));
      row[k]->addIncoming(row_base[k], rows.preheader);
    }
    emit_inner_loop(PerOperand(row.begin(), row.end()), cols);
    PerOperand next;
    for (int k = 0; k < operands_; ++k) {
      Value* step = k == key_.transposed ? b_.getInt64(1) : stride_[k][rows_level];
      next.push_back(b_.CreateGEP(element_type_[k], row[k], step));
    }
    return close_running(rows, row, row_base, next, /*vectorise=*/true);
  }

  // The transpose of a square of vectors: result[p][q] = v[q][p]. Round s
  // swaps bit s of the vector's index with bit s of the element's, between
  // vectors i and i + 2**s: the rounds below a 128-bit lane stay within it
  // (unpck, shufps, blends) and the rest move whole lanes (vperm2f128), where
  // interleaving whole vectors crossed lanes in every round.
  std::vector<Value*> transpose(std::vector<Value*> v) {
    const int n = static_cast<int>(v.size());
    for (int half = 1; half < n; half *= 2) {
      std::vector<int> low, high;
      for (int e = 0; e < n; ++e) {
        const bool upper = (e & half) != 0;
        low.push_back(upper ? n + e - half : e);
        high.push_back(upper ? n + e : e + half);
      }
      for (int i = 0; i < n; ++i) {
        if ((i & half) != 0) continue;
        Value* lo = b_.CreateShuffleVector(v[i], v[i + half], low);
        v[i + half] = b_.CreateShuffleVector(v[i], v[i + half], high);
        v[i] = lo;
      }
    }
    return v;
  }

  // The odometer of levels [0, levels): each level's position starts where
  // the call's index array says (NOTE: [Kernel ABI]), each running offset at 0.
  Odometer outer_odometer(int levels, Value* index_array) {
    Odometer odometer(operands_);
    for (int l = 0; l < levels; ++l) {
      odometer.index.push_back(local("i" + std::to_string(l)));
      b_.CreateStore(element(index_array, l, "start"), odometer.index[l]);
    }
    odometer.extent.assign(extent_.begin(), extent_.begin() + levels);
    for (int k = 0; k < operands_; ++k) {
      odometer.offset[k] = local("offset");
      b_.CreateStore(b_.getInt64(0), odometer.offset[k]);
      odometer.stride[k].assign(stride_[k].begin(), stride_[k].begin() + levels);
      odometer.span[k].assign(span_[k].begin(), span_[k].begin() + levels);
    }
    return odometer;
  }

  // Extents, strides and spans of every level, loaded once at entry.
  void load_levels() {
    Value* extents = field(offsetof(KernelArgs, extents), b_.getPtrTy(), "extents");
    Value* strides = field(offsetof(KernelArgs, strides), b_.getPtrTy(), "strides");
    Value* spans = field(offsetof(KernelArgs, spans), b_.getPtrTy(), "spans");
    for (int l = 0; l < rank_; ++l) {
      extent_.push_back(element(extents, l, "extent"));
      for (int k = 0; k < operands_; ++k) {
        // Row k of the [operands][rank] arrays starts at k * rank: a constant here.
        stride_[k].push_back(element(strides, k * rank_ + l, "stride"));
        span_[k].push_back(element(spans, k * rank_ + l, "span"));
      }
    }
  }

  // ---- the innermost level ----

  // NOTE: [Reduction kernels], rows: the n elements from row_base as items
  // of kReduceItem, each item's kReduceLanes lanes in registers, one item a
  // step. Every address is a running pointer: no index is scaled.
  //
  // NOTE: [One stream a step] Two or four items a step gave more
  // independent chains of accumulators, and read two or four streams a
  // page apart; out-of-order execution overlaps one item's chains with the
  // next item's anyway. On the Zen 5 VM (2026-12-07, one thread, f32
  // [4096, 4096] and [4096, 1024] on a line, medians of 15, four processes
  // of each in turn) one item a step took sum(x) 3.28-3.96 -> 2.01-2.33 ms
  // (a plain read of the same bytes: 2.23-2.59), sum(x, axis=1) 3.33-3.83 ->
  // 2.42-2.67, sum(x*y) 5.01-5.36 -> 3.93-4.20, layer norm 1.82-2.24 ->
  // 1.57-1.74, softmax 3.49-3.75 -> 3.26-3.43, and max(r, axis=1) (four
  // items before) 1.31-1.53 -> 1.23-1.33; on the Zen 3 VM (2026-12-06)
  // sum(x) 1.17 -> 0.99 times the read's. A hand loop on the Zen 5 VM read
  // f32 [4096, 4096] in 1.9 ms one item a step and 3.6-3.8 two a step.
  void emit_items(const PerOperand& row_base, Value* n) {
    constexpr unsigned lanes = kReduceLanes;
    const PartsPerOperand fixed = load_repeated(row_base);
    PartsPerOperand splats(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      if (fixed[k].re) splats[k] = splat_parts(b_, lanes, fixed[k]);
    const PerOperand tail =
        emit_whole_items(row_base, splats, b_.CreateLShr(n, llvm::Log2_64(kReduceItem), "whole_items"));

    // The last item, when the run is not whole items: its whole vectors, then
    // its elements one at a time, element j past them into lane j.
    Value* rest = b_.CreateAnd(n, kReduceItem - 1, "rest");
    BasicBlock* last = block("last_item");
    BasicBlock* done = block("items_done");
    b_.CreateCondBr(b_.CreateICmpSGT(rest, b_.getInt64(0)), last, done);
    b_.SetInsertPoint(last);
    const auto [last_acc, elements] = emit_vectors(tail, splats, b_.CreateLShr(rest, llvm::Log2_64(lanes)));
    emit_store(b_, dtype_[0], last_acc, tail[0])->setAlignment(llvm::Align(bytes(0)));
    CountedLoop one = open_loop(b_, b_.getInt64(0), b_.CreateAnd(rest, lanes - 1), "last_elements");
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k)
      in.push_back(fixed[k].re ? fixed[k] : load(k, b_.CreateGEP(element_type_[k], elements[k], one.i), 1));
    body_.compute_and_store(b_, in, b_.CreateGEP(element_type_[0], tail[0], one.i), 1);
    close_loop(b_, one, b_.getInt64(1), /*vectorise=*/false);
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
  }

  // `count` whole items from `from`, each item's lanes stored to out;
  // returns each operand's position after them.
  PerOperand emit_whole_items(const PerOperand& from, const PartsPerOperand& splats, Value* count) {
    constexpr unsigned lanes = kReduceLanes;
    CountedLoop items = open_loop(b_, b_.getInt64(0), count, "items");
    std::vector<llvm::PHINode*> at;
    for (int k = 0; k < operands_; ++k) {
      at.push_back(b_.CreatePHI(b_.getPtrTy(), 2, "item"));
      at[k]->addIncoming(from[k], items.preheader);
    }
    const PerOperand start(at.begin(), at.end());
    Value* acc = emit_vectors(start, splats, b_.getInt64(kReduceItem / lanes)).first;
    PerOperand next;
    for (int k = 0; k < operands_; ++k) {
      const std::int64_t item = k == 0 ? lanes : inner_[k] == InnerStride::zero ? 0 : kReduceItem;
      next.push_back(b_.CreateConstInBoundsGEP1_64(element_type_[k], at[k], item));
    }
    emit_store(b_, dtype_[0], acc, at[0])->setAlignment(llvm::Align(bytes(0)));
    return close_running(items, at, from, next);
  }

  // Closes `loop`, whose running pointers `at` start at `from` and step to
  // `next`; returns each one's value after the loop.
  PerOperand close_running(const CountedLoop& loop, const std::vector<llvm::PHINode*>& at, const PerOperand& from,
                           const PerOperand& next, bool vectorise = false) {
    for (int k = 0; k < operands_; ++k) at[k]->addIncoming(next[k], b_.GetInsertBlock());
    BasicBlock* latch = b_.GetInsertBlock();
    close_loop(b_, loop, b_.getInt64(1), vectorise);
    PerOperand end;
    for (int k = 0; k < operands_; ++k) {
      llvm::PHINode* after = b_.CreatePHI(b_.getPtrTy(), 2, "loop_end");
      after->addIncoming(from[k], loop.preheader);
      after->addIncoming(next[k], latch);
      end.push_back(after);
    }
    return end;
  }

  // `count` vectors of kReduceLanes elements of each input from `from`,
  // combined in order into one accumulator that starts at the identity;
  // returns it and each input's position past the last vector.
  std::pair<Value*, PerOperand> emit_vectors(const PerOperand& from, const PartsPerOperand& splats, Value* count) {
    constexpr unsigned lanes = kReduceLanes;
    Value* identity = body_.identity(b_, lanes);
    CountedLoop loop = open_loop(b_, b_.getInt64(0), count, "vectors");
    llvm::PHINode* acc = b_.CreatePHI(identity->getType(), 2, "acc");
    acc->addIncoming(identity, loop.preheader);
    std::vector<llvm::PHINode*> at(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 1; k < operands_; ++k) {
      at[k] = b_.CreatePHI(b_.getPtrTy(), 2, "vector");
      at[k]->addIncoming(from[k], loop.preheader);
    }
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k) in.push_back(splats[k].re ? splats[k] : load(k, at[k], lanes));
    Value* next = body_.accumulate(b_, in, acc, lanes);
    acc->addIncoming(next, b_.GetInsertBlock());
    PerOperand stepped(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 1; k < operands_; ++k) {
      stepped[k] =
          splats[k].re ? static_cast<Value*>(at[k]) : b_.CreateConstInBoundsGEP1_64(element_type_[k], at[k], lanes);
      at[k]->addIncoming(stepped[k], b_.GetInsertBlock());
    }
    BasicBlock* latch = b_.GetInsertBlock();
    close_loop(b_, loop, b_.getInt64(1), /*vectorise=*/false);
    llvm::PHINode* combined = b_.CreatePHI(identity->getType(), 2, "combined");
    combined->addIncoming(identity, loop.preheader);
    combined->addIncoming(next, latch);
    PerOperand past(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 1; k < operands_; ++k) {
      llvm::PHINode* end = b_.CreatePHI(b_.getPtrTy(), 2, "past");
      end->addIncoming(from[k], loop.preheader);
      end->addIncoming(stepped[k], latch);
      past[k] = end;
    }
    return {combined, past};
  }

  // Elements [0, n) of the innermost level from row_base.
  void emit_inner_loop(const PerOperand& row_base, Value* n) {
    // A repeated operand is loaded once, outside the loop.
    emit_element_loop(row_base, load_repeated(row_base), b_.getInt64(0), n, "inner", /*vectorise=*/true);
  }

  // Elements [begin, end) from row_base, one at a time (`fixed`: the repeated
  // inputs' values). Strided operands start their running offset at 0, so
  // begin is 0 whenever one is strided (streaming rows have none).
  void emit_element_loop(const PerOperand& row_base, const PartsPerOperand& fixed, Value* begin, Value* end,
                         const std::string& name, bool vectorise) {
    const int inner = rank_ - 1;
    CountedLoop loop = open_loop(b_, begin, end, name);
    // Strided operands keep a running offset: a second induction variable.
    std::vector<llvm::PHINode*> running(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 0; k < operands_; ++k) {  // the phis first: they head the block
      if (inner_[k] != InnerStride::strided) continue;
      running[k] = b_.CreatePHI(b_.getInt64Ty(), 2, "j");
      running[k]->addIncoming(b_.getInt64(0), loop.preheader);
    }
    PerOperand address(static_cast<std::size_t>(operands_), nullptr);
    for (int k = 0; k < operands_; ++k) {
      if (inner_[k] == InnerStride::unit || inner_[k] == InnerStride::reversed)
        address[k] = element_at(k, row_base[k], loop.i);
      if (inner_[k] == InnerStride::strided) address[k] = b_.CreateGEP(element_type_[k], row_base[k], running[k]);
    }
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k) in.push_back(fixed[k].re ? fixed[k] : load(k, address[k], 1));
    body_.compute_and_store(b_, in, address[0], 1);  // out's class is unit or strided (out never repeats)
    for (int k = 0; k < operands_; ++k)
      if (running[k]) running[k]->addIncoming(b_.CreateAdd(running[k], stride_[k][inner]), b_.GetInsertBlock());
    close_loop(b_, loop, b_.getInt64(1), vectorise, vectorise ? body_.interleave() : 0, /*independent=*/true);
  }

  // NOTE: [Streaming stores]: one row as three loops: the elements up to
  // out's first line boundary, whole lines of out as vectors (non-temporal,
  // aligned), the elements after the last whole line; the first and last as
  // NOTE: [Partial vectors] where the body is dear, else (and where an
  // operand is complex) an element at a time. Inputs are unit, reversed or
  // zero stride here (the layout can stream): address i of each is
  // row_base + i, row_base - i or row_base.
  void emit_streaming_row(const PerOperand& row_base) {
    Value* n = extent_[rank_ - 1];
    const std::uint64_t size = bytes(0);
    const auto lanes = static_cast<unsigned>(kLineBytes / size);
    const PartsPerOperand fixed = load_repeated(row_base);
    const auto [head, lines_end] = split_at_lines(row_base[0], n, size, along(0) < 0);
    PartsPerOperand splats(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      if (fixed[k].re) splats[k] = splat_parts(b_, lanes, fixed[k]);
    const bool partial =
        body_.partial_vectors() && std::ranges::none_of(dtype_, is_complex);  // NOTE: [Partial vectors]
    if (partial)
      emit_partial_vectors(row_base, splats, b_.getInt64(0), head, lanes, "head");
    else
      emit_element_loop(row_base, fixed, b_.getInt64(0), head, "head", false);
    // In groups of the body's interleave count where it asks for one (the
    // copies' chains independent, for the scheduler to interleave), then one
    // line at a time.
    Value* begin = head;
    if (const unsigned copies = body_.interleave(); copies > 1) {
      Value* group = b_.getInt64(static_cast<std::int64_t>(copies * lanes));
      Value* groups_end = b_.CreateAdd(head, b_.CreateMul(b_.CreateUDiv(b_.CreateSub(lines_end, head), group), group));
      emit_lines(row_base, splats, head, groups_end, lanes, copies);
      begin = groups_end;
    }
    emit_lines(row_base, splats, begin, lines_end, lanes, 1);
    if (partial)
      emit_partial_vectors(row_base, splats, lines_end, n, lanes, "tail");
    else
      emit_element_loop(row_base, fixed, lines_end, n, "tail", false);
  }

  // NOTE: [Partial vectors] Elements [begin, end) from row_base, `lanes` a
  // step through the body's vector form, the last step partial: its lanes
  // past the run are masked off, in each input's load (they take the run's
  // first element, so that no lane computes a value that no element asks
  // for, and a recipe's rare-lane branch sees only the row's values) and in
  // out's store. A streaming row's head and tail, up to a line of elements
  // each, ran one element at a time through the body: a math recipe's scalar
  // chain, some 10 ns an element on the Zen 5 VM, where the rows of NumPy's
  // arrays (16 bytes past a page) have a head of 12 f32 and a tail of 4.
  // Only such a body's (NestBody::partial_vectors: a math function or a
  // division): bcast-bench's case 18, [16384, 1000] + [1000], whose rows end
  // mid-line, read 1.06-1.28 -> 0.94-1.15 of the STREAM add with its adds'
  // ends masked (three rounds in turn). A step's lanes are the run's
  // elements in order; operands move unit, reversed or not at all
  // (`splats`: the repeated inputs' vectors), and none is complex (those run
  // one element at a time).
  void emit_partial_vectors(const PerOperand& row_base, const PartsPerOperand& splats, Value* begin, Value* end,
                            unsigned lanes, const std::string& name) {
    CountedLoop run = open_loop(b_, begin, end, name);
    Value* count = b_.CreateTrunc(
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.CreateSub(end, run.i), b_.getInt64(lanes)), b_.getInt32Ty());
    std::vector<llvm::Constant*> lane;
    for (unsigned j = 0; j < lanes; ++j) lane.push_back(b_.getInt32(j));
    Value* lane_vector = llvm::ConstantVector::get(lane);
    // Lanes [0, count) of a run read forwards; [lanes - count, lanes) of one
    // read backwards from its lowest address, before its lanes are reversed.
    const std::array<Value*, 2> mask{
        b_.CreateICmpULT(lane_vector, b_.CreateVectorSplat(lanes, count)),
        b_.CreateICmpUGE(lane_vector, b_.CreateVectorSplat(lanes, b_.CreateSub(b_.getInt32(lanes), count)))};
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k) {
      if (splats[k].re) {
        in.push_back(splats[k]);
        continue;
      }
      Value* first = b_.CreateLoad(element_type_[k], element_at(k, row_base[k], run.i));
      llvm::Type* type = llvm::FixedVectorType::get(element_type_[k], lanes);
      Value* loaded = b_.CreateMaskedLoad(type, lowest(k, row_base[k], run.i, lanes), llvm::Align(bytes(k)),
                                          mask[along(k) < 0], b_.CreateVectorSplat(lanes, first));
      in.push_back({along(k) > 0 ? loaded : reverse_lanes(loaded, lanes)});
    }
    llvm::StoreInst* store = body_.compute_and_store(b_, in, row_base[0], lanes);
    Value* value = along(0) > 0 ? store->getValueOperand() : reverse_lanes(store->getValueOperand(), lanes);
    b_.CreateMaskedStore(value, lowest(0, row_base[0], run.i, lanes), llvm::Align(bytes(0)), mask[along(0) < 0]);
    store->eraseFromParent();
    close_loop(b_, run, b_.getInt64(lanes), /*vectorise=*/false);
  }

  // Lines [begin, end), `copies` lines a step: each input a vector (unit or
  // reversed) or its splat (repeated), out one aligned non-temporal store a
  // line; a reversed out's line holds elements at + L - 1 down to at, and
  // every vector's lanes are in out's memory order.
  void emit_lines(const PerOperand& row_base, const PartsPerOperand& splats, Value* begin, Value* end, unsigned lanes,
                  unsigned copies) {
    CountedLoop loop = open_loop(b_, begin, end, "lines");
    for (unsigned c = 0; c < copies; ++c) {
      Value* at = c == 0 ? static_cast<Value*>(loop.i) : b_.CreateAdd(loop.i, b_.getInt64(static_cast<std::int64_t>(c * lanes)));
      std::vector<Parts> in;
      for (int k = 1; k < operands_; ++k)
        in.push_back(splats[k].re ? splats[k] : load_lanes(k, row_base[k], at, lanes));
      make_nontemporal(b_, body_.compute_and_store(b_, in, lowest(0, row_base[0], at, lanes), lanes), kLineBytes);
    }
    close_loop(b_, loop, b_.getInt64(static_cast<std::int64_t>(copies * lanes)), /*vectorise=*/false);
  }

  // n units of `unit_bytes` from `out` (an element, or a row of NOTE: [Fixed
  // rows]), split where units start lines: [0, head) before the first unit
  // that starts a line, [head, lines_end) whole steps of lines (the fewest
  // units that fill whole lines, a power of two of them), the rest after.
  // Unit h starts a line when out + h * unit_bytes is a multiple of L, which
  // with g = gcd(unit_bytes, L) has a solution h < L / g exactly when out is a
  // multiple of g: h = (distance to the next line / g) * the inverse of
  // unit_bytes / g modulo L / g. Otherwise no store could be line-aligned:
  // head is n. `backwards`: unit h lies at out - h * unit_bytes, and a step
  // starts a line where its units' end does, out + unit_bytes - h * unit_bytes.
  std::pair<Value*, Value*> split_at_lines(Value* out, Value* n, std::uint64_t unit_bytes, bool backwards) {
    const auto line = static_cast<std::uint64_t>(kLineBytes);
    const std::uint64_t g = std::gcd(unit_bytes, line);
    const std::uint64_t per_step = line / g;  // units a step
    std::uint64_t inverse = 1;                // of unit_bytes / g modulo per_step (odd, so it has one)
    while ((inverse * (unit_bytes / g)) % per_step != 1 % per_step) inverse += 2;
    Value* address = b_.CreatePtrToInt(out, b_.getInt64Ty(), "out_address");
    Value* to_line = backwards ? b_.CreateAnd(b_.CreateAdd(address, b_.getInt64(unit_bytes)), line - 1)
                               : b_.CreateAnd(b_.CreateSub(b_.getInt64(0), address), line - 1);
    Value* aligned = b_.CreateICmpEQ(b_.CreateAnd(address, g - 1), b_.getInt64(0));
    Value* units = b_.CreateLShr(to_line, llvm::Log2_64(g));
    if (inverse != 1) units = multiple_modulo(units, inverse, per_step);
    Value* head = b_.CreateSelect(aligned, b_.CreateAnd(units, per_step - 1), n);
    head = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, head, n, nullptr, "head");
    Value* lines_end = b_.CreateAdd(head, b_.CreateAnd(b_.CreateSub(n, head), ~(per_step - 1)), "lines_end");
    return {head, lines_end};
  }

  // (x * factor) mod `modulus` for x < modulus, as a table of the products
  // (kernels multiply no run-time value: NOTE: [Additive offsets]).
  Value* multiple_modulo(Value* x, std::uint64_t factor, std::uint64_t modulus) {
    std::vector<std::uint64_t> products;
    for (std::uint64_t i = 0; i < modulus; ++i) products.push_back(i * factor % modulus);
    llvm::Constant* values = llvm::ConstantDataArray::get(b_.getContext(), products);
    auto* table = new llvm::GlobalVariable(*b_.GetInsertBlock()->getModule(), values->getType(), /*isConstant=*/true,
                                           llvm::GlobalValue::PrivateLinkage, values, "multiples");
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return b_.CreateLoad(b_.getInt64Ty(), b_.CreateGEP(b_.getInt64Ty(), table, x));
  }

  // Operand k's lowest address of its elements [at, at + lanes) of the row
  // from row_base (unit: row_base + at; reversed: row_base - at - lanes + 1).
  Value* lowest(int k, Value* row_base, Value* at, unsigned lanes) {
    if (along(k) > 0) return b_.CreateGEP(element_type_[k], row_base, at);
    Value* last = b_.CreateGEP(element_type_[k], row_base, b_.CreateNeg(at));
    return b_.CreateConstGEP1_64(element_type_[k], last, -static_cast<std::int64_t>(lanes - 1));
  }

  // Operand k's element i of the row from row_base (unit or reversed).
  Value* element_at(int k, Value* row_base, Value* i) {
    return b_.CreateGEP(element_type_[k], row_base, along(k) > 0 ? i : b_.CreateNeg(i));
  }

  // v's `lanes` lanes, last first.
  Value* reverse_lanes(Value* v, unsigned lanes) {
    std::vector<int> reverse;
    for (unsigned j = lanes; j-- > 0;) reverse.push_back(static_cast<int>(j));
    return b_.CreateShuffleVector(v, reverse);
  }

  // Input k's elements [at, at + lanes) of the row from row_base (unit or
  // reversed) as one vector, its lanes in out's memory order: loaded from
  // their lowest address, and reversed when input and out walk the row
  // opposite ways.
  Parts load_lanes(int k, Value* row_base, Value* at, unsigned lanes) {
    const Parts stored = load(k, lowest(k, row_base, at, lanes), lanes);
    if ((along(k) < 0) == (along(0) < 0)) return stored;
    return {reverse_lanes(stored.re, lanes), stored.im != nullptr ? reverse_lanes(stored.im, lanes) : nullptr};
  }

  // The values of the inputs that repeat along the row (nothing for the others).
  PartsPerOperand load_repeated(const PerOperand& row_base) {
    PartsPerOperand fixed(static_cast<std::size_t>(operands_));
    for (int k = 1; k < operands_; ++k)
      if (inner_[k] == InnerStride::zero) fixed[k] = load(k, row_base[k], 1);
    return fixed;
  }

  // One element: every input loaded (in order), the result stored.
  void emit_element(const PerOperand& address) {
    std::vector<Parts> in;
    for (int k = 1; k < operands_; ++k) in.push_back(load(k, address[k], 1));
    body_.compute_and_store(b_, in, address[0], 1);
  }

  // ---- helpers ----

  // Input k's element at `address`, or `lanes` consecutive ones, as the body
  // takes them (NestBody::compute_and_store): as stored, or a complex
  // input's parts (NOTE: [Complex in IR]).
  Parts load(int k, Value* address, unsigned lanes) {
    const DType d = dtype_[k];
    if (is_complex(d)) return lanes == 1 ? load_complex(b_, d, address) : load_complex_vector(b_, d, address, lanes);
    return {lanes == 1 ? b_.CreateLoad(element_type_[k], address) : load_vector(k, address, lanes)};
  }
  // `lanes` consecutive elements of operand k as stored, aligned to one element.
  Value* load_vector(int k, Value* address, unsigned lanes) {
    return b_.CreateAlignedLoad(llvm::FixedVectorType::get(element_type_[k], lanes), address, llvm::Align(bytes(k)));
  }
  std::uint64_t bytes(int k) const { return size_[k]; }  // a complex element's: both parts
  // L of NOTE: [Transposed tiles].
  std::uint64_t transpose_lanes() const {
    return std::min(std::min(kTransposeBytes, register_bytes_) / bytes(key_.transposed), kTransposeLanes);
  }
  // NOTE: [Transposed tiles]: whether a block's column of t, and its row of
  // out (the same size where the block may stream), is a whole line.
  bool transposed_blocks_are_lines() const { return transpose_lanes() * bytes(key_.transposed) == kLineBytes; }
  Value* field(std::size_t offset, llvm::Type* type, const char* name) {
    return load_field(b_, args_, offset, type, name);
  }
  Value* element(Value* array, int i, const std::string& name) { return load_i64(b_, array, i, name); }
  BasicBlock* block(const std::string& name) { return new_block(b_, name); }
  Value* local(const std::string& name) { return new_local(b_, name); }

  // The emitter function of each Emitter value (variant.h).
  using NestFn = void (NestEmitter::*)(Value* count, BasicBlock* exit);
  static constexpr std::array<NestFn, kNumEmitters> kNests{nullptr, &NestEmitter::emit_nest,
                                                           &NestEmitter::emit_fixed_rows,
                                                           &NestEmitter::emit_transposed_tiles};

  const KernelKey& key_;
  NestBody& body_;
  llvm::IRBuilder<> b_;
  int rank_, operands_;
  std::vector<InnerStride> inner_;  // out first
  std::vector<DType> dtype_;        // the same order
  const CodegenTarget& target_;
  llvm::Function* fn_ = nullptr;
  Value* args_ = nullptr;
  std::vector<llvm::Type*> element_type_;  // storage types, out first
  std::vector<std::uint64_t> size_;        // their sizes in bytes
  PerOperand base_;
  std::vector<Value*> extent_;
  std::vector<std::vector<Value*>> stride_, span_;  // [operand][level]
  std::uint64_t register_bytes_;  // of one vector register
};

}  // namespace

llvm::Value* NestBody::accumulate(llvm::IRBuilder<>&, const std::vector<Parts>&, llvm::Value*, unsigned) {
  throw std::logic_error("this kernel's body does not accumulate (NOTE: [Reduction kernels])");
}
llvm::Value* NestBody::identity(llvm::IRBuilder<>&, unsigned) {
  throw std::logic_error("this kernel's body does not accumulate (NOTE: [Reduction kernels])");
}
llvm::Value* NestBody::combine(llvm::IRBuilder<>&, llvm::Value*, llvm::Value*) {
  throw std::logic_error("this kernel's body does not accumulate (NOTE: [Reduction kernels])");
}

llvm::Function* emit_loop_nest(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                               const std::string& symbol, const std::vector<DType>& dtypes,
                               NestBody& body) {
  return NestEmitter(module, key, settings, symbol, dtypes, body).emit();
}

}  // namespace bcast::jit
