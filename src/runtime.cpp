// Process-wide runtime settings and the runtime description.
#include "bcast/runtime.h"

#include <atomic>
#include <thread>

#include "jit/host_target.h"
#include "jit/kernel_cache.h"
#include "error_messages.h"

namespace bcast {
namespace {
std::atomic<int> g_num_threads{0};
std::atomic<bool> g_jit_enabled{true};
}  // namespace

void set_jit_enabled(bool enabled) { g_jit_enabled.store(enabled, std::memory_order_relaxed); }
bool jit_enabled() { return g_jit_enabled.load(std::memory_order_relaxed); }

void set_kernel_cache_capacity(std::size_t kernels) { jit::kernel_cache().set_capacity(kernels); }
std::size_t kernel_cache_capacity() { return jit::kernel_cache().capacity(); }
void clear_kernel_cache() { jit::kernel_cache().clear(); }
KernelCacheStats kernel_cache_stats() { return jit::kernel_cache().stats(); }
std::vector<KernelStats> kernel_cache_entries() { return jit::kernel_cache().entries(); }

void set_num_threads(int n) {
  if (n < 0) detail::fail(ErrorKind::value, "set_num_threads: {} is negative (0 means one per hardware thread)", n);
  g_num_threads.store(n, std::memory_order_relaxed);
}

int num_threads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  // hardware_concurrency() reads /sys on every call (microseconds): ask once.
  static const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return hardware;
}

RuntimeInfo runtime_info() {
  const jit::HostTarget& host = jit::host_target();
  return {BCAST_VERSION, host.llvm_version, host.cpu, host.triple};
}

}  // namespace bcast
