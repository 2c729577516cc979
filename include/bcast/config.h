// Tuning without recompiling: every BCAST_* environment variable, read once,
// validated, and overridable through the API (the API wins).
//
// | variable             | default                      | accepted                                   |
// | BCAST_LOG_LEVEL      | warn                         | off error warn info debug trace            |
// | BCAST_VERBOSE        | 0                            | 0 1: one line per op call on stderr         |
// | BCAST_JIT            | 1                            | 0 1: 0 runs everything on the reference    |
// | BCAST_OPT_LEVEL      | 2                            | 0 1 2 3                                    |
// | BCAST_MAX_ISA        | all                          | sse4.2 avx avx2 avx512 all                 |
// | BCAST_NUM_THREADS    | 0 (one per hardware thread)  | 0 .. 1024                                  |
// | BCAST_GRAIN          | 262144                       | 1 .. 2^40 output elements                  |
// | BCAST_CACHE_CAPACITY | 1024                         | 0 .. 2^20 kernels in memory; 0 disables    |
// | BCAST_CACHE_DIR      | $XDG_CACHE_HOME/bcast or ~/.cache/bcast | a folder, or off             |
// | BCAST_CACHE_MAX_MB   | 256                          | 1 .. 2^20 MiB on disk                       |
// | BCAST_STREAM_MIN_BYTES | auto (the last-level cache) | auto, off, 0 .. 2^50 bytes moved        |
// | BCAST_DUMP_DIR       | (none)                       | a folder for IR and assembly dumps         |
// | BCAST_TARGET         | host                         | host ascend-sim                            |
// | BCAST_UB_SIZE        | 196608                       | 1024 .. 1048576, a multiple of 32          |
// | BCAST_BLOCK_NUM      | 8                            | 1 .. 64                                    |
// | BCAST_DOUBLE_BUFFER  | 1                            | 0 1                                        |
// The README has the same table with the meaning of each.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bcast {

enum class SettingSource { default_value, environment, api };

struct SettingInfo {
  std::string name;           // "BCAST_OPT_LEVEL"
  std::string value;          // effective value, as text
  std::string default_value;
  std::string accepted;       // the accepted values or range, as text
  std::string help;
  SettingSource source;
};

// Every setting with its effective value and where it came from.
std::vector<SettingInfo> effective_settings();
std::string_view setting_source_name(SettingSource source);  // "default", "environment", "api"

// Sets a setting by its variable name, as the API: the value wins over the
// environment. An invalid name or value is an Error(value) naming both and
// the accepted values; nothing changes then. The default value is always
// accepted: set_setting(n, get_setting(n)) puts back what was there.
void set_setting(std::string_view name, std::string_view value);
std::string get_setting(std::string_view name);

// Typed setters for the common ones (set_num_threads, set_jit_enabled and
// set_kernel_cache_capacity are in runtime.h).
void set_log_level(std::string_view level);
void set_verbose(bool on);
void set_opt_level(int level);
void set_max_isa(std::string_view isa);
void set_cache_dir(std::string_view folder);  // "off" disables the disk cache
void set_dump_dir(std::string_view folder);   // "" stops dumping
void set_target(std::string_view target);     // "host" or "ascend-sim"

}  // namespace bcast
