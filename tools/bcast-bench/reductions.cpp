// bcast-bench --reductions (reductions.h): the cases, bcast's form of each,
// the plain loops they are measured against, and the table.
#include "reductions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

#include "../timing.h"
#include "stream_add.h"

namespace bcast::bench {
namespace {

struct ReductionCase {
  Reduction what;
  std::string_view name;  // as the table and the JSON print it (and bcast-bench-reductions.py reads it)
  std::vector<std::pair<DType, Shape>> inputs;
};

std::vector<ReductionCase> reduction_cases() {
  const std::pair<DType, Shape> x{DType::f32, {4096, 4096}}, r{DType::f32, {4096, 1024}}, row{DType::f32, {1024}};
  return {
      {Reduction::sum_all, "sum(x)", {x}},
      {Reduction::sum_columns, "sum(x, axis=0)", {x}},
      {Reduction::sum_rows, "sum(x, axis=1)", {x}},
      {Reduction::dot, "sum(x*y)", {x, x}},
      {Reduction::squared_distance, "sum((r-s)**2, axis=-1)", {r, r}},
      {Reduction::softmax, "softmax(r)", {r}},
      {Reduction::layer_norm, "layer_norm(r)", {r, row, row}},
      {Reduction::image, "image mean/std, normalise", {{DType::u8, {1080, 1920, 3}}}},
  };
}

// bcast's form: a plain call on a view, or the expression with its reductions inside.
Tensor run_bcast(Reduction r, const std::vector<Tensor>& in) {
  using namespace expr;
  switch (r) {
    case Reduction::sum_all:
      return bcast::sum(in[0]);
    case Reduction::sum_columns:
      return bcast::sum(in[0], Axes(0));
    case Reduction::sum_rows:
      return bcast::sum(in[0], Axes(1));
    case Reduction::dot:
      return evaluate(sum(Expr(in[0]) * Expr(in[1])));
    case Reduction::squared_distance: {
      const Expr d = Expr(in[0]) - Expr(in[1]);
      return evaluate(sum(d * d, -1));
    }
    case Reduction::softmax: {
      const Expr e = exp(Expr(in[0]) - amax(Expr(in[0]), -1, true));
      return evaluate(e / sum(e, -1, true));
    }
    case Reduction::layer_norm: {
      const Expr c = Expr(in[0]) - mean(Expr(in[0]), -1, true);
      return evaluate(c / sqrt(mean(c * c, -1, true) + 1e-5) * Expr(in[1]) + Expr(in[2]));
    }
    case Reduction::image: {
      const Expr v = cast(Expr(in[0]), DType::f32);
      return evaluate((v - mean(v, Axes{0, 1}, true)) / expr::std(v, Axes{0, 1}, true));
    }
  }
  return {};
}

// A read-only pass over `bytes` on `threads` threads: an OR of 64-bit words,
// eight at a time (the loop a reduction's bound is measured by).
double stream_read_ns(std::int64_t bytes, int threads, int repeats) {
  const std::int64_t n = std::max<std::int64_t>(bytes / 8, 8) / 8 * 8;
  const Tensor a(DType::u64, {n});
  std::memset(a.data(), 1, a.nbytes());
  const auto* p = a.data_as<const std::uint64_t>();
  static volatile std::uint64_t sink = 0;
  auto part = [&](std::int64_t lo, std::int64_t hi) {
    std::uint64_t acc[8] = {};
    lo = lo / 8 * 8;
    for (std::int64_t i = lo; i + 8 <= hi; i += 8)
      for (int j = 0; j < 8; ++j) acc[j] |= p[i + j];
    std::uint64_t all = 0;
    for (const std::uint64_t v : acc) all |= v;
    sink = sink | all;
  };
  return median_ns_on_threads(threads, n, part, repeats);
}

// Largest |a - b| relative to max |b|: peers round differently.
double relative_difference(const TensorView& a, const TensorView& b) {
  const Tensor da = evaluate(expr::cast(Expr(a), DType::f64)), db = evaluate(expr::cast(Expr(b), DType::f64));
  double diff = 0, scale = 0;
  for (std::int64_t i = 0; i < da.numel(); ++i) {
    diff = std::max(diff, std::abs(da.data_as<const double>()[i] - db.data_as<const double>()[i]));
    scale = std::max(scale, std::abs(db.data_as<const double>()[i]));
  }
  return diff / std::max(scale, 1e-30);
}

std::string cell(const PeerResult& p) { return p.ns ? fmt::format("{:.2f}", *p.ns / 1e6) : "-"; }

}  // namespace

void run_reductions(int repeats, int threads, const std::string& only, nlohmann::json* json) {
  if (!json)
    std::cout << fmt::format(
        "threads 1 and {}; ms, medians of {}; bound: the unique bytes at a plain loop's bandwidth (a read-only pass "
        "for a reduction, the STREAM add where an array is written), measured here\n"
        "| case | bound-1 | bcast-1 | of bound | eigen-1 | onednn-1 | bound-{} | bcast-{} | of bound | eigen-{} | "
        "onednn-{} |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n",
        threads, repeats, threads, threads, threads, threads);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  for (const ReductionCase& c : reduction_cases()) {
    const std::string name(c.name);
    const std::string number = std::to_string(static_cast<int>(c.what) + 1);
    if (!only.empty() && ("," + only + ",").find("," + number + ",") == std::string::npos) continue;
    std::vector<Tensor> in;
    std::vector<TensorView> views;
    std::int64_t bytes = 0;
    for (const auto& [dtype, shape] : c.inputs) {
      in.emplace_back(dtype, shape);
      if (dtype == DType::f32)
        for (std::int64_t i = 0; i < in.back().numel(); ++i) in.back().data_as<float>()[i] = normal(rng);
      else
        for (std::int64_t i = 0; i < in.back().numel(); ++i) in.back().data_as<std::uint8_t>()[i] = rng() & 0xff;
      views.push_back(in.back().view());
      bytes += static_cast<std::int64_t>(in.back().nbytes());
    }
    Tensor want = run_bcast(c.what, in);  // compiles the kernels
    const bool writes = want.numel() * 4 >= views[0].numel();
    bytes += static_cast<std::int64_t>(want.nbytes());
    const auto bound_ns = [&](int t) {
      return writes ? stream_add_ns(bytes / 3, t, repeats) : stream_read_ns(bytes, t, repeats);
    };
    set_num_threads(1);
    const double one = median_ns([&] { (void)run_bcast(c.what, in); }, repeats);
    const double bound_one = bound_ns(1);
    set_num_threads(threads);
    const double many = median_ns([&] { (void)run_bcast(c.what, in); }, repeats);
    const double bound_many = bound_ns(threads);
    auto checked = [&](auto&& time_peer, int on) {
      Tensor out(want.dtype(), want.shape());
      PeerResult peer = time_peer(c.what, views, out.view(), repeats, on);
      if (peer.ns && relative_difference(out, want) > 1e-3)
        peer = {std::nullopt, peer.note + ": result differs from bcast's, not counted"};
      return peer;
    };
    const PeerResult eigen = checked(time_eigen_reduction, 1), dnnl = checked(time_onednn_reduction, 1);
    const PeerResult eigen_many = checked(time_eigen_reduction, threads);
    const PeerResult dnnl_many = checked(time_onednn_reduction, threads);
    if (json) {
      json->push_back({{"case", name},
                       {"bytes", bytes},
                       {"bound_1t_ms", bound_one / 1e6},
                       {"bcast_1t_ms", one / 1e6},
                       {"threads", threads},
                       {"bound_nt_ms", bound_many / 1e6},
                       {"bcast_nt_ms", many / 1e6},
                       {"eigen_1t_ms", eigen.ns ? *eigen.ns / 1e6 : 0},
                       {"eigen_note", eigen.note},
                       {"onednn_1t_ms", dnnl.ns ? *dnnl.ns / 1e6 : 0},
                       {"onednn_note", dnnl.note},
                       {"eigen_nt_ms", eigen_many.ns ? *eigen_many.ns / 1e6 : 0},
                       {"onednn_nt_ms", dnnl_many.ns ? *dnnl_many.ns / 1e6 : 0}});
      continue;
    }
    std::cout << fmt::format("| `{}` | {:.2f} | {:.2f} | {:.2f} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {} |\n",
                             name, bound_one / 1e6, one / 1e6, bound_one / one, cell(eigen), cell(dnnl),
                             bound_many / 1e6, many / 1e6, bound_many / many, cell(eigen_many), cell(dnnl_many));
    for (const PeerResult* p : {&eigen, &dnnl})
      if (!p->ns) std::cout << fmt::format("  ({}: {})\n", p == &eigen ? "eigen" : "onednn", p->note);
  }
}

}  // namespace bcast::bench
