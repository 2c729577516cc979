// The Ascend-style launcher: tile plan, UB layout, tiling data, the product's
// copy checks, and the blocks on threads.
#include "ascend_launch.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "fault_injection.h"
#include "thread_pool.h"
#include "validate_binary.h"

namespace bcast::ascend {
namespace {

std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }
std::int64_t ceil_div(std::int64_t x, std::int64_t m) { return (x + m - 1) / m; }

// The plan as the kernel sees it: at least two levels (rows and the
// innermost), element strides.
struct Levels {
  std::vector<std::int64_t> extents;
  BroadcastPlan::Rows strides;
  std::vector<std::int64_t> base;
  int rank() const { return static_cast<int>(extents.size()); }
  std::int64_t n() const { return extents.back(); }
  std::int64_t m() const { return extents[extents.size() - 2]; }
  std::int64_t slabs() const {
    std::int64_t s = 1;
    for (int d = 0; d + 2 < rank(); ++d) s *= extents[d];
    return s;
  }
  std::int64_t row_stride(int k) const { return strides[k][extents.size() - 2]; }
};

Levels levels_of(const BroadcastPlan& plan) {
  Levels l{plan.extents, plan.strides, plan.base};
  while (l.extents.size() < 2) {
    l.extents.insert(l.extents.begin(), 1);
    for (auto& s : l.strides) s.insert(s.begin(), 0);
  }
  return l;
}

// Sizes of what a tile holds: each operand's element (out first), each
// step's result but the last (it writes out's buffer) and those the scalar
// unit computes.
struct Sizes {
  std::vector<std::int64_t> operand, step;
  std::int64_t smallest = kBlockBytes, widest = 1;
};

Sizes sizes_of(const Lowering& lw) {
  Sizes s;
  s.operand.push_back(static_cast<std::int64_t>(dtype_size(lw.out)));
  for (DType t : lw.inputs) s.operand.push_back(static_cast<std::int64_t>(dtype_size(t)));
  for (std::size_t i = 0; i < lw.steps.size(); ++i) {
    const Step& st = lw.steps[i];
    s.step.push_back(st.scalar_unit || i + 1 == lw.steps.size() ? 0 : result_bytes(st));
  }
  for (std::int64_t v : s.operand) s.smallest = std::min(s.smallest, v), s.widest = std::max(s.widest, v);
  for (std::int64_t v : s.step)
    if (v > 0) s.smallest = std::min(s.smallest, v), s.widest = std::max(s.widest, v);
  return s;
}

// A queue buffer's address for slot s; with one slot, slot 1 is slot 0.
void set_slot(std::int64_t (&queue)[2], std::int64_t s, std::int64_t slots, std::int64_t at) {
  queue[s] = at;
  if (slots == 1) queue[1] = at;
}

// The row inputs that stay resident for a block (bit k: input k): every tile
// reads the same row when tiles are whole rows and it repeats along every
// outer level.
std::uint32_t resident_rows(const Levels& l, const Lowering& lw, std::int64_t col_tiles) {
  std::uint32_t resident = 0;
  for (std::size_t k = 0; k < lw.fetch.size(); ++k) {
    if (lw.fetch[k] != Fetch::row || col_tiles != 1) continue;
    bool same_everywhere = true;
    for (int lvl = 0; lvl + 2 < l.rank(); ++lvl) same_everywhere = same_everywhere && l.strides[k + 1][lvl] == 0;
    if (same_everywhere) resident |= 1u << k;
  }
  return resident;
}

// NOTE: [Ascend UB layout] The UB, in the order a TPipe's InitBuffer calls
// would lay it out: each scalar input's staging block; each other input's
// queue buffers (a slot each; a resident row: its one row instead) and, for
// a column, its Brcb blocks; out's queue buffers; each step's result tile.
// Fills the tiling's addresses when given one; returns the bytes used.
std::int64_t lay_out_ub(const Lowering& lw, const Sizes& sz, std::int64_t rows, std::int64_t pitch, std::int64_t slots,
                        std::uint32_t resident, TilingData* t) {
  std::int64_t ub = 0;
  auto take = [&ub](std::int64_t bytes) {
    const std::int64_t at = ub;
    ub += round_up(bytes, kBlockBytes);
    return at;
  };
  const std::int64_t tile_elems = rows * pitch, column_bytes = round_up(rows, 8) * kBlockBytes;
  for (std::size_t k = 0; k < lw.fetch.size(); ++k)
    if (lw.fetch[k] == Fetch::scalar) {
      const std::int64_t at = take(kBlockBytes);
      if (t) t->ub_scalar[k + 1] = at;
    }
  if (lw.gathers) {
    const std::int64_t at = take(pitch * 4);  // a uint32_t byte offset a lane
    if (t) t->ub_offsets = at;
  }
  for (std::size_t k = 0; k < lw.fetch.size(); ++k) {
    const std::int64_t size = sz.operand[k + 1];
    std::int64_t bytes = 0;
    switch (lw.fetch[k]) {
      case Fetch::stream: bytes = tile_elems * size; break;
      case Fetch::row: bytes = pitch * size; break;
      case Fetch::column: bytes = column_bytes; break;
      case Fetch::gather: bytes = pitch * kBlockBytes; break;  // a block an element
      case Fetch::scalar: continue;
    }
    if ((resident >> k) & 1u) {  // the row, copied once a block; no queue
      const std::int64_t at = take(bytes);
      if (t) t->ub_resident[k + 1] = at, t->row_resident[k + 1] = 1;
      continue;
    }
    for (std::int64_t s = 0; s < slots; ++s) {
      const std::int64_t at = take(bytes);
      if (t) set_slot(t->ub_queue[k + 1], s, slots, at);
    }
    if (lw.fetch[k] == Fetch::column) {
      const std::int64_t at = take(column_bytes);
      if (t) t->ub_brcb[k + 1] = at;
    }
    if (lw.fetch[k] == Fetch::gather) {
      const std::int64_t at = take(pitch * size);
      if (t) t->ub_gathered[k + 1] = at;
    }
  }
  for (std::int64_t s = 0; s < slots; ++s) {
    const std::int64_t at = take(tile_elems * sz.operand[0]);
    if (t) set_slot(t->ub_queue[kQueueOut], s, slots, at);
  }
  for (std::size_t i = 0; i < sz.step.size(); ++i)
    if (sz.step[i] > 0) {
      const std::int64_t at = take(tile_elems * sz.step[i]);
      if (t) t->ub_step[i] = at;
    }
  return ub;
}

// The largest tile that fits: whole rows, as many as fit, when a row does;
// else one row's piece, as long as fits. Per-row steps issue a repeat
// stride's worth of repeats (255) at most, which bounds a row piece.
std::optional<TilePlan> plan_tiles(const Levels& l, const Lowering& lw, const Sizes& sz, const SimConfig& config,
                                   std::string& why) {
  const Product& p = *config.product;
  std::int64_t scratch = 0;  // the UB's top that the kernel's instructions use as scratch on this product
  for (Fetch f : lw.fetch)
    if (f == Fetch::column) scratch = std::max(scratch, p.scratch(Instr::Brcb));
  for (const Step& st : lw.steps)
    if (!st.scalar_unit) scratch = std::max(scratch, p.scratch(st.instr));
  const std::int64_t budget = config.ub_size - scratch;
  // A row's UB pitch: whole blocks of the smallest element, and whole
  // granules where a count-form call needs them (tile counts are rows * pitch).
  const std::int64_t unit = std::max(kBlockBytes / sz.smallest, lw.count_granule);
  std::int64_t max_cols = lw.per_row ? kMaxRepeatTimes * (kRepeatBytes / sz.widest) / unit * unit : INT64_MAX / 4;
  if (lw.gathers) max_cols = std::min<std::int64_t>(max_cols, 4095 / unit * unit);  // a gather copy's blocks
  // Several rows a tile only where each copy walks forward from row to row:
  // a stream's rows must not overlap (its row stride at least a row), a
  // column's values must not go backwards (no copy has a negative gap).
  bool several_rows = true;
  for (std::size_t k = 0; k < sz.operand.size(); ++k) {
    const Fetch f = k == 0 ? Fetch::stream : lw.fetch[k - 1];
    const std::int64_t s = l.row_stride(static_cast<int>(k));
    if (f == Fetch::stream && s < l.n()) several_rows = false;
    if (f == Fetch::column && s < 0) several_rows = false;
    if (f == Fetch::gather) several_rows = false;
  }
  TilePlan t;
  for (const std::int64_t slots : {std::int64_t{config.double_buffer ? 2 : 1}, std::int64_t{1}}) {
    auto fits = [&](std::int64_t rows, std::int64_t cols) {
      // No row resident: a queue's slots take at least the resident row's bytes,
      // and the tiles may yet be cut into pieces, which end residency.
      return lay_out_ub(lw, sz, rows, round_up(cols, unit), slots, 0, nullptr) <= budget;
    };
    const std::int64_t n = l.n(), m = l.m();
    if (n <= max_cols && fits(1, n)) {  // whole rows: as many as fit (Brcb spreads 8 a repeat, 255 repeats)
      std::int64_t lo = 1, hi = several_rows ? std::min<std::int64_t>(m, 8 * kMaxRepeatTimes) : 1;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi + 1) / 2;
        if (fits(mid, n)) lo = mid;
        else hi = mid - 1;
      }
      t.rows = lo, t.cols = n;
    } else {  // a piece of one row
      std::int64_t lo = 0, hi = std::min(round_up(n, unit), max_cols) / unit;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi + 1) / 2;
        if (fits(1, mid * unit)) lo = mid;
        else hi = mid - 1;
      }
      t.rows = 1, t.cols = lo * unit;
    }
    if (t.cols > 0) {
      t.slots = slots;
      break;
    }
  }
  if (t.cols == 0) {
    why = fmt::format("a {}-byte UB cannot hold one tile of {} elements a buffer", config.ub_size, unit);
    return std::nullopt;
  }
  // Every block gets work when the call has enough: fewer rows a tile, then
  // shorter pieces, until there are block_num tiles (or a tile is one unit).
  const auto tiles_of = [&l](std::int64_t rows, std::int64_t cols) {
    return l.slabs() * ceil_div(l.m(), rows) * ceil_div(l.n(), cols);
  };
  const std::int64_t blocks = config.block_num;
  if (tiles_of(t.rows, t.cols) < blocks && t.rows > 1)
    t.rows = std::max<std::int64_t>(1, ceil_div(l.m(), ceil_div(blocks, l.slabs())));
  if (tiles_of(t.rows, t.cols) < blocks && t.rows == 1) {
    const std::int64_t pieces = ceil_div(blocks, l.slabs() * l.m());
    t.cols = std::min(t.cols, std::max(unit, round_up(ceil_div(l.n(), pieces), unit)));
  }
  t.pitch = round_up(t.cols, unit);
  t.tiles = tiles_of(t.rows, t.cols);
  t.ub_bytes = lay_out_ub(lw, sz, t.rows, t.pitch, t.slots, resident_rows(l, lw, ceil_div(l.n(), t.cols)), nullptr);
  return t;
}

