// The rules a binary op call must satisfy before anything runs or is written.
#pragma once

#include "bcast/ops.h"
#include "bcast/tensor.h"

namespace bcast {

// Checks a and b for op; returns the broadcast (output) shape. Throws Error.
Shape validate_inputs(Op op, const TensorView& a, const TensorView& b);

// Checks a caller-supplied out against the inputs and the broadcast shape.
void validate_out(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                  const Shape& out_shape);

// Memory overlap of two views, by the byte range each can touch.
bool ranges_overlap(const TensorView& x, const TensorView& y);

}  // namespace bcast
