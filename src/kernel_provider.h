// How src/ gets a kernel for a planned call: the JIT cache when the JIT is on
// and compilation succeeds, the reference executor otherwise.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "bcast/tensor.h"
#include "kernel_abi.h"
#include "short_rows.h"

namespace bcast {

// A kernel, and what keeps its code loaded while the call runs.
struct SelectedKernel {
  KernelFn fn = nullptr;
  std::shared_ptr<const void> keep_alive;  // null for the reference executor
  bool jit = false;
  std::string_view outcome = "reference";  // "hit", "disk", "compiled", "failed" or "reference"
};

SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan);

// Runs a validated, planned call on the host, split across threads; `fused`
// is fuse_short_rows(plan), computed once by the caller. Returns the kernel
// that ran (for BCAST_VERBOSE).
SelectedKernel run_on_host(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                           const BroadcastPlan& plan, const std::optional<FusedRows>& fused);

// The interned codegen settings new kernels are compiled with.
std::uint32_t current_codegen_id();

}  // namespace bcast
