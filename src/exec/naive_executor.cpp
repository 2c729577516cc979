// The naive executor: an odometer over output indices, offsets by multiplication.
#include "naive_executor.h"

#include <vector>

#include "scalar_ops.h"

namespace bcast {
namespace {

// Offset of output index `index` in `x`, NumPy's broadcasting by extent:
// x's dims align on the right, and a dim of extent 1 always reads element 0.
std::int64_t broadcast_offset(const Layout& x, const std::vector<std::int64_t>& index) {
  const std::size_t lead = index.size() - x.shape.size();
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (x.shape[d] != 1) offset += index[lead + d] * x.strides[d];
  return offset;
}

template <Op O, DType D>
struct Naive {
  using F = detail::ScalarOp<O, D>;
  using In = typename detail::Element<D>::storage;
  using Out = typename F::Out::storage;

  static void run(const TensorView& a, const TensorView& b, const TensorView& out) {
    const std::int64_t count = out.numel();
    std::vector<std::int64_t> index(out.rank(), 0);
    for (std::int64_t i = 0; i < count; ++i) {
      const In x = a.data_as<const In>()[broadcast_offset(a.layout(), index)];
      const In y = b.data_as<const In>()[broadcast_offset(b.layout(), index)];
      out.data_as<Out>()[broadcast_offset(out.layout(), index)] = F::run(x, y);
      for (int d = out.rank() - 1; d >= 0 && ++index[d] == out.shape()[d]; --d) index[d] = 0;
    }
  }
};

using NaiveFn = void (*)(const TensorView&, const TensorView&, const TensorView&);
constexpr auto kNaive = detail::make_op_dtype_table<Naive, NaiveFn>();

}  // namespace

void run_naive(Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  kNaive[detail::table_index(op, a.dtype())](a, b, out);
}

}  // namespace bcast
