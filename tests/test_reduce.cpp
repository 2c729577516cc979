// Reductions (bcast/reduce.h) against the tests' oracle: every reduction,
// dtype and axis set on random strided views; the bits do not depend on the
// thread count; a float sum stays within NOTE: [Reduction order]'s bound of
// the exact sum; NumPy's result dtypes; empty reductions; bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "oracle.h"
#include "oracle_reduce.h"
#include "oracle_values.h"
#include "test_support.h"

namespace bcast {
namespace {

using test::Expected;
namespace ov = test::oracle_values;
using test::along_of;
using test::inputs_of;
using test::value_of;

struct ThreadsGuard {
  int saved = num_threads();
  explicit ThreadsGuard(int n) { set_num_threads(n); }
  ~ThreadsGuard() { set_num_threads(saved); }
};

const std::vector<Axes> kAxisSets = {Axes(),     Axes(0),    Axes(1),       Axes(-1),
                                     Axes{0, 2}, Axes{1, 2}, Axes{2, 0, 1}, Axes(std::vector<int>{})};

TEST(Reduce, ExactReductionsMatchTheOracleOnEveryDtypeAndAxisSet) {
  std::mt19937_64 rng(20261205);
  const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max, ReduceOp::any, ReduceOp::all};
  for (int di = 0; di < kNumDTypes; ++di) {
    const auto d = static_cast<DType>(di);
    for (ReduceOp op : ops) {
      const bool float_sum = (op == ReduceOp::sum || op == ReduceOp::prod) && (is_floating(d) || is_complex(d));
      if (float_sum) continue;  // the float test below
      for (const Axes& axes : kAxisSets) {
        for (bool keepdims : {false, true}) {
          const test::RandomView x = test::random_view(d, {3, 4, 5}, rng);
          test::fill_random(x.view, rng);
          const Tensor got = reduce(op, x.view, axes, keepdims);
          EXPECT_EQ(test::reduction_mismatch(op, x.view, axes, got), "")
              << "axes set " << &axes - kAxisSets.data() << (keepdims ? ", keepdims" : "");
        }
      }
    }
  }
}

TEST(Reduce, ShapesFollowTheAxesAndKeepdims) {
  const Tensor x(DType::f32, Shape{2, 3, 4});
  EXPECT_EQ(sum(x).shape(), Shape{});
  EXPECT_EQ(sum(x, Axes(), true).shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(sum(x, 1).shape(), (Shape{2, 4}));
  EXPECT_EQ(sum(x, Axes{0, -1}, true).shape(), (Shape{1, 3, 1}));
  EXPECT_EQ(sum(x, Axes(std::vector<int>{})).shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(max(x, Axes{2, 1}).shape(), Shape{2});
}

// NumPy's result dtypes (np.sum(np.ones(3, t)).dtype and so on, NEP 50).
TEST(Reduce, ResultDtypesAreNumPys) {
  struct Row {
    ReduceOp op;
    DType in;
    std::optional<DType> dtype;
    DType want;
  };
  const Row rows[] = {
      {ReduceOp::sum, DType::boolean, {}, DType::i64},
      {ReduceOp::sum, DType::i8, {}, DType::i64},
      {ReduceOp::sum, DType::i32, {}, DType::i64},
      {ReduceOp::sum, DType::u8, {}, DType::u64},
      {ReduceOp::sum, DType::u32, {}, DType::u64},
      {ReduceOp::sum, DType::f16, {}, DType::f16},
      {ReduceOp::sum, DType::f32, {}, DType::f32},
      {ReduceOp::sum, DType::c64, {}, DType::c64},
      {ReduceOp::prod, DType::i16, {}, DType::i64},
      {ReduceOp::prod, DType::boolean, {}, DType::i64},
      {ReduceOp::max, DType::u8, {}, DType::u8},
      {ReduceOp::min, DType::bf16, {}, DType::bf16},
      {ReduceOp::mean, DType::i8, {}, DType::f64},
      {ReduceOp::mean, DType::boolean, {}, DType::f64},
      {ReduceOp::mean, DType::f16, {}, DType::f16},
      {ReduceOp::mean, DType::c128, {}, DType::c128},
      {ReduceOp::any, DType::f32, {}, DType::boolean},
      {ReduceOp::all, DType::c64, {}, DType::boolean},
      {ReduceOp::sum, DType::f32, DType::f64, DType::f64},
      {ReduceOp::sum, DType::i64, DType::i32, DType::i32},
      {ReduceOp::mean, DType::i64, DType::f32, DType::f32},
  };
  for (const Row& r : rows) {
    EXPECT_EQ(reduce_result_dtype(r.op, r.in, r.dtype), r.want) << reduce_name(r.op) << " of " << dtype_name(r.in);
    const Tensor x(r.in, Shape{2, 3});
    EXPECT_EQ(reduce(r.op, x, 1, false, r.dtype).dtype(), r.want);
  }
}

// Values of a float dtype spread over [-1000, 1000), as that dtype rounds them.
Tensor float_values(DType d, const Shape& shape, std::mt19937_64& rng) {
  Tensor x(d, shape);
  std::uniform_real_distribution<double> u(-1000, 1000);
  auto* p = static_cast<char*>(x.data());
  const std::size_t size = dtype_size(d);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    Expected e = ov::of_double(u(rng), real_part_dtype(d));
    std::memcpy(p + static_cast<std::size_t>(i) * size, &e.bits, dtype_size(real_part_dtype(d)));
    if (is_complex(d)) {
      e = ov::of_double(u(rng), real_part_dtype(d));
      std::memcpy(p + static_cast<std::size_t>(i) * size + size / 2, &e.bits, size / 2);
    }
  }
  return x;
}

double epsilon_of(DType d) {
  switch (real_part_dtype(d)) {
    case DType::f16:
      return 0x1p-11;
    case DType::bf16:
      return 0x1p-8;
    case DType::f64:
      return 0x1p-53;
    default:
      return 0x1p-24;
  }
}

// NOTE: [Reduction order]'s bound on n inputs, in roundings of the accumulator.
double roundings(std::int64_t n) {
  return 16 + 5 + std::ceil(std::log2(std::max(1.0, static_cast<double>(n) / 16.0))) + 1;
}

// Sums and means of floats against the exact sum (a long double over these
// few values), within the bound times the sum of |x|, plus the result's one
// rounding (f16 and bf16 add in f32 and round once).
TEST(Reduce, FloatSumsAndMeansAreWithinTheBound) {
  std::mt19937_64 rng(7);
  const DType dtypes[] = {DType::f16, DType::bf16, DType::f32, DType::f64, DType::c64, DType::c128};
  for (DType d : dtypes) {
    for (const Axes& axes : kAxisSets) {
      const Tensor x = float_values(d, {30, 7, 50}, rng);
      for (ReduceOp op : {ReduceOp::sum, ReduceOp::mean}) {
        const Tensor got = reduce(op, x, axes);
        const std::vector<bool> along = along_of(axes, 3);
        Shape kept;
        for (int k = 0; k < 3; ++k)
          if (!along[static_cast<std::size_t>(k)]) kept.push_back(x.shape()[static_cast<std::size_t>(k)]);
        std::vector<std::int64_t> k(kept.size(), 0);
        for (std::int64_t o = 0; o < got.numel(); ++o) {
          const auto index = inputs_of(x.shape(), along, k);
          const auto n = static_cast<std::int64_t>(index.size());
          for (int part = 0; part < (is_complex(d) ? 2 : 1); ++part) {
            long double exact = 0, magnitude = 0;
            for (const auto& i : index) {
              const long double v = value_of(test::part_of(test::element_read_at(x, i), part), real_part_dtype(d));
              exact += v;
              magnitude += std::fabs(v);
            }
            const DType rd = real_part_dtype(d);
            const double accumulator_eps = epsilon_of(rd == DType::f64 ? DType::f64 : DType::f32);
            const long double div = op == ReduceOp::mean ? n : 1;
            const long double bound =
                (roundings(n) * accumulator_eps * magnitude + epsilon_of(rd) * std::fabs(exact)) / div;
            const Expected g = test::part_of(
                test::element_at(
                    static_cast<const char*>(got.data()) + o * static_cast<std::int64_t>(got.element_size()), d),
                part);
            EXPECT_LE(std::fabs(value_of(g, rd) - exact / div), bound)
                << reduce_name(op) << " " << dtype_name(d) << " axes set " << &axes - kAxisSets.data() << " element "
                << o;
          }
          test::next_index(k, kept);
        }
      }
    }
  }
}

// Ill-conditioned f32 sums (large terms that cancel, small ones between)
// against the exact sum in 128-bit fixed point: every f32 here is a
// multiple of 2**-30 below 2**24, so the fixed point holds it exactly.
TEST(Reduce, IllConditionedSumIsWithinTheBoundOfTheExactSum) {
  std::mt19937_64 rng(11);
  for (std::int64_t n : {1000, 100'000, 1'000'000}) {
    Tensor x(DType::f32, Shape{n});
    auto* p = x.data_as<float>();
    std::uniform_real_distribution<float> small(-1, 1);
    for (std::int64_t i = 0; i < n; i += 2) {
      const float big = std::ldexp(small(rng), 23);
      p[i] = big;
      if (i + 1 < n) p[i + 1] = -big + std::ldexp(std::round(std::ldexp(small(rng), 10)), -10);
    }
    ov::Int exact = 0;
    long double magnitude = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      exact += static_cast<ov::Int>(std::ldexp(static_cast<double>(p[i]), 30));
      magnitude += std::fabs(p[i]);
    }
    const float got = *sum(x).data_as<float>();
    const long double want = std::ldexp(static_cast<long double>(exact), -30);
    EXPECT_LE(std::fabs(got - want), roundings(n) * 0x1p-24 * magnitude + 0x1p-24 * std::fabs(want)) << "n " << n;
  }
}

// NOTE: [Reduction order]: the same bits on 1, 2, 3 and 16 threads, for row
// and column reductions large enough that their items are shared out.
TEST(Reduce, TheThreadCountDoesNotChangeTheBits) {
  std::mt19937_64 rng(3);
  struct Case {
    Shape shape;
    Axes axes;
  };
  const Case cases[] = {{{300, 700}, Axes()},  {{2, 100'000}, Axes(1)},    {{100'000, 3}, Axes(0)},
                        {{70'000, 5}, Axes()}, {{40, 50, 60}, Axes{0, 2}}, {{3, 40'000}, Axes(0)},
                        {{1'000'003}, Axes()}};
  for (const Case& c : cases) {
    for (DType d : {DType::f32, DType::f64, DType::c64}) {
      const test::RandomView x = test::random_view(d, c.shape, rng, false);
      const Tensor values = float_values(d, c.shape, rng);
      values.copy_to(x.view);
      std::vector<std::vector<std::uint8_t>> on_one;
      for (int threads : {1, 2, 3, 16}) {
        ThreadsGuard guard(threads);
        int k = 0;
        for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::mean}) {
          const std::vector<std::uint8_t> bits = test::bytes_of(reduce(op, x.view, c.axes));
          if (threads == 1) on_one.push_back(bits);
          EXPECT_EQ(bits, on_one[static_cast<std::size_t>(k++)])
              << reduce_name(op) << " " << to_string(c.shape) << " " << dtype_name(d) << " on " << threads;
        }
      }
    }
  }
}

