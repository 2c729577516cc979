// The oracle checks itself against what is known without bcast: the FPU's
// own float rounding, IEEE 754's f16 and bf16 patterns, and worked examples.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "oracle.h"
#include "test_support.h"

namespace bcast {
namespace {

// The oracle's one element of op on two [1] tensors of dtype holding these
// bits.
test::Expected oracle_of(DType dtype, Op op, std::uint64_t a_bits, std::uint64_t b_bits) {
  Tensor a(dtype, {1}), b(dtype, {1});
  std::memcpy(a.data(), &a_bits, a.element_size());
  std::memcpy(b.data(), &b_bits, b.element_size());
  return test::oracle(op, a, b, {1})[0];
}

TEST(Oracle, F32SumsAndQuotientsRoundAsTheFpuDoes) {
  // f32 arithmetic by the FPU is correctly rounded: the oracle's double
  // arithmetic and own encoder must give the same bits, subnormals included.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::uint32_t> bits(0, 0xffffffffu);
  for (int i = 0; i < 100000; ++i) {
    const float x = std::bit_cast<float>(bits(rng)), y = std::bit_cast<float>(bits(rng) >> (i % 3 == 0 ? 8 : 0));
    if (std::isnan(x) || std::isnan(y)) continue;
    for (const auto& [op, want] : {std::pair{Op::add, x + y}, {Op::sub, x - y}, {Op::mul, x * y}, {Op::div, x / y}}) {
      const test::Expected got =
          oracle_of(DType::f32, op, std::bit_cast<std::uint32_t>(x), std::bit_cast<std::uint32_t>(y));
      if (std::isnan(want)) {
        ASSERT_TRUE(got.any_quiet_nan);
      } else {
        ASSERT_EQ(got.bits, std::bit_cast<std::uint32_t>(want)) << op_name(op) << "(" << x << ", " << y << ")";
      }
    }
  }
}

TEST(Oracle, F16AndBf16RoundToNearestEvenAtEveryEdge) {
  struct Case {
    DType dtype;
    std::uint64_t a, b, sum;  // bits of a, b and a + b
  };
  const std::vector<Case> cases{
      {DType::f16, 0x7bff, 0x3c00, 0x7bff},  // 65504 + 1 rounds back to 65504
      {DType::f16, 0x7bff, 0x4c00, 0x7c00},  // 65504 + 16 = 65520: the tie rounds to even, which is infinity
      {DType::f16, 0x3c00, 0x1000, 0x3c00},  // 1 + 2^-11: a tie, to even (1)
      {DType::f16, 0x3c01, 0x1000, 0x3c02},  // (1 + 2^-10) + 2^-11: a tie, to even (up)
      {DType::f16, 0x0001, 0x0001, 0x0002},  // subnormals add exactly
      {DType::f16, 0x03ff, 0x0001, 0x0400},  // the largest subnormal plus one step is the smallest normal
      {DType::f16, 0x8000, 0x8000, 0x8000},  // -0 + -0 = -0
      {DType::bf16, 0x3f80, 0x3b80, 0x3f80},  // 1 + 2^-8: a tie, to even (1)
      {DType::bf16, 0x7f7f, 0x7b00, 0x7f80},  // the largest bf16 plus half a step overflows to infinity
  };
  for (const Case& c : cases) {
    const test::Expected got = oracle_of(c.dtype, Op::add, c.a, c.b);
    EXPECT_FALSE(got.any_quiet_nan);
    EXPECT_EQ(got.bits, c.sum) << dtype_name(c.dtype) << " " << std::hex << c.a << " + " << c.b;
  }
  // Ties among the subnormals, by halving: 2^-25 rounds to even 0, 1.5 x
  // 2^-24 to even 2 x 2^-24, -2^-25 to -0; bf16's 2^-134 to 0.
  EXPECT_EQ(oracle_of(DType::f16, Op::mul, 0x0001, 0x3800).bits, 0x0000u);
  EXPECT_EQ(oracle_of(DType::f16, Op::mul, 0x0003, 0x3800).bits, 0x0002u);
  EXPECT_EQ(oracle_of(DType::f16, Op::mul, 0x8001, 0x3800).bits, 0x8000u);
  EXPECT_EQ(oracle_of(DType::bf16, Op::mul, 0x0001, 0x3f00).bits, 0x0000u);
  EXPECT_EQ(oracle_of(DType::bf16, Op::mul, 0x0003, 0x3f00).bits, 0x0002u);
}

TEST(Oracle, NaNsFollowTheReadme) {
  // max and min return an input's bits, a signalling NaN included; pow with
  // a signalling f32 NaN is a quiet NaN, but an f16 one is quieted on
  // conversion to f32 first, so pow(1, sNaN) is 1 there; copysign keeps a
  // NaN's bits.
  EXPECT_EQ(oracle_of(DType::f32, Op::max, 0x7f800001, 0x3f800000).bits, 0x7f800001u);
  EXPECT_EQ(oracle_of(DType::f16, Op::min, 0x3c00, 0xfc01).bits, 0xfc01u);
  EXPECT_TRUE(oracle_of(DType::f32, Op::pow, 0x3f800000, 0x7f800001).any_quiet_nan);
  EXPECT_TRUE(oracle_of(DType::bf16, Op::pow, 0x3f80, 0x7f81).any_quiet_nan);
  EXPECT_EQ(oracle_of(DType::f16, Op::pow, 0x3c00, 0x7c01).bits, 0x3c00u);
  // copysign works on the bits: a signalling NaN stays one, with b's sign.
  EXPECT_EQ(oracle_of(DType::f32, Op::copysign, 0x7fa54c9c, 0xbf800000).bits, 0xffa54c9cu);
  EXPECT_FALSE(oracle_of(DType::f32, Op::copysign, 0x7fa54c9c, 0xbf800000).any_quiet_nan);
  // A comparison with NaN is false, except ne.
  EXPECT_EQ(oracle_of(DType::f64, Op::ne, 0x7ff8000000000000, 0x7ff8000000000000).bits, 1u);
  EXPECT_EQ(oracle_of(DType::f64, Op::le, 0x7ff8000000000000, 0x0).bits, 0u);
}

TEST(Oracle, BroadcastsByNumPysRuleAndComparesQuietNaNsOnly) {
  // add, f32 [2,1] {1, 2} and [3] {10, 20, 30} -> [2,3]
  const Tensor a = test::make(DType::f32, {2, 1}, {1, 2}), b = test::make(DType::f32, {3}, {10, 20, 30});
  const Tensor out = test::make(DType::f32, {2, 3}, {11, 21, 31, 12, 22, 32});
  EXPECT_EQ(test::oracle_mismatch(Op::add, a, b, out), "");
  test::set(out, 4, 23);
  EXPECT_EQ(test::oracle_mismatch(Op::add, a, b, out),
            "element 4 of [2, 3] is 0x41b80000, the oracle expects 0x41b00000 (add of 0x40000000 and 0x41a00000)");
  // 0 * inf is a NaN: a quiet one matches, a signalling one does not.
  const Tensor zero = test::make(DType::f32, {1}, {0}), inf = test::make(DType::f32, {1}, {INFINITY});
  Tensor nan(DType::f32, {1});
  for (const auto& [bits, ok] : {std::pair{0xffc00000u, true}, {0x7fc00123u, true}, {0x7f800001u, false}}) {
    std::memcpy(nan.data(), &bits, 4);
    EXPECT_EQ(test::oracle_mismatch(Op::mul, zero, inf, nan).empty(), ok) << std::hex << bits;
  }
}

TEST(Oracle, IntegersFollowNumPy) {
  // NumPy's documented integer semantics, worked out by hand: wrapping
  // add, sub and mul; floor division, x // 0 == 0 and MIN // -1 == MIN;
  // true division in f64;
  // unsigned u8; a bool byte is true when it is not 0.
  struct Case {
    DType dtype;
    Op op;
    std::uint64_t a, b, want;  // bits
  };
  const std::vector<Case> cases{
      {DType::i8, Op::add, 0x7f, 0x01, 0x80},        // 127 + 1 = -128
      {DType::i8, Op::sub, 0x80, 0x01, 0x7f},        // -128 - 1 = 127
      {DType::i8, Op::mul, 0x10, 0x10, 0x00},        // 16 * 16 = 256 = 0
      {DType::i8, Op::floor_div, 0xf9, 0x02, 0xfc},  // -7 // 2 = -4
      {DType::i8, Op::floor_div, 0x07, 0xfe, 0xfc},  // 7 // -2 = -4
      {DType::i8, Op::floor_div, 0xf9, 0xfe, 0x03},  // -7 // -2 = 3
      {DType::i8, Op::floor_div, 0x05, 0x00, 0x00},  // 5 // 0 = 0
      {DType::i8, Op::floor_div, 0x80, 0xff, 0x80},  // -128 // -1 = -128
      {DType::i8, Op::div, 0xf9, 0x02, 0xc00c000000000000},  // -7 / 2 = -3.5, in f64
      {DType::u8, Op::div, 0x01, 0x00, 0x7ff0000000000000},  // 1 / 0 = inf
      {DType::i8, Op::max, 0xff, 0x01, 0x01},        // max(-1, 1) = 1
      {DType::i8, Op::bit_xor, 0xff, 0x01, 0xfe},    // -1 ^ 1 = -2
      {DType::i8, Op::lt, 0x80, 0x7f, 0x01},         // -128 < 127
      {DType::u8, Op::add, 200, 100, 44},            // 300 wraps to 44
      {DType::u8, Op::sub, 3, 5, 254},               // -2 wraps to 254
      {DType::u8, Op::max, 200, 100, 200},           // unsigned
      {DType::u8, Op::lt, 200, 100, 0},
      {DType::i64, Op::floor_div, 0x8000000000000000, ~std::uint64_t{0}, 0x8000000000000000},  // MIN // -1 = MIN
      {DType::i64, Op::mul, 0x8000000000000000, ~std::uint64_t{0}, 0x8000000000000000},  // MIN * -1 = MIN
      {DType::i64, Op::add, 0x7fffffffffffffff, 1, 0x8000000000000000},                 // MAX + 1 = MIN
      {DType::boolean, Op::add, 1, 1, 1},                                                 // or
      {DType::boolean, Op::mul, 1, 0, 0},                                                 // and
      {DType::boolean, Op::eq, 0x37, 0x01, 1},                                            // both true
      {DType::boolean, Op::logical_xor, 0x37, 0x00, 1},
  };
  for (const Case& c : cases) {
    const test::Expected got = oracle_of(c.dtype, c.op, c.a, c.b);
    EXPECT_FALSE(got.any_quiet_nan);
    EXPECT_EQ(got.bits, c.want) << op_name(c.op) << "." << dtype_name(c.dtype) << std::hex << " 0x" << c.a << ", 0x"
                                << c.b;
  }
}

static_assert(test::kSentinel > 1 && test::kOtherSentinel > 1, "a sentinel byte must not be a bool");
static_assert(test::kSentinel != test::kOtherSentinel);

TEST(Oracle, SentinelsAreNotNaNs) {
  // A NaN sentinel would match an expected NaN, and two NaN sentinels each other.
  for (const DType dtype : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    Tensor x(dtype, {3});
    for (const std::uint8_t byte : {test::kSentinel, test::kOtherSentinel}) {
      test::fill_sentinel(x, byte);
      EXPECT_FALSE(std::isnan(test::get(x, 2))) << dtype_name(dtype) << " 0x" << std::hex << int{byte};
    }
  }
}

}  // namespace
}  // namespace bcast
