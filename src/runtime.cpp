// Process-wide runtime settings and the runtime description.
#include "bcast/runtime.h"

#include <atomic>
#include <thread>

#include "jit/host_target.h"
#include "error_messages.h"

namespace bcast {
namespace {
std::atomic<int> g_num_threads{0};
}

void set_num_threads(int n) {
  if (n < 0) detail::fail(ErrorKind::value, "set_num_threads: {} is negative (0 means one per hardware thread)", n);
  g_num_threads.store(n, std::memory_order_relaxed);
}

int num_threads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  return std::max(1u, std::thread::hardware_concurrency());
}

RuntimeInfo runtime_info() {
  const jit::HostTarget& host = jit::host_target();
  return {BCAST_VERSION, host.llvm_version, host.cpu, host.triple};
}

}  // namespace bcast
