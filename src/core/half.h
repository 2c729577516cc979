// f16 (IEEE binary16) and bf16 (bfloat16) conversions to and from f32, rounding
// to nearest even. Header-only: the executors call these per element.
#pragma once

#include <bit>
#include <cstdint>

namespace bcast {

inline float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in f32
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(magnitude) | sign);
  }
  if (exponent == 0x1f && mantissa == 0) return std::bit_cast<float>(sign | 0x7f800000u);  // infinity
  if (exponent == 0x1f)  // NaN: payload kept, made quiet, as IEEE 754 conversions and F16C's vcvtph2ps do
    return std::bit_cast<float>(sign | 0x7fc00000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline std::uint16_t f32_to_f16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u)  // NaN: keep it quiet and keep the top payload bits
    return static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u)  // >= 65520 (halfway above the largest f16) or inf
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {  // below 2^-14: an f16 subnormal or zero
    // Adding 0.5 puts the value where one f32 ulp is 2^-24, one f16 subnormal
    // step, so the FPU's own round-to-nearest-even does the rounding.
    const float shifted = std::bit_cast<float>(magnitude) + 0.5f;
    return static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u));
  }
  const std::uint32_t odd = (magnitude >> 13) & 1u;
  magnitude += 0xc8000fffu + odd;  // rebias the exponent by -112, round half to even
  return static_cast<std::uint16_t>(sign | (magnitude >> 13));
}

inline float bf16_to_f32(std::uint16_t h) { return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16); }

inline std::uint16_t f32_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t odd = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7fffu + odd) >> 16);
}

// f64 to f16 and bf16 with one rounding (NumPy converts f64 to f16
// directly): rounding to f32 "to odd" first, then to nearest even, is
// correctly rounded because f32 has more than two bits beyond either format.
inline float f64_to_f32_round_to_odd(double d) {
  float t = static_cast<float>(d);
  if (t - t == 0 && static_cast<double>(t) != d) {  // finite and inexact
    std::uint32_t bits = std::bit_cast<std::uint32_t>(t);
    const double back = static_cast<double>(t);
    if ((back < 0 ? -back : back) > (d < 0 ? -d : d)) --bits;  // towards zero
    t = std::bit_cast<float>(bits | 1u);
  }
  return t;
}
inline std::uint16_t f64_to_f16(double d) { return f32_to_f16(f64_to_f32_round_to_odd(d)); }
inline std::uint16_t f64_to_bf16(double d) { return f32_to_bf16(f64_to_f32_round_to_odd(d)); }

}  // namespace bcast
