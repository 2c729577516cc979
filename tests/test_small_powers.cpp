// NOTE: [Small integer powers]: a float x ** 2 or x ** 3 by a scalar is
// computed as products, within half an ULP (and a hair; an f64 cube below
// 2**-969 within one) of the true power,
// measured against long double's (64-bit mantissa: x**3 of an f32 is exact
// there, of an f64 within 2**-10 of its ULP); every other power stays pow;
// messages quote what the caller wrote.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "test_support.h"

namespace bcast {
namespace {

// The binary format of a float dtype: mantissa bits after the point, the
// least normal exponent, the largest finite value.
struct Format {
  int mantissa, min_exponent;
  long double max;
};
Format format_of(DType d) {
  switch (d) {
    case DType::f16: return {10, -14, 65504.0L};
    case DType::bf16: return {7, -126, 0x1.fep127L};
    case DType::f32: return {23, -126, FLT_MAX};
    default: return {52, -1022, DBL_MAX};
  }
}

// |r - t| in ULPs of t's binade in `d`; 0 where both are the same infinity
// (t past the largest finite value by half an ULP or more), zero, or NaN.
double ulps(DType d, double r, long double t) {
  constexpr double kFar = std::numeric_limits<double>::infinity();
  const Format f = format_of(d);
  if (std::isnan(t)) return std::isnan(r) ? 0 : kFar;
  if (std::fabs(t) >= f.max + std::ldexp(1.0L, std::ilogb(f.max) - f.mantissa - 1))
    return std::isinf(r) && std::signbit(r) == std::signbit(t) ? 0 : kFar;
  if (t == 0) return r == 0 && std::signbit(r) == std::signbit(t) ? 0 : kFar;
  if (!std::isfinite(r)) return kFar;
  const long double ulp = std::ldexp(1.0L, std::max(std::ilogb(t), f.min_exponent) - f.mantissa);
  return static_cast<double>(std::fabs(static_cast<long double>(r) - t) / ulp);
}

// Values of `d`: random ones of every size the power keeps finite and
// beyond, and the special ones.
Tensor values_of(DType d) {
  std::vector<double> v = {0.0, -0.0, 1.0, -1.0, 2.0, -3.0, INFINITY, -INFINITY, NAN, 1e-30, -1e-30, 5e-324};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(d == DType::f64 ? -400 : -50, d == DType::f64 ? 400 : 50);
  for (int i = 0; i < 4000; ++i) v.push_back((i % 2 ? -1 : 1) * std::ldexp(mantissa(rng), exponent(rng)));
  Tensor t(d, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) test::set(t, static_cast<std::int64_t>(i), v[i]);  // rounded to d
  return t;
}

TEST(SmallPowers, FloatSquaresAndCubesAreProductsWithinHalfAnUlp) {
  for (const DType d : {DType::f16, DType::bf16, DType::f32, DType::f64}) {
    const Tensor x = values_of(d);
    struct Case {
      Expr e;
      int power;
      const char* label;
    };
    const Case cases[] = {
        {expr::pow(Expr(x), 2), 2, "x ** 2"},
        {expr::pow(Expr(x), 3), 3, "x ** 3"},
        {expr::pow(Expr(x), 3.0), 3, "x ** 3.0"},
        {expr::pow(Expr(x), Expr::scalar(3, d)), 3, "x ** strong 3"},
    };
    for (const Case& c : cases) {
      const std::string label = std::string(dtype_name(d)) + " " + c.label;
      const ExprInfo info = describe(c.e);
      EXPECT_THAT(info.structure, ::testing::Not(::testing::HasSubstr("**"))) << label;
      EXPECT_NE(info.kernel, "reference") << label;
      const Tensor r = evaluate(c.e);
      ASSERT_EQ(r.dtype(), d) << label;
      double worst = 0, worst_x = 0;
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const long double v = test::get(x, i), t = c.power == 2 ? v * v : v * v * v;
        // An f64 cube below 2**-969: x * e's underflow adds up to half the least subnormal.
        const double bound = d == DType::f64 && std::fabs(t) < 0x1p-969L ? 1.0 : 0.5 + 0x1p-9;
        const double e = ulps(d, test::get(r, i), t) / bound;
        if (!(e <= worst)) worst = e, worst_x = static_cast<double>(v);
      }
      EXPECT_LE(worst, 1.0) << label << " at x = " << worst_x << ": the error over its bound";
      set_jit_enabled(false);
      const Tensor reference = evaluate(c.e);
      set_jit_enabled(true);
      EXPECT_EQ(test::bytes_of(r), test::bytes_of(reference)) << label << ": the kernel and the reference evaluator";
    }
  }
}

TEST(SmallPowers, OtherPowersStayPow) {
  const Tensor f = test::make(DType::f32, {3}, {1, 2, 3});
  const Tensor i = test::make(DType::i32, {3}, {1, 2, 3});
  const Tensor c = test::make(DType::c64, {3}, {1, 2, 3});
  for (const Expr& e : {expr::pow(Expr(i), 3), expr::pow(Expr(i), 2), expr::pow(Expr(f), 3.5), expr::pow(Expr(f), 4), expr::pow(Expr(f), -1),
                        expr::pow(Expr(c), 2), expr::pow(Expr(f), Expr(f))})
    EXPECT_THAT(describe(e).structure, ::testing::HasSubstr("**"));
  EXPECT_EQ(test::get(evaluate(expr::pow(Expr(i), 3)), 2), 27);
}

TEST(SmallPowers, MessagesQuoteThePowerAsWritten) {
  const Tensor x = test::make(DType::f32, {3}, {1, 2, 3});
  Tensor out(DType::f32, {4});
  try {
    evaluate(parse_expression("x ** 3 + 1", {{"x", x}}), out);
    FAIL() << "out of the wrong shape";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("expression 'x**3+1': out has shape [4]"));
  }
}

}  // namespace
}  // namespace bcast
