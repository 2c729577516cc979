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

// a and b are bcast views (any layout); out is a C-contiguous result.
PeerResult time_eigen(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats);
PeerResult time_onednn(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats);

bool have_eigen();
bool have_onednn();

}  // namespace bcast::bench
