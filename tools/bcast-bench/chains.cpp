// The expressions section of bcast-bench (chains.h).
#include "chains.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <random>

#include "stream_add.h"
#include "../timing.h"

namespace bcast::bench {
namespace {

struct Input {
  std::string name;
  DType dtype;
  Shape shape;
};

struct Chain {
  int number;
  std::string text;
  std::vector<Input> inputs;
  // bcast op by op, into buffers made once (NumPy's `out=` way).
  std::function<std::function<void()>(std::span<const TensorView> in, const TensorView& out)> op_by_op;
  // The hand-written fused loop over [lo, hi) of the output's rows.
  std::function<void(std::span<const TensorView> in, const TensorView& out, std::int64_t lo, std::int64_t hi)> loop;
  std::int64_t rows;  // what the hand loop's threads share
};

// ---- the hand-written fused loops (-O3 -march=native, no FP contraction) ----

void normalise_loop(std::span<const TensorView> in, const TensorView& out, std::int64_t lo, std::int64_t hi) {
  const auto* x = in[0].data_as<const std::uint8_t>();
  const auto* m = in[1].data_as<const float>();
  const auto* s = in[2].data_as<const float>();
  auto* o = out.data_as<float>();
  for (std::int64_t i = lo; i < hi; ++i)
    for (int c = 0; c < 3; ++c) o[i * 3 + c] = (static_cast<float>(x[i * 3 + c]) - m[c]) / s[c];
}

void affine_loop(std::span<const TensorView> in, const TensorView& out, std::int64_t lo, std::int64_t hi) {
  const std::int64_t cols = out.shape()[1];
  const auto* x = in[0].data_as<const float>();
  const auto* m = in[1].data_as<const float>();
  const auto* r = in[2].data_as<const float>();
  const auto* g = in[3].data_as<const float>();
  const auto* b = in[4].data_as<const float>();
  auto* o = out.data_as<float>();
  for (std::int64_t i = lo; i < hi; ++i) {
    const float mi = m[i], ri = r[i];
    const float* xi = x + i * cols;
    float* oi = o + i * cols;
    for (std::int64_t j = 0; j < cols; ++j) oi[j] = (xi[j] - mi) * ri * g[j] + b[j];
  }
}

void relu_loop(std::span<const TensorView> in, const TensorView& out, std::int64_t lo, std::int64_t hi) {
  const std::int64_t cols = out.shape()[1];
  const auto* x = in[0].data_as<const float>();
  const auto* b = in[1].data_as<const float>();
  const auto* y = in[2].data_as<const float>();
  auto* o = out.data_as<float>();
  for (std::int64_t i = lo; i < hi; ++i)
    for (std::int64_t j = 0; j < cols; ++j) o[i * cols + j] = std::max(x[i * cols + j] + b[j] + y[i * cols + j], 0.0f);
}

void outer_loop(std::span<const TensorView> in, const TensorView& out, std::int64_t lo, std::int64_t hi) {
  const std::int64_t cols = out.shape()[1];
  const auto* u = in[0].data_as<const float>();
  const auto* v = in[1].data_as<const float>();
  const auto* w = in[2].data_as<const float>();
  auto* o = out.data_as<float>();
  for (std::int64_t i = lo; i < hi; ++i) {
    const float ui = u[i];
    for (std::int64_t j = 0; j < cols; ++j) o[i * cols + j] = ui * v[j] + w[i * cols + j];
  }
}

// ---- op by op in bcast ----

// Buffers of `like`'s shape for the intermediate results, made once.
std::vector<Tensor> buffers(int n, DType dtype, const Shape& shape) {
  std::vector<Tensor> t;
  for (int i = 0; i < n; ++i) t.emplace_back(dtype, shape);
  return t;
}

std::vector<Chain> chains() {
  return {
      {1, "(f32(x) - m) / s", {{"x", DType::u8, {1080, 1920, 3}}, {"m", DType::f32, {3}}, {"s", DType::f32, {3}}},
       [](std::span<const TensorView> in, const TensorView& out) -> std::function<void()> {
         auto t = std::make_shared<std::vector<Tensor>>(buffers(2, DType::f32, out.shape()));
         const Expr to_f32 = expr::cast(in[0], DType::f32);
         return [=] {
           evaluate(to_f32, (*t)[0]);
           sub((*t)[0], in[1], (*t)[1]);
           div((*t)[1], in[2], out);
         };
       },
       normalise_loop, 1080 * 1920},
      {2, "(x - m) * r * g + b",
       {{"x", DType::f32, {4096, 1024}}, {"m", DType::f32, {4096, 1}}, {"r", DType::f32, {4096, 1}},
        {"g", DType::f32, {1024}}, {"b", DType::f32, {1024}}},
       [](std::span<const TensorView> in, const TensorView& out) -> std::function<void()> {
         auto t = std::make_shared<std::vector<Tensor>>(buffers(3, DType::f32, out.shape()));
         return [=] {
           sub(in[0], in[1], (*t)[0]);
           mul((*t)[0], in[2], (*t)[1]);
           mul((*t)[1], in[3], (*t)[2]);
           add((*t)[2], in[4], out);
         };
       },
       affine_loop, 4096},
      {3, "max(x + b + y, 0)", {{"x", DType::f32, {4096, 1024}}, {"b", DType::f32, {1024}}, {"y", DType::f32, {4096, 1024}}},
       [](std::span<const TensorView> in, const TensorView& out) -> std::function<void()> {
         auto t = std::make_shared<std::vector<Tensor>>(buffers(2, DType::f32, out.shape()));
         auto zero = std::make_shared<Tensor>(DType::f32, Shape{});
         return [=] {
           add(in[0], in[1], (*t)[0]);
           add((*t)[0], in[2], (*t)[1]);
           max((*t)[1], *zero, out);
         };
       },
       relu_loop, 4096},
      {4, "u * v + w", {{"u", DType::f32, {4096, 1}}, {"v", DType::f32, {1, 4096}}, {"w", DType::f32, {4096, 4096}}},
       [](std::span<const TensorView> in, const TensorView& out) -> std::function<void()> {
         auto t = std::make_shared<std::vector<Tensor>>(buffers(1, DType::f32, out.shape()));
         return [=] {
           mul(in[0], in[1], (*t)[0]);
           add((*t)[0], in[2], out);
         };
       },
       outer_loop, 4096},
  };
}

void fill(const Tensor& t, std::mt19937& rng) {
  if (t.dtype() == DType::u8) {
    auto* p = t.data_as<std::uint8_t>();
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<std::uint8_t>(rng());
    return;
  }
  std::uniform_real_distribution<float> real(0.25f, 4.0f);  // no zero to divide by
  auto* p = t.data_as<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = real(rng);
}

// A peer's time counts only if its result is bcast's fused result, bit for bit.
PeerResult checked(PeerResult peer, const Tensor& got, const Tensor& want) {
  if (peer.ns && std::memcmp(got.data(), want.data(), want.nbytes()) != 0)
    return {std::nullopt, peer.note + ": result differs from bcast's, not counted"};
  return peer;
}

}  // namespace

std::vector<nlohmann::json> run_chains(int threads, int repeats, const std::string& only, bool quiet) {
  std::vector<nlohmann::json> rows;
  std::vector<double> compile_ms;
  if (!quiet)
    std::cout << fmt::format("\nexpressions (GB/s of unique bytes; 1 thread unless -{})\n{:<22} {:>6} {:>8} {:>8} {:>8} "
                             "{:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7} {:>7} {:>7}\n",
                             threads, "chain", "MB", "fused", "fused-" + std::to_string(threads), "op-by-op", "hand",
                             "eigen", "onednn", "stream", "stream-" + std::to_string(threads), "ms", "/hand", "/strm",
                             "/ops", "n/strm");
  for (const Chain& c : chains()) {
    if (!only.empty() && ("," + only + ",").find("," + std::to_string(c.number) + ",") == std::string::npos) continue;
    std::mt19937 rng(c.number);
    std::vector<Tensor> storage;
    std::map<std::string, ExprOperand, std::less<>> operands;
    std::vector<TensorView> in;
    std::int64_t bytes = 0;
    for (const Input& i : c.inputs) {
      storage.emplace_back(i.dtype, i.shape);
      fill(storage.back(), rng);
      bytes += static_cast<std::int64_t>(storage.back().nbytes());
    }
    for (std::size_t k = 0; k < c.inputs.size(); ++k) {
      in.push_back(storage[k].view());
      operands.emplace(c.inputs[k].name, storage[k].view());
    }
    const Expr e = parse_expression(c.text, operands);
    const KernelCacheStats before = kernel_cache_stats();
    set_num_threads(1);
    const PreparedExpr fused = prepare(e);
    const KernelCacheStats after = kernel_cache_stats();
    if (after.compiles > before.compiles) compile_ms.push_back((after.compile_ms - before.compile_ms) /
                                                              static_cast<double>(after.compiles - before.compiles));
    const Tensor want = fused();
    Tensor out(want.dtype(), want.shape());
    bytes += static_cast<std::int64_t>(out.nbytes());
    const auto gbps = [&](std::optional<double> ns) { return ns ? static_cast<double>(bytes) / *ns : 0.0; };

    const double fused_1 = median_ns([&] { fused(in, out); }, repeats);
    set_num_threads(threads);
    const double fused_n = median_ns([&] { fused(in, out); }, repeats);
    set_num_threads(1);
    const std::function<void()> steps = c.op_by_op(in, out);
    const double op_by_op = median_ns(steps, repeats);
    std::memset(out.data(), 0xff, out.nbytes());
    const PeerResult hand = checked(
        {median_ns([&] { c.loop(in, out, 0, c.rows); }, repeats), "hand-written fused loop"}, out, want);
    std::memset(out.data(), 0xff, out.nbytes());
    const PeerResult eigen = checked(time_eigen_chain(c.number, in, out, repeats), out, want);
    std::memset(out.data(), 0xff, out.nbytes());
    const PeerResult dnnl = checked(time_onednn_chain(c.number, in, out, repeats), out, want);
    const double stream_1 = stream_add_gbps(static_cast<std::int64_t>(out.nbytes()), 1, repeats);
    const double stream_n = stream_add_gbps(static_cast<std::int64_t>(out.nbytes()), threads, repeats);

    nlohmann::json row{{"chain", c.text},           {"unique_bytes", bytes},
                       {"threads", threads},        {"fused_1t_gbps", gbps(fused_1)},
                       {"fused_nt_gbps", gbps(fused_n)}, {"op_by_op_1t_gbps", gbps(op_by_op)},
                       {"hand_1t_gbps", gbps(hand.ns)},  {"eigen_1t_gbps", gbps(eigen.ns)},
                       {"eigen_note", eigen.note},   {"onednn_1t_gbps", gbps(dnnl.ns)},
                       {"onednn_note", dnnl.note},   {"stream_1t_gbps", stream_1},
                       {"stream_nt_gbps", stream_n}, {"fused_1t_ms", fused_1 / 1e6},
                       {"memory_bound_1t_ms", static_cast<double>(bytes) / stream_1 / 1e6},
                       {"kernel", fused.info().kernel}};
    rows.push_back(row);
    if (!quiet)
      std::cout << fmt::format("{:<22} {:>6.1f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} "
                               "{:>8.3f} {:>7.2f} {:>7.2f} {:>7.2f} {:>7.2f}\n",
                               c.text, static_cast<double>(bytes) / 1e6, gbps(fused_1), gbps(fused_n), gbps(op_by_op),
                               gbps(hand.ns), gbps(eigen.ns), gbps(dnnl.ns), stream_1, stream_n, fused_1 / 1e6,
                               hand.ns ? *hand.ns / fused_1 : 0.0, gbps(fused_1) / stream_1, op_by_op / fused_1,
                               gbps(fused_n) / stream_n);
    if (!quiet && (!eigen.ns || !dnnl.ns))
      std::cout << fmt::format("{:<22} eigen: {}; onednn: {}\n", "", eigen.note, dnnl.note);
  }
  if (!compile_ms.empty()) {
    std::sort(compile_ms.begin(), compile_ms.end());
    const double median = compile_ms[compile_ms.size() / 2];
    rows.push_back({{"cold_compile_median_ms", median}, {"kernels", compile_ms.size()}});
    if (!quiet)
      std::cout << fmt::format("cold compile of an expression kernel: median {:.1f} ms over {} kernels\n", median,
                               compile_ms.size());
  }
  return rows;
}

}  // namespace bcast::bench
