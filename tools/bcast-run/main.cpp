// bcast-run: the main job. With no arguments, the built-in demo; otherwise one
// op on two operands (.npy files, index expressions or random literals).
#include <CLI/CLI.hpp>

#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "ascend_c_writer.h"
#include "bcast/bcast.h"
#include "error_messages.h"
#include "demo.h"
#include "expression_mode.h"
#include "function_list.h"
#include "name_lists.h"
#include "manual_page.h"
#include "warm_run.h"
#include "operand_spec.h"
#include "run_support.h"
#include "target_kind.h"

namespace bcast::tools {
namespace {

// Exit statuses (documented in docs/cli.md).
constexpr int kExitOk = 0, kExitMismatch = 1, kExitUsage = 2, kExitInvalidInput = 3, kExitInternal = 4;

struct Options {
  std::string op, a, b, output, expression;
  std::vector<std::string> positional;
  bool check = false, json = false, no_jit = false, trace = false, functions = false;
  std::string target, dump_cache, emit_ascend_c, ascend_c_form = "direct";
  int repeat = 0, threads = 0, warm = -1;
  std::vector<std::string> warm_ops{"add", "sub", "mul", "div", "max", "min"}, warm_dtypes{"f32"};
  std::uint64_t seed = 0;
};


// --warm RANK: pre-generates every broadcast type up to RANK levels.
int warm(const Options& o, const WarmRequest& request) {
  const double ns = time_runs([&] { run_warm(request, std::cout); }, 1, 0).median;  // once: no warm-up run
  const KernelCacheStats s = kernel_cache_stats();
  std::cout << fmt::format("warm: {} kernels for broadcast types up to rank {} ({} compiled, {} failed) in {:.0f} ms\n",
                           s.resident, o.warm, s.compiles, s.failures, ns / 1e6);
  return kExitOk;
}

// The expression mode's run with this invocation's options.
ExpressionRun expression_run(const Options& o, std::string expression, std::vector<std::string> operands) {
  return {.expression = std::move(expression),
          .operands = std::move(operands),
          .output = o.output,
          .check = o.check,
          .json = o.json,
          .trace = o.trace,
          .emit_ascend_c = o.emit_ascend_c,
          .ascend_c_form = o.ascend_c_form,
          .repeat = o.repeat,
          .seed = o.seed};
}

int run_op(const Options& o) {
  const std::optional<Op> op = parse_op(o.op);
  if (!op) {
    std::string names;
    for (int i = 0; i < kNumOps; ++i) names += fmt::format("{}{}", i ? " " : "", op_name(static_cast<Op>(i)));
    throw RunFailure(kExitUsage, "usage", fmt::format("unknown op '{}' (ops: {})", o.op, names));
  }
  std::mt19937_64 rng(o.seed);
  const Operand a = load_operand(o.a, rng);
  const Operand b = load_operand(o.b, rng);
  // NOTE: [Mixed dtypes]: the one-node expression op(a, b), with the same data.
  if (a.view.dtype() != b.view.dtype())
    return run_expression_mode(expression_run(o, fmt::format("{}(a, b)", o.op), {"a=" + o.a, "b=" + o.b}));

  const auto first_start = std::chrono::steady_clock::now();
  Tensor out = binary(*op, a.view, b.view);
  const double first_call_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - first_start).count();
  double ns = 0;
  Spread spread;
  // NOTE: [Tiers]: the repeats time the kernel, not a fallback while it compiles.
  if (o.repeat > 0) {
    wait_for_compiles();
    spread = time_runs([&] { binary(*op, a.view, b.view, out); }, o.repeat, 0);
    ns = spread.median;
  }
  const int threads_used = last_call_threads();  // NOTE: [Threads used]: of the last call, timed or first
  const std::int64_t bytes = unique_bytes(a.view) + unique_bytes(b.view) + unique_bytes(out);
  const std::string type = broadcast_type_of(out.layout(), a.view.layout(), b.view.layout());
  const std::string kernel = kernel_key_for(*op, a.view.dtype(), out.layout(), a.view.layout(), b.view.layout());

