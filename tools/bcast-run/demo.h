// bcast-run's built-in demo: a dozen broadcast cases, each checked against an
// independent computation and printed as a table.
#pragma once

namespace bcast::tools {

// Returns the process exit status: 0 when every case matched.
int run_demo(int repeats);

}  // namespace bcast::tools
