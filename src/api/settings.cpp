// The public setters (bcast/config.h, bcast/runtime.h): each writes the
// settings store, then tells the kernel provider, so that a change reaches
// the JIT's cache at once (a smaller capacity evicts now, not at the next call).
#include "bcast/config.h"
#include "bcast/runtime.h"
#include "config.h"
#include "error_messages.h"
#include "kernel_provider.h"

namespace bcast {

void set_setting(std::string_view name, std::string_view value) {
  config::set(name, value);
  provider::apply_settings();
}

void set_log_level(std::string_view level) { set_setting("BCAST_LOG_LEVEL", level); }
void set_verbose(int level) { set_setting("BCAST_VERBOSE", std::to_string(level)); }
void set_opt_level(int level) { set_setting("BCAST_OPT_LEVEL", std::to_string(level)); }
void set_max_isa(std::string_view isa) { set_setting("BCAST_MAX_ISA", isa); }
void set_cache_dir(std::string_view folder) { set_setting("BCAST_CACHE_DIR", folder); }
void set_dump_dir(std::string_view folder) {
  // "" is the documented way to stop dumping; the table's check is for the environment.
  set_setting("BCAST_DUMP_DIR", folder);
}
void set_target(std::string_view target) { set_setting("BCAST_TARGET", target); }

void set_num_threads(int n) {
  if (n < 0) detail::fail(ErrorKind::value, "set_num_threads: {} is negative (0 means one per hardware thread)", n);
  set_setting("BCAST_NUM_THREADS", std::to_string(n));
}
void set_jit_enabled(bool enabled) { set_setting("BCAST_JIT", enabled ? "1" : "0"); }
void set_jit_mode(JitMode mode) { set_setting("BCAST_JIT_MODE", mode == JitMode::async ? "async" : "sync"); }
void set_kernel_cache_capacity(std::size_t kernels) { set_setting("BCAST_CACHE_CAPACITY", std::to_string(kernels)); }

}  // namespace bcast
