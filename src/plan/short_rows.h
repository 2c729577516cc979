// NOTE: [Short rows] A call like [5592405,3] + [1,3] has rows of 3 elements:
// a kernel's inner loop would start, and stop, every 3 elements. When each
// repeated input is one short row reused by every row (or one element), and
// out and the other inputs are dense, k rows fuse into one row of k*m
// elements, with each repeated row copied k times into a small pattern
// buffer: the same kernels then run long, vectorised rows. Rows left over
// (R mod k) run unfused. Binary ops and expressions (an image's [H,W,3] with
// per-channel constants) alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "broadcast_plan.h"

namespace bcast {

inline constexpr std::int64_t kShortRow = 16;        // rows up to this many elements fuse
inline constexpr std::int64_t kFusedRowBytes = 2048;  // bytes of input a fused row aims for (the pattern stays in L1)

// Rows of m elements of element_size bytes that one fused row holds.
inline std::int64_t rows_per_fused(std::int64_t m, std::size_t element_size) {
  return std::max<std::int64_t>(1, kFusedRowBytes / (m * static_cast<std::int64_t>(element_size)));
}

struct FusedRows {
  BroadcastPlan fused;             // over super-rows; each repeated operand reads its pattern
  BroadcastPlan rest;              // the rows left over (numel 0 if none), on the original pointers
  std::vector<int> repeated;       // the operands patterns replace
  std::int64_t rows_per_fused = 0;
};

// Whether `plan`, whose widest input element has `element_size` bytes,
// qualifies (see the note); NOTE: [Fixed rows] take the short rows it leaves.
bool short_rows_fuse(const BroadcastPlan& plan, std::size_t element_size);

// The fused form of `plan` if it qualifies; nullopt otherwise.
std::optional<FusedRows> fuse_short_rows(const BroadcastPlan& plan, std::size_t element_size);

// Fills `pattern` with operand `operand`'s row (elements of `size` bytes),
// rows_per_fused times.
void fill_pattern(const FusedRows& f, const BroadcastPlan& original, int operand, const void* data, std::size_t size,
                  std::vector<std::byte>& pattern);

}  // namespace bcast
