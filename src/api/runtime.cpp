// Process-wide runtime settings and the runtime description.
#include "bcast/runtime.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bcast/errors.h"
#include "config.h"
#include "kernel_provider.h"
#include "stats_json.h"
#include "targets.h"
#include "thread_pool.h"

namespace bcast {

void clear_kernel_cache() { provider::clear(); }
void wait_for_compiles() { provider::wait_for_compiles(); }
int last_call_threads() { return recorded_call_threads(); }
KernelCacheStats kernel_cache_stats() { return provider::stats(); }
std::vector<KernelStats> kernel_cache_entries() { return provider::entries(); }

void write_kernel_cache_dump(const std::string& path) {
  const nlohmann::json entries = cache_entries_json(kernel_cache_entries());
  const nlohmann::json totals = cache_totals_json(kernel_cache_stats());
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"process", ::getpid()}, {"totals", totals}, {"entries", entries}}.dump(1) << "\n";
    if (!out) throw Error(ErrorKind::io, path + ": cannot write the kernel cache dump");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(ErrorKind::io, path + ": cannot write the kernel cache dump");
  }
}

RuntimeInfo runtime_info() {
  const HostDescription& host = provider::host_description();
  RuntimeInfo info{BCAST_VERSION, provider::llvm_version(), host.cpu, host.triple};
  const Target& target = target_for(TargetKind::host);
  const std::uint64_t setting = config::stream_min_bytes();
  if (setting == config::kStreamOff) {
    info.stream_decision = "off (BCAST_STREAM_MIN_BYTES)";
  } else {
    info.stream_min_bytes = stream_threshold(target);
    info.stream_decision = setting == config::kStreamAuto ? "auto: " + target.auto_stream_decision(config::threads())
                                                          : std::to_string(setting) + " bytes (BCAST_STREAM_MIN_BYTES)";
  }
  return info;
}

}  // namespace bcast
