// NOTE: [Short rows] A call like [5592405,3] + [1,3] has rows of 3 elements:
// a kernel's inner loop would start, and stop, every 3 elements. When the
// repeated operand is one short row reused by every row, and out and the other
// input are dense, k rows fuse into one row of k*m elements, with the repeated
// row copied k times into a small pattern buffer: the same kernels then run
// long, vectorised rows. Rows left over (R mod k) run unfused.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "broadcast_plan.h"

namespace bcast {

inline constexpr std::int64_t kShortRow = 16;    // rows up to this many elements fuse
inline constexpr std::int64_t kFusedRow = 128;   // elements a fused row aims for

struct FusedRows {
  BroadcastPlan fused;           // over super-rows; the repeated operand reads `pattern`
  BroadcastPlan rest;            // the rows left over (numel 0 if none), on the original pointers
  int repeated = kA;             // which input the pattern replaces
  std::int64_t rows_per_fused = 0;
};

// The fused form of `plan`, if it qualifies (see the note); nullopt otherwise.
std::optional<FusedRows> fuse_short_rows(const BroadcastPlan& plan);

// Fills `pattern` with the repeated operand's row, rows_per_fused times.
void fill_pattern(const FusedRows& f, const BroadcastPlan& original, const void* repeated_data, std::size_t size,
                  std::vector<std::byte>& pattern);

}  // namespace bcast
