// BCAST_VERBOSE's create and exec lines (NOTE: [Verbose lines]).
#include "call_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bcast/runtime.h"
#include "config.h"
#include "logging.h"
#include "targets.h"

namespace bcast::report {
namespace {

// "f32[4,3]": no spaces, so that a list of operands splits on them.
std::string operand(DType dtype, const Shape& shape) {
  return fmt::format("{}[{}]", dtype_name(dtype), fmt::join(shape, ","));
}

constexpr std::string_view kApiNames[] = {"op", "prepared", "expr", "prepared_expr"};  // by Api

}  // namespace

void print(std::string_view event, const CallLine& line) {
  std::string inputs;
  for (const TensorView& v : line.inputs) inputs += (inputs.empty() ? "" : " ") + operand(v.dtype(), v.shape());
  const std::string type = line.plan != nullptr ? to_string(line.plan->type) : "[]";
  const std::string us = fmt::format("{:.1f}", std::chrono::duration<double, std::micro>(line.took).count());
  const std::string threads = std::to_string(line.threads);
  logging::verbose().info(logging::verbose_line(
      event, {kApiNames[static_cast<int>(line.api)], line.op, inputs, operand(line.out_dtype, line.out_shape), type,
              line.kernel, line.outcome, threads, us, line.expression}));
}

void binary(std::string_view event, Api api, Op op, const TensorView& a, const TensorView& b, DType out_dtype,
            const Shape& out_shape, const BroadcastPlan& plan, const SelectedKernel& kernel, int threads,
            std::chrono::steady_clock::duration took) {
  const TargetKind target = kernel.outcome == Outcome::ascend_sim ? TargetKind::ascend_sim : TargetKind::host;
  const bool keyed = kernel.jit || kernel.provisional();
  ExprSpecPin spec;  // NOTE: [Interned ids]: while the key prints
  const std::string key =
      keyed ? call_kernel_key(target_for(target), op, a.dtype(), plan, &spec).to_string() : "reference";
  print(event, {.api = api,
                .op = op_name(op),
                .inputs = {a, b},
                .out_dtype = out_dtype,
                .out_shape = out_shape,
                .plan = &plan,
                .kernel = key,
                .outcome = outcome_name(kernel.outcome),
                .threads = threads,
                .took = took});
}

bool wanted() { return config::verbose(); }

}  // namespace bcast::report
