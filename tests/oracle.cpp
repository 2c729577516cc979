// The tests' independent oracle (see oracle.h): plain indices, and each
// element by oracle_values.h.
#include "oracle.h"
#include "oracle_expr.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>

namespace bcast::test {
namespace {

// ---- reading and writing raw element bits ----

Expected element(const TensorView& x, std::int64_t offset) {
  return element_at(static_cast<const char*>(x.data()) + offset * static_cast<std::int64_t>(x.element_size()), x.dtype());
}

// Offset (in elements) of output index `index` in x, by NumPy's rule: dims
// align on the right, and a dim of extent 1 always reads its element 0.
std::int64_t offset_of(const TensorView& x, const std::vector<std::int64_t>& index) {
  const std::size_t lead = index.size() - x.shape().size();
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (x.shape()[d] != 1) offset += index[lead + d] * x.strides()[d];
  return offset;
}

// A float's bits as a position on one line: adjacent floats differ by one,
// and +0 and -0 are both 0.
std::int64_t ordered(std::uint64_t bits, DType d) {
  const int width = static_cast<int>(dtype_size(d)) * 8;
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const auto magnitude = static_cast<std::int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

// Within want.ulps of an inexact function's result (oracle_values.h's
// tolerance()); NaN and infinities as exactly as any other result; anything
// where the oracle does not judge (Expected::approximate).
bool matches_part(const Expected& want, std::uint64_t got, DType out) {
  if (want.approximate) return true;
  if (want.any_quiet_nan) return is_quiet_nan(got, out);
  if (got == want.bits || want.ulps == 0) return got == want.bits;
  if (is_quiet_nan(got, out) || is_quiet_nan(want.bits, out)) return false;
  const std::int64_t distance = ordered(got, out) - ordered(want.bits, out);
  return (distance < 0 ? -distance : distance) <= static_cast<std::int64_t>(want.ulps);
}

// A complex element part by part, each within the tolerance.
bool matches(const Expected& want, const Expected& got, DType out) {
  if (!is_complex(out)) return matches_part(want, got.bits, out);
  const DType part = real_part_dtype(out);
  return matches_part(part_of(want, 0), got.bits, part) && matches_part(part_of(want, 1), got.im_bits, part);
}

std::string hex(std::uint64_t bits) {
  std::ostringstream s;
  s << "0x" << std::hex << bits;
  return s.str();
}

std::string describe_part(std::uint64_t bits, bool any_quiet_nan) { return any_quiet_nan ? "a quiet NaN" : hex(bits); }

// "0x3f800000", or "(0x3f800000, a quiet NaN)" for a complex element.
std::string describe(const Expected& x, DType d) {
  if (!is_complex(d)) return describe_part(x.bits, x.any_quiet_nan);
  return "(" + describe_part(x.bits, x.any_quiet_nan) + ", " + describe_part(x.im_bits, x.im_any_quiet_nan) + ")";
}

}  // namespace

void next_index(std::vector<std::int64_t>& index, const Shape& shape) {
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
}

Expected element_read_at(const TensorView& x, const std::vector<std::int64_t>& index) {
  return element(x, offset_of(x, index));
}

std::string describe_element(const Expected& x, DType d) { return describe(x, d); }

std::vector<Expected> oracle(Op op, const TensorView& a, const TensorView& b, const Shape& out_shape) {
  std::int64_t count = 1;
  for (const std::int64_t e : out_shape) count *= e;
  std::vector<Expected> want;
  want.reserve(static_cast<std::size_t>(count));
  std::vector<std::int64_t> index(out_shape.size(), 0);
  // An operand without a loop of its own computes in the one NumPy picks (arctan2 on i8: f16).
  const DType d = oracle_loop(op, a.dtype()).value_or(a.dtype());
  auto operand = [&](const TensorView& x) {  // ldexp's exponent as i64
    const DType to = op == Op::ldexp && &x == &b ? DType::i64 : d;
    return oracle_values::convert(element(x, offset_of(x, index)), x.dtype(), to);
  };
  for (std::int64_t i = 0; i < count; ++i, next_index(index, out_shape))
    want.push_back(oracle_values::binary(op, d, operand(a), operand(b)));
  return want;
}

namespace {

// The C-order position of the first element of got that the oracle does not
// expect, or -1.
std::int64_t first_bad(const std::vector<Expected>& want, const TensorView& got) {
  std::vector<std::int64_t> index(got.shape().size(), 0);
  for (std::size_t i = 0; i < want.size(); ++i, next_index(index, got.shape()))
    if (!matches(want[i], element(got, offset_of(got, index)), got.dtype())) return static_cast<std::int64_t>(i);
  return -1;
}

std::vector<std::int64_t> index_of(std::int64_t position, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < position; ++i) next_index(index, shape);
  return index;
}

std::string describe_mismatch(const std::vector<Expected>& want, const TensorView& got, std::int64_t bad) {
  const Expected value = element(got, offset_of(got, index_of(bad, got.shape())));
  return "element " + std::to_string(bad) + " of " + to_string(got.shape()) + " is " + describe(value, got.dtype()) +
         ", the oracle expects " + describe(want[static_cast<std::size_t>(bad)], got.dtype());
}

}  // namespace

std::string oracle_mismatch(const std::vector<Expected>& want, const TensorView& got) {
  if (static_cast<std::int64_t>(want.size()) != got.numel())
    return "the result has " + std::to_string(got.numel()) + " elements, the oracle " + std::to_string(want.size());
  const std::int64_t bad = first_bad(want, got);
  return bad < 0 ? "" : describe_mismatch(want, got, bad);
}

std::string oracle_mismatch(Op op, const TensorView& a, const TensorView& b, const TensorView& got) {
  const std::vector<Expected> want = oracle(op, a, b, got.shape());
  const std::int64_t bad = first_bad(want, got);
  if (bad < 0) return "";
  const std::vector<std::int64_t> index = index_of(bad, got.shape());
  return describe_mismatch(want, got, bad) + " (" + std::string(op_name(op)) + " of " +
         describe(element(a, offset_of(a, index)), a.dtype()) + " and " +
         describe(element(b, offset_of(b, index)), b.dtype()) + ")";
}

void fill_sentinel(const TensorView& x, std::uint8_t byte) {
  std::vector<std::int64_t> index(x.shape().size(), 0);
  for (std::int64_t i = 0; i < x.numel(); ++i, next_index(index, x.shape()))
    std::memset(static_cast<char*>(x.data()) + offset_of(x, index) * static_cast<std::int64_t>(x.element_size()), byte,
                x.element_size());
}

}  // namespace bcast::test