  if (o.trace) print_trace();
  if (!o.emit_ascend_c.empty() && !write_ascend_c_source(o.emit_ascend_c, o.ascend_c_form)) return kExitInternal;
  if (o.check) {
    const Tensor expected = expected_result(*op, a.view, b.view);
    if (const auto bad = first_difference(out, expected)) {
      throw RunFailure(kExitMismatch, "mismatch",
                       fmt::format("check failed: result differs from the naive executor at element {} (C order)", *bad));
    }
  }
  if (!o.output.empty()) save_npy(o.output, out);

  std::cout << fmt::format("{} {} {} & {} -> {}  type {}  kernel {}", o.op, dtype_name(a.view.dtype()),
                           to_string(a.view.shape()), to_string(b.view.shape()), to_string(out.shape()), type, kernel);
  if (o.repeat > 0) std::cout << fmt::format("  median {:.0f} ns (min {:.0f}, max {:.0f})  {:.2f} GB/s", ns, spread.min, spread.max,
                                           static_cast<double>(bytes) / ns);
  if (o.check) std::cout << "  check ok";
  std::cout << "\n";
  if (o.json) {
    nlohmann::json j{{"op", o.op},
                     {"dtype", dtype_name(a.view.dtype())},
                     {"out_dtype", dtype_name(out.dtype())},
                     {"a_shape", a.view.shape()},
                     {"b_shape", b.view.shape()},
                     {"out_shape", out.shape()},
                     {"out_strides", out.layout().strides},
                     {"broadcast_type", type},
                     {"kernel", kernel},
                     {"cache", cache_json()},
                     {"bytes", bytes},
                     {"threads", threads_used},
                     {"threads_setting", num_threads()},
                     {"first_call_ns", first_call_ns}};
    if (o.repeat > 0) {
      j.update(spread_json(spread));
      j["gbps"] = static_cast<double>(bytes) / ns;
    }
    if (o.check) j["check"] = "ok";
    if (o.trace) j["trace"] = trace_json();
    std::cout << json_text(j) << "\n";
  }
  return kExitOk;
}

}  // namespace
}  // namespace bcast::tools

