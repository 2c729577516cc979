// The Ascend-style row reduction: NOTE: [Ascend reductions].
#include "ascend_reduce.h"

#include <algorithm>
#include <bit>
#include <optional>

#include <fmt/format.h>

#include "thread_pool.h"
#include "validate_binary.h"

namespace bcast::ascend {
namespace {

using detail::Combine;

constexpr int kOutQueue = 0, kInQueue = 1;  // queue numbers, as a launch's (out's first)
constexpr std::int64_t kMaxStride = 255;    // blocks: a repeat stride's range
constexpr std::int64_t kMaxCopyBlocks = 4095, kMaxCopyBytes = 65535;

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

Instr fold_instr(Combine c) { return c == Combine::add ? Instr::Add : c == Combine::maximum ? Instr::Max : Instr::Min; }
Instr whole_instr(Combine c) {
  return c == Combine::add       ? Instr::WholeReduceSum
         : c == Combine::maximum ? Instr::WholeReduceMax
                                 : Instr::WholeReduceMin;
}
std::string_view type_name(DType t) { return ascend_type_name(t).value_or(dtype_name(t)); }

// A tile's shape and the UB's layout: each slot's rows and results, then a
// mean's divisors.
struct Geometry {
  std::int64_t m = 0, size = 0, lanes = 0;  // the row's elements, their bytes, a repeat's elements
  std::int64_t pitch = 0, row_blocks = 0;   // a row in the UB: elements, 32-byte blocks
  std::int64_t rows = 0, slots = 1;         // a full tile's rows; buffers a queue
  std::int64_t in[2] = {}, out[2] = {}, divisor = 0, ub_bytes = 0;
};

std::optional<Geometry> geometry(const ReduceCall& call, std::int64_t ub, bool double_buffer) {
  Geometry g;
  g.m = call.plan->reduced.empty() ? 1 : call.plan->reduced.back().extent;  // none: a reduced dim of extent 1
  g.size = static_cast<std::int64_t>(dtype_size(call.input));
  g.lanes = kRepeatBytes / g.size;
  g.pitch = round_up(g.m, kBlockBytes / g.size);
  g.row_blocks = g.pitch * g.size / kBlockBytes;
  g.slots = double_buffer ? 2 : 1;
  const auto bytes = [&](std::int64_t rows) {
    const std::int64_t results = round_up(rows * g.size, kBlockBytes);
    return g.slots * (rows * g.pitch * g.size + results) + (call.divide ? results : 0);
  };
  for (g.rows = std::min(kMaxRepeatTimes, call.plan->outputs); g.rows > 0 && bytes(g.rows) > ub; --g.rows) {
  }
  if (g.rows == 0) return std::nullopt;
  std::int64_t at = 0;
  for (std::int64_t s = 0; s < g.slots; ++s) g.in[s] = at, at += g.rows * g.pitch * g.size;
  for (std::int64_t s = 0; s < g.slots; ++s) g.out[s] = at, at += round_up(g.rows * g.size, kBlockBytes);
  g.divisor = at;
  g.ub_bytes = bytes(g.rows);
  if (g.slots == 1) g.in[1] = g.in[0], g.out[1] = g.out[0];
  return g;
}

// Whether the results lie in x's row order, one after another (out's
// offset of result o is o).
bool results_in_row_order(const ReducePlan& plan) {
  std::int64_t step = 1;
  for (std::size_t l = plan.kept.size(); l-- > 0;) {
    if (plan.kept[l].out_stride != step) return false;
    step *= plan.kept[l].extent;
  }
  return true;
}

// One block's share of the rows, tile by tile.
class RowReduction {
 public:
  RowReduction(const ReduceCall& call, const Geometry& g, BlockContext& ctx)
      : call_(call), g_(g), ctx_(ctx), dtype_(call.input) {}

  void run(std::int64_t first, std::int64_t last) {
    if (call_.divide) {  // a mean: the count in every lane of the divisors
      const auto count = static_cast<float>(call_.plan->count);
      ctx_.vector({.instr = Instr::Duplicate,
                   .dtype = dtype_,
                   .dst = g_.divisor,
                   .scalar = std::bit_cast<std::uint32_t>(count),
                   .count = g_.rows});
    }
    for (std::int64_t a = first, t = 0; a < last; a += g_.rows, ++t) {
      const std::int64_t n = std::min(g_.rows, last - a), s = t % g_.slots;
      copy_in(a, n, s);
      compute(n, s);
      copy_out(a, n, s);
      ctx_.tile_done();
    }
  }

