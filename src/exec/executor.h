// Running a planned call: one kernel (JIT-compiled or reference) over the
// whole plan, split across threads for large calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bcast/layout.h"
#include "broadcast_plan.h"
#include "kernel_abi.h"
#include "short_rows.h"

namespace bcast {

// Pointers to element (0,...,0) of each operand's view, out first, then the
// inputs (a plan's operands() of them), and an expression's scalar values.
struct OperandPointers {
  std::array<const void*, kMaxOperands> data{};
  const void* context = nullptr;  // KernelArgs::context
};
using ElementSizes = std::array<std::size_t, kMaxOperands>;  // by operand, as OperandPointers

// Runs `kernel` over every element of `plan` on up to `threads` threads (the
// caller's among them); calls under BCAST_GRAIN elements stay on the caller and
// never touch the pool. Work is split over the outer iterations, or, when there
// are fewer of them than pieces, over the innermost level (NOTE: [Thread pool]).
// Returns the threads that ran parts of it (NOTE: [Threads used]).
int execute_plan(const BroadcastPlan& plan, KernelFn kernel, const OperandPointers& ptrs, const ElementSizes& sizes,
                  int threads);

// NOTE: [Short rows]: runs `plan` as `fused` rewrites it: the fused plan
// with each repeated input read from a pattern of its row (filled here, a
// buffer per thread and input) by `fused_kernel`, then the rows left over on
// the original pointers by `rest_kernel`. Binary calls and expressions
// alike; returns the threads that ran parts of it.
int execute_fused_rows(const BroadcastPlan& plan, const FusedRows& fused, KernelFn fused_kernel, KernelFn rest_kernel,
                       const OperandPointers& ptrs, const ElementSizes& sizes, int threads);

// The kernel arguments' rows of strides and spans (NOTE: [Kernel ABI]): each
// operand's, rank entries each, back to back. The one packer of them.
void pack_rows(const BroadcastPlan& plan, std::int64_t* strides, std::int64_t* spans);

// Whether execute_plan runs `plan` on the caller's thread alone: fewer
// elements than BCAST_GRAIN, or one thread. Such calls never touch the pool.
bool stays_on_caller(const BroadcastPlan& plan, int threads);

// Whether execute_plan runs `plan` in tiles of its last two levels (NOTE:
// [Blocked order]): an input that walks memory faster along the outer of them.
bool uses_blocked_order(const BroadcastPlan& plan, std::size_t out_element_size);

// NOTE: [Direct call] The kernel arguments of a plan that runs as one chunk,
// laid out once: the ABI's rows of extents, strides and spans, each operand's
// byte offset to its first visited element and the outer count. Prepared ops
// (NOTE: [Prepared fast path]) and the call memo (NOTE: [Call memo]) keep one,
// so that a repeated call that stays on the caller is a kernel call and nothing
// else: no index arithmetic, no copies into argument arrays.
class DirectCall {
 public:
  DirectCall() = default;
  // Usable when the plan has elements and does not run in tiles.
  DirectCall(const BroadcastPlan& plan, const ElementSizes& sizes);
  bool usable() const { return usable_; }
  // What execute_plan(plan, kernel, ptrs, sizes, threads) does when
  // stays_on_caller(plan, threads). Inline: it is the whole of a tiny call.
  void run(KernelFn kernel, const OperandPointers& ptrs) const {
    std::array<std::int64_t, kMaxRank> index;  // the odometer starts at 0; the kernel reads rank - 1 entries
    for (int l = 0; l + 1 < rank_; ++l) index[l] = 0;
    std::array<void*, kMaxOperands> data;
    for (int k = 0; k < operands_; ++k)
      data[k] = const_cast<char*>(static_cast<const char*>(ptrs.data[k]) + first_byte_[k]);
    const KernelArgs args{data.data(), extents_.data(), strides_.data(), spans_.data(),
                          index.data(), count_,      rank_,           ptrs.context};
    kernel(&args);
  }

 private:
  bool usable_ = false;
  int rank_ = 0, operands_ = 0;
  std::int64_t count_ = 0;
  std::vector<std::int64_t> extents_, strides_, spans_;
  std::array<std::int64_t, kMaxOperands> first_byte_{};
};

}  // namespace bcast
