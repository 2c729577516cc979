// Tuning without recompiling: every BCAST_* environment variable, read once,
// validated, and overridable through the API (the API wins). The variables,
// their defaults, accepted values and meanings are one table in
// src/settings/config.cpp; effective_settings() returns it, `bcast-cache env`
// prints it, and docs/settings.md's table is printed from it.
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
void set_verbose(int level);  // BCAST_VERBOSE: 0, 1 or 2 (docs/logging.md)
void set_opt_level(int level);
void set_max_isa(std::string_view isa);
void set_cache_dir(std::string_view folder);  // "off" disables the disk cache
void set_dump_dir(std::string_view folder);   // "" stops dumping
void set_target(std::string_view target);     // "host" or "ascend-sim"

}  // namespace bcast
