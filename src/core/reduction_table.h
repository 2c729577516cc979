// NOTE: [Reduction table] Every reduction, one row each: its names, what it
// combines, its identity (the result of an empty reduction, or none), and
// how its result and accumulator dtypes follow from the input's (NumPy's
// rules under NEP 50). The API, the planner, the executor, the Python module
// and docs/semantics.md's table read the row. LLVM-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bcast/dtype.h"
#include "bcast/reduce.h"

namespace bcast::detail {

// What the executor combines: mean is a sum divided by the count. A composed
// reduction runs as other reductions and elementwise steps (NOTE: [Composed
// reductions]), never on the executor itself.
enum class Combine : std::uint8_t { add, multiply, minimum, maximum, logical_or, logical_and, composed };

// The result's dtype from the input's, without a `dtype=` argument.
enum class ReduceResult : std::uint8_t {
  widened,   // sum, prod: bool and signed integers i64, unsigned u64, else the input's
  same,      // min, max
  boolean,   // any, all
  averaged,  // mean: bool and integers f64, else the input's
  spread,    // var, std: bool and integers f64, complex its real part's dtype, else the input's
  index,     // argmin, argmax: i64
};

// An empty reduction's value: the combine's identity, NaN (mean), or an
// error (min and max: NumPy's "zero-size array to reduction operation").
enum class WhenEmpty : std::uint8_t { identity, nan, error };

struct ReduceRow {
  ReduceOp op;
  std::string_view name;
  std::string_view alias;  // NumPy's other name, or empty
  Combine combine;
  ReduceResult result;
  WhenEmpty when_empty;
  bool takes_dtype;  // NumPy's dtype= argument
  bool one_axis;     // NumPy takes no axis or one (argmin, argmax)
  std::string_view summary;
};

inline constexpr ReduceRow kReduceRows[] = {
    {ReduceOp::sum, "sum", "", Combine::add, ReduceResult::widened, WhenEmpty::identity, true, false,
     "the sum; bool and signed integers in i64, unsigned in u64 (wrapping)"},
    {ReduceOp::prod, "prod", "", Combine::multiply, ReduceResult::widened, WhenEmpty::identity, true, false,
     "the product; bool and signed integers in i64, unsigned in u64 (wrapping)"},
    {ReduceOp::min, "min", "amin", Combine::minimum, ReduceResult::same, WhenEmpty::error, false, false,
     "the smallest element; NaN if any is NaN"},
    {ReduceOp::max, "max", "amax", Combine::maximum, ReduceResult::same, WhenEmpty::error, false, false,
     "the largest element; NaN if any is NaN"},
    {ReduceOp::mean, "mean", "", Combine::add, ReduceResult::averaged, WhenEmpty::nan, true, false,
     "the sum divided by the count; bool and integers in f64"},
    {ReduceOp::any, "any", "", Combine::logical_or, ReduceResult::boolean, WhenEmpty::identity, false, false,
     "whether any element is nonzero"},
    {ReduceOp::all, "all", "", Combine::logical_and, ReduceResult::boolean, WhenEmpty::identity, false, false,
     "whether every element is nonzero"},
    {ReduceOp::argmin, "argmin", "", Combine::composed, ReduceResult::index, WhenEmpty::error, false, true,
     "the index of the first smallest element (of the first NaN)"},
    {ReduceOp::argmax, "argmax", "", Combine::composed, ReduceResult::index, WhenEmpty::error, false, true,
     "the index of the first largest element (of the first NaN)"},
    {ReduceOp::var, "var", "", Combine::composed, ReduceResult::spread, WhenEmpty::nan, true, false,
     "the mean of |x - mean|**2 over max(n - ddof, 0)"},
    {ReduceOp::std, "std", "", Combine::composed, ReduceResult::spread, WhenEmpty::nan, true, false,
     "the square root of var"},
    {ReduceOp::nansum, "nansum", "", Combine::composed, ReduceResult::widened, WhenEmpty::identity, true, false,
     "the sum of the elements that are not NaN"},
    {ReduceOp::nanmin, "nanmin", "", Combine::composed, ReduceResult::same, WhenEmpty::error, false, false,
     "the smallest element that is not NaN; NaN where all are"},
    {ReduceOp::nanmax, "nanmax", "", Combine::composed, ReduceResult::same, WhenEmpty::error, false, false,
     "the largest element that is not NaN; NaN where all are"},
    {ReduceOp::nanmean, "nanmean", "", Combine::composed, ReduceResult::averaged, WhenEmpty::nan, true, false,
     "the mean of the elements that are not NaN"},
};
static_assert(std::size(kReduceRows) == kNumReduceOps);

constexpr const ReduceRow& reduce_row(ReduceOp op) { return kReduceRows[static_cast<int>(op)]; }

// The dtypes a reduction computes with: `accumulator` holds the running value
// (f16 and bf16 sums in f32), `result` is what the call returns.
struct ReduceDTypes {
  DType accumulator;
  DType result;
};
// An Error(value) for a ddof other than 0 outside var and std (a text would
// print it where the grammar takes none).
void check_ddof(ReduceOp op, double ddof);

// An Error(value) for a `dtype` the reduction does not take.
ReduceDTypes reduce_dtypes(ReduceOp op, DType input, std::optional<DType> dtype);

}  // namespace bcast::detail
