// NumPy's refusal of negative integer exponents (NOTE: [Negative integer exponents]).
#include "exponent_check.h"

#include <cstring>

#include "error_messages.h"
#include "function_table.h"

namespace bcast {
namespace {

constexpr std::string_view kWhy =
    "integers to negative integer powers are not allowed, as in NumPy (make the base or the exponent a float)";

template <class T>
std::optional<NegativeElement> first_negative_of(const TensorView& x) {
  // The elements in C order: the outer dims recursively, each innermost row
  // one loop (rank 0 is one element, the row of one).
  const int rank = x.rank();
  const auto size = static_cast<std::int64_t>(sizeof(T));
  const std::int64_t row = rank == 0 ? 1 : x.shape()[rank - 1];
  const std::int64_t step = rank == 0 ? 0 : x.strides()[rank - 1] * size;
  std::int64_t index = 0;
  auto walk = [&](auto&& self, int d, const char* p) -> std::optional<NegativeElement> {
    if (d >= rank - 1) {
      for (std::int64_t i = 0; i < row; ++i, ++index, p += step) {
        T v;
        std::memcpy(&v, p, sizeof v);
        if (v < 0) return NegativeElement{index, static_cast<std::int64_t>(v)};
      }
      return std::nullopt;
    }
    for (std::int64_t i = 0; i < x.shape()[d]; ++i, p += x.strides()[d] * size)
      if (auto found = self(self, d + 1, p)) return found;
    return std::nullopt;
  };
  if (x.numel() == 0) return std::nullopt;
  return walk(walk, 0, static_cast<const char*>(x.data()));
}

}  // namespace

bool checks_exponents(Op op, DType loop) {
  return op == Op::pow && is_integer(loop) && !is_unsigned(loop);
}

std::optional<NegativeElement> first_negative(const TensorView& x) {
  switch (x.dtype()) {
    case DType::i8: return first_negative_of<std::int8_t>(x);
    case DType::i16: return first_negative_of<std::int16_t>(x);
    case DType::i32: return first_negative_of<std::int32_t>(x);
    case DType::i64: return first_negative_of<std::int64_t>(x);
    default: return std::nullopt;
  }
}

void fail_negative_exponent(std::string_view subject, std::string_view name, NegativeElement at) {
  detail::fail(ErrorKind::value, "{}: the exponent {} has the negative value {} (element {} in C order): {}", subject,
               name, at.value, at.index, kWhy);
}

void fail_negative_exponent(std::string_view subject, std::string_view name) {
  detail::fail(ErrorKind::value, "{}: the exponent {} is negative: {}", subject, name, kWhy);
}

void check_exponent_data(Op op, const TensorView& b, std::int64_t out_elements) {
  if (!checks_exponents(op, b.dtype()) || out_elements == 0) return;
  if (const std::optional<NegativeElement> at = first_negative(b)) fail_negative_exponent(detail::row(op).name, "b", *at);
}

}  // namespace bcast
