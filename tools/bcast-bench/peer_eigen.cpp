// Eigen as a peer: Array row/column-wise for 2-D cases, Tensor broadcast
// otherwise; a transposed a through Array transpose (2-D) or Tensor shuffle.
// On more than one thread, the Tensor forms on a ThreadPoolDevice
// (EIGEN_USE_THREADS, set for bcast-bench in tools/CMakeLists.txt).
#include "peers.h"
#include "reductions.h"

#include <Eigen/Dense>
#include <unsupported/Eigen/CXX11/Tensor>

#include "../timing.h"

namespace bcast::bench {
namespace {

using RowArray = Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map2 = Eigen::Map<RowArray>;
using CMap2 = Eigen::Map<const RowArray>;

// The median time of assign(device) on `threads` threads: Eigen's default
// (caller's) device for one, a thread pool for more.
template <class Assign>
double timed_on(int threads, int repeats, Assign&& assign) {
  if (threads <= 1) {
    Eigen::DefaultDevice device;
    return median_ns([&] { assign(device); }, repeats);
  }
  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  return median_ns([&] { assign(device); }, repeats);
}

template <int R>
PeerResult tensor_broadcast(const TensorView& a, const TensorView& b, const TensorView& out, int repeats,
                            int threads) {
  Eigen::array<Eigen::Index, R> da{}, db{}, dout{}, ba{}, bb{};
  const int lead_a = R - a.rank(), lead_b = R - b.rank();
  for (int d = 0; d < R; ++d) {
    da[d] = d < lead_a ? 1 : a.shape()[d - lead_a];
    db[d] = d < lead_b ? 1 : b.shape()[d - lead_b];
    dout[d] = out.shape()[d];
    ba[d] = dout[d] / std::max<Eigen::Index>(da[d], 1);
    bb[d] = dout[d] / std::max<Eigen::Index>(db[d], 1);
  }
  Eigen::TensorMap<const Eigen::Tensor<float, R, Eigen::RowMajor>> ta(a.data_as<const float>(), da),
      tb(b.data_as<const float>(), db);
  Eigen::TensorMap<Eigen::Tensor<float, R, Eigen::RowMajor>> to(out.data_as<float>(), dout);
  return {timed_on(threads, repeats, [&](auto& device) { to.device(device) = ta.broadcast(ba) + tb.broadcast(bb); }),
          "Tensor broadcast"};
}

// a is the transpose of a contiguous tensor in its last two dims (cases 16
// and 17): Tensor shuffle of that tensor, b broadcast.
template <int R>
PeerResult tensor_shuffle(const TensorView& a, const TensorView& b, const TensorView& out, int repeats, int threads) {
  Eigen::array<Eigen::Index, R> dstorage{}, db{}, dout{}, bb{};
  Eigen::array<int, R> order{};
  const int lead_b = R - b.rank();
  for (int d = 0; d < R; ++d) {
    order[d] = d < R - 2 ? d : (d == R - 2 ? R - 1 : R - 2);
    dstorage[d] = a.shape()[order[d]];
    db[d] = d < lead_b ? 1 : b.shape()[d - lead_b];
    dout[d] = out.shape()[d];
    bb[d] = dout[d] / std::max<Eigen::Index>(db[d], 1);
  }
  Eigen::TensorMap<const Eigen::Tensor<float, R, Eigen::RowMajor>> ta(a.data_as<const float>(), dstorage),
      tb(b.data_as<const float>(), db);
  Eigen::TensorMap<Eigen::Tensor<float, R, Eigen::RowMajor>> to(out.data_as<float>(), dout);
  return {timed_on(threads, repeats, [&](auto& device) { to.device(device) = ta.shuffle(order) + tb.broadcast(bb); }),
          "Tensor shuffle"};
}

// Whether v is a contiguous tensor with its last two dims swapped.
bool transposed_last_two(const TensorView& v) {
  return v.rank() >= 2 && !v.layout().is_contiguous() && transpose(v, v.rank() - 2, v.rank() - 1).layout().is_contiguous();
}

}  // namespace

bool have_eigen() { return true; }

PeerResult time_eigen(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats,
                      int threads) {
  if (op != Op::add || a.dtype() != DType::f32) return {std::nullopt, "f32 add only"};
  const Shape& s = out.shape();
  if (transposed_last_two(a) && a.shape() == s && b.layout().is_contiguous()) {
    if (out.rank() == 2 && threads > 1) return tensor_shuffle<2>(a, b, out, repeats, threads);
    if (out.rank() == 2 && b.shape() == s) {  // case 14: Array transpose
      const CMap2 T(a.data_as<const float>(), s[1], s[0]), B(b.data_as<const float>(), s[0], s[1]);
      Map2 O(out.data_as<float>(), s[0], s[1]);
      return {median_ns([&] { O = T.transpose() + B; }, repeats), "Array a.transpose() + b"};
    }
    if (out.rank() == 3) return tensor_shuffle<3>(a, b, out, repeats, threads);
  }
  if (!a.layout().is_contiguous() || !b.layout().is_contiguous()) return {std::nullopt, "strided views: no Eigen form"};
  if (out.rank() == 2 && a.shape() == s && threads <= 1) {
    const CMap2 A(a.data_as<const float>(), s[0], s[1]);
    Map2 O(out.data_as<float>(), s[0], s[1]);
    if (b.shape() == s) {
      const CMap2 B(b.data_as<const float>(), s[0], s[1]);
      return {median_ns([&] { O = A + B; }, repeats), "Array a + b"};
    }
    if (b.numel() == s[1] && (b.rank() == 1 || b.shape()[0] == 1)) {
      const Eigen::Map<const Eigen::Array<float, 1, Eigen::Dynamic>> row(b.data_as<const float>(), s[1]);
      return {median_ns([&] { O = A.rowwise() + row; }, repeats), "Array rowwise"};
    }
    if (b.rank() == 2 && b.shape()[0] == s[0] && b.shape()[1] == 1) {
      const Eigen::Map<const Eigen::Array<float, Eigen::Dynamic, 1>> col(b.data_as<const float>(), s[0]);
      return {median_ns([&] { O = A.colwise() + col; }, repeats), "Array colwise"};
    }
    if (b.numel() == 1) {
      const float x = *b.data_as<const float>();
      return {median_ns([&] { O = A + x; }, repeats), "Array + scalar"};
    }
  }
  switch (out.rank()) {
    case 1: return tensor_broadcast<1>(a, b, out, repeats, threads);
    case 2: return tensor_broadcast<2>(a, b, out, repeats, threads);
    case 3: return tensor_broadcast<3>(a, b, out, repeats, threads);
    case 4: return tensor_broadcast<4>(a, b, out, repeats, threads);
    case 5: return tensor_broadcast<5>(a, b, out, repeats, threads);
    default: return {std::nullopt, "rank above 5"};
  }
}

}  // namespace bcast::bench