// Where a product without DataCopyPad cannot go: every copy must move whole
// 32-byte blocks, with gaps of whole blocks, and never read past a buffer.
std::string refuse_for_data_copy(const Levels& l, const Lowering& lw, const Sizes& sz, const TilePlan& t,
                                 std::span<const TensorView> views, const Product& p) {
  if (p.has_data_copy_pad) return "";
  const std::int64_t last_cols = l.n() - (ceil_div(l.n(), t.cols) - 1) * t.cols;
  const std::int64_t last_rows = l.m() - (ceil_div(l.m(), t.rows) - 1) * t.rows;
  auto name = [](std::size_t k) { return k == 0 ? std::string("out") : fmt::format("x{}", k - 1); };
  for (std::size_t k = 0; k < sz.operand.size(); ++k) {
    const Fetch f = k == 0 ? Fetch::stream : lw.fetch[k - 1];
    const std::int64_t size = sz.operand[k];
    const auto ik = static_cast<int>(k);
    std::int64_t piece = 0, gap = 0;
    if (f == Fetch::stream || f == Fetch::row) {
      piece = std::min(t.cols, l.n()) * size;
      if (last_cols * size % kBlockBytes != 0) piece = last_cols * size;
      if (f == Fetch::stream && t.rows > 1) gap = (l.row_stride(ik) - l.n()) * size;
    } else if (f == Fetch::column) {
      if (l.row_stride(ik) != 1) return fmt::format("{} has no DataCopyPad to spread {}'s column of stride {}", p.name,
                                                    name(k), l.row_stride(ik));
      piece = t.rows * size % kBlockBytes != 0 ? t.rows * size : last_rows * size;
    } else {  // a scalar: one block from its element
      const ByteSpan span = byte_span(views[k]);
      if (span.end - l.base[k] * size < kBlockBytes)
        return fmt::format("{} has no DataCopyPad, and {} has {} bytes from its element, not a 32-byte block", p.name,
                           name(k), span.end - l.base[k] * size);
      continue;
    }
    if (piece % kBlockBytes != 0 || gap % kBlockBytes != 0 || gap < 0)
      return fmt::format("{} has no DataCopyPad: {}'s copies of {} bytes (gap {}) are not whole 32-byte blocks", p.name,
                         name(k), piece, gap);
  }
  return "";
}