 private:
  std::int64_t x_offset(std::int64_t row) const { return loop_offset(call_.plan->kept, row, false); }

  // Rows [a, a + n) into slot s, a copy for each run of rows equally far
  // apart in GM (no closer than a row: the gaps are not negative).
  void copy_in(std::int64_t a, std::int64_t n, std::int64_t s) {
    ctx_.queue(QueueOp::alloc, kInQueue, static_cast<int>(s));
    for (std::int64_t i = 0; i < n;) {
      const std::int64_t at = x_offset(a + i);
      const std::int64_t step = i + 1 < n ? x_offset(a + i + 1) - at : 0;
      std::int64_t k = 1;
      if (step >= g_.m)
        while (i + k < n && k < kMaxCopyBlocks && x_offset(a + i + k) - x_offset(a + i + k - 1) == step) ++k;
      ctx_.copy({.instr = Instr::DataCopyPad,
                 .dir = CopyDir::gm_to_ub,
                 .ub = g_.in[s] + i * g_.pitch * g_.size,
                 .gm = static_cast<const char*>(call_.x) + at * g_.size,
                 .operand = 1,
                 .element_bytes = g_.size,
                 .block_count = k,
                 .block_len = g_.m * g_.size,
                 .src_gap = k > 1 ? (step - g_.m) * g_.size : 0});
      i += k;
    }
    ctx_.queue(QueueOp::enque, kInQueue, static_cast<int>(s));
  }

  void compute(std::int64_t n, std::int64_t s) {
    ctx_.queue(QueueOp::deque, kInQueue, static_cast<int>(s));
    ctx_.queue(QueueOp::alloc, kOutQueue, static_cast<int>(s));
    const Instr fold = fold_instr(call_.combine), whole = whole_instr(call_.combine);
    const auto order = static_cast<std::uint8_t>(ReduceOrder::only_value);
    const std::int64_t in = g_.in[s], rb = g_.row_blocks;
    if (rb <= kMaxStride) {  // every row of the tile at once, a repeat a row
      for (std::int64_t k = 1; k * g_.lanes < g_.m; ++k)
        ctx_.vector({.instr = fold,
                     .dtype = dtype_,
                     .dst = in,
                     .src0 = in,
                     .src1 = in + k * kRepeatBytes,
                     .mask = Mask::first(std::min(g_.lanes, g_.m - k * g_.lanes)),
                     .repeat_times = n,
                     .params = {1, 1, 1, rb, rb, rb}});
      ctx_.vector({.instr = whole,
                   .dtype = dtype_,
                   .dst = g_.out[s],
                   .src0 = in,
                   .mask = Mask::first(std::min(g_.lanes, g_.m)),
                   .repeat_times = n,
                   .params = {.dst_rep = 1, .src0_rep = rb},
                   .mode = order});
    } else {  // a row at a time, folded in halves of whole repeats
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t row = in + i * g_.pitch * g_.size;
        std::int64_t len = g_.m;
        for (; len > g_.lanes;) {
          const std::int64_t half = round_up((len + 1) / 2, g_.lanes);
          ctx_.vector({.instr = fold,
                       .dtype = dtype_,
                       .dst = row,
                       .src0 = row,
                       .src1 = row + half * g_.size,
                       .count = len - half});
          len = half;
        }
        ctx_.vector({.instr = whole,
                     .dtype = dtype_,
                     .dst = g_.out[s] + i * g_.size,
                     .src0 = row,
                     .mask = Mask::first(len),
                     .repeat_times = 1,
                     .params = {.dst_rep = 1},
                     .mode = order});
      }
    }
    if (call_.divide)
      ctx_.vector(
          {.instr = Instr::Div, .dtype = dtype_, .dst = g_.out[s], .src0 = g_.out[s], .src1 = g_.divisor, .count = n});
    ctx_.queue(QueueOp::enque, kOutQueue, static_cast<int>(s));
    ctx_.queue(QueueOp::free, kInQueue, static_cast<int>(s));
  }