// ---- reductions (bcast-bench --reductions) ----

namespace bcast::bench {

PeerResult time_eigen_reduction(Reduction r, std::span<const TensorView> in, const TensorView& out, int repeats,
                                int threads) {
  using T2 = Eigen::TensorMap<const Eigen::Tensor<float, 2, Eigen::RowMajor>>;
  using Dims1 = Eigen::array<Eigen::Index, 1>;
  const Dims1 along_rows{1}, along_columns{0};
  if (r == Reduction::image) return {std::nullopt, "no u8 form here"};
  const T2 x(in[0].data_as<const float>(), in[0].shape()[0], in[0].shape()[1]);
  const Eigen::Index rows = x.dimension(0), cols = x.dimension(1);
  const Eigen::array<Eigen::Index, 2> column{rows, 1}, spread{1, cols}, down{rows, 1};
  float* o = out.data_as<float>();
  Eigen::TensorMap<Eigen::Tensor<float, 0, Eigen::RowMajor>> scalar(o);
  Eigen::TensorMap<Eigen::Tensor<float, 1, Eigen::RowMajor>> vector(o, out.numel());
  Eigen::TensorMap<Eigen::Tensor<float, 2, Eigen::RowMajor>> matrix(o, rows, cols);
  Eigen::Tensor<float, 2, Eigen::RowMajor> per_row(rows, 1), scratch(rows, cols);
  const auto run = [&](auto&& assign) { return PeerResult{timed_on(threads, repeats, assign), "Tensor reductions"}; };
  switch (r) {
    case Reduction::sum_all:
      return run([&](auto& d) { scalar.device(d) = x.sum(); });
    case Reduction::sum_columns:
      return run([&](auto& d) { vector.device(d) = x.sum(along_columns); });
    case Reduction::sum_rows:
      return run([&](auto& d) { vector.device(d) = x.sum(along_rows); });
    case Reduction::dot: {
      const T2 y(in[1].data_as<const float>(), rows, cols);
      return run([&](auto& d) { scalar.device(d) = (x * y).sum(); });
    }
    case Reduction::squared_distance: {
      const T2 y(in[1].data_as<const float>(), rows, cols);
      return run([&](auto& d) { vector.device(d) = (x - y).square().sum(along_rows); });
    }
    case Reduction::softmax:  // the row maxima, the exponentials, their sums, the division
      return run([&](auto& d) {
        per_row.device(d) = x.maximum(along_rows).reshape(column);
        matrix.device(d) = (x - per_row.broadcast(spread)).exp();
        per_row.device(d) = matrix.sum(along_rows).reshape(column);
        matrix.device(d) = matrix / per_row.broadcast(spread);
      });
    case Reduction::layer_norm: {
      using T1 = Eigen::TensorMap<const Eigen::Tensor<float, 2, Eigen::RowMajor>>;
      const T1 g(in[1].data_as<const float>(), 1, cols), b(in[2].data_as<const float>(), 1, cols);
      return run([&](auto& d) {
        per_row.device(d) = x.mean(along_rows).reshape(column);
        scratch.device(d) = x - per_row.broadcast(spread);
        per_row.device(d) = (scratch.square().mean(along_rows) + 1e-5f).rsqrt().reshape(column);
        matrix.device(d) = scratch * per_row.broadcast(spread) * g.broadcast(down) + b.broadcast(down);
      });
    }
    default:
      return {std::nullopt, "no form"};
  }
}

}  // namespace bcast::bench
