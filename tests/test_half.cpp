// f16 and bf16 conversions, against values computed by exact arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "half.h"

namespace bcast {
namespace {

TEST(Half, F16ExactValuesRoundTrip) {
  // Every finite f16 converts to f32 and back unchanged.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = f16_to_f32(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), bits) << "pattern " << h;
  }
}

TEST(Half, F16KnownPatterns) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);           // largest finite
  EXPECT_EQ(f32_to_f16(65519.99f), 0x7bff);          // below the halfway point: stays finite
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);           // halfway: rounds to even, which is inf
  EXPECT_EQ(f32_to_f16(0x1p-24f), 0x0001);           // smallest subnormal
  EXPECT_EQ(f32_to_f16(0x1p-25f), 0x0000);           // half of it: tie, rounds to even (0)
  EXPECT_EQ(f32_to_f16(0x1.8p-24f), 0x0002);         // 1.5 units: tie, rounds to even (2)
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(NAN))));
}

TEST(Half, F16RoundsTiesToEven) {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: ties go to the even mantissa.
  EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
  // 1 + 3 * 2^-11 lies halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
}

TEST(Half, Bf16RoundsTiesToEvenAndKeepsNaN) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f), 0x3f80);              // tie: even
  EXPECT_EQ(f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);          // tie: even
  EXPECT_EQ(f32_to_bf16(1.0f + 0x1p-8f + 0x1p-16f), 0x3f81);   // above the tie
  EXPECT_EQ(bf16_to_f32(0xc0a0), -5.0f);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
  EXPECT_EQ(f32_to_bf16(INFINITY), 0x7f80);
}

}  // namespace
}  // namespace bcast
