// bcast-bench's expressions section: the four chains of the expressions
// issue, fused and op by op in bcast, against a hand-written fused loop (the
// practical limit), Eigen's Tensor expressions and oneDNN's binary post-ops,
// with the STREAM add's bandwidth of the same run. GB/s count unique bytes:
// each input read once, the output written once.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "peers.h"

namespace bcast::bench {

// One JSON object per chain; prints a table unless `quiet`.
std::vector<nlohmann::json> run_chains(int threads, int repeats, const std::string& only, bool quiet);

// The chains' peers, by chain number (1 to 4), on the chain's inputs in the
// order of its expression; out is C-contiguous.
PeerResult time_eigen_chain(int chain, std::span<const TensorView> in, const TensorView& out, int repeats);
PeerResult time_onednn_chain(int chain, std::span<const TensorView> in, const TensorView& out, int repeats);

}  // namespace bcast::bench
