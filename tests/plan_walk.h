// Two independent walks of a broadcast call, for the planner's property tests
// and fuzz target: every output offset with the input offsets it reads.
#pragma once

#include <cstdint>
#include <map>

#include "bcast/layout.h"
#include "broadcast_plan.h"

namespace bcast::test {

struct Visit {
  std::int64_t a, b;
};

// From the plan's levels, multiplying indices out (independent of the
// executors' additive walk). Counts output offsets visited twice in `duplicates`.
std::map<std::int64_t, Visit> walk_plan(const BroadcastPlan& p, int& duplicates);

// From the original layouts, with NumPy's rule that an extent-1 dim reads
// index 0 and missing leading dims are repeated.
std::map<std::int64_t, Visit> walk_naive(const Layout& out, const Layout& a, const Layout& b);

// "" when the plan visits exactly the naive offsets, else what differs first.
std::string compare_walks(const BroadcastPlan& plan, const Layout& out, const Layout& a, const Layout& b);

}  // namespace bcast::test
