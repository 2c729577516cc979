// How every call runs: one dispatch function for binary calls and
// expressions, plain, memoised or prepared (NOTE: [Dispatch]), and the
// selection of their kernels and fallbacks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bcast/ops.h"
#include "bcast/runtime.h"
#include "bcast/tensor.h"
#include "broadcast_plan.h"
#include "config.h"
#include "executor.h"
#include "expr_kernel.h"
#include "expr_program.h"
#include "kernel_abi.h"
#include "kernel_provider.h"
#include "short_rows.h"
#include "target.h"
#include "thread_pool.h"

namespace bcast {

// Where a call's kernel came from, as BCAST_VERBOSE prints it.
// NOTE: [Tiers]: pending, the call ran on the fallback while its kernel
// compiles; quick, on the first-tier kernel while the full compile runs.
enum class Outcome : std::uint8_t { reference, hit, disk, compiled, failed, ascend_sim, pending, quick };
std::string_view outcome_name(Outcome outcome);  // "reference", "hit", ..., "ascend-sim", "pending", "quick"

// A kernel for a host plan, and what keeps its code loaded while calls run it.
struct SelectedKernel {
  KernelFn fn = nullptr;
  std::shared_ptr<const void> keep_alive{};  // null for the reference executor
  bool jit = false;
  Outcome outcome = Outcome::reference;
  std::atomic<std::uint64_t>* memo_hits = nullptr;  // a JIT kernel's count of memoised calls

  // A fallback or first-tier kernel, taken while the full compile runs: ask
  // again at the next call.
  bool provisional() const { return outcome == Outcome::pending || outcome == Outcome::quick; }
};

// NOTE: [Waiting rule] A call whose kernel is pending waits for it when the
// wait is expected to be shorter than what the fallback costs beyond the
// kernel: wait_us = numel * (fallback - kernel) ns per element / threads,
// against the cache's expected wait (its mean job time, first tier and full
// compile, times the jobs queued: 1.7 + 4.6 ms here). Costs per element on
// one thread, f32, out of cache, measured here (bcast-jit-bench large/*,
// bcast-run -e ... --repeat): the reference executor 0.71 ns (a + b) and
// 0.58 ns (a row), the JIT's kernels 0.43 to 0.65 ns; the expression
// evaluator 4.9 ns for x + y and 9.2 ns for (x - m) * r * g + b, the JIT's
// 0.43 and 0.28 ns. So a binary call waits from ~30 M elements on a thread
// (the reference executor is nearly as fast), a four-node chain from ~0.7 M.
inline constexpr double kReferenceNsPerElement = 0.7;  // the reference executor, binary ops
inline constexpr double kEvaluatorNsPerElement = 2.5;  // the expression evaluator: loads and stores,
inline constexpr double kEvaluatorNsPerNode = 1.7;     // and each node
inline constexpr double kKernelNsPerElement = 0.5;     // a JIT kernel
double wait_budget_us(std::int64_t numel, double fallback_ns);

// NOTE: [Tiers] A kernel chosen once for good (a prepared op or
// expression) that may start provisional (on the fallback, or the first
// tier) while its full compile runs: each call meanwhile asks again and runs
// what it gets (kept in `scratch`), and the first that finds the full kernel
// keeps it. Read by many threads at once: once `final_` is set, the kernel
// never changes.
template <class K>
class PinnedKernel {
 public:
  explicit PinnedKernel(K first) : first_(std::move(first)), final_(!first_.provisional()) {}

  // The kernel to run now; `select` asks the cache again while provisional.
  template <class Select>
  const K& get(Select&& select, K& scratch) const {
    if (final_.load(std::memory_order_acquire)) return first_.provisional() ? ready_ : first_;
    K now = select();
    if (now.provisional()) {
      scratch = std::move(now);
      return scratch;
    }
    const std::lock_guard lock(mutex_);
    if (!final_.load(std::memory_order_relaxed)) {
      ready_ = std::move(now);
      final_.store(true, std::memory_order_release);
    }
    return ready_;
  }
  const K& first() const { return first_; }

 private:
  K first_;               // as selected at prepare(); never changes
  mutable K ready_;       // the kernel that ended a pending first_; written once, before final_
  mutable std::atomic<bool> final_;
  mutable std::mutex mutex_;
};

// The JIT kernel of a host plan when the JIT is on and it compiles; the
// reference executor's otherwise.
SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan);

// The fallback of a program that is one binary op on inputs x0 and x1 of one
// dtype (a binary call's, or evaluate(x + y)'s): the reference executor's
// typed kernel, as select_kernel's, 0.7 ns per element where the evaluator
// takes 4.9 (NOTE: [Waiting rule]); null for every other program, whose
// fallback is the evaluator.
KernelFn reference_kernel_of(const ExprProgram& program);

// NOTE: [Expression kernels]: the JIT's kernel of an expression for a host
// plan, when the JIT is on and it compiles; fn is null otherwise, and the
// caller runs the program's fallback (pending: while the kernel compiles).
// `fallback_ns`: what that fallback costs per element (fallback_ns_of), for
// NOTE: [Waiting rule]. `key`, when given, receives the kernel's key text
// ("reference" without one). `use`: provider::kernel_for's (describe runs
// nothing, so it counts no fallback).
SelectedKernel select_expr_kernel(const std::string& structure, const std::vector<LeafType>& inputs,
                                  const std::vector<LeafType>& scalars, double fallback_ns, const BroadcastPlan& plan,
                                  std::string* key = nullptr, provider::Use use = provider::Use::call,
                                  std::optional<std::uint64_t> stream_min_bytes = std::nullopt);
