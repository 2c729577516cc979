// NumPy broadcasting on shapes: check and infer.
#include "bcast/broadcast.h"

#include <algorithm>

#include "error_messages.h"

namespace bcast {
namespace {

// Right-aligned extent of `shape` at dim -k (k >= 1); missing leading dims are 1.
std::int64_t extent_from_end(const Shape& shape, std::size_t k) {
  return k <= shape.size() ? shape[shape.size() - k] : 1;
}

// The first dim, counted from the end (1 = last), where a and b conflict; 0 if none.
std::size_t first_conflict(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  for (std::size_t k = 1; k <= rank; ++k) {
    const std::int64_t ea = extent_from_end(a, k), eb = extent_from_end(b, k);
    if (ea != eb && ea != 1 && eb != 1) return k;
  }
  return 0;
}

}  // namespace

bool check_broadcast_shape(const Shape& a, const Shape& b) { return first_conflict(a, b) == 0; }

Shape broadcast_infer_shape(const Shape& a, const Shape& b) {
  if (const std::size_t k = first_conflict(a, b))
    detail::fail(ErrorKind::shape, "shapes {} and {} do not broadcast: dim -{} has {} vs {}",
                 to_string(a), to_string(b), k, extent_from_end(a, k), extent_from_end(b, k));
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t k = 1; k <= rank; ++k) {
    const std::int64_t ea = extent_from_end(a, k), eb = extent_from_end(b, k);
    out[rank - k] = ea == 1 ? eb : ea;
  }
  return out;
}

}  // namespace bcast
