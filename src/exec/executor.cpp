// Running a planned call, split into chunks across threads.
#include "executor.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "bcast/layout.h"
#include "config.h"
#include "host_target.h"
#include "logging.h"
#include "thread_pool.h"
#include "variant.h"

namespace bcast {
namespace {

// A rectangle of the nest: outer iterations [outer_begin, outer_end) and, of
// each, the innermost elements [inner_begin, inner_end).
struct Chunk {
  std::int64_t outer_begin, outer_end, inner_begin, inner_end;
};

// Pieces handed to the pool (NOTE: [Thread pool]): at least four per thread,
// so that a thread that wakes late or runs slow (a shared machine) costs at
// most a piece, and as many more as it takes to keep each to about a grain
// (BCAST_GRAIN elements; a megabyte of f32 by default, still a long stream for
// the prefetchers), so that no thread gets more than its share plus one grain.
// A piece is larger only where it cannot be split: whole rows of a call with
// enough rows (a row longer than a grain is one piece), and at most
// kMaxPieces pieces (a tiny grain on a huge call).
constexpr std::int64_t kPartsPerThread = 4;
constexpr std::int64_t kMaxPieces = std::int64_t{1} << 16;

std::int64_t pieces_for(std::int64_t elements, int threads) {
  const std::int64_t grain = std::max<std::int64_t>(config::grain(), 1);
  const std::int64_t fewest = threads * kPartsPerThread;
  return std::max(fewest, std::min((elements + grain - 1) / grain, kMaxPieces));
}

// Ranges of whole rows when there are enough rows for every thread's four
// pieces (or a variant keeps the rows whole: NOTE: [Fixed rows]); otherwise
// ranges of columns across all rows, each run still grain / rows long.
std::vector<Chunk> split(const BroadcastPlan& plan, int threads) {
  const std::int64_t outer = plan.outer_count();
  const std::int64_t inner = plan.rank() == 0 ? 1 : plan.extents.back();
  const std::int64_t parts = pieces_for(plan.numel, threads);
  std::vector<Chunk> chunks;
  if (outer >= threads * kPartsPerThread || keeps_rows_whole(plan)) {
    const std::int64_t n = std::min(parts, outer);
    for (std::int64_t p = 0; p < n; ++p) chunks.push_back({share(outer, n, p), share(outer, n, p + 1), 0, inner});
  } else {
    const std::int64_t n = std::min(parts, inner);
    for (std::int64_t p = 0; p < n; ++p) chunks.push_back({0, outer, share(inner, n, p), share(inner, n, p + 1)});
  }
  return chunks;
}

// BCAST_LOG_LEVEL=trace: how a call above the grain was shared out.
void log_split(const BroadcastPlan& plan, std::int64_t pieces, const std::string& how, int threads, int used) {
  if (logging::core().should_log(spdlog::level::trace))
    logging::core().trace("split {} elements into {} pieces ({}) for {} threads; {} ran parts (NOTE: [Thread pool])",
                          plan.numel, pieces, how, threads, used);
}

// Positions the kernel at the chunk's first element: the only index
// arithmetic of a call, done once per chunk (NOTE: [Kernel ABI]).
void run_chunk(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
               const Chunk& chunk) {
  const int rank = plan.rank();
  // Only the first `rank` entries are used: no need to clear the rest (this
  // is the hot path of tiny calls).
  const int operands = plan.operands();
  std::array<std::int64_t, kMaxRank> index, extents;
  std::array<std::int64_t, kMaxOperands> offset;
  std::copy(plan.base.begin(), plan.base.end(), offset.begin());
  std::copy(plan.extents.begin(), plan.extents.end(), extents.begin());
  for (std::int64_t l = rank - 2, rest = chunk.outer_begin; l >= 0; --l) {
    index[l] = rest % plan.extents[l];
    rest /= plan.extents[l];
    for (int k = 0; k < operands; ++k) offset[k] += index[l] * plan.strides[k][l];
  }
  if (rank > 0) {
    for (int k = 0; k < operands; ++k) offset[k] += chunk.inner_begin * plan.strides[k][rank - 1];
    extents[rank - 1] = chunk.inner_end - chunk.inner_begin;
  }
  std::array<std::int64_t, kMaxOperands * kMaxRank> strides, spans;
  pack_rows(plan, strides.data(), spans.data());
  std::array<void*, kMaxOperands> data;
  for (int k = 0; k < operands; ++k)
    data[k] = const_cast<char*>(static_cast<const char*>(ptrs.data[k]) + offset[k] * static_cast<std::int64_t>(sizes[k]));
  const KernelArgs args{data.data(), extents.data(), strides.data(), spans.data(), index.data(),
                        chunk.outer_end - chunk.outer_begin, rank, ptrs.context};
  kernel(&args);
}

// NOTE: [Blocked order] When an input walks memory faster along the
// next-to-innermost level than along the innermost one (out [R,C] row-major
// and a transposed, strides [1, R]), row-by-row order reads a new cache line,
// often a new page, for every element of a, and has dropped the line by the
// time the next row wants its neighbour. The last two levels then run in tiles
// of 128 rows by one cache line of out (the generic row's tiles): a tile reads its columns
// of a as 128-long runs, and out's and the other input's lines are whole.
// Narrow tiles matter when the strides are powers of two: 16 KiB apart, a
// wide tile's lines all fall in a few cache sets and evict one another
// (measured on [4096,4096] f32: 32 x 128 tiles 4.5 GB/s, 128 x 16 about 11).
// Tiles are sub-plans of the same broadcast type and stride classes, so the
// same kernel runs them; levels above the last two (a batch of matrices) are
// tiled matrix by matrix. A pool piece is a band of tile rows of one matrix,
// or as many of the band's tiles as a grain holds (at least one). An input
// that steps 1 between rows is read in transposed blocks of whole lines (NOTE:
// [Transposed tiles]): then larger,
// square tiles keep every operand's runs a kilobyte long (measured on
// [4096,4096] f32: 128 x 16 18.7 GB/s, 128 x 128 25.3, 256 x 256 26.6). Each
// variant's row holds its tiles (NOTE: [Loop variants]), in lines of out.
TilePolicy tile_for(const BroadcastPlan& plan) { return blocked_tiles(plan); }

// Columns of a tile: its lines of out, in elements (at least 8).
std::int64_t tile_cols(const TilePolicy& tile, const ElementSizes& sizes) {
  return std::max<std::int64_t>(tile.lines * HostTarget::kLineBytes / static_cast<std::int64_t>(sizes[kOut]), 8);
}

bool wants_blocked_order(const BroadcastPlan& plan, std::int64_t cols) {
  const int rank = plan.rank();
  if (rank < 2 || plan.extents[rank - 1] <= cols || plan.extents[rank - 2] <= 1) return false;
  for (int k = 1; k < plan.operands(); ++k) {
    const std::int64_t inner = std::abs(plan.strides[k][rank - 1]), next = std::abs(plan.strides[k][rank - 2]);
    if (inner > 1 && next != 0 && next < inner) return true;
  }
  return false;
}

// Runs rows [r0, r1) and columns [c_begin, c_end) of matrix m of `plan` (its
// position in the levels above the last two, in order), tile by tile along
// the columns. Each tile is a sub-plan: the levels above of extent 1, the
// matrix's and the tile's offsets in base.
void run_tiles(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
               std::int64_t m, std::int64_t r0, std::int64_t r1, std::int64_t c_begin, std::int64_t c_end) {
  const int rows = plan.rank() - 2, cols = plan.rank() - 1;
  const std::int64_t width = tile_cols(tile_for(plan), sizes);
  BroadcastPlan tile = plan;
  const int operands = plan.operands();
  std::vector<std::int64_t> matrix = plan.base;
  for (int l = rows - 1; l >= 0; --l) {
    const std::int64_t i = m % plan.extents[l];
    m /= plan.extents[l];
    for (int k = 0; k < operands; ++k) {
      matrix[k] += i * plan.strides[k][l];
      tile.spans[k][l] = 0;
    }
    tile.extents[l] = 1;
  }
  tile.extents[rows] = r1 - r0;
  for (std::int64_t c0 = c_begin; c0 < c_end; c0 += width) {
    const std::int64_t c1 = std::min(c_end, c0 + width);
    tile.extents[cols] = c1 - c0;
    for (int k = 0; k < operands; ++k) {
      tile.base[k] = matrix[k] + r0 * plan.strides[k][rows] + c0 * plan.strides[k][cols];
      tile.spans[k][rows] = (r1 - r0 - 1) * plan.strides[k][rows];
      tile.spans[k][cols] = (c1 - c0 - 1) * plan.strides[k][cols];
    }
    run_chunk(tile, kernel, ptrs, sizes, {0, tile.outer_count(), 0, c1 - c0});
  }
}

// A piece is a band of tile rows of one matrix, or, when a band holds more
// than a grain, as many of its tiles as a grain holds (at least one): threads
// share the tiles of a batch of matrices as they share those of one.
int run_blocked(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
                int threads) {
  const int rank = plan.rank();
  const TilePolicy shape = tile_for(plan);
  const std::int64_t rows = plan.extents[rank - 2], cols = plan.extents[rank - 1];
  const std::int64_t width = tile_cols(shape, sizes);
  const std::int64_t bands = (rows + shape.rows - 1) / shape.rows, tiles = (cols + width - 1) / width;
  const std::int64_t per_piece = std::clamp<std::int64_t>(config::grain() / (shape.rows * width), 1, tiles);
  const std::int64_t groups = (tiles + per_piece - 1) / per_piece;
  std::int64_t matrices = 1;
  for (int l = 0; l + 2 < rank; ++l) matrices *= plan.extents[l];
  auto piece = [&](std::int64_t p) {
    const std::int64_t group = p % groups, band = p / groups % bands;
    run_tiles(plan, kernel, ptrs, sizes, p / (groups * bands), band * shape.rows,
              std::min(rows, (band + 1) * shape.rows), group * per_piece * width,
              std::min(cols, (group + 1) * per_piece * width));
  };
  const std::int64_t pieces = matrices * bands * groups;
  if (stays_on_caller(plan, threads)) {
    for (std::int64_t p = 0; p < pieces; ++p) piece(p);
    return 1;
  }
  const int used = ThreadPool::instance().run(threads, pieces, piece);
  log_split(plan, pieces, fmt::format("tiles of {} x {}", shape.rows, width), threads, used);
  return used;
}

}  // namespace

void pack_rows(const BroadcastPlan& plan, std::int64_t* strides, std::int64_t* spans) {
  const int rank = plan.rank();
  for (int k = 0; k < plan.operands(); ++k) {
    std::copy(plan.strides[k].begin(), plan.strides[k].end(), strides + k * rank);
    std::copy(plan.spans[k].begin(), plan.spans[k].end(), spans + k * rank);
  }
}

bool stays_on_caller(const BroadcastPlan& plan, int threads) {
  return plan.numel < config::grain() || threads <= 1;
}

bool uses_blocked_order(const BroadcastPlan& plan, std::size_t out_element_size) {
  ElementSizes sizes{};
  sizes[kOut] = out_element_size;
  return wants_blocked_order(plan, tile_cols(tile_for(plan), sizes));
}

DirectCall::DirectCall(const BroadcastPlan& plan, const ElementSizes& sizes) {
  if (plan.numel == 0 || uses_blocked_order(plan, sizes[kOut])) return;
  usable_ = true;
  rank_ = plan.rank();
  operands_ = plan.operands();
  count_ = plan.outer_count();
  extents_ = plan.extents;
  strides_.resize(static_cast<std::size_t>(operands_ * rank_));
  spans_.resize(strides_.size());
  pack_rows(plan, strides_.data(), spans_.data());
  for (int k = 0; k < operands_; ++k) first_byte_[k] = plan.base[k] * static_cast<std::int64_t>(sizes[k]);
}

int execute_plan(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
                 int threads) {
  if (plan.numel == 0) return 1;
  if (wants_blocked_order(plan, tile_cols(tile_for(plan), sizes))) return run_blocked(plan, kernel, ptrs, sizes, threads);
  if (stays_on_caller(plan, threads)) {  // one chunk, no allocation
    run_chunk(plan, kernel, ptrs, sizes, {0, plan.outer_count(), 0, plan.rank() == 0 ? 1 : plan.extents.back()});
    return 1;
  }
  const std::vector<Chunk> chunks = split(plan, threads);
  const int used = ThreadPool::instance().run(threads, static_cast<std::int64_t>(chunks.size()),
                                              [&](std::int64_t p) { run_chunk(plan, kernel, ptrs, sizes, chunks[p]); });
  const bool by_rows = chunks.front().inner_begin == 0 && chunks.front().inner_end == (plan.rank() == 0 ? 1 : plan.extents.back());
  log_split(plan, static_cast<std::int64_t>(chunks.size()), by_rows ? "ranges of whole rows" : "ranges of columns",
            threads, used);
  return used;
}

int execute_fused_rows(const BroadcastPlan& plan, const FusedRows& fused, KernelFn fused_kernel, KernelFn rest_kernel,
                       const OperandPointers& ptrs, const ElementSizes& sizes, int threads) {
  thread_local std::vector<std::vector<std::byte>> patterns;
  patterns.resize(std::max(patterns.size(), fused.repeated.size()));
  OperandPointers with_patterns = ptrs;
  for (std::size_t i = 0; i < fused.repeated.size(); ++i) {
    const int k = fused.repeated[i];
    fill_pattern(fused, plan, k, ptrs.data[k], sizes[k], patterns[i]);
    with_patterns.data[k] = patterns[i].data();
  }
  int used = execute_plan(fused.fused, fused_kernel, with_patterns, sizes, threads);
  if (fused.rest.numel > 0) used = std::max(used, execute_plan(fused.rest, rest_kernel, ptrs, sizes, threads));
  return used;
}

}  // namespace bcast
