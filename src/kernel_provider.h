// How src/ gets a kernel for a planned call: the JIT cache when the JIT is on
// and compilation succeeds, the reference executor otherwise.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "bcast/tensor.h"
#include "kernel_abi.h"
#include "kernel_key.h"
#include "short_rows.h"

namespace bcast {

// A kernel, and what keeps its code loaded while the call runs.
struct SelectedKernel {
  KernelFn fn = nullptr;
  std::shared_ptr<const void> keep_alive;  // null for the reference executor
  bool jit = false;
  std::string_view outcome = "reference";  // "hit", "disk", "compiled", "failed" or "reference"
  std::atomic<std::uint64_t>* memo_hits = nullptr;  // a JIT kernel's count of memoised calls
};

SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan);

// What a selected kernel depends on besides the plan: the codegen settings,
// the JIT switch and the cache's epoch (bumped when any kernel leaves it). A
// caller may reuse a SelectedKernel while the stamp is unchanged, booking each
// reuse in memo_hits (NOTE: [Call memo]).
struct KernelStamp {
  std::uint64_t codegen = 0, epoch = 0;
  bool jit = false;
  friend bool operator==(const KernelStamp&, const KernelStamp&) = default;
};
KernelStamp kernel_stamp();

// Runs a validated, planned call on the host, split across threads; `fused`
// is fuse_short_rows(plan, input element size), computed once by the caller. Returns the kernel
// that ran (for BCAST_VERBOSE).
SelectedKernel run_on_host(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                           const BroadcastPlan& plan, const std::optional<FusedRows>& fused);

// The interned codegen settings new kernels are compiled with.
std::uint32_t current_codegen_id();

// The key a planned call on `target` runs with under the current settings
// (codegen, and the streaming threshold of NOTE: [Streaming stores]).
KernelKey call_kernel_key(Target target, Op op, DType dtype, const BroadcastPlan& plan);

// The target ops run on now (BCAST_TARGET).
Target current_target();

}  // namespace bcast
