// The reduction table's lookups and its dtype rules (NOTE: [Reduction table]).
#include "reduction_table.h"

#include "bcast/errors.h"
#include "error_messages.h"
#include "function_table.h"

namespace bcast {

std::string_view reduce_name(ReduceOp op) { return detail::reduce_row(op).name; }

std::optional<ReduceOp> parse_reduce(std::string_view name) {
  for (const detail::ReduceRow& r : detail::kReduceRows)
    if (name == r.name || (!r.alias.empty() && name == r.alias)) return r.op;
  return std::nullopt;
}

namespace detail {
namespace {

// f16 and bf16 add and multiply in f32 and round once at the end.
DType accumulating(DType d) { return d == DType::f16 || d == DType::bf16 ? DType::f32 : d; }

DType default_result(ReduceResult rule, DType input) {
  switch (rule) {
    case ReduceResult::widened:
      if (input == DType::boolean || (is_integer(input) && !is_unsigned(input))) return DType::i64;
      return is_unsigned(input) ? DType::u64 : input;
    case ReduceResult::same:
      return input;
    case ReduceResult::boolean:
      return DType::boolean;
    case ReduceResult::averaged:
      return input == DType::boolean || is_integer(input) ? DType::f64 : input;
    case ReduceResult::spread:
      return input == DType::boolean || is_integer(input) ? DType::f64 : real_part_dtype(input);
    case ReduceResult::index:
      return DType::i64;
  }
  return input;
}

}  // namespace

void check_ddof(ReduceOp op, double ddof) {
  if (ddof != 0 && op != ReduceOp::var && op != ReduceOp::std)
    fail(ErrorKind::value, "{}: takes no ddof (got ddof={}); var and std do", reduce_name(op), ddof);
}

ReduceDTypes reduce_dtypes(ReduceOp op, DType input, std::optional<DType> dtype) {
  const ReduceRow& r = reduce_row(op);
  if (dtype && !r.takes_dtype)
    fail(ErrorKind::value, "{}: takes no dtype argument (got dtype={}); its result is x's dtype{}", r.name,
         dtype_name(*dtype), r.result == ReduceResult::boolean ? " (bool)" : "");
  if (dtype && *dtype == DType::boolean)
    fail(ErrorKind::value, "{}: dtype=bool is not an accumulator; use any or all, or a numeric dtype", r.name);
  if (dtype && (r.result == ReduceResult::averaged || r.result == ReduceResult::spread) && !kInexact.contains(*dtype))
    fail(ErrorKind::value, "{}: dtype={} is not a float or complex dtype; a mean is a division", r.name,
         dtype_name(*dtype));
  const DType result =
      dtype ? (r.result == ReduceResult::spread ? real_part_dtype(*dtype) : *dtype) : default_result(r.result, input);
  if (r.combine == Combine::minimum || r.combine == Combine::maximum) return {input, result};
  if (r.result == ReduceResult::boolean) return {DType::boolean, result};
  return {accumulating(result), result};
}

}  // namespace detail

DType reduce_result_dtype(ReduceOp op, DType input, std::optional<DType> dtype) {
  return detail::reduce_dtypes(op, input, dtype).result;
}

}  // namespace bcast
