// The ascend-sim path of an op call: the key's lowering on the product, the
// kernel, the launch, and the trace.
#include "ascend_dispatch.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include <fmt/format.h>

#include "ascend_launch.h"
#include "ascend_lowering.h"
#include "ascend_reduce.h"
#include "ascend_target.h"
#include "bcast/runtime.h"
#include "config.h"
#include "expr_kernel.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "logging.h"

namespace bcast {
namespace {

thread_local AscendTrace t_last_trace;

// A call that runs on the host instead: the trace says why, and so does the
// log. What the product or the model cannot do is a warning the first time
// a reason comes up in the process, then debug (NOTE: [Ascend lowering]: a
// fallback is never silent); what the caller chose (the JIT off) or nothing
// to compute is debug.
bool fall_back(AscendTrace& trace, std::string why, bool chosen = false) {
  static std::mutex mutex;
  static std::set<std::string> told;
  bool first = false;
  if (!chosen) {
    const std::lock_guard lock(mutex);
    first = told.insert(why).second;
  }
  if (first) logging::core().warn("ascend-sim: {}; such calls run on the host", why);
  else logging::core().debug("ascend-sim: {}; the call runs on the host", why);
  trace.fallback = std::move(why);
  return false;
}

// Whether a call can reach the simulator at all.
bool may_run(const BroadcastPlan& plan, AscendTrace& trace) {
  if (plan.numel == 0) return fall_back(trace, "nothing to compute: the output is empty", true);
  if (!jit_enabled()) return fall_back(trace, "the JIT is off (BCAST_JIT=0)", true);
  return true;
}

const ascend::Product& product_of(const Target& target) {
  return static_cast<const ascend::AscendTarget&>(target).product();
}

ascend::SimConfig sim_config(const ascend::Product& product) {
  const std::int64_t ub = config::ub_size();
  return {.product = &product, .ub_size = ub > 0 ? ub : product.ub_bytes, .block_num = config::block_num(),
          .double_buffer = config::double_buffer()};
}

// A launch's tiling, counters and schedule into the trace; a broken rule is logged.
bool record(const ascend::Launch& run, std::vector<std::string> fetch, AscendTrace& trace) {
  trace.rows = run.plan.rows, trace.cols = run.plan.cols, trace.pitch = run.plan.pitch;
  trace.tiles = run.plan.tiles, trace.slots = run.plan.slots, trace.ub_bytes = run.plan.ub_bytes;
  trace.shared_granules = run.shared_granules;
  trace.fetch = std::move(fetch);
  for (const ascend::BlockCounters& c : run.blocks) {
    AscendBlockTrace b{c.tiles,  c.gm_to_ub_bytes, c.ub_to_gm_bytes, c.copy_calls, c.vector_calls, c.vector_repeats,
                       c.ub_high_water};
    b.cycles = c.pipes.cycles;
    std::copy(c.pipes.busy.begin(), c.pipes.busy.end(), b.busy.begin());
    b.critical = std::string(ascend::pipe_name(c.pipes.critical));
    b.hazards = c.pipes.hazards;
    trace.blocks.push_back(std::move(b));
  }
  if (!run.error.empty()) {
    if (run.blocks.empty() || run.error.find("ascend-sim") == std::string::npos) return fall_back(trace, run.error);
    trace.fallback = run.error;
    logging::core().error("{} (kernel {}); the call runs on the host", run.error, trace.kernel);
    return false;
  }
  return true;
}

// The lowering, the kernel and the launch of a planned call.
bool run_key(const Target& target, const KernelKey& key, const BroadcastPlan& plan,
             const std::vector<TensorView>& views, std::span<const std::uint64_t> scalars, AscendTrace& trace) {
  const ascend::Product& product = product_of(target);
  trace.product = std::string(product.name);
  trace.clock_ghz = product.clock_ghz;
  const ascend::Lowering lowering = ascend::lower_for_ascend(key, product);
  if (!lowering.refused.empty()) return fall_back(trace, lowering.refused);
  trace.kernel = key.to_string();
  const provider::Kernel kernel = provider::kernel_for(key, target);
  if (kernel.entry == nullptr) return fall_back(trace, "no kernel (compilation failed)");
  const ascend::Launch run = ascend::launch(reinterpret_cast<ascend::KernelFn>(kernel.entry), lowering, plan, views,
                                            scalars, sim_config(product));
  std::vector<std::string> fetch;
  for (ascend::Fetch f : lowering.fetch) fetch.emplace_back(ascend::fetch_name(f));
  return record(run, std::move(fetch), trace);
}

}  // namespace

double AscendTrace::estimated_us() const {
  std::int64_t cycles = 0;
  for (const AscendBlockTrace& b : blocks) cycles = std::max(cycles, b.cycles);
  return clock_ghz > 0 ? static_cast<double>(cycles) / (clock_ghz * 1000.0) : 0.0;
}

AscendTrace last_ascend_trace() { return t_last_trace; }

bool run_on_ascend_target(const Target& target, Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                          const BroadcastPlan& host_plan) {
  const BroadcastPlan plan = with_out_forwards(host_plan);  // the launcher stores out's rows forwards
  AscendTrace& trace = t_last_trace;
  trace = {};  // a call that does not reach the simulator must not show the last one's trace
  if (!may_run(plan, trace)) return false;
  ExprSpecPin spec;  // NOTE: [Interned ids]: the key names it until the call has run
  const KernelKey key =
      make_kernel_key(target, op, a.dtype(), plan, provider::current_codegen_id(), kNeverStream, &spec);
  return run_key(target, key, plan, {out, a, b}, {}, trace);
}

bool run_expression_on_ascend_target(const Target& target, const std::string& structure,
                                     const std::vector<LeafType>& inputs, const std::vector<LeafType>& scalars,
                                     const void* scalar_slots, const BroadcastPlan& host_plan, const TensorView& out,
                                     const std::vector<TensorView>& operands) {
  const BroadcastPlan plan = with_out_forwards(host_plan);  // the launcher stores out's rows forwards
  AscendTrace& trace = t_last_trace;
  trace = {};
  if (!may_run(plan, trace)) return false;
  ExprSpecPin spec;  // NOTE: [Interned ids]: the key names it until the call has run
  const KernelKey key =
      make_expr_kernel_key(target, structure, inputs, scalars, plan, provider::current_codegen_id(), kNeverStream, &spec);
  if (spec->program.code.empty())
    return fall_back(trace, "the expression computes nothing (it copies an input)", true);
  std::vector<TensorView> views{out};
  views.insert(views.end(), operands.begin(), operands.end());
  // The AI core's scalars are 8-byte words (ascend_abi.h): a slot's first 8
  // bytes hold every dtype it has (no complex).
  const auto* slots = static_cast<const ScalarSlot*>(scalar_slots);
  std::vector<std::uint64_t> words(scalars.size());
  for (std::size_t j = 0; j < words.size(); ++j) std::memcpy(&words[j], slots[j].bytes, sizeof words[j]);
  return run_key(target, key, plan, views, words, trace);
}

bool run_reduction_on_ascend_target(const Target& target, std::string_view reduction, const ReduceCall& call,
                                    const TensorView* x, const TensorView& out) {
  AscendTrace& trace = t_last_trace;
  trace = {};
  if (call.plan->outputs == 0 || call.plan->count == 0)
    return fall_back(trace, fmt::format("{}: nothing to reduce (an empty input or result)", reduction), true);
  if (x == nullptr)
    return fall_back(trace, fmt::format("{} of an expression: the reduction kernel reads a tensor, not an "
                                        "expression's values",
                                        reduction));
  const ascend::Product& product = product_of(target);
  const ascend::SimConfig config = sim_config(product);
  trace.product = std::string(product.name);
  trace.clock_ghz = product.clock_ghz;
  const std::string refused = ascend::refuse_reduction(reduction, call, product, config.ub_size);
  if (!refused.empty()) return fall_back(trace, refused);
  trace.kernel = ascend::reduction_kernel_name(call, product);
  return record(ascend::launch_reduction(call, *x, out, config), {"stream"}, trace);
}

}  // namespace bcast