// NOTE: [Composed reductions]: argmin and argmax against a loop in C order
// that keeps the first extremum (the first NaN over all), on values with
// ties and NaN, on a transposed view, for no axis and each one.
TEST(Reduce, ArgminAndArgmaxGiveTheFirstExtremumInCOrder) {
  std::mt19937_64 rng(21);
  Tensor parent(DType::f32, Shape{7, 5, 6});
  std::uniform_int_distribution<int> small(-3, 3);
  for (std::int64_t i = 0; i < parent.numel(); ++i) parent.data_as<float>()[i] = static_cast<float>(small(rng));
  for (std::int64_t i : {17, 40, 41, 160}) parent.data_as<float>()[i] = NAN;
  const TensorView x = permute(parent.view(), {2, 0, 1});  // [6, 7, 5], strided
  for (bool largest : {false, true}) {
    for (int axis : {-9, 0, 1, 2}) {  // -9: no axis
      const Tensor got =
          largest ? (axis == -9 ? argmax(x) : argmax(x, axis)) : (axis == -9 ? argmin(x) : argmin(x, axis));
      ASSERT_EQ(got.dtype(), DType::i64);
      const Shape& s = x.shape();
      const std::int64_t outer = axis == -9 ? 1 : s[static_cast<std::size_t>(axis)];
      // For each result element (C order over the kept dims), scan its slice in C order.
      std::vector<std::int64_t> idx(3, 0);
      std::vector<std::pair<float, std::int64_t>> best(static_cast<std::size_t>(got.numel()), {0.0f, -1});
      for (std::int64_t flat = 0; flat < x.numel(); ++flat, test::next_index(idx, s)) {
        const float v = std::bit_cast<float>(static_cast<std::uint32_t>(test::element_read_at(x, idx).bits));
        std::int64_t out = 0, along = flat;
        if (axis != -9) {
          for (int d = 0; d < 3; ++d)
            if (d != axis) out = out * s[static_cast<std::size_t>(d)] + idx[static_cast<std::size_t>(d)];
          along = idx[static_cast<std::size_t>(axis)];
        }
        auto& [b, at] = best[static_cast<std::size_t>(out)];
        const bool better = at < 0 || (!std::isnan(b) && (std::isnan(v) || (largest ? v > b : v < b)));
        if (better) b = v, at = along;
      }
      (void)outer;
      for (std::int64_t o = 0; o < got.numel(); ++o)
        EXPECT_EQ(got.data_as<std::int64_t>()[o], best[static_cast<std::size_t>(o)].second)
            << (largest ? "argmax" : "argmin") << " axis " << axis << " element " << o;
    }
  }
}

