// Median wall time of repeated calls, for bcast-bench and its peers.
#pragma once

#include <algorithm>
#include <chrono>
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

}  // namespace bcast::bench
