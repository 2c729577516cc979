// Running a planned call: one kernel (JIT-compiled or reference) over the
// whole plan, split across threads for large calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "broadcast_plan.h"
#include "kernel_abi.h"

namespace bcast {

// Pointers to element (0,...,0) of each operand's view, and element sizes.
struct OperandPointers {
  void* out;
  const void* a;
  const void* b;
};
using ElementSizes = std::array<std::size_t, kNumOperands>;

// Runs `kernel` over every element of `plan` on up to `threads` threads (the
// caller's among them); calls under BCAST_GRAIN elements stay on the caller and
// never touch the pool. Work is split over the outer iterations, or, when there
// are fewer of them than pieces, over the innermost level (NOTE: [Thread pool]).
void execute_plan(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
                  int threads);

// Whether execute_plan runs `plan` on the caller's thread alone: fewer
// elements than BCAST_GRAIN, or one thread. Such calls never touch the pool.
bool stays_on_caller(const BroadcastPlan& plan, int threads);

// Whether execute_plan runs `plan` in tiles of its last two levels (NOTE:
// [Blocked order]): an input that walks memory faster along the outer of them.
bool uses_blocked_order(const BroadcastPlan& plan, std::size_t out_element_size);

}  // namespace bcast