// The tiling data of the call (NOTE: [Ascend tiling]).
TilingData tiling_of(const Levels& l, const Lowering& lw, const Sizes& sz, const TilePlan& t,
                     std::span<const std::uint64_t> scalars) {
  TilingData d{};
  d.levels = l.rank();
  for (int i = 0; i < l.rank(); ++i) d.extents[i] = l.extents[i];
  for (std::size_t k = 0; k < sz.operand.size(); ++k) {
    for (int i = 0; i < l.rank(); ++i) d.strides[k][i] = l.strides[k][i] * sz.operand[k];
    d.base[k] = l.base[k] * sz.operand[k];
  }
  d.rows = t.rows, d.cols = t.cols, d.pitch = t.pitch;
  d.row_tiles = ceil_div(l.m(), t.rows), d.col_tiles = ceil_div(l.n(), t.cols), d.tiles = t.tiles;
  d.slots = t.slots;
  lay_out_ub(lw, sz, t.rows, t.pitch, t.slots, resident_rows(l, lw, d.col_tiles), &d);
  for (std::size_t k = 0; k < lw.fetch.size(); ++k) {
    if (lw.fetch[k] == Fetch::column) {
      const std::int64_t s = l.row_stride(static_cast<int>(k) + 1);
      d.column_mode[k + 1] = s == 0 ? kOneValue : s == 1 ? kContiguous : kStrided;
    }
  }
  std::copy(scalars.begin(), scalars.end(), d.scalars);
  return d;
}

