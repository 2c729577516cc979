// Turning a fuzzer's bytes into structured test cases: a reader that never runs
// out (missing bytes read as zero), and decoders for shapes and strided views
// shared by the planner and JIT fuzz targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace bcast::fuzz {

class FuzzBytes {
 public:
  FuzzBytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in [lo, hi], from one byte (the ranges used here are small).
  std::int64_t in_range(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(byte()) % (hi - lo + 1);
  }
  template <class T>
  const T& pick(const std::vector<T>& choices) { return choices[static_cast<std::size_t>(byte()) % choices.size()]; }
  // Whatever is left, for element values; may be empty.
  std::vector<std::uint8_t> rest() {
    std::vector<std::uint8_t> r(data_ + pos_, data_ + size_);
    pos_ = size_;
    return r;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// A shape of rank 0..max_rank with small extents, 1 and 0 among them.
Shape decode_shape(FuzzBytes& in, int max_rank);

// Two input shapes that broadcast most of the time: b starts as a's trailing
// dims with some replaced by 1, then a few bytes may spoil it.
std::pair<Shape, Shape> decode_shape_pair(FuzzBytes& in);

// A view of `shape` over a buffer it owns. Inputs get any strides in [-5, 5]
// (0 and overlaps included); an output gets a permuted dense layout with gaps
// and reversed dims, so it never overlaps itself.
struct FuzzView {
  std::vector<std::uint8_t> buffer;
  TensorView view;
};
FuzzView decode_view(FuzzBytes& in, DType dtype, const Shape& shape, bool is_output);

// Fills every byte of the view's buffer from `values`, cyclically (raw bits:
// NaN payloads, infinities and integer extremes all come up). Booleans are
// kept 0 or 1, as bcast's bool is.
void fill_bytes(FuzzView& v, const std::vector<std::uint8_t>& values);

}  // namespace bcast::fuzz
