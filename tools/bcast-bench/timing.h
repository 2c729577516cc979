// Median wall time of repeated calls, for bcast-bench and its peers.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace bcast::bench {

template <class F>
double median_ns(F&& f, int repeats) {
  f();  // warm-up: page faults, caches, JIT
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

// Median wall time of part(lo, hi) over [0, n) cut in `threads` equal ranges,
// one thread each (the caller's among them), threads started per run as a
// plain loop program would.
template <class F>
double median_ns_on_threads(int threads, std::int64_t n, F&& part, int repeats) {
  return median_ns([&] {
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([&, t] { part(n * t / threads, n * (t + 1) / threads); });
    part(0, n / threads);
  }, repeats);
}

}  // namespace bcast::bench
