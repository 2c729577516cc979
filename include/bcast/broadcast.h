// NumPy broadcasting rules on shapes.
#pragma once

#include <string>

#include "bcast/layout.h"

namespace bcast {

// Shapes are aligned on the right; two dims are compatible if they are equal or
// one of them is 1.
//   [2,2] & [2] -> true;  [2,2] & [2,5] -> false
bool check_broadcast_shape(const Shape& a, const Shape& b);

// The broadcast shape of a and b: [2,1,5] & [2,1] -> [2,2,5]. Throws Error(shape):
//   "shapes [2, 2] and [2, 2, 5] do not broadcast: dim -1 has 2 vs 5"
Shape broadcast_infer_shape(const Shape& a, const Shape& b);

// The broadcast type that out = op(a, b) runs as, after planning and merging,
// as logs and tools print it: for C-contiguous a [4,3], b [3] and out [4,3],
// "[expand_b,same]"; "[]" when the result has a single element.
// Preconditions as for the ops: the layouts must be valid and broadcast.
std::string broadcast_type_of(const Layout& out, const Layout& a, const Layout& b);

}  // namespace bcast
