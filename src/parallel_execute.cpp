// Splitting one planned call across threads, by ranges of outer iterations.
#include "parallel_execute.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace bcast {

void parallel_execute(const BroadcastPlan& plan, int threads,
                      const std::function<void(std::int64_t, std::int64_t)>& run) {
  const std::int64_t outer = plan.outer_count();
  const std::int64_t parts =
      plan.numel < kParallelGrain ? 1 : std::min<std::int64_t>(std::max(threads, 1), outer);
  if (parts <= 1) {
    run(0, outer);
    return;
  }
  auto range_begin = [&](std::int64_t part) { return outer / parts * part + std::min(part, outer % parts); };
  std::vector<std::jthread> workers;
  std::vector<std::int64_t> unstarted;
  for (std::int64_t part = 1; part < parts; ++part) {
    try {
      workers.emplace_back(run, range_begin(part), range_begin(part + 1));
    } catch (const std::system_error&) {
      unstarted.push_back(part);
    }
  }
  run(range_begin(0), range_begin(1));
  for (std::int64_t part : unstarted) run(range_begin(part), range_begin(part + 1));
}

}  // namespace bcast
