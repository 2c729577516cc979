// How every call runs: one dispatch function for plain ops, prepared ops and
// pre-generated kernels alike (NOTE: [Dispatch]).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcast/ops.h"
#include "bcast/tensor.h"
#include "broadcast_plan.h"
#include "config.h"
#include "executor.h"
#include "expr_program.h"
#include "kernel_abi.h"
#include "short_rows.h"
#include "target.h"

namespace bcast {

// Where a call's kernel came from, as BCAST_VERBOSE prints it.
enum class Outcome : std::uint8_t { reference, hit, disk, compiled, failed, ascend_sim };
std::string_view outcome_name(Outcome outcome);  // "reference", "hit", ..., "ascend-sim"

// A kernel for a host plan, and what keeps its code loaded while calls run it.
struct SelectedKernel {
  KernelFn fn = nullptr;
  std::shared_ptr<const void> keep_alive{};  // null for the reference executor
  bool jit = false;
  Outcome outcome = Outcome::reference;
  std::atomic<std::uint64_t>* memo_hits = nullptr;  // a JIT kernel's count of memoised calls
};

// The JIT kernel of a host plan when the JIT is on and it compiles; the
// reference executor's otherwise.
SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan);

// NOTE: [Expression kernels]: the JIT's kernel of an expression for a host
// plan, when the JIT is on and it compiles; fn is null otherwise, and the
// caller runs the reference evaluator. `key`, when given, receives the
// kernel's key text ("reference" without one).
SelectedKernel select_expr_kernel(const std::string& structure, const std::vector<LeafType>& inputs,
                                  const std::vector<LeafType>& scalars, const BroadcastPlan& plan,
                                  std::string* key = nullptr);

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

// What a call needs that depends only on its op, dtypes and layouts, worked
// out once: the call memo and prepared ops each keep one.
struct PlannedCall {
  Op op = Op::add;
  DType dtype = DType::f32;
  BroadcastPlan plan;
  std::optional<FusedRows> fused;  // NOTE: [Short rows]
  DirectCall direct;               // NOTE: [Direct call]; unusable with short-row fusion
  SelectedKernel kernel;           // for a host call without fusion; fn null until selected
  KernelStamp stamp;               // kernel_stamp() when `kernel` was selected

  PlannedCall() = default;
  PlannedCall(Op op, DType dtype, DType out_dtype, BroadcastPlan plan);
  // The host kernel: the kept one while the stamp holds, else a fresh selection.
  const SelectedKernel& host_kernel();
  // Selects the host kernel once, for good (a prepared op): the call is then
  // read-only, and may run on many threads at once.
  void pin_kernel() { host_kernel(); }
};

// NOTE: [Direct call]: whether dispatch() runs `call` as one direct call of
// its host kernel: it has one (no fusion, no tiles, elements), it stays on
// the caller (under BCAST_GRAIN elements, or one thread; the thread count is
// read only for calls over the grain) and the target is the host. Inline: it
// is the whole decision of a tiny call.
inline bool runs_direct(const PlannedCall& call) {
  return call.direct.usable() && (call.plan.numel < config::grain() || config::threads() <= 1) &&
         !config::ascend_target();
}

// NOTE: [Dispatch] Runs a validated call, deciding in this order: the
// ascend-sim target when it is current (falling back to the host when the
// simulator cannot run it), nothing for an empty output, the short-row
// fusion when the plan has it, else the host kernel as one direct call
// (runs_direct), or split across threads. `ran`, when given, receives the
// kernel that ran. The call memo passes its call, whose kernel follows the
// stamp; a prepared op passes its pinned call, read-only.
void dispatch(PlannedCall& call, const TensorView& a, const TensorView& b, const TensorView& out,
              SelectedKernel* ran = nullptr);
void dispatch(const PlannedCall& pinned, const TensorView& a, const TensorView& b, const TensorView& out,
              SelectedKernel* ran = nullptr);

}  // namespace bcast
