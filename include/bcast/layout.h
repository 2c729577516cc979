// Shapes and strided layouts: the geometry of a tensor view, without its data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bcast {

using Shape = std::vector<std::int64_t>;
using Strides = std::vector<std::int64_t>;  // in elements; may be 0 or negative

// Ranks above this are rejected with a clear error rather than truncated.
inline constexpr int kMaxRank = 64;

// A shape plus one stride per dim, in elements. Strides of 0 repeat an element
// (a broadcast view); negative strides walk memory backwards.
struct Layout {
  Shape shape;
  Strides strides;

  // Row-major (C order): shape (2,3,4) -> strides (12,4,1).
  static Layout contiguous(const Shape& shape);
  // Column-major (Fortran order): shape (2,3,4) -> strides (1,2,6).
  static Layout column_major(const Shape& shape);
  // Dense, with the dims laid out in memory in `order`, outermost first (a
  // permutation of 0 .. rank - 1): shape (2,3,4), order (2,0,1) -> strides
  // (3,1,6). contiguous() is the order (0,1,2), column_major() (2,1,0).
  static Layout dense(const Shape& shape, const std::vector<int>& order);
  // Whether the dims of extent above 1, taken by increasing stride, cover
  // memory from stride 1 up with no gap (a dense() layout in some order;
  // dims of extent 1 may have any stride, as NumPy allows). An empty layout
  // (an extent of 0) is dense.
  bool is_dense() const;

  int rank() const { return static_cast<int>(shape.size()); }
  std::int64_t numel() const;  // product of extents; 1 for rank 0
  bool is_contiguous() const;  // row-major dense, ignoring dims of extent 1

  // Element by element, inline: layouts are small and compared on every call
  // of a memoised or prepared op, where a library memcmp per vector showed.
  friend bool operator==(const Layout& x, const Layout& y) {
    const std::size_t rank = x.shape.size();
    if (rank != y.shape.size() || rank != x.strides.size() || rank != y.strides.size()) return false;
    for (std::size_t d = 0; d < rank; ++d)
      if (x.shape[d] != y.shape[d] || x.strides[d] != y.strides[d]) return false;
    return true;
  }
};

// Checks one layout's invariants: rank <= kMaxRank, extents >= 0, shape and
// strides of equal length, element count and offsets within int64. Throws
// Error(shape) naming `operand`.
void validate_layout(const Layout& layout, const char* operand);

// Product of extents, or an Error(shape) naming `operand` if it overflows int64.
std::int64_t checked_numel(const Shape& shape, const char* operand);

std::string to_string(const Shape& shape);  // "[2, 3, 4]"

}  // namespace bcast
