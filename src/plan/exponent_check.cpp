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
  // The elements in C order, walked with a running offset per dim.
  const int rank = x.rank();
  const auto* base = static_cast<const char*>(x.data());
  const auto size = static_cast<std::int64_t>(sizeof(T));
  std::int64_t index = 0;
  auto walk = [&](auto&& self, int d, const char* p) -> std::optional<NegativeElement> {
    if (d == rank) {
      T v;
      std::memcpy(&v, p, sizeof v);
      if (v < 0) return NegativeElement{index, static_cast<std::int64_t>(v)};
      ++index;
      return std::nullopt;
    }
    const std::int64_t step = x.strides()[d] * size;
    for (std::int64_t i = 0; i < x.shape()[d]; ++i, p += step)
      if (auto found = self(self, d + 1, p)) return found;
    return std::nullopt;
  };
  if (x.numel() == 0) return std::nullopt;
  return walk(walk, 0, base);
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

void check_exponent_data(Op op, const TensorView& b) {
  if (!checks_exponents(op, b.dtype())) return;
  if (const std::optional<NegativeElement> at = first_negative(b)) fail_negative_exponent(detail::row(op).name, "b", *at);
}

}  // namespace bcast