// NOTE: [Reduction kernels]: the JIT's reduction kernel of an expression
// over `plan`'s levels (out the accumulator), as select_expr_kernel's; fn is
// null where the JIT is off, does not emit it or has not compiled it yet.
SelectedKernel select_reduction_kernel(const std::string& structure, const std::vector<LeafType>& inputs,
                                       const std::vector<LeafType>& scalars, double fallback_ns,
                                       const BroadcastPlan& plan, const ReductionKernel& reduction,
                                       std::string* key = nullptr);
// A program's fallback cost per element: the typed loop's for a one-op
// program (reference_kernel_of), else the evaluator's for its length.
double fallback_ns_of(const ExprProgram& program);

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

// What a call needs that depends only on its layouts, worked out once: its
// plan, the plan's short-row fusion and its direct call. Binary calls and
// expressions alike; the call memos and prepared calls each keep one.
struct PlannedCall {
  BroadcastPlan plan;
  ElementSizes sizes{};            // out's element size, then each input's
  std::optional<FusedRows> fused;  // NOTE: [Short rows]: the widest input's size sets the pattern
  DirectCall direct;               // NOTE: [Direct call]; unusable with short-row fusion

  PlannedCall() = default;
  PlannedCall(BroadcastPlan plan, const ElementSizes& sizes);
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

// dispatch()'s host path for an expression's kernel `fn` on the caller
// alone: NOTE: [Row blocks] runs each block on one thread.
inline void run_on_caller(const PlannedCall& call, KernelFn fn, const OperandPointers& ptrs) {
  if (call.plan.numel == 0) return;
  if (call.fused)
    execute_fused_rows(call.plan, *call.fused, fn, fn, ptrs, call.sizes, 1);
  else if (call.direct.usable())
    call.direct.run(fn, ptrs);
  else
    execute_plan(call.plan, fn, ptrs, call.sizes, 1);
}

// The kernels of NOTE: [Short rows]' two pieces, the fused plan's and the
// rest's, and what keeps their code loaded while they run.
struct ShortRowKernels {
  KernelFn fused = nullptr, rest = nullptr;
  std::shared_ptr<const void> keep_fused{}, keep_rest{};
};

// NOTE: [Dispatch] The one path on which every call runs, a binary op's and
// an expression's, plain, memoised or prepared, deciding in this order: the
// ascend-sim target when it is current (`on_ascend()` runs the call there
// and says whether it could; else the host runs it), nothing for an empty
// output, the short-row fusion when the plan has it (`short_rows(fused)`
// gives its kernels), else the host kernel (`host_kernel()`) as one direct
// call (runs_direct) or split across threads. The callers' kernels are asked
// for only when the host runs them. `ptrs`: out's, then each input's, and the
// kernels' context. Inline: it is the whole of a tiny call.
template <class OnAscend, class HostKernel, class ShortRows>
void dispatch(const PlannedCall& call, const OperandPointers& ptrs, OnAscend&& on_ascend, HostKernel&& host_kernel,
              ShortRows&& short_rows) {
  // Under ascend-sim even an empty call goes to the simulator's path, which
  // records in the trace why it did not run there.
  if (config::ascend_target() && on_ascend()) return;
  if (call.plan.numel == 0) return record_call_threads(1);
  if (call.fused) {
    const ShortRowKernels k = short_rows(*call.fused);
    return record_call_threads(
        execute_fused_rows(call.plan, *call.fused, k.fused, k.rest, ptrs, call.sizes, num_threads()));
  }
  const KernelFn fn = host_kernel();
  if (runs_direct(call)) {
    call.direct.run(fn, ptrs);
    return record_call_threads(1);
  }
  record_call_threads(execute_plan(call.plan, fn, ptrs, call.sizes, num_threads()));
}

// A binary op's call (NOTE: [Dispatch]): its op and dtype, its planned call
// and the host kernel selected for it. The call memo keeps one, whose kernel
// follows the stamp; a prepared op keeps one read-only, with its kernel
// pinned apart.
struct BinaryCall {
  Op op = Op::add;
  DType dtype = DType::f32;
  PlannedCall planned;
  SelectedKernel kernel;  // for a host call without fusion; fn null until selected
  KernelStamp stamp;      // kernel_stamp() when `kernel` was selected

  BinaryCall() = default;
  BinaryCall(Op op, DType dtype, DType out_dtype, BroadcastPlan plan);
  // The host kernel: the kept one while the stamp holds and it is not a
  // pending fallback (NOTE: [Tiers]), else a fresh selection.
  const SelectedKernel& host_kernel();
};

// dispatch() of a validated binary call: with the kernel its stamp keeps, or
// with a prepared op's pinned `kernel`. `ran`, when given, receives the
// kernel that ran (the fused plan's under short-row fusion).
void dispatch(BinaryCall& binary, const TensorView& a, const TensorView& b, const TensorView& out,
              SelectedKernel* ran = nullptr);
void dispatch(const BinaryCall& binary, const SelectedKernel& kernel, const TensorView& a, const TensorView& b,
              const TensorView& out, SelectedKernel* ran = nullptr);

}  // namespace bcast
