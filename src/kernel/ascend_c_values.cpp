// C's spelling of an Ascend C kernel's values (ascend_c_values.h).
#include "ascend_c_values.h"

#include <bit>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "ascend_isa.h"
#include "half.h"

namespace bcast::ascend {
namespace {

// A float of `bits` (a float's, or else a double's) as a C
// expression of exactly those bits: hexadecimal where finite, a division
// for an infinity, the bits themselves for a NaN (its sign and payload).
std::string float_literal(std::uint64_t bits, bool is_float) {
  const double v = is_float ? std::bit_cast<float>(static_cast<std::uint32_t>(bits)) : std::bit_cast<double>(bits);
  const char* suffix = is_float ? "f" : "";
  if (std::isnan(v))
    return is_float ? fmt::format("__builtin_bit_cast(float, {:#010x}u)", bits)
                    : fmt::format("__builtin_bit_cast(double, {:#018x}ull)", bits);
  if (std::isinf(v)) return fmt::format("({}1.0{} / 0.0{})", v < 0 ? "-" : "", suffix, suffix);
  return fmt::format("{:a}{}", v, suffix);
}

}  // namespace

std::string ascend_c_type(DType t) {
  if (t == DType::f64) return "double";
  return std::string(ascend_type_name(t).value_or("int64_t"));
}

std::string ascend_c_literal(DType t, std::uint64_t bits) {
  switch (t) {
    case DType::f16: {  // widened to a float exactly (a NaN's sign and payload moved over), then narrowed
      const auto h = static_cast<std::uint32_t>(bits & 0xffffu);
      const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
      const std::uint32_t wide = nan ? (h & 0x8000u) << 16 | 0x7f800000u | (h & 0x3ffu) << 13
                                     : std::bit_cast<std::uint32_t>(f16_to_f32(static_cast<std::uint16_t>(h)));
      return fmt::format("static_cast<half>({})", float_literal(wide, true));
    }
    case DType::bf16:
      return fmt::format("static_cast<bfloat16_t>({})", float_literal((bits & 0xffffu) << 16, true));
    case DType::f32:
      return float_literal(bits & 0xffffffffu, true);
    case DType::f64:
      return float_literal(bits, false);
    default:
      break;
  }
  const int width = static_cast<int>(8 * dtype_size(t));
  if (is_unsigned(t) || t == DType::boolean) return fmt::format("static_cast<{}>({}ull)", ascend_c_type(t), bits);
  const std::int64_t v = static_cast<std::int64_t>(bits << (64 - width)) >> (64 - width);  // sign-extended
  if (v == std::numeric_limits<std::int64_t>::min() >> (64 - width))  // C has no literal for the least value
    return fmt::format("static_cast<{}>({}ll - 1)", ascend_c_type(t), v + 1);
  return fmt::format("static_cast<{}>({}ll)", ascend_c_type(t), v);
}

}  // namespace bcast::ascend
