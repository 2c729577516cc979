// New views of the same memory: squeeze, unsqueeze, permute, broadcast_to and
// NumPy basic indexing. None of these copies data or allocates a buffer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "bcast/tensor.h"

namespace bcast {

// Dims may be negative in every function below: -1 is the last dim.

// Removes every dim of extent 1 (NumPy's squeeze with no axis).
TensorView squeeze(const TensorView& x);
// Removes the listed dims; each must have extent 1, and may be listed once.
//   shape (1,4,1) strides (4,1,1), dims {0,2} -> shape (4) strides (1)
TensorView squeeze(const TensorView& x, const std::vector<std::int64_t>& dims);
TensorView squeeze(const TensorView& x, std::initializer_list<std::int64_t> dims);  // squeeze(x, {0, 2})

enum class SqueezeMark : std::uint8_t { keep, remove };
// One mark per dim; a removed dim must have extent 1.
//   shape (1,4,1), {remove, keep, keep} -> shape (4,1)
TensorView squeeze(const TensorView& x, const std::vector<SqueezeMark>& pattern);

// Inserts a dim of extent 1 so that it has index `dim` in the result
// (-1 appends): shape (4), dim 0 -> (1,4); dim -1 -> (4,1).
TensorView unsqueeze(const TensorView& x, std::int64_t dim);

// Reorders dims: result dim i is x's dim order[i]. `order` is a permutation.
//   shape (2,3,4), order {2,0,1} -> shape (4,2,3)
TensorView permute(const TensorView& x, const std::vector<std::int64_t>& order);
// Swaps two dims; transpose(x) reverses all dims (NumPy's x.T).
TensorView transpose(const TensorView& x, std::int64_t dim0, std::int64_t dim1);
TensorView transpose(const TensorView& x);

// A read-only view of x repeated to `shape` (NumPy rules): repeated dims get
// stride 0. shape (3,1) -> (2,3,4) gives strides (0, s0, 0).
TensorView broadcast_to(const TensorView& x, const Shape& shape);

// ---- Basic indexing (NumPy semantics) ----

// start:stop:step with any part omitted; negative start/stop count from the end;
// step may be negative but not 0. Out-of-range bounds clamp, as in NumPy.
struct Slice {
  std::optional<std::int64_t> start, stop, step;
};
struct Ellipsis {};  // `...`: as many full slices as needed
struct NewAxis {};   // `None`: a new dim of extent 1

// An integer removes its dim (negative counts from the end); out of range is an
// Error(index) naming the axis, the index and the extent.
using IndexItem = std::variant<std::int64_t, Slice, Ellipsis, NewAxis>;

//   x of shape (3,4,5): index(x, {1, Slice{}, NewAxis{}, Slice{{}, {}, -1}})
//     -> shape (4,1,5), same memory, last dim walked backwards.
TensorView index(const TensorView& x, const std::vector<IndexItem>& items);

// Parses a NumPy basic-index expression: "[..., ::-1]", "[1:, None, -1]".
// The brackets are required; whitespace is ignored. Throws Error(index).
std::vector<IndexItem> parse_index_expression(std::string_view text);

}  // namespace bcast
