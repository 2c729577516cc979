// Eigen as the chains' peer: one Tensor expression per chain, fused by its
// templates, broadcasting with broadcast() (chains.h).
#include <unsupported/Eigen/CXX11/Tensor>

#include "chains.h"
#include "../timing.h"

namespace bcast::bench {
namespace {

using Index2 = Eigen::array<Eigen::Index, 2>;
template <class T>
using In2 = Eigen::TensorMap<const Eigen::Tensor<T, 2, Eigen::RowMajor>>;
using Out2 = Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>>;

template <class T>
In2<T> map(const TensorView& v, Eigen::Index rows, Eigen::Index cols) {
  return In2<T>(v.data_as<const T>(), Index2{rows, cols});
}

}  // namespace

PeerResult time_eigen_chain(int chain, std::span<const TensorView> in, const TensorView& out, int repeats) {
  const Eigen::Index cols = out.shape().back(), rows = out.numel() / cols;
  Out2 o(out.data_as<float>(), Index2{rows, cols});
  const Index2 along_rows{rows, 1}, along_cols{1, cols};
  switch (chain) {
    case 1: {  // x as [H*W, 3]; m and s [1, 3]
      const auto x = map<std::uint8_t>(in[0], rows, cols);
      const auto m = map<float>(in[1], 1, cols), s = map<float>(in[2], 1, cols);
      return {median_ns([&] { o = (x.cast<float>() - m.broadcast(along_rows)) / s.broadcast(along_rows); }, repeats),
              "Tensor expression"};
    }
    case 2: {
      const auto x = map<float>(in[0], rows, cols);
      const auto m = map<float>(in[1], rows, 1), r = map<float>(in[2], rows, 1);
      const auto g = map<float>(in[3], 1, cols), b = map<float>(in[4], 1, cols);
      return {median_ns([&] {
                o = (x - m.broadcast(along_cols)) * r.broadcast(along_cols) * g.broadcast(along_rows) +
                    b.broadcast(along_rows);
              }, repeats),
              "Tensor expression"};
    }
    case 3: {
      const auto x = map<float>(in[0], rows, cols), y = map<float>(in[2], rows, cols);
      const auto b = map<float>(in[1], 1, cols);
      return {median_ns([&] { o = (x + b.broadcast(along_rows) + y).cwiseMax(0.0f); }, repeats), "Tensor expression"};
    }
    case 4: {
      const auto u = map<float>(in[0], rows, 1), v = map<float>(in[1], 1, cols);
      const auto w = map<float>(in[2], rows, cols);
      return {median_ns([&] { o = u.broadcast(along_cols) * v.broadcast(along_rows) + w; }, repeats),
              "Tensor expression"};
    }
    default: return {std::nullopt, "no such chain"};
  }
}

}  // namespace bcast::bench
