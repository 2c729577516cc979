// The Ascend-style launcher: tile plan, per-block starting points, threads.
#include "ascend_launch.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <thread>

#include "fault_injection.h"
#include "thread_pool.h"
#include "validate_binary.h"

namespace bcast::ascend {
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

// The plan as the kernel sees it: at least one level (a scalar is one
// element of a one-element row), element strides.
struct Levels {
  std::vector<std::int64_t> extents;
  BroadcastPlan::Rows strides;
  std::vector<std::int64_t> base;
  int rank() const { return static_cast<int>(extents.size()); }
};

Levels levels_of(const BroadcastPlan& plan) {
  Levels l{plan.extents, plan.strides, plan.base};
  if (l.extents.empty()) {
    l.extents = {1};
    for (auto& s : l.strides) s = {0};
  }
  return l;
}

// An input is kept whole in the UB when tiles read it again and again (it
// repeats along some level), it is one dense block in GM, and every tile's
// slice of it starts 32-byte aligned in the UB (or is one repeated element).
bool may_stay_resident(const Levels& l, int k, const TensorView& view, std::int64_t size) {
  if (view.numel() == 0 || !view.layout.is_contiguous()) return false;
  bool repeated = false;
  for (int d = 0; d < l.rank(); ++d) repeated = repeated || (l.strides[k][d] == 0 && l.extents[d] > 1);
  if (!repeated) return false;
  if (l.strides[k].back() == 0) return true;  // broadcast one element: any UB address works
  // A tile reads its slice of the resident copy forwards: only for an inner
  // stride of +1 (a dim that out walks backwards is flipped for every operand).
  if (l.strides[k].back() != 1) return false;
  if ((l.base[k] * size) % kAlign != 0) return false;
  for (int d = 0; d + 1 < l.rank(); ++d)
    if ((l.strides[k][d] * size) % kAlign != 0) return false;
  return true;
}

}  // namespace

std::optional<TilePlan> plan_tiles(const BroadcastPlan& bplan, std::span<const TensorView> operands,
                                   std::span<const std::int64_t> node_sizes, const SimConfig& config, std::string& why) {
  const Levels l = levels_of(bplan);
  const std::int64_t n = l.extents.back();
  // Whole tiles are a multiple of 32 bytes in every buffer.
  std::int64_t smallest = kAlign, per_element = 0;  // per_element: the tile buffers' bytes per element
  for (const TensorView& v : operands) {
    smallest = std::min<std::int64_t>(smallest, static_cast<std::int64_t>(v.element_size()));
    per_element += static_cast<std::int64_t>(v.element_size());
  }
  for (const std::int64_t size : node_sizes) {
    smallest = std::min(smallest, size);
    per_element += size;
  }
  const std::int64_t unit = kAlign / smallest;
  TilePlan t;
  std::int64_t used = 0;
  // Prefer resident inputs and two slots; give up residents, then the second
  // slot, when a UB that small cannot hold a tile otherwise.
  for (const bool residents : {true, false}) {
    t = TilePlan{};
    used = 0;
    for (std::size_t k = 1; k < operands.size() && residents; ++k) {
      const auto size = static_cast<std::int64_t>(operands[k].element_size());
      const std::int64_t bytes = round_up(operands[k].numel() * size, kAlign);
      if (may_stay_resident(l, static_cast<int>(k), operands[k], size) && used + bytes <= config.ub_size / 2) {
        t.resident[k] = true;
        used += bytes;
      }
    }
    for (std::int64_t slots : {std::int64_t{config.double_buffer ? 2 : 1}, std::int64_t{1}}) {
      const std::int64_t fit = (config.ub_size - used) / slots / per_element / unit * unit;
      if (fit >= unit) {
        t.slots = slots;
        t.tile = std::min(fit, round_up(n, unit));
        break;
      }
    }
    if (t.tile > 0) break;
  }
  if (t.tile == 0) {
    why = "a " + std::to_string(config.ub_size) + "-byte UB cannot hold one tile of " + std::to_string(unit) +
          " elements per buffer";
    return std::nullopt;
  }
  t.segments = (n + t.tile - 1) / t.tile;
  std::int64_t rows = 1;
  for (int d = 0; d + 1 < l.rank(); ++d) rows *= l.extents[d];
  t.tiles = rows * t.segments;
  t.ub_bytes = used + t.slots * t.tile * per_element;
  return t;
}

