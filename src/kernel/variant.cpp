// The variant table (NOTE: [Loop variants]): each row's predicate, key
// suffix, emitter, tiles and pre-generation set, with the NOTE that explains it.
#include "variant.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdlib>
#include <numeric>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "expr_kernel.h"
#include "host_target.h"
#include "kernel_abi.h"
#include "short_rows.h"

namespace bcast {
namespace {

// ---- the operands every row's predicate reads: out and N inputs, any dtypes ----

std::span<const InnerStride> inner_of(const KernelKey& key) { return {key.inner.data(), key.operands}; }

bool any_input_strided(const KernelKey& key) {
  return std::any_of(key.inner.begin() + 1, key.inner.begin() + key.operands,
                     [](InnerStride s) { return s == InnerStride::strided; });
}

// Out's rows are contiguous, read forwards or (NOTE: [Walking order]) backwards.
bool out_row_contiguous(const KernelKey& key) {
  return key.inner[kOut] == InnerStride::unit || key.inner[kOut] == InnerStride::reversed;
}

// Every input unit or repeated along the innermost level: none strided or reversed.
bool all_inputs_forwards(const KernelKey& key) {
  return std::all_of(key.inner.begin() + 1, key.inner.begin() + key.operands,
                     [](InnerStride s) { return s == InnerStride::unit || s == InnerStride::zero; });
}

bool any_complex(const KernelKey& key, const OperandDTypes& dtypes) {
  return std::any_of(dtypes.begin(), dtypes.begin() + key.operands, [](DType d) { return is_complex(d); });
}

std::size_t widest_input(const KernelKey& key, const OperandDTypes& dtypes) {
  std::size_t widest = 1;
  for (int k = 1; k < key.operands; ++k) widest = std::max(widest, dtype_size(dtypes[k]));
  return widest;
}

// ---- generic nest: NOTE: [Additive offsets] in broadcast_plan.h ----

bool always(const BroadcastPlan&) { return true; }

// Contiguous operands, rows of 4096 elements: long enough to stream in any dtype.
void pregenerate_generic(PregenerationSet& set) {
  std::vector<std::int64_t> extents(set.type.size(), 2);
  if (!extents.empty()) extents.back() = 4096;
  set.plans.push_back(contiguous_plan(set.type, extents));
}

// ---- fixed rows ----

// NOTE: [Fixed rows] For a type whose rows (its last level) are short (at
// most kFixedRowMax elements), out contiguous along its rows (or reversed
// along them, NOTE: [Walking order]), each input contiguous, reversed
// (`x[..., ::-1]`, each row read from its end) or repeated along them, and
// every operand stepping a constant 0, +-1 or +-m elements from row to row
// (-m: a mirrored view, `img[:, ::-1]`, whose pixels' rows run backwards, or
// out where NOTE: [Walking order] turned the walk for the inputs to read
// forwards; -1: a per-row input so turned): one loop over the rows whose
// body is the row, unrolled. Every address is a running pointer plus a constant, so the
// vectoriser sees accesses of constant stride across rows and interleaves
// them, where a loop of m elements per row could not. Any number of inputs
// of any dtypes (a binary op's two, an image's [H*W, 3] with a per-pixel and
// a per-channel input); plans that NOTE: [Short rows] fuse into long rows are
// theirs. Above rank 2 (a mirrored image stays [H, W, 3]: its rows cannot
// merge; so does a flipped one, `img[::-1]`, its matrices), only where an
// operand walks a level backwards; the levels over the rows step as an
// odometer, a matrix at a time. With streaming stores, a step of whole
// lines of out is a few whole rows, each input's lanes one load shuffled.
// The key holds the row length and each operand's row step; the executor
// splits such plans by whole rows.
void select_fixed_rows(KernelKey& key, const VariantQuery& q) {
  const BroadcastPlan& plan = q.plan;
  const int rows = plan.rank() - 2;
  if (!q.target.has_loop_variants() || rows < 0 || plan.extents.back() > kFixedRowMax || !out_row_contiguous(key) ||
      any_input_strided(key) || std::abs(plan.strides[kOut][rows]) != plan.extents.back() ||
      short_rows_fuse(plan, widest_input(key, q.dtypes)))
    return;
  const std::int64_t m = plan.extents.back();
  std::array<std::uint8_t, kMaxOperands> steps{};
  for (int k = 0; k < key.operands; ++k) {
    const std::int64_t step = plan.strides[k][rows];
    if (step != 0 && std::abs(step) != 1 && std::abs(step) != m) return;
    steps[k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(step));
  }
  // Above rank 2 only for what nothing else takes, an operand walking some
  // level backwards (the plan could not merge there): forward rank-3 short
  // rows stay the generic nest's (pregenerated per type, where fixed rows
  // would need a kernel per row length too).
  const bool backwards = std::ranges::any_of(plan.strides, [](const std::vector<std::int64_t>& strides) {
    return std::ranges::any_of(strides, [](std::int64_t s) { return s < 0; });
  });
  if (rows > 0 && !backwards) return;
  key.fixed_row = static_cast<std::uint8_t>(m);
  key.row_step = steps;
}

bool has_fixed_rows(const KernelKey& key) { return key.fixed_row != 0; }

// "r<m>-<out>-<input 1>-...", each a plain decimal number; a step of -m is
// "b<m>" (backwards).
std::string print_fixed_rows(const KernelKey& key) {
  std::string text = "r" + std::to_string(key.fixed_row);
  for (int k = 0; k < key.operands; ++k) {
    const std::int64_t step = fixed_row_step(key, k);
    text += step < 0 ? "-b" + std::to_string(-step) : "-" + std::to_string(step);
  }
  return text;
}

bool parse_fixed_rows(std::string_view field, KernelKey& key) {
  std::array<int, 1 + kMaxOperands> n{};
  const char* at = field.data() + 1;
  const char* end = field.data() + field.size();
  for (int i = 0; i <= key.operands; ++i) {
    const bool backwards = i > 0 && at < end && *at == 'b';
    if (backwards) ++at;
    const auto [next, ec] = std::from_chars(at, end, n[i]);
    if (ec != std::errc() || next == at || (i < key.operands ? next == end || *next != '-' : next != end)) return false;
    if (backwards) n[i] = -n[i];
    at = next + 1;
  }
  if (key.target != TargetKind::host || key.rank < 2 || n[0] < 1 || n[0] > kFixedRowMax || !out_row_contiguous(key) ||
      any_input_strided(key))
    return false;
  for (int k = 0; k < key.operands; ++k)
    if (n[k + 1] != 0 && std::abs(n[k + 1]) != 1 && std::abs(n[k + 1]) != n[0]) return false;
  key.fixed_row = static_cast<std::uint8_t>(n[0]);
  for (int k = 0; k < key.operands; ++k)
    key.row_step[k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(n[k + 1]));
  return print_fixed_rows(key) == field;  // no leading zeros or signs
}

// Rows as short as fixed rows stay whole when the executor splits a call.
bool short_rows_of_plan(const BroadcastPlan& plan) { return plan.rank() > 0 && plan.extents.back() <= kFixedRowMax; }

void pregenerate_fixed_rows(PregenerationSet& set) {
  if (set.type.size() != 2 || !set.target.has_loop_variants()) return;
  for (std::int64_t m = 1; m <= kFixedRowMax; ++m) set.plans.push_back(contiguous_plan(set.type, {2, m}));
}

// ---- transposed tiles ----

// NOTE: [Transposed tiles] The last two levels are rows and columns; out is
// contiguous along its rows, input t steps 1 from row to row and a run-time
// stride along the row (a transposed view), and every other input is unit
// or repeated along the rows (a binary op's other input, or an expression's
// others: any number, any dtypes but complex, whose parts a transpose would
// have to unzip). Row by row, each of t's elements would be a load of its
// own from a different line. Instead, blocks of L x L elements, L =
// one cache line of t's elements or one vector register of them, whichever
// is fewer (at most 16: more vectors than registers would spill): L loads
// of t's columns of the block, a transpose in registers (log2 L rounds,
// each swapping one bit of the row index with one of the column index:
// in-lane shuffles below 128 bits, whole-lane moves above), then L rows of
// out computed and stored as vectors. With 256-bit registers an f32 or f64
// block is half a line a side: a line of t serves two blocks of rows (the
// tile keeps it in cache between them), and out is written with plain
// stores, because half-line streaming stores cost more than they save (a
// hand-written 8 x 8 add on the Zen 3 VM: 63-70 ms streaming, 15-25 plain,
// [4096,4096] f32). Blocks of a line a side there took two registers a row
// and 32 a block: they spilled, and every round permuted across lanes
// (cases 14 and 16 at 0.18-0.23 of the STREAM add, 0.58 after). With
// AVX-512 a block is a whole line a side. Each line of t is read once,
// whole where the registers allow: with strides of a power of two, lines
// kept for a second visit evict one another (on [4096,4096] f32 with
// AVX-512, half-line columns measured 23 GB/s, whole lines 26.5, and 33
// with streaming stores). Each load of a whole line of t
// prefetches the line after it in t's row, which the next block of rows
// reads: no hardware prefetcher follows 16 rows 16 KiB apart (on the Zen 5
// VM, +2-4% for bcast-bench's cases 14 and 16, +24% for the hand-written
// probe). Columns and rows left over run the scalar inner loop; levels above
// the rows (a batch of matrices) step as an odometer. The executor runs such
// plans in square tiles (NOTE: [Blocked order]).
//
// What bounds it (issue 33, point 3; bcast-bench --probes, the Zen 5 VM):
// not the transpose but the tiles. A same-shape add walked in the same
// 256 x 256 tiles of 16-row blocks, nothing transposed, runs at 0.5 to 0.85
// of the same add in full rows (the hardware prefetchers follow a few long
// streams, not 48 runs of a kilobyte), the hand-written transposed add at
// about the tiled one, and bcast at 0.9 of the hand-written one. Tiles of
// 64 to 1024, 16 x N and N x 16 strips, pairs of blocks sharing t's 128-byte
// line pairs, prefetching the next tile, and a two-pass transpose through a
// cache-sized buffer were all slower by hand (docs/performance.md).
bool inner_can_transpose(std::span<const InnerStride> inner, int t) {
  if (inner[0] != InnerStride::unit || inner[t] != InnerStride::strided) return false;
  for (std::size_t k = 1; k < inner.size(); ++k)
    if (static_cast<int>(k) != t && inner[k] != InnerStride::unit && inner[k] != InnerStride::zero) return false;
  return true;
}

// The input `plan`, whose operands move along its innermost level as `inner`
// says, reads in transposed blocks: one that steps 1 between rows; or 0.
int transposed_operand(const BroadcastPlan& plan, std::span<const InnerStride> inner) {
  if (plan.rank() < 2) return 0;
  for (int t = 1; t < plan.operands(); ++t)
    if (inner_can_transpose(inner, t) && plan.strides[t][plan.rank() - 2] == 1) return t;
  return 0;
}

void select_transposed(KernelKey& key, const VariantQuery& q) {
  if (q.target.has_loop_variants() && key.fixed_row == 0 && !any_complex(key, q.dtypes))
    key.transposed = static_cast<std::uint8_t>(transposed_operand(q.plan, inner_of(key)));
}

bool has_transposed(const KernelKey& key) { return key.transposed != 0; }
// "t" and the input's letter: "ta" for input 1 (a binary op's a), "tb", ...
std::string print_transposed(const KernelKey& key) { return fmt::format("t{}", static_cast<char>('a' + key.transposed - 1)); }

bool parse_transposed(std::string_view field, KernelKey& key) {
  const int t = field.size() == 2 ? field[1] - 'a' + 1 : 0;
  if (t < 1 || t >= key.operands || key.target != TargetKind::host || key.rank < 2 || key.fixed_row != 0 ||
      !inner_can_transpose(inner_of(key), t) || any_complex(key, operand_dtypes(key)))
    return false;
  key.transposed = static_cast<std::uint8_t>(t);
  return true;
}

bool runs_transposed(const BroadcastPlan& plan) { return transposed_operand(plan) != 0; }

// ---- streaming stores ----

// NOTE: [Streaming stores] A store to a line that is not in cache first reads
// the line (read-for-ownership), so an output far larger than the cache costs
// twice its size in traffic. Non-temporal stores write whole lines without that
// read: for a write-mostly call such as [4096,1] + [1,4096] they are worth a
// quarter to a half more bandwidth. The kernel computes the elements before
// out's first line boundary (one masked vector where the body is dear: NOTE:
// [Partial vectors]; else an element at a time), stores one line per vector
// step, finishes the row the same way as it began, and ends with a store
// fence. They pay only where the output cannot
// stay in cache: calls that move (read plus write) at least
// BCAST_STREAM_MIN_BYTES, by default the last-level cache's size, on rows of
// at least kStreamMinRowBytes, on a target that can stream. The layout must
// let one vector step read and write whole vectors: out contiguous along the
// row and each input contiguous, reversed (a vector's lanes reversed) or
// repeated; or fixed rows whose steps of whole lines are whole rows (below);
// or a transposed input of 4 or 8 bytes, out's element size, whose blocks
// store one line of out per row.

// With NOTE: [Fixed rows]: out's rows are back to back, so a step of whole
// lines of out is a whole number of rows (fixed_rows_step_lanes); each input
// gives the step's lanes as one load of the elements they span, shuffled
// (fixed_rows_lane_offsets): contiguous rows forwards or backwards, one row
// for all, one value per row, one value for all. The load may take no more
// elements than the step has lanes (an input whose rows lie apart, a value a
// row stepping m, does not stream), and a step no more than kFixedRowStepLines
// lines, which bounds the shuffles' size.
constexpr std::int64_t kFixedRowStepLines = 8;

bool fixed_rows_can_stream(const KernelKey& key, std::int64_t line_bytes, const OperandDTypes& dtypes) {
  const std::uint64_t out_bytes = dtype_size(dtypes[kOut]);
  const std::int64_t lanes = fixed_rows_step_lanes(key.fixed_row, out_bytes, line_bytes);
  if (lanes * static_cast<std::int64_t>(out_bytes) > kFixedRowStepLines * line_bytes) return false;
  for (int k = 1; k < key.operands; ++k) {
    const std::vector<std::int64_t> offset = fixed_rows_lane_offsets(key, k, lanes);
    const auto [lo, hi] = std::ranges::minmax(offset);
    if (hi - lo + 1 > lanes) return false;
  }
  return true;
}

// With NOTE: [Transposed tiles]: a block's row of out is one line when out's
// element is the transposed input's, 4 bytes or more.
bool layout_can_stream(const KernelKey& key, std::int64_t line_bytes, const OperandDTypes& dtypes) {
  if (key.rank == 0 || !out_row_contiguous(key)) return false;
  if (key.fixed_row != 0) return fixed_rows_can_stream(key, line_bytes, dtypes);
  if (key.transposed != 0) {
    const std::size_t t = dtype_size(dtypes[key.transposed]);
    return t >= 4 && t == dtype_size(dtypes[kOut]);
  }
  return !any_input_strided(key);
}

std::uint64_t bytes_moved(const KernelKey& key, const BroadcastPlan& plan, const OperandDTypes& dtypes) {
  std::array<std::size_t, kMaxOperands> sizes{};
  for (int k = 0; k < key.operands; ++k) sizes[k] = dtype_size(dtypes[k]);
  return bytes_moved(plan, sizes);
}

}  // namespace

std::int64_t fixed_rows_step_lanes(int m, std::uint64_t element_bytes, std::int64_t line_bytes) {
  const auto row_bytes = m * static_cast<std::int64_t>(element_bytes);
  return std::lcm(row_bytes, line_bytes) / static_cast<std::int64_t>(element_bytes);
}

std::vector<std::int64_t> fixed_rows_lane_offsets(const KernelKey& key, int k, std::int64_t lanes) {
  const std::int64_t m = key.fixed_row;
  const std::int64_t along = step_along(key.inner[static_cast<std::size_t>(k)]);
  const std::int64_t rows = lanes / m;
  // Lane 0 is out's lowest address: in the step's last row when out steps
  // back, at a row's last column when out's rows are reversed.
  const bool rows_back = fixed_row_step(key, kOut) < 0, columns_back = key.inner[kOut] == InnerStride::reversed;
  std::vector<std::int64_t> offset;
  for (std::int64_t j = 0; j < lanes; ++j) {
    const std::int64_t row = rows_back ? rows - 1 - j / m : j / m, column = columns_back ? m - 1 - j % m : j % m;
    offset.push_back(row * fixed_row_step(key, k) + column * along);
  }
  return offset;
}

// A repeated input is read once per element it holds.
std::uint64_t bytes_moved(const BroadcastPlan& plan, std::span<const std::size_t> sizes) {
  std::uint64_t total = 0;
  for (int k = 0; k < plan.operands(); ++k) {
    std::uint64_t elements = 1;
    for (int l = 0; l < plan.rank(); ++l)
      if (plan.strides[k][l] != 0) elements *= static_cast<std::uint64_t>(plan.extents[l]);
    total += elements * sizes[k];
  }
  return total;
}

namespace {

void select_streaming(KernelKey& key, const VariantQuery& q) {
  if (!q.target.can_stream_stores() || !layout_can_stream(key, q.target.line_bytes(), q.dtypes)) return;
  // Fixed rows are back to back in out: one long row.
  const auto row_bytes = q.plan.extents.back() * static_cast<std::int64_t>(dtype_size(q.dtypes[kOut]));
  const bool long_rows = key.fixed_row != 0 || row_bytes >= kStreamMinRowBytes;
  key.stream = long_rows && bytes_moved(key, q.plan, q.dtypes) >= q.stream_min_bytes;
}

bool has_streaming(const KernelKey& key) { return key.stream; }
std::string print_streaming(const KernelKey&) { return "nt"; }

bool parse_streaming(std::string_view field, KernelKey& key) {
  if (field != "nt" || key.target != TargetKind::host ||
      !layout_can_stream(key, HostTarget::kLineBytes, operand_dtypes(key)))
    return false;
  key.stream = true;
  return true;
}

// Unless streaming is off, a large call selects the streaming kernel of its type.
void pregenerate_streaming(PregenerationSet& set) {
  if (set.target.can_stream_stores() && set.stream_min_bytes != kNeverStream) set.thresholds.push_back(0);
}

// ---- reduction kernels: NOTE: [Reduction kernels] in kernel_abi.h ----

// Set by the caller that makes a reduction's key (make_reduction_kernel_key),
// never chosen from a plan; the key carries no other variant.
bool has_reduction(const KernelKey& key) { return key.reduce != ReduceForm::none; }

constexpr std::array<std::pair<detail::Combine, std::string_view>, 6> kCombineNames{{
    {detail::Combine::add, "add"},
    {detail::Combine::multiply, "multiply"},
    {detail::Combine::minimum, "minimum"},
    {detail::Combine::maximum, "maximum"},
    {detail::Combine::logical_or, "or"},
    {detail::Combine::logical_and, "and"},
}};

std::string_view combine_name(detail::Combine c) {
  for (const auto& [combine, name] : kCombineNames)
    if (combine == c) return name;
  return "?";
}

// "acc-<combine>-<accumulator>-<rows|columns|w<width>b<block rows>>":
// "acc-add-f32-rows", "acc-add-f32-w3b8".
std::string print_reduction(const KernelKey& key) {
  const std::string form = key.reduce == ReduceForm::rows ? "rows"
                           : key.reduce == ReduceForm::columns
                               ? "columns"
                               : fmt::format("w{}b{}", key.reduce_width, key.reduce_block);
  return fmt::format("acc-{}-{}-{}", combine_name(key.combine), dtype_name(key.accumulator), form);
}

bool parse_reduction(std::string_view field, KernelKey& key) {
  const std::size_t a = field.find('-'), b = field.find('-', a + 1), c = field.find('-', b + 1);
  if (c == std::string_view::npos || field.substr(0, a) != "acc") return false;
  KernelKey candidate = key;
  const std::string_view name = field.substr(a + 1, b - a - 1), form = field.substr(c + 1);
  const auto named =
      std::find_if(kCombineNames.begin(), kCombineNames.end(), [&](const auto& row) { return row.second == name; });
  const std::optional<DType> acc = parse_dtype(field.substr(b + 1, c - b - 1));
  if (named == kCombineNames.end() || !acc) return false;
  candidate.combine = named->first;
  candidate.accumulator = *acc;
  int width = 0, block = 0;
  if (form.starts_with("w")) {
    const char* last = form.data() + form.size();
    const auto [b_at, ec] = std::from_chars(form.data() + 1, last, width);
    if (ec != std::errc() || b_at == last || *b_at != 'b') return false;
    const auto [end, ec2] = std::from_chars(b_at + 1, last, block);
    if (ec2 != std::errc() || end != last || width < 1 || width > kNarrowWidth || block < 1) return false;
  } else if (form != "rows" && form != "columns") {
    return false;
  }
  candidate.reduce = form == "rows" ? ReduceForm::rows : form == "columns" ? ReduceForm::columns : ReduceForm::narrow;
  candidate.reduce_width = static_cast<std::uint8_t>(width);
  candidate.reduce_block = static_cast<std::uint8_t>(block);
  if (key.target != TargetKind::host || key.rank == 0 || key.fixed_row != 0 || key.transposed != 0 || key.stream ||
      !reduction_kernel_valid(candidate) || print_reduction(candidate) != field)
    return false;
  key = candidate;
  return true;
}

// ---- the table ----

// One row per variant, as written.
// clang-format off
constexpr VariantRow kVariants[] = {
    {.variant = Variant::generic, .name = "generic nest", .note = "NOTE: [Additive offsets]", .select = nullptr,
     .in_key = nullptr, .tag = "", .print = nullptr, .parse = nullptr, .emitter = Emitter::nest,
     .tile = {.rows = 128, .lines = 1}, .runs = always, .pregenerate = pregenerate_generic},
    {.variant = Variant::short_rows, .name = "short rows", .note = "NOTE: [Short rows]", .select = nullptr,
     .in_key = nullptr, .tag = "", .print = nullptr, .parse = nullptr, .emitter = Emitter::none, .tile = {},
     .runs = nullptr, .pregenerate = nullptr},
    {.variant = Variant::fixed_rows, .name = "fixed rows", .note = "NOTE: [Fixed rows]", .select = select_fixed_rows,
     .in_key = has_fixed_rows, .tag = "r", .print = print_fixed_rows, .parse = parse_fixed_rows,
     .emitter = Emitter::fixed_rows, .tile = {.whole_rows = true}, .runs = short_rows_of_plan,
     .pregenerate = pregenerate_fixed_rows},
    {.variant = Variant::transposed_tiles, .name = "transposed tiles", .note = "NOTE: [Transposed tiles]",
     .select = select_transposed, .in_key = has_transposed, .tag = "t", .print = print_transposed,
     .parse = parse_transposed, .emitter = Emitter::transposed_tiles, .tile = {.rows = 256, .lines = 16},
     .runs = runs_transposed, .pregenerate = nullptr},
    {.variant = Variant::streaming, .name = "streaming stores", .note = "NOTE: [Streaming stores]",
     .select = select_streaming, .in_key = has_streaming, .tag = "nt", .print = print_streaming,
     .parse = parse_streaming, .emitter = Emitter::none, .tile = {}, .runs = nullptr,
     .pregenerate = pregenerate_streaming},
    {.variant = Variant::reduction, .name = "reduction items", .note = "NOTE: [Reduction kernels]", .select = nullptr,
     .in_key = has_reduction, .tag = "acc", .print = print_reduction, .parse = parse_reduction,
     .emitter = Emitter::none, .tile = {}, .runs = nullptr, .pregenerate = nullptr},
};
// clang-format on

}  // namespace

bool reduction_kernel_valid(const KernelKey& key) {
  using detail::Combine;
  const DType a = key.accumulator;
  if (key.inner[kOut] != InnerStride::unit || is_complex(a) || a == DType::f16 || a == DType::bf16) return false;
  // Rows load vectors along the reduced loop; narrow items take any stride
  // along their w (reversed lanes, or a value at a time where strided).
  if (key.reduce == ReduceForm::rows && !all_inputs_forwards(key)) return false;
  if ((key.reduce == ReduceForm::narrow) != (key.reduce_width != 0) || key.reduce_width > kNarrowWidth) return false;
  if (key.reduce == ReduceForm::narrow ? key.reduce_block < 2 || !std::has_single_bit(key.reduce_block) ||
                                             key.reduce_width * key.reduce_block > kNarrowLanes
                                       : key.reduce_block != 0)
    return false;
  if (key.reduce == ReduceForm::narrow && key.rank < 3) return false;
  switch (key.combine) {
    case Combine::logical_or:
    case Combine::logical_and:
      return a == DType::boolean;
    case Combine::minimum:
    case Combine::maximum:
      return true;
    case Combine::add:
    case Combine::multiply:
      return a != DType::boolean;
    default:
      return false;
  }
}

std::span<const VariantRow> variant_table() { return kVariants; }

namespace {

OperandDTypes dtypes_of(const ExprKernelSpec& spec) {
  OperandDTypes dtypes{};
  dtypes[kOut] = spec.program.out_dtype;
  for (std::size_t i = 0; i < spec.inputs.size() && i + 1 < dtypes.size(); ++i) dtypes[i + 1] = spec.inputs[i].dtype;
  return dtypes;
}

}  // namespace

OperandDTypes operand_dtypes(const KernelKey& key) { return dtypes_of(spec_of(key)); }

void select_variants(KernelKey& key, const ExprKernelSpec& spec, const BroadcastPlan& plan, const Target& target,
                     std::uint64_t stream_min_bytes) {
  key.operands = static_cast<std::uint8_t>(plan.operands());
  key.inner = inner_strides(plan);
  const OperandDTypes dtypes = dtypes_of(spec);
  const VariantQuery query{plan, target, stream_min_bytes, dtypes};
  for (const VariantRow& row : kVariants)
    if (row.select != nullptr) row.select(key, query);
}

const VariantRow& nest_variant(const KernelKey& key) {
  const VariantRow* nest = &kVariants[0];
  for (const VariantRow& row : kVariants)
    if (row.emitter != Emitter::none && row.in_key != nullptr && row.in_key(key)) nest = &row;
  return *nest;
}

std::string describe_variants(const KernelKey& key, const BroadcastPlan& plan) {
  const VariantRow& nest = nest_variant(key);
  std::string text = fmt::format("{} ({})", nest.name, nest.note);
  for (const VariantRow& row : kVariants)
    if (&row != &nest && row.in_key != nullptr && row.in_key(key)) text += fmt::format(" + {} ({})", row.name, row.note);
  text += fmt::format("; extents [{}]", fmt::join(plan.extents, ", "));
  for (int k = 0; k < plan.operands(); ++k)
    text += fmt::format(", strides {} [{}]", k == 0 ? std::string("out") : "x" + std::to_string(k - 1),
                        fmt::join(plan.strides[k], ", "));
  return text;
}

// The rows' predicates read a plan of out and any number of inputs.
TilePolicy blocked_tiles(const BroadcastPlan& plan) {
  TilePolicy tile;
  for (const VariantRow& row : kVariants)
    if (row.tile.rows > 0 && row.runs(plan)) tile = row.tile;
  return tile;
}

bool keeps_rows_whole(const BroadcastPlan& plan) {
  for (const VariantRow& row : kVariants)
    if (row.tile.whole_rows && row.runs(plan)) return true;
  return false;
}

int transposed_operand(const BroadcastPlan& plan) {
  const std::array<InnerStride, kMaxOperands> inner = inner_strides(plan);
  return transposed_operand(plan, {inner.data(), static_cast<std::size_t>(plan.operands())});
}

}  // namespace bcast
