// Stand-ins when a peer library is not installed: bcast-bench says so.
#include "chains.h"
#include "peers.h"
#include "reductions.h"

namespace bcast::bench {

#ifndef BCAST_BENCH_HAVE_EIGEN
bool have_eigen() { return false; }
PeerResult time_eigen(Op, const TensorView&, const TensorView&, const TensorView&, int, int) {
  return {std::nullopt, "not built (install libeigen3-dev)"};
}
PeerResult time_eigen_chain(int, std::span<const TensorView>, const TensorView&, int) {
  return {std::nullopt, "not built (install libeigen3-dev)"};
}
PeerResult time_eigen_reduction(Reduction, std::span<const TensorView>, const TensorView&, int, int) {
  return {std::nullopt, "not built (install libeigen3-dev)"};
}
#endif
#ifndef BCAST_BENCH_HAVE_ONEDNN
bool have_onednn() { return false; }
PeerResult time_onednn(Op, const TensorView&, const TensorView&, const TensorView&, int, int) {
  return {std::nullopt, "not built (install libdnnl-dev)"};
}
PeerResult time_onednn_chain(int, std::span<const TensorView>, const TensorView&, int) {
  return {std::nullopt, "not built (install libdnnl-dev)"};
}
PeerResult time_onednn_reduction(Reduction, std::span<const TensorView>, const TensorView&, int, int) {
  return {std::nullopt, "not built (install libdnnl-dev)"};
}
#endif

}  // namespace bcast::bench
