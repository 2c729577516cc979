// Decoders of fuzz_input.h.
#include "fuzz_input.h"

#include <algorithm>
#include <numeric>

namespace bcast::fuzz {

Shape decode_shape(FuzzBytes& in, int max_rank) {
  static const std::vector<std::int64_t> extents{1, 1, 1, 2, 3, 4, 5, 7, 8, 16, 17, 0};
  Shape shape(static_cast<std::size_t>(in.in_range(0, max_rank)));
  for (std::int64_t& e : shape) e = in.pick(extents);
  return shape;
}

std::pair<Shape, Shape> decode_shape_pair(FuzzBytes& in) {
  Shape a = decode_shape(in, 6);
  Shape b(a.end() - std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(a.size()), in.in_range(0, 6)), a.end());
  for (std::int64_t& e : b)
    if (in.in_range(0, 3) == 0) e = 1;
  for (std::int64_t& e : a)
    if (in.in_range(0, 5) == 0) e = 1;
  switch (in.in_range(0, 15)) {  // now and then: a longer b, or a shape that cannot broadcast
    case 0: b.insert(b.begin(), in.in_range(1, 3)); break;
    case 1: if (!b.empty()) b[0] += in.in_range(1, 2); break;
    default: break;
  }
  if (in.byte() & 1) std::swap(a, b);
  return {a, b};
}

FuzzView decode_view(FuzzBytes& in, DType dtype, const Shape& shape, bool is_output) {
  const int rank = static_cast<int>(shape.size());
  Strides strides(shape.size(), 0);
  if (is_output) {
    // Dense in a random dim order, each dim reversed or spread out now and then.
    std::vector<int> order(shape.size());
    std::iota(order.begin(), order.end(), 0);
    for (int i = rank - 1; i > 0; --i) std::swap(order[i], order[in.in_range(0, i)]);
    std::int64_t step = in.in_range(1, 2);
    for (int d : order) {
      strides[d] = (in.in_range(0, 3) == 0 ? -step : step);
      step *= std::max<std::int64_t>(shape[d], 1) + in.in_range(0, 1);
    }
  } else {
    for (std::int64_t& s : strides) s = in.in_range(-5, 5);
  }
  // The buffer spans every offset the view can reach; data points at offset 0.
  std::int64_t lo = 0, hi = 0;
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  for (int d = 0; d < rank && !empty; ++d) {
    const std::int64_t span = (shape[d] - 1) * strides[d];
    (span < 0 ? lo : hi) += span;
  }
  FuzzView v;
  const std::size_t size = dtype_size(dtype);
  v.buffer.assign(static_cast<std::size_t>(hi - lo + 1) * size, 0);
  v.view = TensorView(v.buffer.data() + static_cast<std::size_t>(-lo) * size, dtype, Layout{shape, strides});
  return v;
}

void fill_bytes(FuzzView& v, const std::vector<std::uint8_t>& values) {
  if (values.empty()) return;
  for (std::size_t i = 0; i < v.buffer.size(); ++i) v.buffer[i] = values[i % values.size()];
  if (v.view.dtype() == DType::boolean)
    for (std::uint8_t& x : v.buffer) x &= 1;
}

}  // namespace bcast::fuzz