namespace {

// The kernel's parameters (NOTE: [Ascend kernel ABI]) and the arrays they
// point into, which must outlive the launch.
struct Parameters {
  std::vector<std::int64_t> extents, strides, spans, ub_values;
  std::vector<BlockStart> starts;
  std::vector<std::vector<std::int64_t>> indices;
  KernelParams p{};
};

using Sizes = std::vector<std::int64_t>;  // each operand's element size, out first

// The outer levels: extents, and byte strides and spans, a row per operand.
void lay_out_levels(Parameters& params, const Levels& l, const Sizes& size) {
  const int outer = l.rank() - 1;
  params.extents.assign(l.extents.begin(), l.extents.end() - 1);
  for (std::size_t k = 0; k < size.size(); ++k)
    for (int d = 0; d < outer; ++d) {
      params.strides.push_back(l.strides[k][d] * size[k]);
      params.spans.push_back((l.extents[d] - 1) * l.strides[k][d] * size[k]);
    }
  KernelParams& p = params.p;
  p.extents = params.extents.data();
  p.strides = params.strides.data();
  p.spans = params.spans.data();
  p.outer_levels = outer;
  p.inner_extent = l.extents.back();
}

// The tiles' steps and the UB: resident inputs, then per slot each
// operand's tile buffer, then each node's (of node_sizes[i] bytes an
// element) but the last: out's is its.
void lay_out_ub(Parameters& params, const Levels& l, const TilePlan& t, const Sizes& size,
                std::span<const TensorView> views, std::span<const std::int64_t> node_sizes) {
  KernelParams& p = params.p;
  p.tile = t.tile;
  p.slots = t.slots;
  std::int64_t ub = 0;
  const auto operands = static_cast<int>(size.size());
  for (int k = 0; k < operands; ++k) {
    p.inner_stride[k] = l.strides[k].back();
    p.tile_step[k] = t.tile * p.inner_stride[k] * size[k];
    p.row_rewind[k] = t.segments * p.tile_step[k];
    p.residency[k] = t.resident[k] ? kResident : kPerTile;
    if (t.resident[k]) {
      p.ub_resident[k] = ub;
      p.resident_count[k] = views[static_cast<std::size_t>(k)].numel();
      p.resident_gm_offset[k] = 0;  // a dense C-order view starts at its data pointer
      ub += round_up(p.resident_count[k] * size[k], kAlign);
    }
  }
  const std::size_t nodes = node_sizes.size();
  params.ub_values.assign(2 * nodes, 0);
  for (int s = 0; s < t.slots; ++s) {
    for (int k = 0; k < operands; ++k) {
      p.ub_tile[k][s] = ub;
      ub += t.tile * size[k];
    }
    for (std::size_t i = 0; i < nodes; ++i) {
      params.ub_values[2 * i + s] = i + 1 < nodes ? ub : p.ub_tile[kOut][s];
      if (i + 1 < nodes) ub += t.tile * node_sizes[i];
    }
  }
  if (t.slots == 1) {
    for (int k = 0; k < operands; ++k) p.ub_tile[k][1] = p.ub_tile[k][0];
    for (std::size_t i = 0; i < nodes; ++i) params.ub_values[2 * i + 1] = params.ub_values[2 * i];
  }
  p.ub_values = params.ub_values.data();
}

// Each block's first tile: the only index arithmetic of a launch.
void find_block_starts(Parameters& params, const Levels& l, const TilePlan& t, const Sizes& size,
                       std::int64_t block_num) {
  const int outer = l.rank() - 1;
  params.starts.resize(block_num);
  params.indices.assign(block_num, std::vector<std::int64_t>(std::max(outer, 1)));
  for (std::int64_t blk = 0; blk < block_num; ++blk) {
    const std::int64_t first = share(t.tiles, block_num, blk);
    BlockStart& s = params.starts[blk];
    s.tiles = share(t.tiles, block_num, blk + 1) - first;
    const std::int64_t seg = first % t.segments;
    s.pos = seg * t.tile;
    for (std::size_t k = 0; k < size.size(); ++k) s.offset[k] = l.base[k] * size[k] + seg * params.p.tile_step[k];
    for (std::int64_t d = outer - 1, rest = first / t.segments; d >= 0; --d) {
      params.indices[blk][d] = rest % l.extents[d];
      rest /= l.extents[d];
      for (std::size_t k = 0; k < size.size(); ++k) s.offset[k] += params.indices[blk][d] * l.strides[k][d] * size[k];
    }
    s.index = params.indices[blk].data();
  }
  params.p.blocks = params.starts.data();
}

// NOTE: test hooks only: breaks the parameters as `fault` says.
void inject(Parameters& params, Fault fault, const SimConfig& config, const TensorView& a) {
  if (fault == Fault::none && bcast::fault::armed(bcast::fault::Fault::ascend_rule)) fault = Fault::gm_out_of_bounds;
  KernelParams& p = params.p;
  switch (fault) {
    case Fault::misaligned_ub: p.ub_tile[kA][0] += 4, p.ub_tile[kA][1] += 4; break;
    case Fault::ub_overflow: p.ub_tile[kA][0] = p.ub_tile[kA][1] = config.ub_size - kAlign; break;
    case Fault::gm_out_of_bounds: params.starts[0].offset[kA] = byte_span(a).end; break;
    case Fault::none: break;
  }
}

}  // namespace

