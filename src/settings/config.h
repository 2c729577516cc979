// The settings store behind include/bcast/config.h: fast typed reads for the
// hot path, and the hooks that apply a change to the parts that use it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bcast::config {

// Hot-path reads: atomics, no lock.
bool jit();
bool verbose();
bool jit_async();    // BCAST_JIT_MODE=async (NOTE: [Tiers])
bool jit_isolate();  // BCAST_JIT_ISOLATE=1 (NOTE: [Isolated compiles])
int threads();            // resolved: never 0
std::int64_t grain();
std::int64_t row_block_bytes();  // NOTE: [Row blocks]; 0: off
// Calls that move at least this many bytes get streaming stores
// (BCAST_STREAM_MIN_BYTES): "off" is kNeverStream, "auto" is kStreamAuto,
// which the caller resolves to its target's last-level cache size.
inline constexpr std::uint64_t kStreamOff = ~std::uint64_t{0};
inline constexpr std::uint64_t kStreamAuto = ~std::uint64_t{0} - 1;
std::uint64_t stream_min_bytes();
std::size_t cache_capacity();
std::size_t jit_queue();  // BCAST_JIT_QUEUE (NOTE: [Queue bound])
int opt_level();
// Bumped whenever a setting that changes generated code changes.
std::uint64_t codegen_generation();
// Bumped whenever any setting changes: a layer that was told the settings
// (the kernel provider tells the JIT's cache) tells again.
std::uint64_t generation();

// Reads under a lock.
std::string max_isa();
std::string cache_dir();  // resolved folder, or "" when the disk cache is off
std::uint64_t cache_max_bytes();
std::string dump_dir();   // "" when off
std::string profile();    // BCAST_PROFILE: off perf gdb all
bool ascend_target();  // the target is TargetKind::ascend_sim; read without the lock
// ascend-sim: BCAST_ASCEND_PRODUCT, BCAST_UB_SIZE (0 for auto: the
// product's), BCAST_BLOCK_NUM, BCAST_DOUBLE_BUFFER.
std::string ascend_product();
std::int64_t ub_size();
int block_num();
bool double_buffer();

// Sets a setting by its variable name, as the API (bcast::set_setting, which
// then tells the layers that were told the settings); an invalid name or
// value is an Error(value) and changes nothing.
void set(std::string_view name, std::string_view value);

// Test hook: forget API overrides and read the environment again.
void reload_from_environment();

}  // namespace bcast::config
