// The tests' oracle of the exact reductions (oracle.h's rules): sums and
// products of integers and bool, min, max, any and all, one output element
// at a time from x's elements in C order, with oracle_values' own exact ops.
// It shares no code with src/ (the public enums and Axes only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "oracle_values.h"

namespace bcast::test {

// x's element as a long double (a float dtype's, through the oracle's exact widening).
long double value_of(const Expected& e, DType d);
// Which of x's dims `axes` names.
std::vector<bool> along_of(const Axes& axes, int rank);
// Every index of x (C order) that the result element with kept index
// `kept_index` combines.
std::vector<std::vector<std::int64_t>> inputs_of(const Shape& shape, const std::vector<bool>& along,
                                                 const std::vector<std::int64_t>& kept_index);
// "" when every element of `got` (C order) is what the oracle gives for the
// exact reduction op of x along `axes` (the sign of a zero from min and
// max, and a NaN's payload, aside); otherwise the first difference. mean is
// not exact: an error.
std::string reduction_mismatch(ReduceOp op, const TensorView& x, const Axes& axes, const TensorView& got);

}  // namespace bcast::test