Launch launch(KernelFn kernel, const BlockWork& work, const BroadcastPlan& bplan, std::span<const TensorView> views,
              const SimConfig& config, Fault fault) {
  Launch result;
  // An expression's nodes each have a tile buffer, but the last: it writes out's.
  std::vector<std::int64_t> node_sizes;
  if (work.expression != nullptr)
    for (const ExprInstr& instr : work.expression->program().code)
      node_sizes.push_back(static_cast<std::int64_t>(dtype_size(instr.out)));
  const std::span<const std::int64_t> own_buffers =
      std::span(node_sizes).first(node_sizes.empty() ? 0 : node_sizes.size() - 1);
  const std::optional<TilePlan> tiles = plan_tiles(bplan, views, own_buffers, config, result.error);
  if (!tiles) return result;
  result.plan = *tiles;
  const Levels l = levels_of(bplan);
  Sizes size;
  for (const TensorView& v : views) size.push_back(static_cast<std::int64_t>(v.element_size()));
  const std::int64_t block_num = config.block_num;
  Parameters params;
  lay_out_levels(params, l, size);
  lay_out_ub(params, l, *tiles, size, views, node_sizes);
  find_block_starts(params, l, *tiles, size, block_num);
  inject(params, fault, config, views[kA]);

  std::vector<GmRegion> gm;
  std::vector<void*> data;
  for (const TensorView& v : views) {
    const ByteSpan span = byte_span(v);
    gm.push_back({static_cast<const char*>(v.data) + span.begin, static_cast<const char*>(v.data) + span.end});
    data.push_back(v.data);
  }
  const std::vector<int> sizes(size.begin(), size.end());
  result.blocks.resize(block_num);
  std::vector<std::string> errors(block_num);
  auto run_block = [&](std::int64_t blk) {
    BlockContext ctx(static_cast<int>(blk), config, gm, sizes, work);
    kernel(blk, block_num, data.data(), &params.p, &ctx);
    ctx.finish();
    result.blocks[blk] = ctx.counters();
    errors[blk] = ctx.error();
  };
  // The blocks are the AI cores: each runs on a thread of the pool, as many
  // at once as the host has hardware threads.
  const auto workers = std::min<std::int64_t>(block_num, std::max(1u, std::thread::hardware_concurrency()));
  ThreadPool::instance().run(static_cast<int>(workers), block_num, run_block);
  for (const std::string& e : errors)
    if (!e.empty()) {
      result.error = e;
      break;
    }
  return result;
}

Launch launch(KernelFn kernel, Op op, const BroadcastPlan& bplan, const TensorView& a, const TensorView& b,
              const TensorView& out, const SimConfig& config, Fault fault) {
  const TensorView views[] = {out, a, b};
  return launch(kernel, BlockWork{.op_code = static_cast<int>(op), .dtype_code = static_cast<int>(a.dtype)}, bplan,
                views, config, fault);
}

}  // namespace bcast::ascend
