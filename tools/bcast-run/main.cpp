// bcast-run: the main job. With no arguments, the built-in demo; otherwise one
// op on two operands (.npy files, index expressions or random literals).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "bcast/bcast.h"
#include "demo.h"
#include "operand_spec.h"
#include "run_support.h"

namespace bcast::tools {
namespace {

// Exit statuses (documented in the README).
constexpr int kExitOk = 0, kExitMismatch = 1, kExitUsage = 2, kExitInvalidInput = 3;

struct Options {
  std::string op, a, b, output;
  bool check = false, json = false;
  int repeat = 0, threads = 0;
  std::uint64_t seed = 0;
};

int run_op(const Options& o) {
  const std::optional<Op> op = parse_op(o.op);
  if (!op) {
    std::string names;
    for (int i = 0; i < kNumOps; ++i) names += fmt::format("{}{}", i ? " " : "", op_name(static_cast<Op>(i)));
    std::cerr << "bcast-run: unknown op '" << o.op << "' (ops: " << names << ")\n";
    return kExitUsage;
  }
  std::mt19937_64 rng(o.seed);
  const Operand a = load_operand(o.a, rng);
  const Operand b = load_operand(o.b, rng);

  Tensor out = binary(*op, a.view, b.view);
  double ns = 0;
  if (o.repeat > 0) ns = median_ns([&] { binary(*op, a.view, b.view, out); }, o.repeat);
  const std::int64_t bytes = unique_bytes(a.view) + unique_bytes(b.view) + unique_bytes(out);
  const std::string type = broadcast_type_of(out.layout(), a.view.layout, b.view.layout);

  if (o.check) {
    const Tensor expected = expected_result(*op, a.view, b.view);
    if (const auto bad = first_difference(out, expected)) {
      std::cerr << fmt::format("bcast-run: check failed: result differs from the naive executor at "
                               "element {} (C order)\n", *bad);
      return kExitMismatch;
    }
  }
  if (!o.output.empty()) save_npy(o.output, out);

  std::cout << fmt::format("{} {} {} & {} -> {}  type {}", o.op, dtype_name(a.view.dtype),
                           to_string(a.view.shape()), to_string(b.view.shape()), to_string(out.shape()), type);
  if (o.repeat > 0) std::cout << fmt::format("  median {:.0f} ns  {:.2f} GB/s", ns, static_cast<double>(bytes) / ns);
  if (o.check) std::cout << "  check ok";
  std::cout << "\n";
  if (o.json) {
    nlohmann::json j{{"op", o.op},
                     {"dtype", dtype_name(a.view.dtype)},
                     {"out_dtype", dtype_name(out.dtype())},
                     {"a_shape", a.view.shape()},
                     {"b_shape", b.view.shape()},
                     {"out_shape", out.shape()},
                     {"broadcast_type", type},
                     {"bytes", bytes},
                     {"threads", num_threads()}};
    if (o.repeat > 0) {
      j["median_ns"] = ns;
      j["gbps"] = static_cast<double>(bytes) / ns;
    }
    if (o.check) j["check"] = "ok";
    std::cout << j.dump() << "\n";
  }
  return kExitOk;
}

}  // namespace
}  // namespace bcast::tools

int main(int argc, char** argv) {
  using namespace bcast::tools;
  CLI::App app{"bcast-run: run one broadcasting op, or with no arguments the built-in demo", "bcast-run"};
  Options o;
  app.add_option("op", o.op, "op name: add sub mul div max min pow eq ne lt le gt ge logical_and ...");
  app.add_option("a", o.a, "first operand: x.npy, x.npy[..., ::-1] or a literal such as f32[8,1,3]");
  app.add_option("b", o.b, "second operand, same forms");
  app.add_option("-o,--output", o.output, "write the result to this .npy file (C order)");
  app.add_flag("--check", o.check, "compare the result with the naive executor, bit for bit");
  app.add_option("--repeat", o.repeat, "time N runs and report the median and GB/s")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "seed for random literal operands");
  app.add_option("--threads", o.threads, "threads per op call (0: one per hardware thread)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--json", o.json, "print one JSON object as the last line of stdout");
  app.set_version_flag("--version", [] {
    const bcast::RuntimeInfo info = bcast::runtime_info();
    return fmt::format("bcast-run {} (LLVM {}, host {} {})", info.version, info.llvm_version, info.host_triple,
                       info.host_cpu);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? kExitOk : kExitUsage;
  }
  try {
    bcast::set_num_threads(o.threads);
    if (o.op.empty()) return run_demo(o.repeat > 0 ? o.repeat : 5);
    if (o.b.empty()) {
      std::cerr << "bcast-run: an op needs two operands: bcast-run OP A B\n";
      return kExitUsage;
    }
    return run_op(o);
  } catch (const bcast::Error& e) {
    std::cerr << "bcast-run: " << e.what() << "\n";
    return kExitInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "bcast-run: internal error: " << e.what() << "\n";
    return kExitMismatch;
  }
}
