// Peer libraries for bcast-bench, each optional: a function per peer that
// times one case in its fastest form, or says why it cannot.
#pragma once

#include <optional>
#include <string>

#include "bcast/bcast.h"

namespace bcast::bench {

struct PeerResult {
  std::optional<double> ns;  // median time of one call
  std::string note;          // why there is no figure, or which form was used
};

// a and b are bcast views (any layout); out is a C-contiguous result. On
// `threads` threads: oneDNN's OpenMP threads; Eigen's Tensor module on a
// ThreadPoolDevice (its Array expressions have no threads: with more than
// one, a 2-D case is timed in its Tensor form).
PeerResult time_eigen(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats,
                      int threads = 1);
PeerResult time_onednn(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats,
                       int threads = 1);

bool have_eigen();
bool have_onednn();

}  // namespace bcast::bench
