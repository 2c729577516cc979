// f16 and bf16 conversions, against values computed by exact arithmetic.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

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

// NaN bits: f16 has its quiet bit at 0x0200 and a 9-bit payload below it; f32
// has its quiet bit at 0x00400000 and a 22-bit payload below it. docs/semantics.md
// promises that f16 -> f32 quiets a signalling NaN, as F16C's vcvtph2ps does:
// quiet bit set, sign kept, the f16 payload in the top payload bits of the f32.
TEST(Half, F16ToF32QuietsSignallingNaNsAndKeepsTheirPayload) {
  const std::vector<std::pair<std::uint16_t, std::uint32_t>> known{
      {0x7c01, 0x7fc02000},  // signalling, payload 1
      {0x7d55, 0x7feaa000},  // signalling, payload 0x155
      {0xfd00, 0xffe00000},  // signalling, negative, payload 0x100
      {0x7e00, 0x7fc00000},  // quiet, no payload
      {0x7e2a, 0x7fc54000},  // quiet, payload 0x2a
      {0xffff, 0xffffe000},  // quiet, negative, every payload bit
  };
  for (const auto& [h, f] : known)
    EXPECT_EQ(std::bit_cast<std::uint32_t>(f16_to_f32(h)), f) << std::hex << "f16 0x" << h;
  int nans = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) != 0x7c00 || (h & 0x3ff) == 0) continue;  // not a NaN
    ++nans;
    const auto f = std::bit_cast<std::uint32_t>(f16_to_f32(static_cast<std::uint16_t>(h)));
    ASSERT_EQ(f & 0x7fc00000u, 0x7fc00000u) << std::hex << "f16 0x" << h << ": a quiet NaN";
    ASSERT_EQ(f >> 31, h >> 15) << std::hex << "f16 0x" << h << ": the sign";
    ASSERT_EQ((f >> 13) & 0x1ffu, h & 0x1ffu) << std::hex << "f16 0x" << h << ": the payload in the top bits";
    ASSERT_EQ(f & 0x1fffu, 0u) << std::hex << "f16 0x" << h << ": nothing below the payload";
    // Back to f16: the same NaN, quiet.
    ASSERT_EQ(f32_to_f16(std::bit_cast<float>(f)), h | 0x200u) << std::hex << "f16 0x" << h;
  }
  EXPECT_EQ(nans, 2 * 1023);
}

// f32 -> f16 keeps a NaN a NaN (quiet, same sign, the top 9 payload bits),
// even one whose payload lies only in bits f16 does not have: cutting the
// mantissa short would make it an infinity.
TEST(Half, F32ToF16KeepsANaNANaN) {
  const std::vector<std::pair<std::uint32_t, std::uint16_t>> known{
      {0x7f800001, 0x7e00},  // signalling, payload only in the low bits
      {0xff800001, 0xfe00},  // the same, negative
      {0x7fa00000, 0x7f00},  // signalling, payload 0x200000 (kept: top bits)
      {0x7fc00000, 0x7e00},  // quiet, no payload
      {0x7fc02000, 0x7e01},  // quiet, payload 1 in f16's lowest payload bit
      {0xffffffff, 0xffff},  // quiet, negative, every payload bit
  };
  for (const auto& [f, h] : known) {
    const std::uint16_t got = f32_to_f16(std::bit_cast<float>(f));
    EXPECT_EQ(got, h) << std::hex << "f32 0x" << f;
    EXPECT_TRUE(std::isnan(f16_to_f32(got))) << std::hex << "f32 0x" << f;
  }
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
  // NaNs too: quiet with a payload (0x7fc5), negative quiet (0xffc1),
  // signalling with a payload (0x7f81; bf16's quiet bit is 0x0040).
  const std::vector<std::uint16_t> bits{0x3f80, 0x3f81, 0x3f83, 0x3c00, 0x4000, 0xbf80, 0x8000, 0x0000, 0x0001,
                                        0x8001, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x3b80, 0x7fc5, 0xffc1, 0x7f81};
  const auto n = static_cast<std::int64_t>(bits.size());
  Tensor a(DType::bf16, {n, 1}), b(DType::bf16, {1, n});
  std::memcpy(a.data(), bits.data(), bits.size() * 2);
  std::memcpy(b.data(), bits.data(), bits.size() * 2);
  int checked = 0, nan_results = 0;
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
          const std::uint16_t g = got[i * n + j];
          ++checked;
          if (op == Op::max) {
            // One input's bits, a signalling NaN included: a's NaN first, then b's.
            const bool a_wins = std::isnan(x) || (!std::isnan(y) && (x > y || (x == y && !std::signbit(x))));
            EXPECT_EQ(g, a_wins ? bits[i] : bits[j]) << (jit ? "jit " : "reference ") << "max of 0x" << std::hex
                                                     << bits[i] << " and 0x" << bits[j];
          } else if (std::isnan(exact)) {
            // IEEE 754: an arithmetic result that is NaN is a quiet NaN.
            EXPECT_EQ(g & 0x7fc0, 0x7fc0) << (jit ? "jit " : "reference ") << op_name(op) << " of 0x" << std::hex
                                          << bits[i] << " and 0x" << bits[j] << " gives 0x" << g << ", not a quiet NaN";
            nan_results += 1;
          } else {
            EXPECT_EQ(g, round_to_bf16(exact)) << (jit ? "jit " : "reference ") << op_name(op) << " of 0x" << std::hex
                                               << bits[i] << " and 0x" << bits[j];
          }
        }
      }
    }
  }
  set_jit_enabled(true);
  EXPECT_GT(checked, 1500) << "most pairs are exact in f32 and really checked";
  // At least the 99 pairs with a NaN operand (3 NaNs, 18 values, either
  // side), for add, sub and mul on both executors.
  EXPECT_GE(nan_results, 2 * 3 * 99) << "the NaN branch ran";
}

}  // namespace
}  // namespace bcast
