// The op entry points: validate, plan, execute.
#include "bcast/ops.h"

#include <array>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "bcast/runtime.h"
#include "config.h"
#include "error_messages.h"
#include "broadcast_plan.h"
#include "ascend_dispatch.h"
#include "executor.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "scalar_ops.h"
#include "validate_binary.h"

namespace bcast {
namespace {

constexpr std::array<std::string_view, kNumOps> kOpNames{
#define BCAST_OP_NAME(name) #name,
    BCAST_FOR_EACH_OP(BCAST_OP_NAME)
#undef BCAST_OP_NAME
};

// BCAST_VERBOSE: one line per call on stderr.
void report_call(Op op, const TensorView& a, const TensorView& b, const TensorView& out, const BroadcastPlan& plan,
                 const SelectedKernel& kernel, std::chrono::steady_clock::duration took) {
  const Target target = kernel.outcome == "ascend-sim" ? Target::ascend_sim : Target::host;
  const std::string key =
      kernel.jit ? call_kernel_key(target, op, a.dtype, plan).to_string() : "reference";
  const std::string line = fmt::format(
      "bcast: {} {} {} & {} -> {} {} type {} kernel {} ({}) {:.1f} us\n", op_name(op), dtype_name(a.dtype),
      to_string(a.shape()), to_string(b.shape()), to_string(out.shape()), dtype_name(out.dtype), to_string(plan.type),
      key, kernel.outcome, std::chrono::duration<double, std::micro>(took).count());
  std::fputs(line.c_str(), stderr);
}

// NOTE: [Call memo] Programs call the same op on the same layouts over and
// over, with new data each time. Each thread remembers its last call's op,
// dtypes, layouts and plan; a call that matches skips shape validation and
// planning (their outcome depends on nothing else) but not the checks on data
// pointers, which may change. It also keeps the kernel it selected, reused
// while kernel_stamp() holds (no look-up: the kernel cache's mutex, hash and
// LRU splice were a third of a tiny call); each reuse is booked as a cache hit
// through the kernel's memo_hits. A call that stays on the caller runs the
// kernel with the arguments laid out at remember() (NOTE: [Direct call]),
// skipping execute_plan. A kernel used only through memos is not
// moved up the LRU list; when it is evicted the stamp changes and the next
// call looks it up again.
struct CallMemo {
  bool valid = false;
  Op op{};
  DType dtype{}, out_dtype{};
  Layout a, b, out;
  bool out_is_fresh = false;  // out was C-contiguous of the broadcast shape
  BroadcastPlan plan;
  std::optional<FusedRows> fused;  // NOTE: [Short rows]
  DataCheck data;                  // the data-pointer checks, their layout part done
  DirectCall direct;               // NOTE: [Direct call], for a host call without short-row fusion
  SelectedKernel kernel;           // for a host call without short-row fusion; fn null until selected
  KernelStamp stamp;               // kernel_stamp() when `kernel` was selected

  bool matches(Op o, const TensorView& x, const TensorView& y) const {
    return valid && op == o && dtype == x.dtype && x.dtype == y.dtype && a == x.layout && b == y.layout;
  }
  void remember(Op o, const TensorView& x, const TensorView& y, const TensorView& z, bool fresh, BroadcastPlan p) {
    valid = true;
    op = o;
    dtype = x.dtype;
    out_dtype = z.dtype;
    a = x.layout;
    b = y.layout;
    out = z.layout;
    out_is_fresh = fresh;
    plan = std::move(p);
    fused = fuse_short_rows(plan, dtype_size(x.dtype));
    data = DataCheck(x.dtype, z.dtype, x.layout, y.layout, z.layout);
    direct = fused ? DirectCall{} : DirectCall(plan, {z.element_size(), x.element_size(), y.element_size()});
    kernel = {};
  }

