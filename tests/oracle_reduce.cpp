// The tests' oracle of the exact reductions (oracle_reduce.h).
#include "oracle_reduce.h"

#include <bit>
#include <cmath>

#include <gtest/gtest.h>

#include "oracle.h"

namespace bcast::test {

namespace ov = oracle_values;

// x's value as a long double (a float dtype's, through the oracle's exact widening).
long double value_of(const Expected& e, DType d) {
  if (d == DType::f64) return std::bit_cast<double>(e.bits);
  return std::bit_cast<double>(ov::convert(e, d, DType::f64).bits);
}

std::vector<bool> along_of(const Axes& axes, int rank) {
  std::vector<bool> along(static_cast<std::size_t>(rank), axes.every());
  for (int a : axes.list()) along[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
  return along;
}

std::vector<std::vector<std::int64_t>> inputs_of(const Shape& shape, const std::vector<bool>& along,
                                                 const std::vector<std::int64_t>& kept_index) {
  std::vector<std::vector<std::int64_t>> all;
  Shape reduced_shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (along[d]) reduced_shape.push_back(shape[d]);
  std::int64_t n = 1;
  for (std::int64_t e : reduced_shape) n *= e;
  std::vector<std::int64_t> r(reduced_shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> index(shape.size());
    std::size_t k = 0, j = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) index[d] = along[d] ? r[j++] : kept_index[k++];
    all.push_back(index);
    next_index(r, reduced_shape);
  }
  return all;
}

std::string reduction_mismatch(ReduceOp op, const TensorView& x, const Axes& axes, const TensorView& got) {
  const std::vector<bool> along = along_of(axes, x.rank());
  const DType in = x.dtype(), acc = got.dtype();
  Shape kept;
  for (int d = 0; d < x.rank(); ++d)
    if (!along[static_cast<std::size_t>(d)]) kept.push_back(x.shape()[static_cast<std::size_t>(d)]);
  std::vector<std::int64_t> k(kept.size(), 0);
  const std::int64_t outputs = got.numel();
  const auto* out = static_cast<const char*>(got.data());
  for (std::int64_t o = 0; o < outputs; ++o) {
    Expected want;
    bool first = true;
    for (const auto& index : inputs_of(x.shape(), along, k)) {
      const Expected v = element_read_at(x, index);
      switch (op) {
        case ReduceOp::sum:
          want = ov::binary(Op::add, acc, first ? ov::of_integer(0, acc) : want, ov::convert(v, in, acc));
          break;
        case ReduceOp::prod:
          want = ov::binary(Op::mul, acc, first ? ov::of_integer(1, acc) : want, ov::convert(v, in, acc));
          break;
        case ReduceOp::max:
          want = first ? v : ov::binary(Op::max, in, want, v);
          break;
        case ReduceOp::min:
          want = first ? v : ov::binary(Op::min, in, want, v);
          break;
        case ReduceOp::any:
          want = ov::binary(Op::logical_or, DType::boolean, first ? ov::of_integer(0, DType::boolean) : want,
                            ov::convert(v, in, DType::boolean));
          break;
        case ReduceOp::all:
          want = ov::binary(Op::logical_and, DType::boolean, first ? ov::of_integer(1, DType::boolean) : want,
                            ov::convert(v, in, DType::boolean));
          break;
        default:
          ADD_FAILURE() << reduce_name(op) << " is not exact";
          return "";
      }
      first = false;
    }
    if (first) want = ov::of_integer(op == ReduceOp::prod || op == ReduceOp::all ? 1 : 0, acc);
    // Element o of the C-order result.
    const Expected g = element_at(out + o * static_cast<std::int64_t>(got.element_size()), got.dtype());
    const bool same_zero = (op == ReduceOp::max || op == ReduceOp::min) && is_floating(acc) && value_of(g, acc) == 0 &&
                           value_of(want, acc) == 0;  // -0 and +0 (docs/semantics.md)
    const bool nan_both = is_floating(acc) && std::isnan(value_of(g, acc)) && std::isnan(value_of(want, acc));
    if (g.bits != want.bits && !same_zero && !nan_both)
      return std::string(reduce_name(op)) + " " + std::string(dtype_name(in)) + ": element " + std::to_string(o) +
             " is " + describe_element(g, acc) + ", the oracle gives " + describe_element(want, acc);
    next_index(k, kept);
  }
  return "";
}

}  // namespace bcast::test
