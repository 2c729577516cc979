// Two independent walks of a broadcast call, for the planner's property tests
// and fuzz target: every output offset with the input offsets it reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bcast/layout.h"
#include "broadcast_plan.h"

namespace bcast::test {

using Visit = std::vector<std::int64_t>;  // the offset each input reads

// From the plan's levels, multiplying indices out (independent of the
// executors' additive walk). Counts output offsets visited twice in `duplicates`.
std::map<std::int64_t, Visit> walk_plan(const BroadcastPlan& p, int& duplicates);

// From the original layouts, with NumPy's rule that an extent-1 dim reads
// index 0 and missing leading dims are repeated.
std::map<std::int64_t, Visit> walk_naive(const Layout& out, const std::vector<Layout>& inputs);

// "" when the plan visits exactly the naive offsets, else what differs first.
std::string compare_walks(const BroadcastPlan& plan, const Layout& out, const std::vector<Layout>& inputs);
inline std::string compare_walks(const BroadcastPlan& plan, const Layout& out, const Layout& a, const Layout& b) {
  return compare_walks(plan, out, std::vector<Layout>{a, b});
}

}  // namespace bcast::test
