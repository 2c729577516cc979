// The naive executor: computes out = op(a, b) one output index at a time, with
// offsets multiplied out from the original layouts. Slow, and independent of the
// planner and the loop nests: the check that bcast-run --check and the tests
// compare the real executors against.
#pragma once

#include "bcast/ops.h"
#include "bcast/tensor.h"

namespace bcast {

// Same preconditions as binary(op, a, b, out), which it does not check.
void run_naive(Op op, const TensorView& a, const TensorView& b, const TensorView& out);

}  // namespace bcast
