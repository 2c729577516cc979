// bcast-bench: the performance issue's case list, each timed through bcast (one
// thread and all threads) and, in the same run, a STREAM-style add of the same
// output size (the bandwidth reference), Eigen and oneDNN.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "../timing.h"
#include "bcast/bcast.h"
#include "chains.h"
#include "peers.h"
#include "probes.h"
#include "reductions.h"
#include "stream_add.h"

namespace bcast::bench {
namespace {

struct Case {
  std::string id;
  Op op;
  DType dtype;
  Shape a, b;
  bool transpose_a = false;  // a is a contiguous tensor with its last two dims swapped
  bool tiny = false;         // report ns per call instead of GB/s
  int mirror_a = -1;         // a dim of a walked backwards (`a[..., ::-1, ...]`), or none; the
                             // case is then timed in turn with its unmirrored twin too
};

std::vector<Case> cases() {
  return {
      {"1 same", Op::add, DType::f32, {4096, 4096}, {4096, 4096}},
      {"2 row", Op::add, DType::f32, {4096, 4096}, {1, 4096}},
      {"3 column", Op::add, DType::f32, {4096, 4096}, {4096, 1}},
      {"4 scalar", Op::add, DType::f32, {4096, 4096}, {1}},
      {"5 outer", Op::add, DType::f32, {4096, 1}, {1, 4096}},
      {"6 middle", Op::add, DType::f32, {64, 256, 1024}, {64, 1, 1024}},
      {"7 inner 3", Op::add, DType::f32, {5592405, 3}, {1, 3}},
      {"8 inner 4 column", Op::add, DType::f32, {4194304, 4}, {4194304, 1}},
      {"9 NCHW bias", Op::add, DType::f32, {32, 64, 56, 56}, {1, 64, 1, 1}},
      {"10 5-D mixed", Op::add, DType::f32, {8, 1, 32, 1, 512}, {1, 16, 1, 64, 1}},
      {"11 [16]+[16]", Op::add, DType::f32, {16}, {16}, false, true},
      {"12 [4,4]+[1,4]", Op::add, DType::f32, {4, 4}, {1, 4}, false, true},
      {"13a row f16", Op::add, DType::f16, {4096, 4096}, {1, 4096}},
      {"13b row i8", Op::add, DType::i8, {4096, 4096}, {1, 4096}},
      {"14 same, a transposed", Op::add, DType::f32, {4096, 4096}, {4096, 4096}, true},
      {"15 HWC u8 - [3]", Op::sub, DType::u8, {1080, 1920, 3}, {3}},
      // Beyond the list: a batch of transposed matrices (NOTE: [Transposed
      // tiles] on rank 3), against a whole batch and a repeated row; rows that do
      // not start on a cache line (the streaming rows' scalar head and tail).
      {"16 batch, a transposed", Op::add, DType::f32, {16, 1024, 1024}, {16, 1024, 1024}, true},
      {"17 batch a^T + row", Op::add, DType::f32, {16, 1024, 1024}, {1, 1, 1024}, true},
      {"18 row of 1000", Op::add, DType::f32, {16384, 1000}, {1, 1000}},
      // Mirrored views (NOTE: [Walking order]), each beside its unmirrored twin:
      // an image flipped horizontally, its channels reversed, its rows
      // flipped; a matrix whose columns are reversed.
      {"19a HWC u8 width reversed", Op::sub, DType::u8, {1080, 1920, 3}, {3}, false, false, 1},
      {"19b HWC u8 channels reversed", Op::sub, DType::u8, {1080, 1920, 3}, {3}, false, false, 2},
      {"19c HWC u8 rows flipped", Op::sub, DType::u8, {1080, 1920, 3}, {3}, false, false, 0},
      {"20 row, columns reversed", Op::add, DType::f32, {4096, 4096}, {1, 4096}, false, false, 1},
  };
}

void fill(const Tensor& t) {
  std::mt19937 rng(7);
  auto* bytes = static_cast<unsigned char*>(t.data());
  // Small non-negative values are valid in every dtype (f16 0x00xx are tiny numbers).
  for (std::size_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<unsigned char>(rng() & 0x3f);
}

// x with dim d walked backwards (d < 0: x as it is).
TensorView mirrored(const TensorView& x, int d) {
  if (d < 0) return x;
  std::vector<IndexItem> items(static_cast<std::size_t>(d), Slice{});
  items.push_back(Slice{{}, {}, -1});
  return index(x, items);
}

double gbps(std::int64_t bytes, std::optional<double> ns) { return ns ? static_cast<double>(bytes) / *ns : 0.0; }

}  // namespace
}  // namespace bcast::bench

int main(int argc, char** argv) {
  using namespace bcast;
  using namespace bcast::bench;
  set_jit_mode(JitMode::sync);  // NOTE: [Tiers]: time kernels, not the fallback while they compile
  CLI::App app{"bcast-bench: bcast against memory bandwidth and peer libraries, one run", "bcast-bench"};
  int repeats = 11, threads = 0;
  bool as_json = false, probes = false;
  std::string only, only_chains;
  std::vector<int> sweep;
  app.add_option("--repeat", repeats, "timed runs per measurement (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "threads for the all-threads column (0: hardware)")->check(CLI::NonNegativeNumber);
  app.add_option("--cases", only, "comma-separated case numbers, e.g. 1,7,13a (default: all)");
  app.add_option("--sweep", sweep, "thread counts to scale the large cases over, e.g. 1,2,4,8,16 (bcast and the STREAM add)")
      ->delimiter(',')
      ->check(CLI::PositiveNumber);
  app.add_option("--chains", only_chains,
                 "comma-separated numbers of the expression chains, 1 to 4 (default: all); with --cases none, only them");
  app.add_flag("--json", as_json, "one JSON object per case (and probe), as a JSON array");
  std::string reductions;
  app.add_option("--reductions", reductions,
                 "instead of the cases: the reductions' table (issue 32), 'all' or comma-separated numbers "
                 "(1 sum(x), 2 axis 0, 3 axis 1, 4 sum(x*y), 5 squared distance, 6 softmax, 7 layer norm, 8 image)");
  app.add_flag("--probes", probes,
               "after the cases, memory probes: write-only bandwidth, tiled and transposed adds written by hand");
  CLI11_PARSE(app, argc, argv);
  const int all = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!reductions.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    run_reductions(repeats, all, reductions == "all" ? "" : reductions, as_json ? &rows : nullptr);
    if (as_json) std::cout << rows.dump(1) << "\n";
    return 0;
  }

  nlohmann::json out = nlohmann::json::array();
  if (!as_json)
    std::cout << fmt::format("{:<24} {:>7} {:>7} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8} {:>7}  (GB/s; tiny cases: ns/call; "
                             "expr/bin: the case as op(x, y), speed over the call's)\n",
                             "case", "MB", "ms-1", "bcast-1", "bcast-" + std::to_string(all), "stream-1",
                             "stream-" + std::to_string(all), "1/strm", "n/strm", "eigen", "onednn", "expr/bin");
  for (const Case& c : cases()) {
    if (only == "none") break;
    if (!only.empty() && ("," + only + ",").find("," + c.id.substr(0, c.id.find(' ')) + ",") == std::string::npos) continue;
    Tensor a_storage(c.dtype, c.a), b(c.dtype, c.b);
    fill(a_storage);
    fill(b);
    const auto rank = static_cast<std::int64_t>(c.a.size());
    const TensorView a = c.transpose_a ? transpose(a_storage, rank - 2, rank - 1) : mirrored(a_storage, c.mirror_a);
    Tensor result = binary(c.op, a, b);  // compiles the kernel
    const std::int64_t bytes = static_cast<std::int64_t>(a_storage.nbytes() + b.nbytes() + result.nbytes());
    nlohmann::json row{{"case", c.id},         {"bytes", bytes},
                       {"op", op_name(c.op)},  {"a", c.a},
                       {"b", c.b},             {"a_transposed", c.transpose_a}, {"a_mirrored_dim", c.mirror_a},
                       {"dtype", dtype_name(c.dtype)}};
    const int reps = c.tiny ? 200001 : repeats;
    set_num_threads(1);
    const Spread one_spread = time_runs([&] { binary(c.op, a, b, result); }, reps);
    const double one = one_spread.median;
    // The spread of the one-thread run: how noisy this machine was.
    row["bcast_1t_spread_ns"] = {{"min", one_spread.min}, {"q1", one_spread.q1}, {"median", one_spread.median},
                                 {"q3", one_spread.q3}, {"max", one_spread.max}, {"runs", one_spread.runs}};
    set_num_threads(all);
    const double many = median_ns([&] { binary(c.op, a, b, result); }, reps);
    // A peer's figure counts only if it wrote what bcast writes (exact for these
    // ops and the small values of fill()) over an output filled with 0xff bytes.
    const Tensor expected = binary(c.op, a, b);
    auto checked = [&](auto&& time_peer, int threads) {
      std::memset(result.data(), 0xff, result.nbytes());
      PeerResult peer = time_peer(c.op, a, b, result, reps, threads);
      if (peer.ns && std::memcmp(result.data(), expected.data(), expected.nbytes()) != 0)
        peer = {std::nullopt, peer.note + ": result differs from bcast's, not counted"};
      return peer;
    };
    const PeerResult eigen = checked(time_eigen, 1);
    const PeerResult dnnl = checked(time_onednn, 1);
    if (c.tiny) {
      const PreparedOp k = prepare(c.op, c.dtype, a.layout(), b.layout());
      set_num_threads(1);
      const double prepared = median_ns([&] { k(a, b, result); }, reps);
      row.update({{"plain_ns", one}, {"prepared_ns", prepared}, {"onednn_ns", dnnl.ns.value_or(0)},
                  {"eigen_ns", eigen.ns.value_or(0)}});
      if (!as_json)
        std::cout << fmt::format("{:<24} {:>7} {:>7} {:>8.0f} {:>8} {:>8} {:>8} {:>7} {:>7} {:>8.0f} {:>8.0f}  plain; prepared {:.0f} ns\n",
                                 c.id, "", "", one, "", "", "", "", "", eigen.ns.value_or(0), dnnl.ns.value_or(0), prepared);
    } else {
      const double s1 = stream_add_ns(result.nbytes(), 1, repeats), sn = stream_add_ns(result.nbytes(), all, repeats);
      // The STREAM loop moves 3 x its array; scale to GB/s.
      const double stream1 = 3.0 * static_cast<double>(result.nbytes()) / s1;
      const double streamn = 3.0 * static_cast<double>(result.nbytes()) / sn;
      row.update({{"bcast_1t_ms", one / 1e6}, {"bcast_nt_ms", many / 1e6}, {"stream_1t_ms", s1 / 1e6},
                  {"stream_nt_ms", sn / 1e6}, {"eigen_ms", eigen.ns.value_or(0) / 1e6},
                  {"onednn_ms", dnnl.ns.value_or(0) / 1e6}});
      row.update({{"bcast_1t_gbps", gbps(bytes, one)}, {"bcast_nt_gbps", gbps(bytes, many)}, {"threads", all},
                  {"stream_1t_gbps", stream1}, {"stream_nt_gbps", streamn},
                  {"ratio_1t_vs_stream", gbps(bytes, one) / stream1}, {"ratio_nt_vs_stream", gbps(bytes, many) / streamn},
                  {"eigen_gbps", gbps(bytes, eigen.ns)}, {"eigen_form", eigen.note},
                  {"onednn_gbps", gbps(bytes, dnnl.ns)}, {"onednn_impl", dnnl.note}});
      // The case as the one-node expression op(a, b): the same key and kernel
      // (NOTE: [Expression kernels]) through the expression front, timed in
      // turn with the binary call.
      const Expr as_expression = expr::apply(c.op, Expr(a), Expr(b));
      const auto [binary_ns, expression_ns] = alternating_medians_ns(
          [&] { binary(c.op, a, b, result); }, [&] { evaluate(as_expression, result); }, repeats);
      row.update({{"expr_1t_gbps", gbps(bytes, expression_ns)}, {"expr_vs_binary_1t", binary_ns / expression_ns},
                  {"expr_kernel", describe(as_expression).kernel}});
      // The peers on as many threads as the bcast-n column.
      const PeerResult eigen_n = checked(time_eigen, all), dnnl_n = checked(time_onednn, all);
      row.update({{"eigen_nt_gbps", gbps(bytes, eigen_n.ns)}, {"eigen_nt_form", eigen_n.note},
                  {"onednn_nt_gbps", gbps(bytes, dnnl_n.ns)}, {"onednn_nt_impl", dnnl_n.note}});
      if (!as_json)
        std::cout << fmt::format("{:<24} {:>7.1f} {:>7.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>7.2f} {:>7.2f} {:>8.2f} {:>8.2f} {:>7.2f}\n",
                                 c.id, static_cast<double>(bytes) / 1e6, one / 1e6, gbps(bytes, one), gbps(bytes, many), stream1,
                                 streamn, gbps(bytes, one) / stream1, gbps(bytes, many) / streamn, gbps(bytes, eigen.ns),
                                 gbps(bytes, dnnl.ns), binary_ns / expression_ns);
      // A mirrored case against its twin (a unmirrored), in turn, on one
      // thread and all: the twin's time over the case's.
      if (c.mirror_a >= 0) {
        const TensorView twin = a_storage.view();
        const std::array<int, 2> threads_of{1, all};
        std::array<double, 2> ratio{};
        for (std::size_t i = 0; i < ratio.size(); ++i) {
          set_num_threads(threads_of[i]);
          const auto [mirrored_ns, twin_ns] = alternating_medians_ns(
              [&] { binary(c.op, a, b, result); }, [&] { binary(c.op, twin, b, result); }, repeats);
          ratio[i] = twin_ns / mirrored_ns;
        }
        row.update({{"vs_twin_1t", ratio[0]}, {"vs_twin_nt", ratio[1]}});
        if (!as_json)
          std::cout << fmt::format("{:<24} speed over the unmirrored twin's, in turn: {:.2f} (1 thread), {:.2f} ({} threads)\n",
                                   "", ratio[0], ratio[1], all);
      }
      // Scaling: bcast and the STREAM add on each thread count, in the same run.
      for (const int t : sweep) {
        set_num_threads(t);
        const double b_gbps = gbps(bytes, median_ns([&] { binary(c.op, a, b, result); }, repeats));
        const double s_gbps = 3.0 * static_cast<double>(result.nbytes()) / stream_add_ns(result.nbytes(), t, repeats);
        row["sweep"].push_back({{"threads", t}, {"bcast_gbps", b_gbps}, {"stream_gbps", s_gbps}});
        if (!as_json)
          std::cout << fmt::format("{:<24} {:>15} {:>8.2f} {:>17.2f} {:>7.2f}   ({} threads: bcast, stream, ratio)\n", "",
                                   "", b_gbps, s_gbps, b_gbps / s_gbps, t);
      }
    }
    out.push_back(row);
  }
  if (only_chains != "none")
    for (nlohmann::json& row : run_chains(all, repeats, only_chains, as_json)) out.push_back(std::move(row));
  if (probes) {
    for (const nlohmann::json& probe : run_probes(all, repeats)) {
      if (!as_json) {
        std::cout << fmt::format("probe: {:<66} {:>7.2f} GB/s", probe["probe"].get<std::string>(),
                                 probe["gbps"].get<double>());
        if (probe.contains("vs_full_rows"))
          std::cout << fmt::format("  ({:.2f} of full rows)", probe["vs_full_rows"].get<double>());
        if (probe.contains("bcast_gbps"))
          std::cout << fmt::format("; bcast, one thread, in turn: {:.2f} GB/s ({:.2f} of it)",
                                   probe["bcast_gbps"].get<double>(), probe["bcast_vs_hand"].get<double>());
        std::cout << "\n";
      }
      out.push_back(probe);
    }
  }
  if (as_json) std::cout << out.dump(1) << "\n";
  return 0;
}
