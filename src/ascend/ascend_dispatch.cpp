// The ascend-sim path of an op call.
#include "ascend_dispatch.h"

#include <string>

#include "ascend_launch.h"
#include "bcast/runtime.h"
#include "config.h"
#include "expr_kernel.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "logging.h"

namespace bcast {
namespace {

thread_local AscendTrace t_last_trace;

// A call that runs on the host instead: the trace and the log (debug) say why.
bool fall_back(AscendTrace& trace, std::string why) {
  logging::core().debug("ascend-sim: {}; the call runs on the host", why);
  trace.fallback = std::move(why);
  return false;
}

// Whether a call can reach the simulator at all.
bool may_run(const BroadcastPlan& plan, AscendTrace& trace) {
  if (plan.numel == 0) return fall_back(trace, "nothing to compute: the output is empty");
  if (!jit_enabled()) return fall_back(trace, "the JIT is off (BCAST_JIT=0)");
  return true;
}

ascend::SimConfig sim_config() {
  return {.ub_size = config::ub_size(), .block_num = config::block_num(), .double_buffer = config::double_buffer()};
}

// A launch's tiling and counters into the trace; a broken rule is logged.
bool record(const ascend::Launch& run, AscendTrace& trace) {
  trace.tile = run.plan.tile;
  trace.tiles = run.plan.tiles;
  trace.slots = run.plan.slots;
  trace.ub_bytes = run.plan.ub_bytes;
  trace.a_resident = run.plan.resident[kA];
  trace.b_resident = run.plan.resident[kB];
  for (const ascend::BlockCounters& c : run.blocks)
    trace.blocks.push_back({c.tiles, c.gm_to_ub_bytes, c.ub_to_gm_bytes, c.copy_calls, c.vector_repeats, c.ub_high_water});
  if (!run.error.empty()) {
    trace.fallback = run.error;
    logging::core().error("{} (kernel {}); the call runs on the reference executor", run.error, trace.kernel);
    return false;
  }
  return true;
}

}  // namespace

AscendTrace last_ascend_trace() { return t_last_trace; }

bool run_on_ascend_target(const Target& target, Op op, const TensorView& a, const TensorView& b,
                          const TensorView& out, const BroadcastPlan& plan) {
  AscendTrace& trace = t_last_trace;
  trace = {};  // a call that does not reach the simulator must not show the last one's trace
  if (!may_run(plan, trace)) return false;
  const KernelKey key = make_kernel_key(target, op, a.dtype, plan, provider::current_codegen_id());
  trace.kernel = key.to_string();
  const provider::Kernel kernel = provider::kernel_for(key, target);
  if (kernel.entry == nullptr) return fall_back(trace, "no kernel (compilation failed)");
  const ascend::Launch run = ascend::launch(reinterpret_cast<ascend::KernelFn>(kernel.entry), op, plan, a, b, out,
                                            sim_config());
  return record(run, trace);
}

bool run_expression_on_ascend_target(const Target& target, const std::string& structure,
                                     const std::vector<LeafType>& inputs, const std::vector<LeafType>& scalars,
                                     const void* scalar_slots,
                                     const BroadcastPlan& plan, const TensorView& out,
                                     const std::vector<TensorView>& operands) {
  AscendTrace& trace = t_last_trace;
  trace = {};
  if (!may_run(plan, trace)) return false;
  const KernelKey key = make_expr_kernel_key(target, structure, inputs, scalars, plan, provider::current_codegen_id());
  const ExprEvaluator evaluator(expr_kernel_spec(key.expr).program);
  if (evaluator.program().code.empty()) return fall_back(trace, "the expression computes nothing (it copies an input)");
  trace.kernel = key.to_string();
  const provider::Kernel kernel = provider::kernel_for(key, target);
  if (kernel.entry == nullptr) return fall_back(trace, "no kernel (compilation failed)");
  std::vector<TensorView> views{out};
  views.insert(views.end(), operands.begin(), operands.end());
  const ascend::BlockWork work{.expression = &evaluator, .scalars = scalar_slots};
  const ascend::Launch run =
      ascend::launch(reinterpret_cast<ascend::KernelFn>(kernel.entry), work, plan, views, sim_config());
  return record(run, trace);
}

}  // namespace bcast
