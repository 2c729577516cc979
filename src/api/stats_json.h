// The kernel cache's statistics as JSON, in one shape for the memory dump
// (write_kernel_cache_dump) and bcast-run --json.
#pragma once

#include <nlohmann/json.hpp>

#include "bcast/runtime.h"

namespace bcast {

// The process's counters: hits, misses, disk hits, compiles, failures,
// evictions, compile time, resident kernels, capacity and code bytes, and NOTE: [Tiers]'s fallback calls, waits,
// queue and JIT mode.
nlohmann::json cache_totals_json(const KernelCacheStats& s);
// NOTE: [Compile phases], in microseconds.
nlohmann::json phases_json(const CompilePhases& p);

}  // namespace bcast
