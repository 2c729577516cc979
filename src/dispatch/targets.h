// The target factory: the one place that makes target objects, from the
// settings and the code generator's description of the host.
#pragma once

#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "kernel_key.h"
#include "target.h"

namespace bcast {

// The process's target object of each kind, made on first use.
const Target& target_for(TargetKind kind);
// The target ops run on now (BCAST_TARGET).
const Target& current_target();

// BCAST_STREAM_MIN_BYTES for `target`, "auto" resolved to its last-level cache.
std::uint64_t stream_threshold(const Target& target);

// The key a planned call on `target` runs with under the current settings
// (codegen, and the streaming threshold of NOTE: [Streaming stores]);
// `pin`, when given, receives its spec's pin (NOTE: [Interned ids]).
KernelKey call_kernel_key(const Target& target, Op op, DType dtype, const BroadcastPlan& plan,
                          ExprSpecPin* pin = nullptr);

}  // namespace bcast