// NOTE: test hooks only: breaks the tiling as `fault` says.
void inject(TilingData& d, Fault fault, const SimConfig& config, const TensorView& a) {
  if (fault == Fault::none && bcast::fault::armed(bcast::fault::Fault::ascend_rule)) fault = Fault::gm_out_of_bounds;
  switch (fault) {
    case Fault::misaligned_ub: d.ub_queue[1][0] += 4, d.ub_queue[1][1] += 4; break;
    case Fault::ub_overflow: d.ub_queue[1][0] = d.ub_queue[1][1] = config.ub_size - kBlockBytes; break;
    case Fault::gm_out_of_bounds: d.base[1] = byte_span(a).end; break;
    case Fault::shared_slot: d.ub_queue[1][1] = d.ub_queue[1][0]; break;
    case Fault::overlapping_blocks: case Fault::none: break;
  }
}

// No two blocks write the same GM bytes; granules two blocks write parts of are counted.
std::string check_footprints(const std::vector<std::vector<std::pair<const char*, const char*>>>& writes,
                             std::int64_t& shared_granules) {
  struct Range {
    const char *begin, *end;
    std::size_t block;
  };
  std::vector<Range> all;
  for (std::size_t b = 0; b < writes.size(); ++b)
    for (const auto& [begin, end] : writes[b]) all.push_back({begin, end, b});
  std::sort(all.begin(), all.end(), [](const Range& x, const Range& y) { return x.begin < y.begin; });
  shared_granules = 0;
  for (std::size_t i = 1; i < all.size(); ++i) {
    const Range &prev = all[i - 1], &cur = all[i];
    if (prev.block == cur.block) continue;
    if (cur.begin < prev.end)
      return fmt::format("ascend-sim: blocks {} and {} both write {} GM bytes at {}", prev.block, cur.block,
                         prev.end - cur.begin, static_cast<const void*>(cur.begin));
    const auto granule = [](const char* p) { return reinterpret_cast<std::uintptr_t>(p) / kBlockBytes; };
    if (granule(prev.end - 1) == granule(cur.begin)) ++shared_granules;
  }
  return "";
}

}  // namespace

