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

// What the executor combines: mean is a sum divided by the count.
enum class Combine : std::uint8_t { add, multiply, minimum, maximum, logical_or, logical_and };

// The result's dtype from the input's, without a `dtype=` argument.
enum class ReduceResult : std::uint8_t {
  widened,   // sum, prod: bool and signed integers i64, unsigned u64, else the input's
  same,      // min, max
  boolean,   // any, all
  averaged,  // mean: bool and integers f64, else the input's
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
  std::string_view summary;
};

inline constexpr ReduceRow kReduceRows[] = {
    {ReduceOp::sum, "sum", "", Combine::add, ReduceResult::widened, WhenEmpty::identity, true,
     "the sum; bool and signed integers in i64, unsigned in u64 (wrapping)"},
    {ReduceOp::prod, "prod", "", Combine::multiply, ReduceResult::widened, WhenEmpty::identity, true,
     "the product; bool and signed integers in i64, unsigned in u64 (wrapping)"},
    {ReduceOp::min, "min", "amin", Combine::minimum, ReduceResult::same, WhenEmpty::error, false,
     "the smallest element; NaN if any is NaN"},
    {ReduceOp::max, "max", "amax", Combine::maximum, ReduceResult::same, WhenEmpty::error, false,
     "the largest element; NaN if any is NaN"},
    {ReduceOp::mean, "mean", "", Combine::add, ReduceResult::averaged, WhenEmpty::nan, true,
     "the sum divided by the count; bool and integers in f64"},
    {ReduceOp::any, "any", "", Combine::logical_or, ReduceResult::boolean, WhenEmpty::identity, false,
     "whether any element is nonzero"},
    {ReduceOp::all, "all", "", Combine::logical_and, ReduceResult::boolean, WhenEmpty::identity, false,
     "whether every element is nonzero"},
};
static_assert(std::size(kReduceRows) == kNumReduceOps);

constexpr const ReduceRow& reduce_row(ReduceOp op) { return kReduceRows[static_cast<int>(op)]; }

// The dtypes a reduction computes with: `accumulator` holds the running value
// (f16 and bf16 sums in f32), `result` is what the call returns.
struct ReduceDTypes {
  DType accumulator;
  DType result;
};
// An Error(value) for a `dtype` the reduction does not take.
ReduceDTypes reduce_dtypes(ReduceOp op, DType input, std::optional<DType> dtype);

}  // namespace bcast::detail
