// View operations: squeeze, unsqueeze, permute, broadcast_to and basic indexing.
// Each builds a new layout over the same memory.
#include "bcast/views.h"

#include <algorithm>
#include <cstdint>

#include "bcast/broadcast.h"
#include "error_messages.h"

namespace bcast {
namespace {

using detail::fail;
using detail::normalize_dim;

// Moves a view's data pointer by `elements` without pointer arithmetic on a
// possibly null base (a zero-size view may have no memory at all).
void* advance(void* data, std::int64_t elements, std::size_t element_size) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  const auto delta = static_cast<std::uintptr_t>(elements) * element_size;
  return reinterpret_cast<void*>(address + delta);
}

TensorView with_layout(const TensorView& x, Layout layout) { return {x.data(), x.dtype(), std::move(layout)}; }

TensorView keep_dims(const TensorView& x, const std::vector<bool>& removed) {
  Layout out;
  for (int d = 0; d < x.rank(); ++d) {
    if (removed[d]) continue;
    out.shape.push_back(x.shape()[d]);
    out.strides.push_back(x.strides()[d]);
  }
  return with_layout(x, std::move(out));
}

}  // namespace

TensorView squeeze(const TensorView& x) {
  validate_layout(x.layout(), "squeeze input");
  std::vector<bool> removed(x.rank());
  for (int d = 0; d < x.rank(); ++d) removed[d] = x.shape()[d] == 1;
  return keep_dims(x, removed);
}

TensorView squeeze(const TensorView& x, const std::vector<std::int64_t>& dims) {
  validate_layout(x.layout(), "squeeze input");
  std::vector<bool> removed(x.rank());
  for (std::int64_t dim : dims) {
    const std::int64_t d = normalize_dim(dim, x.rank(), "squeeze");
    if (removed[d]) fail(ErrorKind::shape, "squeeze: dim {} is listed twice", dim);
    if (x.shape()[d] != 1)
      fail(ErrorKind::shape, "squeeze: dim {} has extent {}, not 1, in shape {}", dim, x.shape()[d],
           to_string(x.shape()));
    removed[d] = true;
  }
  return keep_dims(x, removed);
}

TensorView squeeze(const TensorView& x, std::initializer_list<std::int64_t> dims) {
  return squeeze(x, std::vector<std::int64_t>(dims));
}

TensorView squeeze(const TensorView& x, const std::vector<SqueezeMark>& pattern) {
  validate_layout(x.layout(), "squeeze input");
  if (static_cast<int>(pattern.size()) != x.rank())
    fail(ErrorKind::shape, "squeeze: pattern has {} marks for shape {} of rank {}", pattern.size(),
         to_string(x.shape()), x.rank());
  std::vector<bool> removed(x.rank());
  for (int d = 0; d < x.rank(); ++d) {
    removed[d] = pattern[d] == SqueezeMark::remove;
    if (removed[d] && x.shape()[d] != 1)
      fail(ErrorKind::shape, "squeeze: pattern removes dim {} of extent {}, not 1, in shape {}", d,
           x.shape()[d], to_string(x.shape()));
  }
  return keep_dims(x, removed);
}

TensorView unsqueeze(const TensorView& x, std::int64_t dim) {
  validate_layout(x.layout(), "unsqueeze input");
  const std::int64_t d = normalize_dim(dim, x.rank() + 1, "unsqueeze");
  Layout out = x.layout();
  // The new dim's stride never matters (extent 1): the dense value when it
  // fits, else 0.
  std::int64_t stride = 1;
  if (d < x.rank() && __builtin_mul_overflow(x.strides()[d], std::max<std::int64_t>(x.shape()[d], 1), &stride))
    stride = 0;
  out.shape.insert(out.shape.begin() + d, 1);
  out.strides.insert(out.strides.begin() + d, stride);
  validate_layout(out, "unsqueeze result");
  return with_layout(x, std::move(out));
}

TensorView permute(const TensorView& x, const std::vector<std::int64_t>& order) {
  validate_layout(x.layout(), "permute input");
  if (static_cast<int>(order.size()) != x.rank())
    fail(ErrorKind::shape, "permute: order has {} dims for shape {} of rank {}", order.size(),
         to_string(x.shape()), x.rank());
  std::vector<bool> seen(x.rank());
  Layout out;
  for (std::int64_t dim : order) {
    const std::int64_t d = normalize_dim(dim, x.rank(), "permute");
    if (seen[d]) fail(ErrorKind::shape, "permute: dim {} appears twice in the order", dim);
    seen[d] = true;
    out.shape.push_back(x.shape()[d]);
    out.strides.push_back(x.strides()[d]);
  }
  return with_layout(x, std::move(out));
}

TensorView transpose(const TensorView& x, std::int64_t dim0, std::int64_t dim1) {
  validate_layout(x.layout(), "transpose input");
  const std::int64_t d0 = normalize_dim(dim0, x.rank(), "transpose");
  const std::int64_t d1 = normalize_dim(dim1, x.rank(), "transpose");
  Layout out = x.layout();
  std::swap(out.shape[d0], out.shape[d1]);
  std::swap(out.strides[d0], out.strides[d1]);
  return with_layout(x, std::move(out));
}