// var and std against a two-pass long double computation, with ddof.
TEST(Reduce, VarAndStdAreTheMeanSquaredDeviation) {
  std::mt19937_64 rng(22);
  const Tensor x = float_values(DType::f64, {9, 13}, rng);
  for (double ddof : {0.0, 1.0}) {
    const Tensor v = var(x, 1, false, ddof), s = bcast::std(x, 1, false, ddof);
    for (std::int64_t r = 0; r < 9; ++r) {
      long double m = 0, ss = 0;
      for (int c = 0; c < 13; ++c) m += x.data_as<double>()[r * 13 + c];
      m /= 13;
      for (int c = 0; c < 13; ++c) ss += (x.data_as<double>()[r * 13 + c] - m) * (x.data_as<double>()[r * 13 + c] - m);
      const long double want = ss / (13 - ddof);
      EXPECT_NEAR(v.data_as<double>()[r], static_cast<double>(want), 1e-12 * static_cast<double>(want));
      EXPECT_NEAR(s.data_as<double>()[r], std::sqrt(static_cast<double>(want)),
                  1e-12 * std::sqrt(static_cast<double>(want)));
    }
  }
  const Tensor i(DType::i16, Shape{4});
  EXPECT_EQ(var(i).dtype(), DType::f64);
  EXPECT_EQ(bcast::std(Tensor(DType::c64, Shape{3})).dtype(), DType::f32);
}

