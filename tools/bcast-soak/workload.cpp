// The soak's workload (bcast-soak).
#include "workload.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bcast/bcast.h"
#include "bcast/config.h"
#include "naive_executor.h"

namespace bcast::tools::soak {
namespace {

constexpr int kNewOps = 12;  // a new structure: 4^12 of them before any repeats
constexpr int kHotOps = 11;  // the hot set's family: never equal to a new one
constexpr int kHotStructures = 48;
constexpr std::int64_t kLength = 8;
constexpr std::array<const char*, 4> kOps{"+", "-", "max", "min"};

// Structure n of a family of `ops` ops: x, then op k (digit k of n in base
// 4) with y and x in turn. Values stay small: exact in f32.
std::string structure(std::uint64_t n, int ops) {
  std::string text = "x";
  for (int k = 0; k < ops; ++k, n /= 4) {
    const std::string leaf = k % 2 == 0 ? "y" : "x";
    const int op = static_cast<int>(n % 4);
    text = op < 2 ? "(" + text + " " + kOps[op] + " " + leaf + ")" : std::string(kOps[op]) + "(" + text + ", " + leaf + ")";
  }
  return text;
}

double oracle(std::uint64_t n, int ops, double x, double y) {
  double v = x;
  for (int k = 0; k < ops; ++k, n /= 4) {
    const double w = k % 2 == 0 ? y : x;
    const int op = static_cast<int>(n % 4);
    v = op == 0 ? v + w : op == 1 ? v - w : op == 2 ? std::max(v, w) : std::min(v, w);
  }
  return v;
}

struct Operands {
  Tensor x{DType::f32, {kLength}}, y{DType::f32, {kLength}};
  explicit Operands(std::mt19937_64& rng) {
    std::uniform_int_distribution<int> value(-9, 9);
    for (std::int64_t i = 0; i < kLength; ++i) {
      static_cast<float*>(x.data())[i] = static_cast<float>(value(rng));
      static_cast<float*>(y.data())[i] = static_cast<float>(value(rng));
    }
  }
};

void report_wrong(Counts& counts, const std::string& what) {
  ++counts.wrong;
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  if (!counts.have_first_wrong.exchange(true)) counts.first_wrong = what;
}

// Checks a chain's result against the oracle.
void check_chain(const Tensor& got, std::uint64_t n, int ops, const Operands& in, Counts& counts) {
  const auto* g = static_cast<const float*>(got.data());
  const auto* x = static_cast<const float*>(in.x.data());
  const auto* y = static_cast<const float*>(in.y.data());
  for (std::int64_t i = 0; i < kLength; ++i)
    if (const double want = oracle(n, ops, x[i], y[i]); g[i] != want)
      return report_wrong(counts, fmt::format("{}: element {} is {}, want {} (x {}, y {})", structure(n, ops), i,
                                              g[i], want, x[i], y[i]));
}

void run_chain(std::uint64_t n, int ops, const Operands& in, Counts& counts) {
  const Tensor got = evaluate(parse_expression(structure(n, ops), {{"x", in.x}, {"y", in.y}}));
  check_chain(got, n, ops, in, counts);
  ++counts.evaluations;
}

// A binary op on one of several broadcast pairs, against the naive executor.
void run_binary(std::mt19937_64& rng, Counts& counts) {
  static const std::array<std::pair<Shape, Shape>, 6> kPairs{{{{4, 8}, {8}},
                                                              {{4, 1}, {1, 8}},
                                                              {{3, 4, 8}, {4, 1}},
                                                              {{2, 1, 8}, {3, 1}},
                                                              {{16}, {16}},
                                                              {{5, 7}, {5, 1}}}};
  static constexpr std::array<Op, 4> kBinary{Op::add, Op::sub, Op::mul, Op::max};
  const auto& [sa, sb] = kPairs[rng() % kPairs.size()];
  const Op op = kBinary[rng() % kBinary.size()];
  Tensor a(DType::f32, sa), b(DType::f32, sb);
  for (Tensor* t : {&a, &b})
    for (std::int64_t i = 0; i < t->numel(); ++i) static_cast<float*>(t->data())[i] = static_cast<float>(rng() % 17) - 8;
  Tensor got(DType::f32, broadcast_infer_shape(sa, sb)), want(DType::f32, got.shape());
  binary(op, a, b, got);
  run_naive(op, a, b, want);
  if (std::memcmp(got.data(), want.data(), static_cast<std::size_t>(got.numel()) * 4) != 0)
    report_wrong(counts, fmt::format("{} of {} and {}", op_name(op), to_string(sa), to_string(sb)));
  ++counts.binary_calls;
}

std::atomic<std::uint64_t> g_next_new{0};

}  // namespace

void work(int seed, const std::atomic<bool>& stop, Counts& counts) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  const Operands in(rng);
  std::uint64_t hot = rng() % kHotStructures;
  PreparedExpr prepared = prepare(parse_expression(structure(hot, kHotOps), {{"x", in.x}, {"y", in.y}}));
  for (std::uint64_t i = 0; !stop.load(std::memory_order_relaxed); ++i) {
    switch (rng() % 10) {
      case 0: case 1: case 2: case 3:  // a structure no call has asked for before
        run_chain(g_next_new.fetch_add(1), kNewOps, in, counts);
        ++counts.new_structures;
        break;
      case 4: case 5: case 6:  // one of the hot set
        run_chain(rng() % kHotStructures, kHotOps, in, counts);
        break;
      case 7: case 8:
        run_binary(rng, counts);
        break;
      default:  // the prepared expression; now and then a new one
        if (i % 64 == 0) {
          hot = rng() % kHotStructures;
          prepared = prepare(parse_expression(structure(hot, kHotOps), {{"x", in.x}, {"y", in.y}}));
        }
        check_chain(prepared(), hot, kHotOps, in, counts);
        ++counts.prepared_calls;
    }
  }
}

void churn(int period_ms, const std::atomic<bool>& stop, Counts& counts) {
  const std::array<std::function<void(int)>, 6> kChanges{
      [&](int) {
        const KernelCacheStats before = kernel_cache_stats();
        clear_kernel_cache();
        counts.cleared_compiles += before.compiles, counts.cleared_evictions += before.evictions;
        counts.cleared_dropped += before.dropped, counts.cleared_refused += before.refused;
        ++counts.clears;
      },
      [](int round) { set_kernel_cache_capacity(std::array<std::size_t, 3>{16, kMaxCapacity, 256}[round % 3]); },
      [](int round) { set_setting("BCAST_JIT_QUEUE", round % 2 == 0 ? "8" : std::to_string(kMaxQueue)); },
      [](int round) { set_opt_level(round % 2 == 0 ? 1 : 2); },
      [](int round) { set_max_isa(round % 2 == 0 ? "avx2" : "all"); },
      [](int round) { set_jit_mode(round % 4 == 0 ? JitMode::sync : JitMode::async); },
  };
  for (int round = 0; !stop.load(std::memory_order_relaxed); ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    kChanges[static_cast<std::size_t>(round) % kChanges.size()](round / static_cast<int>(kChanges.size()));
    ++counts.setting_changes;
  }
}

}  // namespace bcast::tools::soak
