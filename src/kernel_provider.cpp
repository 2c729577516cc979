// The kernel provider: JIT cache first, the reference executor as the fallback.
#include "kernel_provider.h"

#include "bcast/runtime.h"
#include "jit/kernel_cache.h"
#include "reference_executor.h"

namespace bcast {

std::uint32_t current_codegen_id() {
  static const std::uint32_t id = intern_codegen_settings(jit::host_codegen_settings(2));
  return id;
}

SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan) {
  if (jit_enabled()) {
    const KernelKey key = make_kernel_key(Target::host, op, dtype, plan, current_codegen_id());
    if (auto kernel = jit::kernel_cache().get(key)) return {kernel->fn, std::move(kernel), true};
  }
  return {reference_kernel(op, dtype), nullptr, false};
}

}  // namespace bcast
