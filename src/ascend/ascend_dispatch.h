// Sending one op to the Ascend-style simulator (BCAST_TARGET=ascend-sim).
#pragma once

#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "target.h"

namespace bcast {

// Runs the call on the simulator; dispatch() calls it when BCAST_TARGET is
// ascend-sim (a host call pays only that test). False when the call could
// not run there (an empty output, the JIT off, no kernel, a UB too small for
// a tile, or a broken rule, which is logged): the caller then runs it on the
// host. The calling thread's trace records every call, one that fell back
// included (its kernel empty or its fallback set). `target` is the ascend-sim
// target object (dispatch/targets.h).
bool run_on_ascend_target(const Target& target, Op op, const TensorView& a, const TensorView& b,
                          const TensorView& out, const BroadcastPlan& plan);

// For a call that the simulator cannot run at all (an expression, NOTE:
// [Expression kernels]): records `why` in the calling thread's trace and logs
// it, as a warning the first time in the process and at debug level after.
void record_ascend_fallback(const std::string& why);

}  // namespace bcast
