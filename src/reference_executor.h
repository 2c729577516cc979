// The reference executor: runs any BroadcastPlan for any op and dtype with the
// additive-offset loop nest in plain C++. The oracle for the JIT's tests and its
// fallback.
#pragma once

#include <cstdint>

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "broadcast_plan.h"

namespace bcast {

// Pointers to element (0,...,0) of each operand's view; the plan's base
// offsets are applied here.
struct OperandPointers {
  void* out;
  const void* a;
  const void* b;
};

// Runs outer iterations [begin, end) of `plan` (see BroadcastPlan::outer_count),
// so callers can split one call across threads. The pair (op, dtype) must be
// supported (op_supports).
void run_reference(Op op, DType dtype, const BroadcastPlan& plan, const OperandPointers& ptrs,
                   std::int64_t begin, std::int64_t end);

}  // namespace bcast
