// Fusing short rows (NOTE: [Short rows]).
#include "short_rows.h"

#include <algorithm>
#include <cstring>

namespace bcast {
namespace {

// Input `op` reads one short row that every row reuses (a pattern of it fills in).
bool reads_one_row(const BroadcastPlan& plan, int op) {
  return op != kOut && plan.strides[op][0] == 0 && plan.strides[op][1] == 1;
}

}  // namespace

bool short_rows_fuse(const BroadcastPlan& plan, std::size_t element_size) {
  if (plan.rank() != 2) return false;
  const std::int64_t rows = plan.extents[0], m = plan.extents[1];
  if (m > kShortRow || rows < 2 * rows_per_fused(m, element_size)) return false;
  // Each operand is a short row that every row reuses (a pattern), one
  // element (stride 0 on both levels), or dense; one at least a pattern.
  bool pattern = false;
  for (int op = 0; op < plan.operands(); ++op) {
    const std::int64_t outer = plan.strides[op][0], inner = plan.strides[op][1];
    if (reads_one_row(plan, op)) pattern = true;
    else if (op != kOut && outer == 0 && inner == 0) continue;
    else if (inner != 1 || outer != m) return false;
  }
  return pattern;
}

std::optional<FusedRows> fuse_short_rows(const BroadcastPlan& plan, std::size_t element_size) {
  if (!short_rows_fuse(plan, element_size)) return std::nullopt;
  const std::int64_t rows = plan.extents[0], m = plan.extents[1];
  const std::int64_t k = rows_per_fused(m, element_size);
  FusedRows f;
  for (int op = 1; op < plan.operands(); ++op)
    if (reads_one_row(plan, op)) f.repeated.push_back(op);
  f.rows_per_fused = k;
  const std::int64_t fused_rows = rows / k, left = rows % k;
  BroadcastPlan& p = f.fused;
  p = plan;
  p.extents = {fused_rows, k * m};
  p.numel = fused_rows * k * m;
  for (int op = 0; op < plan.operands(); ++op) {
    const bool pattern = std::find(f.repeated.begin(), f.repeated.end(), op) != f.repeated.end();
    const bool single = plan.strides[op][1] == 0;
    p.strides[op] = {pattern || single ? 0 : k * m, single ? 0 : 1};
    p.spans[op] = {(fused_rows - 1) * p.strides[op][0], (k * m - 1) * p.strides[op][1]};
    p.base[op] = pattern ? 0 : plan.base[op];
  }
  f.rest = plan;
  f.rest.extents[0] = left;
  f.rest.numel = left * m;
  for (int op = 0; op < plan.operands(); ++op) {
    f.rest.base[op] = plan.base[op] + fused_rows * k * plan.strides[op][0];
    f.rest.spans[op][0] = (left - 1) * plan.strides[op][0];
  }
  return f;
}

void fill_pattern(const FusedRows& f, const BroadcastPlan& original, int operand, const void* data, std::size_t size,
                  std::vector<std::byte>& pattern) {
  const std::size_t row = static_cast<std::size_t>(original.extents[1]) * size;
  const std::size_t total = row * static_cast<std::size_t>(f.rows_per_fused);
  pattern.resize(total);
  const auto* src = static_cast<const std::byte*>(data) + original.base[operand] * static_cast<std::int64_t>(size);
  std::memcpy(pattern.data(), src, row);
  // Doubling: a few copies however many rows the pattern holds.
  for (std::size_t filled = row; filled < total; filled *= 2)
    std::memcpy(pattern.data() + filled, pattern.data(), std::min(filled, total - filled));
}

}  // namespace bcast
