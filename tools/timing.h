// Timing repeated calls, for bcast-run and bcast-bench alike: the median and
// the spread (min, quartiles, max), as torch.utils.benchmark reports them.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

namespace bcast::tools {

// Nanoseconds a call over `runs` calls.
struct Spread {
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  int runs = 0;
};

// Times `repeats` calls of f (at least one), after `warm_ups` untimed ones
// (page faults, caches, a JIT compile).
template <class F>
Spread time_runs(F&& f, int repeats, int warm_ups = 1) {
  for (int i = 0; i < warm_ups; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < std::max(repeats, 1); ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  const auto at = [&t](double q) { return t[static_cast<std::size_t>(q * static_cast<double>(t.size() - 1) + 0.5)]; };
  return {t.front(), at(0.25), t[t.size() / 2], at(0.75), t.back(), static_cast<int>(t.size())};
}

template <class F>
double median_ns(F&& f, int repeats) {
  return time_runs(f, repeats).median;
}

// The medians of f and g timed in turn (f, g, f, g, ...), after an untimed
// call of each: their ratio does not see a machine that drifts between them.
template <class F, class G>
std::pair<double, double> alternating_medians_ns(F&& f, G&& g, int repeats) {
  f();
  g();
  std::vector<double> tf, tg;
  for (int i = 0; i < std::max(repeats, 1); ++i) {
    for (auto [call, times] : {std::pair{std::function<void()>(f), &tf}, std::pair{std::function<void()>(g), &tg}}) {
      const auto start = std::chrono::steady_clock::now();
      call();
      times->push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    }
  }
  std::sort(tf.begin(), tf.end());
  std::sort(tg.begin(), tg.end());
  return {tf[tf.size() / 2], tg[tg.size() / 2]};
}

// The spread of part(lo, hi) over [0, n) cut in `threads` equal ranges, one
// thread each (the caller's among them), threads started per run as a plain
// loop program would.
template <class F>
Spread time_on_threads(int threads, std::int64_t n, F&& part, int repeats) {
  return time_runs([&] {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([&, t] { part(n * t / threads, n * (t + 1) / threads); });
    part(0, n / threads);
  }, repeats);
}

template <class F>
double median_ns_on_threads(int threads, std::int64_t n, F&& part, int repeats) {
  return time_on_threads(threads, n, part, repeats).median;
}

}  // namespace bcast::tools

// bcast-bench's code names them from its own namespace.
namespace bcast::bench {
using tools::alternating_medians_ns;
using tools::median_ns;
using tools::median_ns_on_threads;
using tools::Spread;
using tools::time_runs;
}  // namespace bcast::bench
