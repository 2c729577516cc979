// f16 and bf16 conversions, against values computed by exact arithmetic.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "bcast/bcast.h"
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

// bf16 has no NumPy dtype, so its op edge cases are checked here, against
// exact arithmetic: every pair of the values below is added, subtracted,
// multiplied and maxed; the exact double result is rounded to bf16 by hand
// (nearest, ties to even), on the JIT and on the reference executor.
std::uint16_t round_to_bf16(double exact) {
  if (std::isnan(exact)) return 0x7fc0;
  const float f = static_cast<float>(exact);  // exact: the chosen pairs' results fit in f32
  EXPECT_EQ(static_cast<double>(f), exact);
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint32_t lower = u & 0xffff, kept = u >> 16;
  const bool up = lower > 0x8000 || (lower == 0x8000 && (kept & 1));
  return static_cast<std::uint16_t>(kept + up);
}

TEST(Half, Bf16OpsRoundTiesToEvenOnEveryExecutor) {
  // 1 + k * 2^-8 for odd k are ties of bf16 (7 mantissa bits); sums of them and
  // their products with small values land on ties and just off them.
  const std::vector<std::uint16_t> bits{0x3f80, 0x3f81, 0x3f83, 0x3c00, 0x4000, 0xbf80, 0x8000, 0x0000,
                                        0x0001, 0x8001, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x3b80};
  const auto n = static_cast<std::int64_t>(bits.size());
  Tensor a(DType::bf16, {n, 1}), b(DType::bf16, {1, n});
  std::memcpy(a.data(), bits.data(), bits.size() * 2);
  std::memcpy(b.data(), bits.data(), bits.size() * 2);
  int checked = 0;
  for (const bool jit : {true, false}) {
    set_jit_enabled(jit);
    for (const Op op : {Op::add, Op::sub, Op::mul, Op::max}) {
      const Tensor c = binary(op, a, b);
      const auto* got = static_cast<const std::uint16_t*>(c.data());
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          const double x = bf16_to_f32(bits[i]), y = bf16_to_f32(bits[j]);
          const double exact = op == Op::add   ? x + y
                               : op == Op::sub ? x - y
                               : op == Op::mul ? x * y
                                               : std::max(x, y);
          // bcast computes in f32: pairs whose exact result f32 cannot hold
          // (overflow, underflow, more bits) would round twice; leave them out.
          if (std::isfinite(exact) && static_cast<double>(static_cast<float>(exact)) != exact) continue;
          std::uint16_t want = round_to_bf16(exact);
          if (op == Op::max) want = (std::isnan(x) || x > y || (x == y && !std::signbit(x))) ? bits[i] : bits[j];
          const std::uint16_t g = got[i * n + j];
          ++checked;
          if (std::isnan(exact)) {
            EXPECT_TRUE(std::isnan(bf16_to_f32(g))) << (jit ? "jit " : "reference ") << op_name(op) << " " << i << "," << j;
          } else {
            EXPECT_EQ(g, want) << (jit ? "jit " : "reference ") << op_name(op) << " of 0x" << std::hex << bits[i]
                               << " and 0x" << bits[j];
          }
        }
      }
    }
  }
  set_jit_enabled(true);
  EXPECT_GT(checked, 1500) << "most pairs are exact in f32 and really checked";
}

}  // namespace
}  // namespace bcast
