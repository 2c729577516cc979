// The kernel cache's statistics as JSON, in one shape for the memory dump
// (write_kernel_cache_dump), bcast-run --json and the Python module.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "bcast/runtime.h"

namespace bcast {

// The process's counters: hits, misses, disk hits, compiles, failures,
// evictions, compile time, resident kernels, capacity and code bytes, and NOTE: [Tiers]'s fallback calls, waits,
// queue and JIT mode.
nlohmann::json cache_totals_json(const KernelCacheStats& s);
// Per kernel key: its counters (the memory dump's entries).
nlohmann::json cache_entries_json(const std::vector<KernelStats>& entries);
// NOTE: [Compile phases], in microseconds.
nlohmann::json phases_json(const CompilePhases& p);

}  // namespace bcast