TensorView transpose(const TensorView& x) {
  validate_layout(x.layout(), "transpose input");
  Layout out = x.layout();
  std::reverse(out.shape.begin(), out.shape.end());
  std::reverse(out.strides.begin(), out.strides.end());
  return with_layout(x, std::move(out));
}

TensorView broadcast_to(const TensorView& x, const Shape& shape) {
  validate_layout(x.layout(), "broadcast_to input");
  checked_numel(shape, "broadcast_to target");
  if (shape.size() < x.shape().size() || !check_broadcast_shape(x.shape(), shape) ||
      broadcast_infer_shape(x.shape(), shape) != shape)
    fail(ErrorKind::shape, "broadcast_to: shape {} cannot be broadcast to {}", to_string(x.shape()),
         to_string(shape));
  const std::size_t lead = shape.size() - x.shape().size();
  Layout out{shape, Strides(shape.size(), 0)};
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    out.strides[lead + d] = x.shape()[d] == shape[lead + d] ? x.strides()[d] : 0;
  return with_layout(x, std::move(out));
}

// ---- Basic indexing ----

namespace {

// NumPy's slice normalisation (PySlice_AdjustIndices): clamps start and stop
// into the dim and counts the elements the slice selects.
struct ResolvedSlice {
  std::int64_t start, step, length;
};

ResolvedSlice resolve_slice(const Slice& s, std::int64_t extent, std::size_t axis) {
  // Python clamps a step below -INT64_MAX likewise, so that -step exists.
  const std::int64_t step = std::max(s.step.value_or(1), -INT64_MAX);
  if (step == 0) fail(ErrorKind::index, "slice step cannot be zero (axis {})", axis);
  auto clamp_bound = [&](std::int64_t v, std::int64_t low, std::int64_t high) {
    if (v < 0) v = v < -extent ? low : v + extent;
    return std::clamp(v, low, high);
  };
  std::int64_t start, stop;
  if (step > 0) {
    start = s.start ? clamp_bound(*s.start, 0, extent) : 0;
    stop = s.stop ? clamp_bound(*s.stop, 0, extent) : extent;
  } else {
    start = s.start ? clamp_bound(*s.start, -1, extent - 1) : extent - 1;
    stop = s.stop ? clamp_bound(*s.stop, -1, extent - 1) : -1;
  }
  std::int64_t length = 0;
  if (step > 0 && stop > start) length = (stop - start - 1) / step + 1;
  if (step < 0 && start > stop) length = (start - stop - 1) / (-step) + 1;
  return {start, step, length};
}

// Number of input dims the items consume (integers and slices).
std::size_t consumed_dims(const std::vector<IndexItem>& items) {
  std::size_t n = 0;
  for (const IndexItem& item : items)
    n += std::holds_alternative<std::int64_t>(item) || std::holds_alternative<Slice>(item);
  return n;
}

}  // namespace

TensorView index(const TensorView& x, const std::vector<IndexItem>& items) {
  validate_layout(x.layout(), "index input");
  const std::size_t rank = x.shape().size();
  const std::size_t ellipses =
      std::count_if(items.begin(), items.end(), [](const IndexItem& i) { return std::holds_alternative<Ellipsis>(i); });
  if (ellipses > 1) fail(ErrorKind::index, "an index can only have a single ellipsis ('...')");
  const std::size_t consumed = consumed_dims(items);
  if (consumed > rank)
    fail(ErrorKind::index, "too many indices: tensor is {}-dimensional, but {} were indexed", rank,
         consumed);

  Layout out;
  std::int64_t offset = 0;
  std::size_t axis = 0;  // next input dim
  auto keep_full = [&](std::size_t count) {
    for (std::size_t i = 0; i < count; ++i, ++axis) {
      out.shape.push_back(x.shape()[axis]);
      out.strides.push_back(x.strides()[axis]);
    }
  };
  for (const IndexItem& item : items) {
    if (const auto* i = std::get_if<std::int64_t>(&item)) {
      const std::int64_t extent = x.shape()[axis];
      if (*i < -extent || *i >= extent)
        fail(ErrorKind::index, "index {} is out of bounds for axis {} with size {}", *i, axis, extent);
      offset += (*i < 0 ? *i + extent : *i) * x.strides()[axis];
      ++axis;
    } else if (const auto* s = std::get_if<Slice>(&item)) {
      const ResolvedSlice r = resolve_slice(*s, x.shape()[axis], axis);
      if (r.length > 0) offset += r.start * x.strides()[axis];
      out.shape.push_back(r.length);
      // With at most one element the stride is never used; keeping the input's
      // avoids overflowing stride * step for a huge step.
      out.strides.push_back(r.length > 1 ? x.strides()[axis] * r.step : x.strides()[axis]);
      ++axis;
    } else if (std::holds_alternative<NewAxis>(item)) {
      out.shape.push_back(1);
      out.strides.push_back(0);
    } else {  // Ellipsis
      keep_full(rank - consumed);
    }
  }
  keep_full(rank - axis);  // trailing dims not indexed are kept whole
  validate_layout(out, "index result");
  return {advance(x.data(), offset, x.element_size()), x.dtype(), std::move(out)};
}

}  // namespace bcast
