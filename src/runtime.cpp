// Process-wide runtime settings and the runtime description.
#include "bcast/runtime.h"

#include "jit/host_target.h"
#include "jit/kernel_cache.h"

namespace bcast {

void clear_kernel_cache() { jit::kernel_cache().clear(); }
KernelCacheStats kernel_cache_stats() { return jit::kernel_cache().stats(); }
std::vector<KernelStats> kernel_cache_entries() { return jit::kernel_cache().entries(); }

RuntimeInfo runtime_info() {
  const jit::HostTarget& host = jit::host_target();
  return {BCAST_VERSION, host.llvm_version, host.cpu, host.triple};
}

}  // namespace bcast