Launch launch(KernelFn kernel, const Lowering& lw, const BroadcastPlan& bplan, std::span<const TensorView> views,
              std::span<const std::uint64_t> scalars, const SimConfig& config, Fault fault) {
  Launch result;
  const Levels l = levels_of(bplan);
  if (l.rank() > kMaxLevels)
    return result.error = fmt::format("the plan has {} levels; the tiling holds {}", l.rank(), kMaxLevels), result;
  if (lw.steps.size() > static_cast<std::size_t>(kMaxSteps) || scalars.size() > static_cast<std::size_t>(kMaxScalars))
    return result.error = fmt::format("more than {} steps or {} scalars", kMaxSteps, kMaxScalars), result;
  const Sizes sz = sizes_of(lw);
  for (std::size_t k = 0; k < lw.fetch.size(); ++k) {
    const std::int64_t s = l.strides[k + 1].back();
    if (lw.fetch[k] == Fetch::gather && s <= 0)
      return result.error = fmt::format("{}: x{}'s innermost stride is {} elements; a gather's copy walks forwards only",
                                        config.product->name, k, s),
             result;
  }
  const std::optional<TilePlan> tiles = plan_tiles(l, lw, sz, config, result.error);
  if (!tiles) return result;
  result.plan = *tiles;
  result.error = refuse_for_data_copy(l, lw, sz, *tiles, views, *config.product);
  if (!result.error.empty()) return result;
  TilingData tiling = tiling_of(l, lw, sz, *tiles, scalars);
  inject(tiling, fault, config, views.size() > 1 ? views[1] : views[0]);

  std::vector<GmRegion> gm;
  std::vector<std::string> names;
  std::vector<void*> data;
  std::vector<QueueSpec> queues{{"outQueue", Pipe::vector, Pipe::mte3, static_cast<int>(tiles->slots)}};
  for (std::size_t k = 0; k < views.size(); ++k) {
    const ByteSpan span = byte_span(views[k]);
    const char* base = static_cast<const char*>(views[k].data());
    gm.push_back({base + span.begin, base + span.end});
    data.push_back(views[k].data());
    names.push_back(k == 0 ? "out" : fmt::format("x{}", k - 1));
    if (k > 0 && lw.fetch[k - 1] != Fetch::scalar)
      queues.push_back({fmt::format("inQueueX{}", k - 1), Pipe::mte2, Pipe::vector, static_cast<int>(tiles->slots)});
  }
  run_blocks(config, std::move(gm), std::move(names), std::move(queues), result,
             [&](BlockContext& ctx, std::int64_t blk) {
               // (Fault::overlapping_blocks: odd blocks run their even neighbour's tiles.)
               const std::int64_t idx = fault == Fault::overlapping_blocks ? blk / 2 * 2 : blk;
               kernel(idx, config.block_num, data.data(), &tiling, &ctx);
             });
  return result;
}

void run_blocks(const SimConfig& config, std::vector<GmRegion> gm, std::vector<std::string> names,
                std::vector<QueueSpec> queues, Launch& result,
                const std::function<void(BlockContext&, std::int64_t)>& body) {
  const std::int64_t block_num = config.block_num;
  result.blocks.resize(block_num);
  std::vector<std::string> errors(block_num);
  std::vector<std::vector<std::pair<const char*, const char*>>> writes(block_num);
  if (config.record_calls) result.calls.resize(block_num);
  auto run_block = [&](std::int64_t blk) {
    BlockContext ctx(static_cast<int>(blk), config, gm, names, queues,
                     config.record_calls ? &result.calls[blk] : nullptr);
    body(ctx, blk);
    ctx.finish();
    result.blocks[blk] = ctx.counters();
    errors[blk] = ctx.error();
    writes[blk] = ctx.gm_writes();
  };
  // The blocks are the AI cores: each runs on a thread of the pool, as many
  // at once as the host has hardware threads.
  const auto workers = std::min<std::int64_t>(block_num, std::max(1u, std::thread::hardware_concurrency()));
  record_call_threads(ThreadPool::instance().run(static_cast<int>(workers), block_num, run_block));
  for (const std::string& e : errors)
    if (!e.empty()) {
      result.error = e;
      return;
    }
  result.error = check_footprints(writes, result.shared_granules);
}

}  // namespace bcast::ascend