  // The tile's results, one after another in out (results_in_row_order).
  void copy_out(std::int64_t a, std::int64_t n, std::int64_t s) {
    ctx_.queue(QueueOp::deque, kOutQueue, static_cast<int>(s));
    ctx_.copy({.instr = Instr::DataCopyPad,
               .dir = CopyDir::ub_to_gm,
               .ub = g_.out[s],
               .gm = static_cast<const char*>(call_.out) + a * g_.size,
               .operand = 0,
               .element_bytes = g_.size,
               .block_count = 1,
               .block_len = n * g_.size});
    ctx_.queue(QueueOp::free, kOutQueue, static_cast<int>(s));
  }

  const ReduceCall& call_;
  const Geometry& g_;
  BlockContext& ctx_;
  DType dtype_;
};

}  // namespace

std::string refuse_reduction(std::string_view name, const ReduceCall& call, const Product& product,
                             std::int64_t ub_bytes) {
  const ReducePlan& plan = *call.plan;
  if (call.combine != Combine::add && call.combine != Combine::maximum && call.combine != Combine::minimum)
    return fmt::format("{}: no WholeReduce instruction combines as it does (the model has Sum, Max and Min)", name);
  if (call.accumulator != call.input || call.result != call.input)
    return fmt::format("{} of {} accumulates in {} and gives {}: the kernel has no Cast step", name,
                       dtype_name(call.input), dtype_name(call.accumulator), dtype_name(call.result));
  const Instr whole = whole_instr(call.combine);
  if (!product.has(whole, call.input))
    return fmt::format("{}: {} has no {} for {} (Ascend C's page lists Atlas A2/A3, half and float)", name,
                       product.name, instr_name(whole), type_name(call.input));
  if (!product.has_data_copy_pad)
    return fmt::format("{}: {} has no DataCopyPad to read rows of any length", name, product.name);
  const bool one_element = plan.reduced.empty() && plan.count == 1;
  if (!one_element && (!plan.rows || plan.reduced.size() != 1 || plan.reduced[0].stride != 1))
    return fmt::format(
        "{}: the kernel reduces along the last dim of rows that are contiguous in memory; this "
        "call reduces {} loop(s) of x, the innermost {}",
        name, plan.reduced.size(), plan.rows ? "contiguous or strided" : "kept");
  if (!results_in_row_order(plan))
    return fmt::format("{}: the results are not in the order of x's rows (a permuted view)", name);
  const std::int64_t row_bytes = plan.count * static_cast<std::int64_t>(dtype_size(call.input));
  if (row_bytes > kMaxCopyBytes)
    return fmt::format("{}: a row of {} bytes is longer than one DataCopyPad block ({} bytes)", name, row_bytes,
                       kMaxCopyBytes);
  if (!geometry(call, ub_bytes, false))
    return fmt::format("{}: a row of {} bytes and its result do not fit the {}-byte UB", name, row_bytes, ub_bytes);
  return "";
}

std::string reduction_kernel_name(const ReduceCall& call, const Product& product) {
  return fmt::format("{}<{}>{}.rows.{}", instr_name(whole_instr(call.combine)), type_name(call.input),
                     call.divide ? "+Div" : "", product.name);
}

Launch launch_reduction(const ReduceCall& call, const TensorView& x, const TensorView& out, const SimConfig& config) {
  Launch result;
  const std::optional<Geometry> g = geometry(call, config.ub_size, config.double_buffer);
  if (!g) return result.error = "the rows do not fit the UB", result;
  result.plan = {
      .rows = g->rows, .cols = g->m, .pitch = g->pitch, .tiles = 0, .slots = g->slots, .ub_bytes = g->ub_bytes};
  const std::int64_t rows = call.plan->outputs;
  for (std::int64_t b = 0; b < config.block_num; ++b)
    result.plan.tiles +=
        (share(rows, config.block_num, b + 1) - share(rows, config.block_num, b) + g->rows - 1) / g->rows;
  std::vector<GmRegion> gm;
  for (const TensorView* v : {&out, &x}) {
    const ByteSpan span = byte_span(*v);
    const char* base = static_cast<const char*>(v->data());
    gm.push_back({base + span.begin, base + span.end});
  }
  const int slots = static_cast<int>(g->slots);
  run_blocks(config, std::move(gm), {"out", "x0"},
             {{"outQueue", Pipe::vector, Pipe::mte3, slots}, {"inQueueX0", Pipe::mte2, Pipe::vector, slots}}, result,
             [&](BlockContext& ctx, std::int64_t b) {
               RowReduction(call, *g, ctx).run(share(rows, config.block_num, b), share(rows, config.block_num, b + 1));
             });
  return result;
}

}  // namespace bcast::ascend
