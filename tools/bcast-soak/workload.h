// The soak's workload: what each worker thread runs, checked against an
// oracle, and the churn of cache clears and setting changes around it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace bcast::tools::soak {

// What the workers did, for the reports.
struct Counts {
  std::atomic<std::uint64_t> evaluations{0}, new_structures{0}, binary_calls{0}, prepared_calls{0};
  std::atomic<std::uint64_t> wrong{0};  // results that differ from the oracle
  std::atomic<std::uint64_t> clears{0}, setting_changes{0};
  // The cache's counters just before each clear (which resets them), so that
  // the reports can add them up.
  std::atomic<std::uint64_t> cleared_compiles{0}, cleared_evictions{0}, cleared_dropped{0}, cleared_refused{0};
  std::string first_wrong;              // written once, by the first worker to see a wrong result
  std::atomic<bool> have_first_wrong{false};
};

// The settings the churn moves between: the bounds are stated for the
// largest (NOTE: [Queue bound], NOTE: [Bounded cache]).
inline constexpr std::size_t kMaxCapacity = 1024;
inline constexpr std::size_t kMaxQueue = 256;

// One worker until `stop`: a mix of new expression structures (a fresh one
// each time, shared out by a counter), repeated ones (a small hot set),
// binary ops over several broadcast types and a prepared expression, each
// result checked (the chains in double, the binary ops against the naive
// executor).
void work(int seed, const std::atomic<bool>& stop, Counts& counts);

// Until `stop`: every `period_ms`, the next of: clear the cache, change its
// capacity, the compile queue's bound, the optimisation level, the ISA cap,
// the JIT mode.
void churn(int period_ms, const std::atomic<bool>& stop, Counts& counts);

}  // namespace bcast::tools::soak
