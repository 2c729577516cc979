// Splitting one planned call across threads.
#pragma once

#include <cstdint>
#include <functional>

#include "broadcast_plan.h"

namespace bcast {

// Below this many output elements a call stays on the calling thread: starting
// threads would cost more than the work.
inline constexpr std::int64_t kParallelGrain = std::int64_t{1} << 18;

// Calls run(begin, end) over disjoint ranges covering [0, plan.outer_count()),
// on up to `threads` threads (the caller's among them). If a thread cannot be
// started, the caller runs that range itself.
void parallel_execute(const BroadcastPlan& plan, int threads,
                      const std::function<void(std::int64_t, std::int64_t)>& run);

}  // namespace bcast
