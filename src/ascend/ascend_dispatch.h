// Sending one op to the Ascend-style simulator (BCAST_TARGET=ascend-sim).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "expr_program.h"
#include "reduce_executor.h"
#include "target.h"

namespace bcast {

// Runs the call on the simulator; dispatch() calls it when BCAST_TARGET is
// ascend-sim (a host call pays only that test). False when the call could
// not run there (an empty output, the JIT off, what the product lacks, named
// by the lowering, no kernel, a UB too small for a tile, copies the product
// cannot make, or a broken rule; logged): the caller then runs it on the
// host. The calling thread's trace records every call, one that fell back
// included (its kernel empty or its fallback set). `target` is the ascend-sim
// target object (dispatch/targets.h).
bool run_on_ascend_target(const Target& target, Op op, const TensorView& a, const TensorView& b,
                          const TensorView& out, const BroadcastPlan& plan);

// NOTE: [Expression kernels] on the simulator: each node becomes the vector
// instructions of NOTE: [Ascend lowering], into a tile buffer of its own, the
// last one into out's. False, with the reason in the trace and the log, when
// it cannot run there (as run_on_ascend_target; also an expression that
// computes nothing, a copy). `structure` and the leaf types are the
// expression's; `scalar_slots` its scalars' ScalarSlots (kernel_abi.h).
bool run_expression_on_ascend_target(const Target& target, const std::string& structure,
                                     const std::vector<LeafType>& inputs, const std::vector<LeafType>& scalars,
                                     const void* scalar_slots,
                                     const BroadcastPlan& plan, const TensorView& out,
                                     const std::vector<TensorView>& operands);

// A reduction (bcast/reduce.h) while ascend-sim is the target: NOTE:
// [Ascend reductions]'s kernel on the simulator. `x` is its input, null
// for an expression's values (the kernel reads a tensor). False, with the
// reason in the trace and the log (naming the reduction and what the model
// lacks), when it cannot run there: the caller then runs it on the host.
bool run_reduction_on_ascend_target(const Target& target, std::string_view reduction, const ReduceCall& call,
                                    const TensorView* x, const TensorView& out);

}  // namespace bcast
