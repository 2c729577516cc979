// Layout construction and validation.
#include "bcast/layout.h"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "error_messages.h"

namespace bcast {

namespace {

// The next dense stride. A shape with a zero extent may have a product of
// the other extents beyond int64: its strides are never used, so saturate.
std::int64_t next_stride(std::int64_t stride, std::int64_t extent) {
  std::int64_t next = 0;
  return __builtin_mul_overflow(stride, std::max<std::int64_t>(extent, 1), &next) ? INT64_MAX : next;
}

}  // namespace

Layout Layout::dense(const Shape& shape, const std::vector<int>& order) {
  Layout l{shape, Strides(shape.size())};
  std::int64_t stride = 1;
  for (std::size_t i = order.size(); i-- > 0;) {
    l.strides[order[i]] = stride;
    stride = next_stride(stride, shape[order[i]]);
  }
  return l;
}

Layout Layout::contiguous(const Shape& shape) {
  std::vector<int> order(shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  return dense(shape, order);
}

Layout Layout::column_major(const Shape& shape) {
  std::vector<int> order(shape.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(order.size() - 1 - i);
  return dense(shape, order);
}

bool Layout::is_dense() const {
  if (strides.size() != shape.size() || shape.size() > static_cast<std::size_t>(kMaxRank)) return false;
  // On the stack: every new output of an op call is checked.
  std::array<int, kMaxRank> moving;
  std::size_t n = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return true;
    if (shape[d] > 1) moving[n++] = static_cast<int>(d);
  }
  std::sort(moving.begin(), moving.begin() + n, [&](int x, int y) { return strides[x] < strides[y]; });
  std::int64_t expected = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (strides[moving[i]] != expected) return false;
    expected = next_stride(expected, shape[moving[i]]);
  }
  return true;
}
std::int64_t Layout::numel() const {
  std::int64_t n = 1;
  for (std::int64_t e : shape) n *= e;
  return n;
}

bool Layout::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (shape[i] == 0) return true;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::int64_t checked_numel(const Shape& shape, const char* operand) {
  std::int64_t n = 1;
  bool zero = false;
  for (std::int64_t e : shape) zero = zero || e == 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      detail::fail(ErrorKind::shape, "{} has a negative extent at dim {}: {}", operand, i, shape[i]);
    if (!zero && __builtin_mul_overflow(n, shape[i], &n))
      detail::fail(ErrorKind::shape, "{} of shape {} has more elements than fit in 64 bits",
                   operand, to_string(shape));
  }
  return zero ? 0 : n;
}

void validate_layout(const Layout& layout, const char* operand) {
  if (layout.shape.size() > static_cast<std::size_t>(kMaxRank))
    detail::fail(ErrorKind::shape, "{} has rank {}, above the limit of {}", operand,
                 layout.shape.size(), kMaxRank);
  if (layout.shape.size() != layout.strides.size())
    detail::fail(ErrorKind::shape, "{} has {} extents but {} strides", operand,
                 layout.shape.size(), layout.strides.size());
  if (checked_numel(layout.shape, operand) == 0) return;
  // The furthest element must be addressable: sum |stride| * (extent - 1) fits.
  std::int64_t reach = 0;
  for (std::size_t i = 0; i < layout.shape.size(); ++i) {
    std::int64_t step = 0;
    if (layout.strides[i] == INT64_MIN ||
        __builtin_mul_overflow(std::abs(layout.strides[i]), layout.shape[i] - 1, &step) ||
        __builtin_add_overflow(reach, step, &reach))
      detail::fail(ErrorKind::shape, "{}: stride {} at dim {} reaches beyond 64-bit offsets",
                   operand, layout.strides[i], i);
  }
}

std::string to_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace bcast