TEST(Reduce, NanReductionsLeaveNanOut) {
  Tensor x(DType::f32, Shape{2, 3});
  const float values[] = {1, NAN, 3, NAN, NAN, NAN};
  std::memcpy(x.data(), values, sizeof values);
  EXPECT_EQ(nansum(x, 1).data_as<float>()[0], 4.0f);
  EXPECT_EQ(nansum(x, 1).data_as<float>()[1], 0.0f);
  EXPECT_EQ(nanmean(x, 1).data_as<float>()[0], 2.0f);
  EXPECT_TRUE(std::isnan(nanmean(x, 1).data_as<float>()[1]));
  EXPECT_EQ(nanmax(x, 1).data_as<float>()[0], 3.0f);
  EXPECT_EQ(nanmin(x, 1).data_as<float>()[0], 1.0f);
  EXPECT_TRUE(std::isnan(nanmax(x, 1).data_as<float>()[1]));
  EXPECT_EQ(*nanmax(x).data_as<float>(), 3.0f);
}

TEST(Reduce, EmptyReductionsGiveNumPysValues) {
  const Tensor x(DType::f32, Shape{0, 3});
  EXPECT_EQ(*sum(x).data_as<float>(), 0.0f);
  EXPECT_EQ(*prod(x).data_as<float>(), 1.0f);
  EXPECT_TRUE(std::isnan(*mean(x).data_as<float>()));
  EXPECT_EQ(*any(x).data_as<std::uint8_t>(), 0);
  EXPECT_EQ(*all(x).data_as<std::uint8_t>(), 1);
  EXPECT_EQ(sum(x, 0).shape(), Shape{3});
  EXPECT_EQ(max(x, 1).shape(), Shape{0});  // nothing empty is reduced
}

TEST(Reduce, BadInputIsAClearError) {
  using ::testing::HasSubstr;
  const Tensor x(DType::f32, Shape{0, 3});
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message([&] { max(x); }), HasSubstr("max: axis 0 of x f32[0, 3] has extent 0, and max has no identity"));
  EXPECT_THAT(message([&] { sum(x, 2); }),
              HasSubstr("sum: axis 2 is out of range for x of rank 2 (axes run from -2 to 1)"));
  EXPECT_THAT(message([&] { sum(x, Axes{1, -1}); }), HasSubstr("sum: axis 1 is given twice (as 1 and -1)"));
  EXPECT_THAT(message([&] { reduce(ReduceOp::max, x, 1, false, DType::f64); }),
              HasSubstr("max: takes no dtype argument"));
  EXPECT_THAT(message([&] { mean(x, 1, false, DType::i32); }),
              HasSubstr("mean: dtype=i32 is not a float or complex dtype"));
  EXPECT_THAT(message([&] {
                argmax(x, Axes{0, 1});
              }),
              HasSubstr("argmax: takes no axis (the index in C order) or one axis"));
  EXPECT_THAT(message([&] { argmin(x, 0); }), HasSubstr("argmin: axis 0 of its operand f32[0, 3] has extent 0"));
  EXPECT_THAT(message([&] { nanmax(x); }), HasSubstr("nanmax: axis 0 of its operand f32[0, 3] has extent 0"));
}

TEST(Reduce, NamesAndAliases) {
  for (int i = 0; i < kNumReduceOps; ++i) {
    const auto op = static_cast<ReduceOp>(i);
    EXPECT_EQ(parse_reduce(reduce_name(op)), op);
  }
  EXPECT_EQ(parse_reduce("amax"), ReduceOp::max);
  EXPECT_EQ(parse_reduce("amin"), ReduceOp::min);
  EXPECT_EQ(parse_reduce("maximum"), std::nullopt);
}

}  // namespace
}  // namespace bcast
