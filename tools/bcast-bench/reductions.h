// bcast-bench --reductions: the reductions of issue 32's speed table, each
// timed through bcast (one thread and all threads) and, in the same run,
// against the bandwidth a plain loop gets (a read-only pass for a reduction,
// the STREAM add for a case that writes an array), Eigen's Tensor
// reductions and oneDNN's reduction, softmax and layer-normalisation
// primitives.
#pragma once

#include <nlohmann/json.hpp>

#include <span>
#include <string_view>

#include "bcast/bcast.h"
#include "peers.h"

namespace bcast::bench {

enum class Reduction : std::uint8_t {
  sum_all,           // sum(x), x [4096, 4096]
  sum_columns,       // sum(x, axis=0)
  sum_rows,          // sum(x, axis=1)
  dot,               // sum(x*y)
  squared_distance,  // sum((r - s)**2, axis=-1), r and s [4096, 1024]
  softmax,           // along the last dim of r
  layer_norm,        // (r - mean) / sqrt(var + 1e-5) * g + b along the last dim, g and b [1024]
  image,             // a u8 [1080, 1920, 3] image's per-channel mean and deviation, then (f32(img) - m) / s
};

// Peers: the case in the library's own fastest form on `in` (the case's
// inputs in the order above), into `out` (bcast's result's shape).
PeerResult time_eigen_reduction(Reduction r, std::span<const TensorView> in, const TensorView& out, int repeats,
                                int threads);
PeerResult time_onednn_reduction(Reduction r, std::span<const TensorView> in, const TensorView& out, int repeats,
                                 int threads);

// Every case (or those whose numbers, 1 for sum_all on, `only` lists,
// comma-separated): a table
// on stdout, or JSON objects appended to `json` when it is given.
void run_reductions(int repeats, int threads, const std::string& only, nlohmann::json* json);

}  // namespace bcast::bench
