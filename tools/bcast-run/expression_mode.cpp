// bcast-run -e (expression_mode.h).
#include "expression_mode.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "bcast/bcast.h"
#include "error_messages.h"
#include "operand_spec.h"
#include "run_support.h"

namespace bcast::tools {
namespace {

constexpr int kExitOk = 0, kExitMismatch = 1, kExitUsage = 2;

// "2.5" and "-3" are weak scalars; anything else is a tensor operand.
std::optional<ExprOperand> number(const std::string& text) {
  const char* end = text.data() + text.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(text.data(), end, i); ec == std::errc() && p == end) return ExprOperand(i);
  double f = 0;
  if (auto [p, ec] = std::from_chars(text.data(), end, f); ec == std::errc() && p == end) return ExprOperand(f);
  return std::nullopt;
}

std::vector<std::string> dtype_names(const std::vector<DType>& dtypes) {
  std::vector<std::string> names;
  for (DType d : dtypes) names.emplace_back(dtype_name(d));
  return names;
}

// A name the grammar reads as one (NOTE: [Expression grammar]).
bool is_name(std::string_view s) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  return !s.empty() && letter(s[0]) &&
         std::all_of(s.begin(), s.end(), [&](char c) { return letter(c) || (c >= '0' && c <= '9'); });
}

}  // namespace

int run_expression_mode(const ExpressionRun& run) {
  std::mt19937_64 rng(run.seed);
  std::vector<Operand> tensors;  // own the operands' memory
  tensors.reserve(run.operands.size());
  std::map<std::string, ExprOperand, std::less<>> operands;
  for (const std::string& assignment : run.operands) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw RunFailure(kExitUsage, "usage", "operand '" + detail::printable(assignment) + "' is not NAME=OPERAND");
    }
    const std::string name = assignment.substr(0, eq), spec = assignment.substr(eq + 1);
    if (!is_name(name)) {
      throw RunFailure(kExitUsage, "usage", "operand name '" + detail::printable(name) +
                                                "' is not a name (ASCII letters, digits and _, not starting with a digit)");
    }
    if (operands.contains(name)) {
      throw RunFailure(kExitUsage, "usage", "operand '" + name + "' is given twice");
    }
    if (const std::optional<ExprOperand> n = number(spec)) {
      operands.emplace(name, *n);
      continue;
    }
    tensors.push_back(load_operand(spec, rng));
    operands.emplace(name, tensors.back().view);
  }

  const Expr e = parse_expression(run.expression, operands);
  const auto first_start = std::chrono::steady_clock::now();
  Tensor out = evaluate(e);
  const double first_call_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - first_start).count();
  const ExprInfo info = describe(e);
  double ns = 0;
  Spread spread;
  // NOTE: [Tiers]: the repeats time the kernel, not a fallback while it compiles.
  if (run.repeat > 0) {
    wait_for_compiles();
    spread = time_runs([&] { evaluate(e, out); }, run.repeat, 0);
    ns = spread.median;
  }
  const int threads_used = last_call_threads();  // NOTE: [Threads used]: of the last call, timed or first
  if (run.trace) print_trace();
  if (!run.emit_ascend_c.empty() && !write_ascend_c_source(run.emit_ascend_c, run.ascend_c_form)) return 4;
  if (run.check) {
    // The reference evaluator, node by node, on the same operands.
    const bool jit = jit_enabled();
    set_jit_enabled(false);
    const Tensor expected = evaluate(e);
    set_jit_enabled(jit);
    if (const auto bad = first_difference(out, expected)) {
      throw RunFailure(kExitMismatch, "mismatch",
                       fmt::format("check failed: result differs from the reference evaluator at element {} (C order)",
                                   *bad));
    }
  }
  if (!run.output.empty()) save_npy(run.output, out);

  std::int64_t bytes = unique_bytes(out);
  for (const Operand& t : tensors) bytes += unique_bytes(t.view);
  std::cout << fmt::format("{} -> {} {}  structure {}  type {}  kernel {}", run.expression, dtype_name(info.out_dtype),
                           to_string(info.out_shape), info.structure, info.broadcast_type, info.kernel);
  if (run.repeat > 0) std::cout << fmt::format("  median {:.0f} ns (min {:.0f}, max {:.0f})  {:.2f} GB/s", ns, spread.min, spread.max,
                                           static_cast<double>(bytes) / ns);
  if (run.check) std::cout << "  check ok";
  for (std::size_t k = 0; k < info.passes.size(); ++k)  // NOTE: [Expression passes]
    std::cout << (k == 0 ? "\n  passes: " : "; ") << info.passes[k];
  std::cout << "\n";
  if (run.json) {
    nlohmann::json j{{"expression", run.expression},
                     {"structure", info.structure},
                     {"in_dtypes", dtype_names(info.in_dtypes)},
                     {"out_dtype", dtype_name(info.out_dtype)},
                     {"out_shape", info.out_shape},
                     {"out_strides", out.layout().strides},
                     {"broadcast_type", info.broadcast_type},
                     {"kernel", info.kernel},
                     {"passes", info.passes},
                     {"cache", cache_json()},
                     {"bytes", bytes},
                     {"threads", threads_used},
                     {"threads_setting", num_threads()},
                     {"first_call_ns", first_call_ns}};
    if (run.repeat > 0) {
      j.update(spread_json(spread));
      j["gbps"] = static_cast<double>(bytes) / ns;
    }
    if (run.check) j["check"] = "ok";
    if (run.trace) j["trace"] = trace_json();
    std::cout << json_text(j) << "\n";
  }
  return kExitOk;
}

}  // namespace bcast::tools
