// The one dispatch function (NOTE: [Dispatch]) and kernel selection.
#include "dispatch.h"

#include <algorithm>
#include <vector>

#include "ascend_dispatch.h"
#include "bcast/runtime.h"
#include "config.h"
#include "expr_kernel.h"
#include "function_table.h"
#include "kernel_provider.h"
#include "logging.h"
#include "reference_executor.h"
#include "targets.h"
#include "thread_pool.h"
#include "variant.h"

namespace bcast {
namespace {

Outcome outcome_of(provider::KernelSource source) {
  constexpr Outcome kOutcomes[] = {Outcome::hit,    Outcome::disk,    Outcome::compiled,
                                   Outcome::failed, Outcome::pending, Outcome::quick};  // by source
  return kOutcomes[static_cast<std::size_t>(source)];
}

}  // namespace

std::string_view outcome_name(Outcome outcome) {
  constexpr std::string_view kNames[] = {"reference", "hit",        "disk",
                                         "compiled",  "failed",     "ascend-sim",
                                         "pending",   "quick"};  // by Outcome
  return kNames[static_cast<std::size_t>(outcome)];
}

namespace {

// BCAST_LOG_LEVEL=debug: the key a call looked up and why it has the
// variants it has.
void log_variants(const KernelKey& key, const BroadcastPlan& plan) {
  if (logging::jit().should_log(spdlog::level::debug))
    logging::jit().debug("key {}: {}", key.to_string(), describe_variants(key, plan));
}

// BCAST_LOG_LEVEL=debug: a call that does not run its full JIT kernel, and
// why. `name()` names the call's kernel; it runs only when the line is logged.
template <class Name>
void log_fallback(Outcome outcome, Name&& name) {
  if (!logging::core().should_log(spdlog::level::debug)) return;
  const std::string what = name();
  switch (outcome) {
    case Outcome::reference:
      logging::core().debug("{}: the JIT is off (BCAST_JIT=0); the call runs on the reference executor", what);
      break;
    case Outcome::failed:
      logging::core().debug("{}: its compile failed; the call runs on the reference executor", what);
      break;
    case Outcome::pending:
      logging::core().debug("{}: compiling in the background; the call runs on the reference executor (NOTE: [Tiers])",
                            what);
      break;
    case Outcome::quick:
      logging::core().debug("{}: the full kernel is compiling; the call runs on the quick first tier (NOTE: [Tiers])",
                            what);
      break;
    default: break;
  }
}

// BCAST_LOG_LEVEL=debug: a call whose program the JIT does not emit yet.
void log_not_emitted(const KernelKey& key) {
  if (logging::core().should_log(spdlog::level::debug))
    logging::core().debug("{}: a complex instruction of its program has no IR yet (jit/ir/complex_coverage.h); the "
                          "call runs on the reference executor or evaluator",
                          key.to_string());
}

}  // namespace

double wait_budget_us(std::int64_t numel, double fallback_ns) {
  const double threads = std::min<double>(num_threads(), std::max<double>(1, static_cast<double>(numel) /
                                                                                   static_cast<double>(config::grain())));
  return std::max(0.0, static_cast<double>(numel) * (fallback_ns - kKernelNsPerElement) / threads / 1e3);
}

SelectedKernel select_kernel(Op op, DType dtype, const BroadcastPlan& plan) {
  if (!jit_enabled()) {
    log_fallback(Outcome::reference,
                 [&] { return fmt::format("{}.{} {}", op_name(op), dtype_name(dtype), to_string(plan.type)); });
    return {.fn = reference_kernel(op, dtype), .outcome = Outcome::reference};
  }
  const Target& host = target_for(TargetKind::host);
  ExprSpecPin spec;  // NOTE: [Interned ids]: key names it until this returns
  const KernelKey key = call_kernel_key(host, op, dtype, plan, &spec);
  if (!provider::emits(spec->program)) {
    log_not_emitted(key);
    return {.fn = reference_kernel(op, dtype), .outcome = Outcome::reference};
  }
  log_variants(key, plan);
  provider::Kernel kernel = provider::kernel_for(key, host, wait_budget_us(plan.numel, kReferenceNsPerElement));
  const Outcome outcome = outcome_of(kernel.source);
  log_fallback(outcome, [&] { return key.to_string(); });
  if (kernel.fn == nullptr) return {.fn = reference_kernel(op, dtype), .outcome = outcome};
  return {.fn = kernel.fn,
          .keep_alive = std::move(kernel.keep_alive),
          .jit = true,
          .outcome = outcome,
          .memo_hits = kernel.memo_hits};
}

KernelFn reference_kernel_of(const ExprProgram& program) {
  if (program.code.size() != 1 || program.inputs.size() != 2 || !program.scalars.empty()) return nullptr;
  const ExprInstr& s = program.code[0];
  const auto op = static_cast<Op>(s.code);
  const DType dtype = program.inputs[0];
  if (s.kind != InstrKind::binary || s.args[0] != 0 || s.args[1] != 1 || program.result != program.first_instr() ||
      program.inputs[1] != dtype || s.in != dtype || !detail::supports(op, dtype) || is_complex(dtype) ||
      is_complex(program.out_dtype) || program.out_dtype != result_dtype(op, dtype))
    return nullptr;
  return reference_kernel(op, dtype);
}

double fallback_ns_of(const ExprProgram& program) {
  if (reference_kernel_of(program) != nullptr) return kReferenceNsPerElement;
  return kEvaluatorNsPerElement + kEvaluatorNsPerNode * static_cast<double>(program.code.size());
}

namespace {

// The kernel of `k`, whose spec `spec` pins, for a call over `numel`
// elements whose fallback costs fallback_ns each.
SelectedKernel select_keyed(const KernelKey& k, const ExprSpecPin& spec, double fallback_ns, const BroadcastPlan& plan,
                            std::string* key, provider::Use use) {
  if (!provider::emits(spec->program)) {  // the pinned spec: no second look-up of k's
    log_not_emitted(k);
    return {};
  }
  log_variants(k, plan);
  const Target& host = target_for(TargetKind::host);
  provider::Kernel kernel = provider::kernel_for(k, host, wait_budget_us(plan.numel, fallback_ns), use);
  log_fallback(outcome_of(kernel.source), [&] { return k.to_string(); });
  if (kernel.fn == nullptr && kernel.source != provider::KernelSource::pending) return {.outcome = Outcome::failed};
  if (key != nullptr) *key = k.to_string();
  if (kernel.source == provider::KernelSource::pending) return {.outcome = Outcome::pending};
  return {.fn = kernel.fn,
          .keep_alive = std::move(kernel.keep_alive),
          .jit = true,
          .outcome = outcome_of(kernel.source),
          .memo_hits = kernel.memo_hits};
}

}  // namespace

SelectedKernel select_expr_kernel(const std::string& structure, const std::vector<LeafType>& inputs,
                                  const std::vector<LeafType>& scalars, double fallback_ns, const BroadcastPlan& plan,
                                  std::string* key, provider::Use use, std::optional<std::uint64_t> stream_min_bytes) {
  if (key != nullptr) *key = "reference";
  if (!jit_enabled()) return {};
  const Target& host = target_for(TargetKind::host);
  ExprSpecPin spec;  // NOTE: [Interned ids]: k names it until this returns
  const KernelKey k = make_expr_kernel_key(host, structure, inputs, scalars, plan, provider::current_codegen_id(),
                                           stream_min_bytes.value_or(stream_threshold(host)), &spec);
  return select_keyed(k, spec, fallback_ns, plan, key, use);
}

SelectedKernel select_reduction_kernel(const std::string& structure, const std::vector<LeafType>& inputs,
                                       const std::vector<LeafType>& scalars, double fallback_ns,
                                       const BroadcastPlan& plan, const ReductionKernel& reduction, std::string* key) {
  if (key != nullptr) *key = "reference";
  if (!jit_enabled()) return {};
  ExprSpecPin spec;  // NOTE: [Interned ids]: k names it until this returns
  const KernelKey k = make_reduction_kernel_key(target_for(TargetKind::host), structure, inputs, scalars, plan,
                                                provider::current_codegen_id(), reduction, &spec);
  if (!reduction_kernel_valid(k)) return {};
  return select_keyed(k, spec, fallback_ns, plan, key, provider::Use::call);
}

KernelStamp kernel_stamp() { return {config::codegen_generation(), provider::epoch(), jit_enabled()}; }

PlannedCall::PlannedCall(BroadcastPlan p, const ElementSizes& s) : plan(std::move(p)), sizes(s) {
  std::size_t widest = 1;
  for (int k = 1; k < plan.operands(); ++k) widest = std::max(widest, sizes[static_cast<std::size_t>(k)]);
  fused = fuse_short_rows(plan, widest);
  if (!fused) direct = DirectCall(plan, sizes);
}

BinaryCall::BinaryCall(Op o, DType d, DType out_dtype, BroadcastPlan p)
    : op(o), dtype(d), planned(std::move(p), {dtype_size(out_dtype), dtype_size(d), dtype_size(d)}) {}

const SelectedKernel& BinaryCall::host_kernel() {
  const KernelStamp now = kernel_stamp();  // read first: an eviction after it shows at the next call
  if (kernel.fn != nullptr && stamp == now && !kernel.provisional()) {
    if (kernel.memo_hits != nullptr) kernel.memo_hits->fetch_add(1, std::memory_order_relaxed);
    if (kernel.jit) kernel.outcome = Outcome::hit;
    return kernel;
  }
  kernel = select_kernel(op, dtype, planned.plan);
  stamp = now;
  return kernel;
}

namespace {

// dispatch() of a binary call with the host kernel from `host_kernel()`:
// NOTE: [Short rows]' pieces each take the kernel of their own plan (the
// rest's rows may take NOTE: [Fixed rows]), selected per call.
template <class HostKernel>
void dispatch_binary(const BinaryCall& binary, HostKernel&& host_kernel, const TensorView& a, const TensorView& b,
                     const TensorView& out, SelectedKernel* ran) {
  const PlannedCall& call = binary.planned;
  const auto on_ascend = [&] {
    if (!run_on_ascend_target(target_for(TargetKind::ascend_sim), binary.op, a, b, out, call.plan)) return false;
    if (ran != nullptr) *ran = {.jit = true, .outcome = Outcome::ascend_sim};
    return true;
  };
  const auto main_kernel = [&] {
    const SelectedKernel& kernel = host_kernel();
    if (ran != nullptr) *ran = kernel;
    return kernel.fn;
  };
  const auto short_rows = [&](const FusedRows& fused) {
    SelectedKernel kernel = select_kernel(binary.op, binary.dtype, fused.fused);
    ShortRowKernels pieces{.fused = kernel.fn, .keep_fused = kernel.keep_alive};
    if (fused.rest.numel > 0) {
      SelectedKernel rest = select_kernel(binary.op, binary.dtype, fused.rest);
      pieces.rest = rest.fn;
      pieces.keep_rest = std::move(rest.keep_alive);
    }
    if (ran != nullptr) *ran = std::move(kernel);
    return pieces;
  };
  dispatch(call, {{out.data(), a.data(), b.data()}}, on_ascend, main_kernel, short_rows);
}

}  // namespace

void dispatch(BinaryCall& binary, const TensorView& a, const TensorView& b, const TensorView& out,
              SelectedKernel* ran) {
  const auto host_kernel = [&]() -> const SelectedKernel& { return binary.host_kernel(); };
  dispatch_binary(binary, host_kernel, a, b, out, ran);
}

void dispatch(const BinaryCall& binary, const SelectedKernel& kernel, const TensorView& a, const TensorView& b,
              const TensorView& out, SelectedKernel* ran) {
  const auto host_kernel = [&]() -> const SelectedKernel& { return kernel; };
  dispatch_binary(binary, host_kernel, a, b, out, ran);
}

}  // namespace bcast
