// The settings store behind include/bcast/config.h: fast typed reads for the
// hot path, and the hooks that apply a change to the parts that use it.
#pragma once

#include <cstdint>
#include <string>

#include "ascend_sim.h"

namespace bcast::config {

// Hot-path reads: atomics, no lock.
bool jit();
bool verbose();
int threads();            // resolved: never 0
std::int64_t grain();
// Calls that move at least this many bytes get streaming stores
// (BCAST_STREAM_MIN_BYTES; "off" is the largest value).
std::uint64_t stream_min_bytes();
std::size_t cache_capacity();
int opt_level();
// Bumped whenever a setting that changes generated code changes.
std::uint64_t codegen_generation();

// Reads under a lock.
std::string log_level();
std::string max_isa();
std::string cache_dir();  // resolved folder, or "" when the disk cache is off
std::uint64_t cache_max_bytes();
std::string dump_dir();   // "" when off
std::string target();
bool ascend_target();  // target() == "ascend-sim", without the lock
ascend::SimConfig sim_config();  // BCAST_UB_SIZE, BCAST_BLOCK_NUM, BCAST_DOUBLE_BUFFER

// Test hook: forget API overrides and read the environment again.
void reload_from_environment();

}  // namespace bcast::config
