// Memory probes: hand-written loops that show what this machine's memory gives
// the access patterns no kernel can avoid, measured in the same run as the
// cases (bcast-bench --probes).
#pragma once

#include <nlohmann/json.hpp>

namespace bcast::bench {

// Runs the probes and returns one JSON object per probe: its name, GB/s and,
// where it has one, the reference it is compared with in the same run.
nlohmann::json run_probes(int threads, int repeats);

}  // namespace bcast::bench
