// bcast-bench's bandwidth reference: a STREAM-style add, c[i] = a[i] + b[i],
// over as many bytes as a case's output, on `threads` threads (the caller's
// among them). It moves three times its array.
#pragma once

#include <algorithm>
#include <cstdint>

#include "bcast/bcast.h"
#include "../timing.h"

namespace bcast::bench {

inline double stream_add_ns(std::int64_t out_bytes, int threads, int repeats) {
  const std::int64_t n = std::max<std::int64_t>(out_bytes / 4, 1);
  const Tensor a(DType::f32, {n}), b(DType::f32, {n}), c(DType::f32, {n});
  const float* __restrict pa = a.data_as<const float>();
  const float* __restrict pb = b.data_as<const float>();
  float* __restrict pc = c.data_as<float>();
  auto part = [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) pc[i] = pa[i] + pb[i];
  };
  return median_ns_on_threads(threads, n, part, repeats);
}

// Its bandwidth in GB/s (three arrays of out_bytes each).
inline double stream_add_gbps(std::int64_t out_bytes, int threads, int repeats) {
  return 3.0 * static_cast<double>(out_bytes) / stream_add_ns(out_bytes, threads, repeats);
}

}  // namespace bcast::bench
