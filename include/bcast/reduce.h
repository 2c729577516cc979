// Reductions along axes of a view: sum, prod, min, max, mean, any, all,
// argmin, argmax, var, std, nansum, nanmin, nanmax, nanmean.
//
//   Tensor total = sum(x);                      // every axis: a 0-d tensor
//   Tensor rows = mean(x, Axes{-1}, true);       // keepdims: [..., 1]
//   Tensor m = reduce(ReduceOp::max, x, Axes{0, 2});
//   Tensor d = sum(x, 0, false, DType::f64);     // accumulate and return f64
//
// Semantics are NumPy's np.sum, np.prod, np.min (amin), np.max (amax),
// np.mean, np.any, np.all, np.argmin, np.argmax, np.var, np.std and the nan-
// reductions (docs/semantics.md, "Reductions"):
//   - result dtypes: sum and prod of bool and signed integers give i64, of
//     unsigned integers u64, wrapping; mean of bool and integers gives f64;
//     min and max keep the dtype; any and all give bool; argmin and argmax
//     i64; var and std of bool and integers f64, of complex its real part's
//     dtype. f16 and bf16
//     accumulate in f32 and round once at the end. `dtype` (sum, prod,
//     mean, var, std, nansum, nanmean) names the accumulator and the result:
//     each element converts to it first, as astype does.
//   - empty reductions: sum 0, prod 1, any false, all true, mean, var and
//     std NaN; min, max, argmin, argmax, nanmin and nanmax are an
//     Error(value) naming the axis (they have no identity).
//   - argmin and argmax take no axis (the index into x in C order) or one;
//     the first of equal values wins, and a NaN over any number.
//   - var and std divide by max(n - ddof, 0) (the Array API's correction).
//   - nansum, nanmean, nanmin and nanmax leave NaN out; an all-NaN nanmin or
//     nanmax is NaN, an all-NaN nanmean NaN.
//   - NaN propagates through min and max; -0 orders below +0.
//   - NOTE: [Reduction order] (src/exec/reduce_executor.h): sums and
//     products add in one fixed pairwise order, so a result has the same
//     bits for any thread count.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "bcast/tensor.h"

namespace bcast {

// X(name): every reduction, in the order of enum ReduceOp.
#define BCAST_FOR_EACH_REDUCE_OP(X)                                                                           \
  X(sum)                                                                                                      \
  X(prod) X(min) X(max) X(mean) X(any) X(all) X(argmin) X(argmax) X(var) X(std) X(nansum) X(nanmin) X(nanmax) \
      X(nanmean)

enum class ReduceOp : std::uint8_t {
#define BCAST_REDUCE_ENUM(name) name,
  BCAST_FOR_EACH_REDUCE_OP(BCAST_REDUCE_ENUM)
#undef BCAST_REDUCE_ENUM
};
inline constexpr int kNumReduceOps = 15;

std::string_view reduce_name(ReduceOp op);
// NumPy's names, with its aliases amax and amin.
std::optional<ReduceOp> parse_reduce(std::string_view name);

// The axes a reduction runs along: every axis (the default), or a list of
// axes, negative ones counted from the end, each at most once. An empty list
// reduces nothing (NumPy's axis=()): Axes(std::vector<int>{}).
//   Axes()  Axes(1)  Axes{0, -1}
class Axes {
 public:
  Axes() = default;
  Axes(int axis) : list_{axis}, every_(false) {}  // NOLINT: one axis
  Axes(std::initializer_list<int> axes) : list_(axes), every_(axes.size() == 0) {}
  explicit Axes(std::vector<int> axes) : list_(std::move(axes)), every_(false) {}
  bool every() const { return every_; }
  const std::vector<int>& list() const { return list_; }

 private:
  std::vector<int> list_;
  bool every_ = true;
};

// The dtype of op's result on x of dtype `input`, with NumPy's `dtype=`
// argument where given (an Error(value) for a reduction that takes none, or
// for bool).
DType reduce_result_dtype(ReduceOp op, DType input, std::optional<DType> dtype = std::nullopt);

// Runs `op` along `axes` of x into a new C-order tensor: x's shape without
// the reduced axes, or with extent 1 there when `keepdims`. An Error(value)
// names the axis for an axis out of range, an axis given twice, and an empty
// reduction without identity. `ddof` is var's and std's.
Tensor reduce(ReduceOp op, const TensorView& x, const Axes& axes = {}, bool keepdims = false,
              std::optional<DType> dtype = std::nullopt, double ddof = 0);

Tensor sum(const TensorView& x, const Axes& axes = {}, bool keepdims = false,
           std::optional<DType> dtype = std::nullopt);
Tensor prod(const TensorView& x, const Axes& axes = {}, bool keepdims = false,
            std::optional<DType> dtype = std::nullopt);
Tensor mean(const TensorView& x, const Axes& axes = {}, bool keepdims = false,
            std::optional<DType> dtype = std::nullopt);
// min(x) and max(x) reduce; min(a, b) and max(a, b) of two views are the
// elementwise ops of bcast/ops.h.
Tensor min(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor argmin(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor argmax(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
// NumPy's ddof: the divisor is max(n - ddof, 0).
Tensor var(const TensorView& x, const Axes& axes = {}, bool keepdims = false, double ddof = 0,
           std::optional<DType> dtype = std::nullopt);
Tensor std(const TensorView& x, const Axes& axes = {}, bool keepdims = false, double ddof = 0,
           std::optional<DType> dtype = std::nullopt);
Tensor nansum(const TensorView& x, const Axes& axes = {}, bool keepdims = false,
              std::optional<DType> dtype = std::nullopt);
Tensor nanmean(const TensorView& x, const Axes& axes = {}, bool keepdims = false,
               std::optional<DType> dtype = std::nullopt);
Tensor nanmin(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor nanmax(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor max(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor any(const TensorView& x, const Axes& axes = {}, bool keepdims = false);
Tensor all(const TensorView& x, const Axes& axes = {}, bool keepdims = false);

}  // namespace bcast