int main(int argc, char** argv) {
  using namespace bcast::tools;
  CLI::App app{"bcast-run: run one broadcasting op, or with no arguments the built-in demo", "bcast-run"};
  app.footer(bcast::tools::manual_line("cli.md"));
  Options o;
  app.add_option("args", o.positional,
                 "OP A B: an op name (add sub mul div floor_div max min pow eq ... bit_xor) and two operands, each "
                 "x.npy, x.npy[..., ::-1] or a literal such as f32[8,1,3]; with -e, NAME=OPERAND for each name of "
                 "the expression, where OPERAND may also be a number (a weak scalar)");
  app.add_option("-e,--expr", o.expression, "run an expression instead of one op: \"(f32(x) - m) / s\"");
  app.add_option("-o,--output", o.output, "write the result to this .npy file (C order)");
  app.add_flag("--check", o.check, "compare the result with the naive executor, bit for bit");
  app.add_option("--repeat", o.repeat, "time N runs and report the median and GB/s")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "seed for random literal operands");
  // BCAST_NUM_THREADS's range: a value outside it is a usage error (exit 2), not invalid input.
  CLI::Option* threads =
      app.add_option("--threads", o.threads, "threads per op call (0: one per hardware thread)")
          ->check(CLI::Validator(
              [](std::string& v) -> std::string {
                int n = -1;
                const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
                if (ec == std::errc() && end == v.data() + v.size() && n >= 0 && n <= bcast::kMaxThreads) return "";
                return fmt::format("takes 0 (one thread per hardware thread) to {} threads, not '{}'",
                                   bcast::kMaxThreads, v);
              },
              fmt::format("0..{}", bcast::kMaxThreads)));
  app.add_flag("--json", o.json, "print one JSON object as the last line of stdout");
  app.add_flag("--functions", o.functions, "print every function an expression may call, as docs/semantics.md's table");
  app.add_flag("--no-jit", o.no_jit, "run every op on the reference executor");
  app.add_option("--target", o.target, "host, or ascend-sim (the accelerator simulator)")
      ->check(CLI::IsMember(std::vector<std::string>(bcast::kTargetNames.begin(), bcast::kTargetNames.end())));
  app.add_flag("--trace", o.trace, "print the ascend-sim per-block counters of the call");
  app.add_option("--emit-ascend-c", o.emit_ascend_c,
                 "write the ascend-sim kernel of the call as Ascend C source to FILE (docs/ascend.md)");
  app.add_option("--ascend-c-form", o.ascend_c_form,
                 "--emit-ascend-c's entry point: direct (out, inputs, tiling) or operator (an operator project's "
                 "inputs, out, workspace, tiling and GET_TILING_DATA)")
      ->check(CLI::IsMember(std::vector<std::string>(bcast::ascend::kAscendCFormNames.begin(),
                                                     bcast::ascend::kAscendCFormNames.end())));
  app.add_option("--dump-cache", o.dump_cache, "at the end, write the in-memory kernel cache as JSON (bcast-cache list --memory)");
  app.add_option("--warm", o.warm, "pre-generate the kernels of every broadcast type up to this rank, then go on")
      ->check(CLI::Range(0, bcast::kMaxPregenerateRank));
  CLI::Option* warm_ops =
      app.add_option("--warm-ops", o.warm_ops, "ops for --warm (default add,sub,mul,div,max,min)")->delimiter(',');
  CLI::Option* warm_dtypes = app.add_option("--warm-dtypes", o.warm_dtypes, "dtypes for --warm (default f32)")->delimiter(',');
  app.set_version_flag("--version", [] {
    const bcast::RuntimeInfo info = bcast::runtime_info();
    return fmt::format("bcast-run {} (LLVM {}, host {} {})", info.version, info.llvm_version, info.host_triple,
                       info.host_cpu);
  });
  // A failure: its message on stderr, and with --json one object on stdout
  // (the exit statuses stay docs/cli.md's).
  const auto report = [&o, argc, argv](int status, const std::string& kind, const std::string& message) {
    bool json = o.json;
    for (int i = 1; i < argc; ++i) json = json || std::string_view(argv[i]) == "--json";
    if (json)
      std::cout << json_text({{"error", true}, {"kind", kind}, {"message", bcast::detail::printable(message)}, {"exit", status}})
                << "\n";
    return status;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? kExitOk : report(kExitUsage, "usage", e.what());
  }
  // NOTE: [Tiers]: the kernels this run asked for reach the disk cache before
  // it exits, so that the next process finds them there.
  const auto finish = [&o](int status) {
    bcast::wait_for_compiles();
    if (!o.dump_cache.empty()) bcast::write_kernel_cache_dump(o.dump_cache);
    return status;
  };
  if (o.functions) {
    std::cout << bcast::tools::function_table_markdown();
    return kExitOk;
  }
  try {
    // Only flags given on the command line override the BCAST_* environment.
    if (threads->count() > 0) bcast::set_num_threads(o.threads);
    if (o.no_jit) bcast::set_jit_enabled(false);
    if (!o.target.empty()) bcast::set_target(o.target);
    if (o.warm >= 0)
      warm(o, {.ops = o.warm_ops,
               .dtypes = o.warm_dtypes,
               .max_rank = o.warm,
               .threads = o.threads,
               .ops_given = warm_ops->count() > 0,
               .dtypes_given = warm_dtypes->count() > 0,
               .rank_given = true,
               .ops_option = "--warm-ops",
               .dtypes_option = "--warm-dtypes"});
    if (!o.expression.empty()) {
      return finish(run_expression_mode(expression_run(o, o.expression, o.positional)));
    }
    if (!o.positional.empty() && o.positional.size() != 3)
      throw RunFailure(kExitUsage, "usage", "an op needs two operands: bcast-run OP A B");
    if (!o.positional.empty()) {
      o.op = o.positional[0];
      o.a = o.positional[1];
      o.b = o.positional[2];
    }
    return finish(o.op.empty() ? (o.warm >= 0 ? kExitOk : run_demo(o.repeat > 0 ? o.repeat : 5)) : run_op(o));
  } catch (const RunFailure& e) {
    std::cerr << "bcast-run: " << e.what() << "\n";
    return report(e.status, e.kind, e.what());
  } catch (const bcast::Error& e) {
    std::cerr << "bcast-run: " << e.what() << "\n";
    return report(kExitInvalidInput, std::string(bcast::error_kind_name(e.kind())), e.what());
  } catch (const std::exception& e) {
    std::cerr << "bcast-run: internal error: " << e.what() << "\n";
    return report(kExitInternal, "internal", e.what());
  }
}
