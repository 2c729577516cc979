// Sending one op to the Ascend-style simulator (BCAST_TARGET=ascend-sim).
#pragma once

#include "bcast/ops.h"
#include "broadcast_plan.h"

namespace bcast {

// Runs the call on the simulator. False when it could not (no kernel, a UB
// too small for a tile, or a broken rule, which is logged): the caller then
// runs it on the reference executor. The calling thread's trace records it.
bool run_on_ascend(Op op, const TensorView& a, const TensorView& b, const TensorView& out, const BroadcastPlan& plan);

}  // namespace bcast
