// The bit layout of f32 and f64, for code that steps on a float's bits (the
// math guards, the math recipes). LLVM-free.
#pragma once

#include <cstdint>

namespace bcast::math {

template <class T>
struct FloatFormat;
template <>
struct FloatFormat<float> {
  using Bits = std::uint32_t;
  static constexpr int kMantissa = 23, kBias = 127;
};
template <>
struct FloatFormat<double> {
  using Bits = std::uint64_t;
  static constexpr int kMantissa = 52, kBias = 1023;
};

}  // namespace bcast::math