  // The kernel for the remembered plan: the memoised one while the stamp
  // holds, else a fresh selection.
  const SelectedKernel& host_kernel() {
    const KernelStamp now = kernel_stamp();  // read first: an eviction after it shows at the next call
    if (kernel.fn != nullptr && stamp == now) {
      if (kernel.memo_hits != nullptr) kernel.memo_hits->fetch_add(1, std::memory_order_relaxed);
      kernel.outcome = kernel.jit ? "hit" : kernel.outcome;
      return kernel;
    }
    kernel = select_kernel(op, dtype, plan);
    stamp = now;
    return kernel;
  }
};
thread_local CallMemo t_memo;

// The fresh output of binary(op, a, b); a failed allocation names the op.
Tensor allocate_output(Op op, DType dtype, const Shape& shape) {
  try {
    return Tensor(dtype, shape);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::memory) throw;
    detail::fail(ErrorKind::memory, "{}: output: {}", op_name(op), e.what());
  }
}

// Runs a validated call: the one `memo` remembers.
void execute(CallMemo& memo, Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  const BroadcastPlan& plan = memo.plan;
  const bool verbose = config::verbose();
  const auto start = verbose ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  SelectedKernel kernel;
  if (run_on_ascend(op, a, b, out, plan)) {
    kernel.jit = true;
    kernel.outcome = "ascend-sim";
  } else if (plan.numel > 0 && !memo.fused) {
    const SelectedKernel& selected = memo.host_kernel();
    const OperandPointers ptrs{out.data, a.data, b.data};
    const int threads = num_threads();
    if (memo.direct.usable() && stays_on_caller(plan, threads))
      memo.direct.run(selected.fn, ptrs);
    else
      execute_plan(plan, selected.fn, ptrs, {out.element_size(), a.element_size(), b.element_size()}, threads);
    if (verbose) kernel = selected;
  } else if (plan.numel > 0) {
    kernel = run_on_host(op, a, b, out, plan, memo.fused);
  }
  if (verbose) report_call(op, a, b, out, plan, kernel, std::chrono::steady_clock::now() - start);
}

}  // namespace

std::string_view op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<Op> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i)
    if (kOpNames[i] == name) return static_cast<Op>(i);
  return std::nullopt;
}

bool op_supports(Op op, DType dtype) { return detail::supports(op, dtype); }
DType result_dtype(Op op, DType input) { return detail::result_dtype_of(op, input); }

// Each function touches the thread-local memo once: every access to a
// thread_local of a shared library goes through __tls_get_addr.
Tensor binary(Op op, const TensorView& a, const TensorView& b) {
  CallMemo& memo = t_memo;
  if (memo.matches(op, a, b) && memo.out_is_fresh) {
    Tensor out = allocate_output(op, memo.out_dtype, memo.out.shape);
    if (!memo.data.passes(a.data, b.data, out.data())) validate_data(op, a, b, out);
    execute(memo, op, a, b, out);
    return out;
  }
  const Shape shape = validate_inputs(op, a, b);
  Tensor out = allocate_output(op, result_dtype(op, a.dtype), shape);
  memo.remember(op, a, b, out, true, plan_broadcast(out.layout(), a.layout, b.layout));
  execute(memo, op, a, b, out);
  return out;
}

void binary(Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  CallMemo& memo = t_memo;
  if (memo.matches(op, a, b) && memo.out == out.layout && memo.out_dtype == out.dtype) {
    if (!memo.data.passes(a.data, b.data, out.data)) validate_data(op, a, b, out);
    execute(memo, op, a, b, out);
    return;
  }
  const Shape shape = validate_inputs(op, a, b);
  validate_out(op, a, b, out, shape);
  memo.remember(op, a, b, out, false, plan_broadcast(out.layout, a.layout, b.layout));
  execute(memo, op, a, b, out);
}

#define BCAST_OP_DEF(name)                                                                      \
  Tensor name(const TensorView& a, const TensorView& b) { return binary(Op::name, a, b); }      \
  void name(const TensorView& a, const TensorView& b, const TensorView& out) {                  \
    binary(Op::name, a, b, out);                                                                \
  }
BCAST_FOR_EACH_OP(BCAST_OP_DEF)
#undef BCAST_OP_DEF

}  // namespace bcast
