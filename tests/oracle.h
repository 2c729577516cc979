// The tests' independent oracle: op(a, b) computed from docs/semantics.md's
// semantics alone, one output element at a time.
//
// It shares no code with what it checks: no planner, no loop nest, no chunks
// or tiles, no ScalarOp and no half.h. An element's offset is its index times
// the strides of the original layout (NumPy's rule: a dim of extent 1 reads
// element 0); its value is decoded from its bits; integers are computed
// exactly in 128 bits and wrapped; floats are computed in double and rounded
// once to the result dtype by this oracle's own round-to-nearest-even
// encoder. NOTE: [Oracle precision] in oracle.cpp says why that rounding is
// the correctly rounded result.
//
// Tests compare against it as well as against the reference executor: a bug
// in planning, chunking or tiling that the JIT and the reference executor
// share gives the same wrong answer on both, never the oracle's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "oracle_values.h"

namespace bcast::test {

// The elements of op(a, b) broadcast to out_shape, in C order.
// Example: add, f32 [2,1] {1, 2} and [3] {10, 20, 30}, out [2,3] ->
// {11, 21, 31, 12, 22, 32} as f32 bits.
std::vector<Expected> oracle(Op op, const TensorView& a, const TensorView& b, const Shape& out_shape);

// "" when every element of `got` (C order over its view) is what the oracle
// expects for op(a, b); otherwise the first bad index, the inputs there and
// both values. A NaN is only ever equal to a NaN whose quiet bit is set.
// a and b must still hold the call's inputs (compute the oracle first for a
// call made in place, and use the overload that takes its result).
std::string oracle_mismatch(Op op, const TensorView& a, const TensorView& b, const TensorView& got);
std::string oracle_mismatch(const std::vector<Expected>& want, const TensorView& got);

// The element of x that output index `index` reads, by NumPy's rule: dims
// align on the right, and a dim of extent 1 reads its element 0.
Expected element_read_at(const TensorView& x, const std::vector<std::int64_t>& index);
// Its bits in hex, "(re, im)" for a complex one.
std::string describe_element(const Expected& x, DType d);
// Advances a C-order index over `shape`.
void next_index(std::vector<std::int64_t>& index, const Shape& shape);

// Fills every element of x with one byte repeated: not a NaN in any float
// dtype and not a bool, so elements that a call never writes (a tile or a
// piece skipped) keep it and differ from the oracle. Use a different `byte`
// on each side of a comparison between two executors, so that both leaving
// an element alone is a difference too.
inline constexpr std::uint8_t kSentinel = 0xa5, kOtherSentinel = 0x5a;
void fill_sentinel(const TensorView& x, std::uint8_t byte = kSentinel);

}  // namespace bcast::test
