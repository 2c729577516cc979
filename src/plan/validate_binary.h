// The rules a binary op call must satisfy before anything runs or is written.
#pragma once

#include <string_view>

#include "bcast/ops.h"
#include "bcast/tensor.h"

namespace bcast {

// The rules on layouts and dtypes alone (prepare() checks these once).
Shape validate_input_layouts(Op op, DType a_dtype, const Layout& a, DType b_dtype, const Layout& b);
void validate_out_layout(Op op, DType input, const Shape& a_shape, const Shape& b_shape, DType out_dtype,
                         const Layout& out, const Shape& out_shape);
// The rules on data pointers: memory for every non-empty view, and no overlap
// between out and an input unless out is that input exactly.
void validate_data(Op op, const TensorView& a, const TensorView& b, const TensorView& out);

// Checks a and b for op; returns the broadcast (output) shape. Throws Error.
Shape validate_inputs(Op op, const TensorView& a, const TensorView& b);

// Checks a caller-supplied out against the inputs and the broadcast shape.
void validate_out(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                  const Shape& out_shape);

// Refuses an out that writes some element more than once (a broadcast view,
// strides that interleave): "<subject>: out of shape [2, 3] and strides [0, 1]
// writes some elements more than once". Expressions check it too.
void require_no_self_overlap(std::string_view subject, const Layout& out);

// Memory overlap of two views, by the byte range each can touch.
bool ranges_overlap(const TensorView& x, const TensorView& y);

// The bytes a view can touch: [first, last + 1) relative to its data pointer.
struct ByteSpan {
  std::int64_t begin, end;
};
ByteSpan byte_span(const TensorView& x);

// validate_data's checks for calls whose layouts were validated before (a
// prepared op, a memoised call), with the layout-dependent part worked out
// once: each operand's byte reach and whether out may be an input in place.
// passes() is true when the data pointers are non-null and out overlaps no
// input other than exactly; when it is false, validate_data names the problem.
class DataCheck {
 public:
  DataCheck() = default;
  DataCheck(DType in, DType out, const Layout& a, const Layout& b, const Layout& out_layout);
  bool passes(const void* a, const void* b, const void* out) const;

 private:
  ByteSpan reach_a_{}, reach_b_{}, reach_out_{};
  bool out_like_a_ = false, out_like_b_ = false;
};

}  // namespace bcast
