// The kernel provider: JIT cache first, the reference executor as the fallback.
#include "kernel_provider.h"

#include <atomic>

#include "bcast/runtime.h"
#include "executor.h"
#include "config.h"
#include "jit/kernel_cache.h"
#include "reference_executor.h"

namespace bcast {

std::uint32_t current_codegen_id() {
  // (generation << 32 | id): re-interned only after a setting that changes code changed.
  static std::atomic<std::uint64_t> cached{~std::uint64_t{0}};
  const std::uint64_t generation = config::codegen_generation();
  std::uint64_t c = cached.load(std::memory_order_acquire);
  if ((c >> 32) != (generation & 0xffffffffu)) {
    const std::uint32_t id = intern_codegen_settings(jit::host_codegen_settings(config::opt_level(), config::max_isa()));
    c = (generation << 32) | id;
    cached.store(c, std::memory_order_release);
  }
  return static_cast<std::uint32_t>(c);
}

KernelKey call_kernel_key(Target target, Op op, DType dtype, const BroadcastPlan& plan) {
  return make_kernel_key(target, op, dtype, plan, current_codegen_id(), config::stream_min_bytes());
}

SelectedKernel run_on_host(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                           const BroadcastPlan& plan, const std::optional<FusedRows>& fused) {
  const ElementSizes sizes{out.element_size(), a.element_size(), b.element_size()};
  const OperandPointers ptrs{out.data, a.data, b.data};
  if (!fused) {
    SelectedKernel kernel = select_kernel(op, a.dtype, plan);
    execute_plan(plan, kernel.fn, ptrs, sizes, num_threads());
    return kernel;
  }
  // NOTE: [Short rows]
  thread_local std::vector<std::byte> pattern;
  fill_pattern(*fused, plan, fused->repeated == kA ? a.data : b.data, a.element_size(), pattern);
  OperandPointers with_pattern = ptrs;
  (fused->repeated == kA ? with_pattern.a : with_pattern.b) = pattern.data();
  SelectedKernel kernel = select_kernel(op, a.dtype, fused->fused);
  execute_plan(fused->fused, kernel.fn, with_pattern, sizes, num_threads());
  if (fused->rest.numel > 0) {
    const SelectedKernel rest = select_kernel(op, a.dtype, fused->rest);
    execute_plan(fused->rest, rest.fn, ptrs, sizes, num_threads());
  }
  return kernel;
}

Target current_target() { return config::ascend_target() ? Target::ascend_sim : Target::host; }

KernelStamp kernel_stamp() {
  return {config::codegen_generation(), jit::kernel_cache().epoch(), jit_enabled()};
}

SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan) {
  std::string_view outcome = "reference";
  if (jit_enabled()) {
    const KernelKey key = call_kernel_key(Target::host, op, dtype, plan);
    jit::CacheOutcome how{};
    if (auto kernel = jit::kernel_cache().get(key, &how)) {
      std::atomic<std::uint64_t>* memo_hits = &kernel->memo_hits;
      return {kernel->fn, std::move(kernel), true, jit::cache_outcome_name(how), memo_hits};
    }
    outcome = jit::cache_outcome_name(how);
  }
  return {reference_kernel(op, dtype), nullptr, false, outcome};
}

}  // namespace bcast
