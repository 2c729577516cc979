// Validation of binary op calls: one rule per line, every message naming the
// operand, the dim and the values.
#include "validate_binary.h"

#include <algorithm>
#include <cstdlib>

#include "bcast/broadcast.h"
#include "error_messages.h"
#include "function_table.h"

namespace bcast {
namespace {

using detail::fail;

void require_data(Op op, const TensorView& x, const char* operand) {
  if (x.data() == nullptr && x.numel() > 0)
    fail(ErrorKind::value, "{}: {} has shape {} but its data pointer is null", op_name(op), operand,
         to_string(x.shape()));
}

}  // namespace

// A sufficient test that no two indices of out share an element: with dims
// sorted by |stride|, each stride must step past everything the smaller dims
// reach. Stride 0 over extent > 1 (a broadcast view) always fails it. An
// empty out writes nothing, whatever its strides (NumPy gives some empty
// views strides of 0).
void require_no_self_overlap(std::string_view subject, const Layout& out) {
  if (out.numel() == 0) return;
  std::vector<std::pair<std::int64_t, std::int64_t>> dims;  // (|stride|, extent)
  for (int d = 0; d < out.rank(); ++d)
    if (out.shape[d] > 1) dims.emplace_back(std::abs(out.strides[d]), out.shape[d]);
  std::sort(dims.begin(), dims.end());
  std::int64_t reach = 0;
  for (const auto& [stride, extent] : dims) {
    if (stride <= reach)
      fail(ErrorKind::value, "{}: out of shape {} and strides {} writes some elements more than once", subject,
           to_string(out.shape), to_string(out.strides));
    reach += stride * (extent - 1);
  }
}

namespace {

struct ByteRange {
  std::intptr_t begin, end;  // [begin, end)
};

// The bytes `span` covers when the view's data is at `data`.
ByteRange at(const void* data, const ByteSpan& span) {
  const auto base = reinterpret_cast<std::intptr_t>(data);
  return {base + span.begin, base + span.end};
}

bool overlap(const ByteRange& x, const ByteRange& y) { return x.begin < y.end && y.begin < x.end; }

void require_no_partial_overlap(Op op, const TensorView& out, const TensorView& in, const char* operand) {
  const bool same_view = out.data() == in.data() && out.layout() == in.layout() && out.dtype() == in.dtype();
  if (!same_view && ranges_overlap(out, in))
    fail(ErrorKind::value,
         "{}: out overlaps {} in memory without being the same view (in place needs out to be {} "
         "exactly: same data, dtype, shape and strides)",
         op_name(op), operand, operand);
}

}  // namespace

ByteSpan byte_span(const TensorView& x) {
  std::int64_t low = 0, high = 0;
  for (int d = 0; d < x.rank(); ++d) {
    const std::int64_t span = (x.shape()[d] - 1) * x.strides()[d];
    (span < 0 ? low : high) += span;
  }
  const auto size = static_cast<std::int64_t>(x.element_size());
  return {low * size, (high + 1) * size};
}

bool ranges_overlap(const TensorView& x, const TensorView& y) {
  if (x.numel() == 0 || y.numel() == 0) return false;
  return overlap(at(x.data(), byte_span(x)), at(y.data(), byte_span(y)));
}

Shape validate_input_layouts(Op op, DType a_dtype, const Layout& a, DType b_dtype, const Layout& b) {
  validate_layout(a, "a");
  validate_layout(b, "b");
  if (a_dtype != b_dtype)
    fail(ErrorKind::dtype, "{}: operands have different dtypes: a is {}, b is {}", op_name(op), dtype_name(a_dtype),
         dtype_name(b_dtype));
  if (!detail::supports(op, a_dtype)) {
    // A pair that computes in another dtype (arctan2 on i8 in f16) is an
    // expression: a binary kernel computes in its operands' dtype.
    const std::optional<DType> loop = detail::loop_for(detail::row(op), a_dtype);
    if (loop && !detail::row(op).int_exponent)
      fail(ErrorKind::dtype, "{}: a prepared op computes in its operands' dtype, and {} on {} computes in {}: prepare "
                             "the expression {}(a, b) instead",
           op_name(op), op_name(op), dtype_name(a_dtype), dtype_name(*loop), op_name(op));
    fail(ErrorKind::dtype, "{}: not defined for dtype {}", op_name(op), dtype_name(a_dtype));
  }
  try {
    Shape shape = broadcast_infer_shape(a.shape, b.shape);
    checked_numel(shape, "the broadcast result");
    return shape;
  } catch (const Error& e) {
    throw Error(e.kind(), fmt::format("{}: {}", op_name(op), e.what()));
  }
}

void validate_out_layout(Op op, DType input, const Shape& a_shape, const Shape& b_shape, DType out_dtype,
                         const Layout& out, const Shape& out_shape) {
  validate_layout(out, "out");
  if (out.shape != out_shape)
    fail(ErrorKind::shape, "{}: out has shape {} but a {} and b {} broadcast to {}", op_name(op),
         to_string(out.shape), to_string(a_shape), to_string(b_shape), to_string(out_shape));
  const DType result = detail::result_dtype_of(op, input);
  if (out_dtype != result)
    fail(ErrorKind::dtype, "{}: out has dtype {} but the result of {} on {} is {}", op_name(op), dtype_name(out_dtype),
         op_name(op), dtype_name(input), dtype_name(result));
  require_no_self_overlap(op_name(op), out);
}

void validate_data(Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  require_data(op, a, "a");
  require_data(op, b, "b");
  require_data(op, out, "out");
  require_no_partial_overlap(op, out, a, "a");
  require_no_partial_overlap(op, out, b, "b");
}

DataCheck::DataCheck(DType in, DType out, const Layout& a, const Layout& b, const Layout& out_layout)
    : reach_a_(byte_span({nullptr, in, a})), reach_b_(byte_span({nullptr, in, b})),
      reach_out_(byte_span({nullptr, out, out_layout})), out_like_a_(in == out && a == out_layout),
      out_like_b_(in == out && b == out_layout) {}

bool DataCheck::passes(const void* a, const void* b, const void* out) const {
  if (a == nullptr || b == nullptr || out == nullptr) return false;
  const ByteRange o = at(out, reach_out_);
  if (!(out == a && out_like_a_) && overlap(o, at(a, reach_a_))) return false;
  if (!(out == b && out_like_b_) && overlap(o, at(b, reach_b_))) return false;
  return true;
}

Shape validate_inputs(Op op, const TensorView& a, const TensorView& b) {
  Shape shape = validate_input_layouts(op, a.dtype(), a.layout(), b.dtype(), b.layout());
  require_data(op, a, "a");
  require_data(op, b, "b");
  return shape;
}

void validate_out(Op op, const TensorView& a, const TensorView& b, const TensorView& out, const Shape& out_shape) {
  validate_out_layout(op, a.dtype(), a.shape(), b.shape(), out.dtype(), out.layout(), out_shape);
  validate_data(op, a, b, out);
}

}  // namespace bcast
