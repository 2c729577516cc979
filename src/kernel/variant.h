// The loop variants of a kernel: one table, one row per variant. The key, the
// executor, pre-generation and the code generator all read the rows.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broadcast_plan.h"
#include "kernel_key.h"
#include "target.h"

namespace bcast {

// NOTE: [Loop variants] A kernel is the generic additive-offset nest, or a
// specialised form of it for layouts where the generic nest is slow. Each
// form is one row of variant_table(): its predicate on the plan and target
// (which sets the row's fields of the key), its key suffix (printed and
// parsed by the codec), the emitter that builds it, the tiles the executor
// cuts a blocked plan into, the plans and thresholds pre-generation compiles
// for it, and the NOTE that explains it. To add a variant: add a row here
// and its emitter function in jit/emit/ (docs/architecture.md).
enum class Variant : std::uint8_t { generic, short_rows, fixed_rows, transposed_tiles, streaming, reduction };

// The code generator's entry for a variant (jit/emit/loop_nest_emitter.cpp
// keeps one function per value, for binary and expression kernels alike). `none`: the row changes no loop nest of
// its own (a plan rewrite, or a store mode every nest honours).
enum class Emitter : std::uint8_t { none, nest, fixed_rows, transposed_tiles };
inline constexpr int kNumEmitters = 4;

// The dtypes of a key's operands, out first, from its spec.
using OperandDTypes = std::array<DType, kMaxOperands>;
OperandDTypes operand_dtypes(const KernelKey& key);

// What a row's predicate sees.
struct VariantQuery {
  const BroadcastPlan& plan;
  const Target& target;
  std::uint64_t stream_min_bytes;  // NOTE: [Streaming stores]
  const OperandDTypes& dtypes;     // the key's, out first
};

// How the executor cuts a plan that runs a variant's kernel: tiles of the
// last two levels in blocked order (NOTE: [Blocked order]), rows by cache
// lines of out; and whether a split keeps its rows whole.
struct TilePolicy {
  std::int64_t rows = 0, lines = 0;  // {0, 0}: this variant brings no tiles of its own
  bool whole_rows = false;
};

// The keys pre-generation compiles for one broadcast type: every plan here
// with every threshold here.
struct PregenerationSet {
  const Target& target;
  BroadcastType type;
  std::uint64_t stream_min_bytes;  // the setting: kNeverStream when streaming is off
  std::vector<BroadcastPlan> plans{};
  std::vector<std::uint64_t> thresholds{kNeverStream};
};

struct VariantRow {
  Variant variant;
  std::string_view name;
  std::string_view note;  // where the variant is explained
  // Sets the row's fields of `key` (made so far by the rows above) when the
  // variant applies to the query; null for a row that is not in the key, or
  // that its caller sets (reduction).
  void (*select)(KernelKey& key, const VariantQuery& query);
  // Whether `key` carries the variant.
  bool (*in_key)(const KernelKey& key);
  // The key suffix: `tag` starts its dot-separated field of layout_code();
  // print gives the field, parse reads one back into `key` (whose base
  // fields are set) and says whether the key may carry it.
  std::string_view tag;
  std::string (*print)(const KernelKey& key);
  bool (*parse)(std::string_view field, KernelKey& key);
  Emitter emitter;
  // The executor's tiles when `runs` says the plan runs this variant's kernel.
  TilePolicy tile;
  bool (*runs)(const BroadcastPlan& plan);
  // Adds to the pre-generation set of a type.
  void (*pregenerate)(PregenerationSet& set);
};

std::span<const VariantRow> variant_table();

// The layout field of `key`, whose spec is `spec`, for a planned call on
// `target`: each operand's inner stride, then every row whose predicate
// holds, in table order. Binary and expression keys alike.
void select_variants(KernelKey& key, const ExprKernelSpec& spec, const BroadcastPlan& plan, const Target& target,
                     std::uint64_t stream_min_bytes);

// The row whose nest `key` is emitted with: the last row with an emitter that
// the key carries, the generic nest when none.
const VariantRow& nest_variant(const KernelKey& key);

// For the debug log: the nest `key` is emitted with and every variant it
// carries, each with the NOTE that says when it applies, and the plan facts
// the rows' predicates read: "fixed rows (NOTE: [Fixed rows]) + streaming
// stores (NOTE: [Streaming stores]); extents [3, 4], strides out [4, 1] ...".
std::string describe_variants(const KernelKey& key, const BroadcastPlan& plan);

// The executor's tiles for a plan that runs in blocked order.
TilePolicy blocked_tiles(const BroadcastPlan& plan);
// Whether the executor splits `plan` by whole rows only.
bool keeps_rows_whole(const BroadcastPlan& plan);

// NOTE: [Reduction kernels]: whether jit/ emits the reduction `key` names:
// out's inner stride unit, an accumulator the combine is defined on (the
// executor's loops, complex, f16 and bf16 excluded), and for rows every
// input unit or repeated along the innermost level (narrow columns take
// any stride along their w).
bool reduction_kernel_valid(const KernelKey& key);

// NOTE: [Fixed rows]: the longest row that has kernels of its own.
inline constexpr int kFixedRowMax = 16;
// NOTE: [Fixed rows]: operand k's step from one row to the next, in elements
// (0, +-1 or +-m: a mirrored operand walks its rows backwards).
inline std::int64_t fixed_row_step(const KernelKey& key, int k) {
  return static_cast<std::int8_t>(key.row_step[static_cast<std::size_t>(k)]);
}
// NOTE: [Fixed rows] with NOTE: [Streaming stores]: the elements of out one
// streaming step stores, the fewest whole rows of m elements of
// `element_bytes` that fill whole lines: lcm(m * element_bytes, line_bytes) /
// element_bytes.
std::int64_t fixed_rows_step_lanes(int m, std::uint64_t element_bytes, std::int64_t line_bytes);
// Where lane j of such a step reads operand k, in elements from its row 0:
// lanes follow out's memory, so j lies in row j / m (counted back from the
// step's last row when out steps -m), column j % m (counted back from the
// last when out's rows are reversed), at row * its row step + column * its
// step along the row (1, 0 or -1).
std::vector<std::int64_t> fixed_rows_lane_offsets(const KernelKey& key, int k, std::int64_t lanes);

// NOTE: [Streaming stores]: the shortest row in bytes of out that streams.
inline constexpr std::int64_t kStreamMinRowBytes = 256;

// NOTE: [Streaming stores]: the bytes a call moves, out written once and
// each input's distinct elements read once; sizes[k] is operand k's element size.
std::uint64_t bytes_moved(const BroadcastPlan& plan, std::span<const std::size_t> sizes);

// NOTE: [Transposed tiles]: the input (its operand index, 1 for a binary
// op's a) that `plan` reads in transposed blocks, or 0.
int transposed_operand(const BroadcastPlan& plan);

}  // namespace bcast
