// The f32 recipes computed in f64 (NOTE: [Widened math]): what their note
// promises, each checked against an independent computation.
//  - Accuracy: every result within 0.5 + 2**-10 ULP of long double's value
//    (x87's 64-bit mantissa: its own error is 2**-40 of an f32 ULP), on a
//    sweep of the f32 bit patterns (every 4099th: every binade, both signs,
//    subnormals, infinities, NaNs) and, for pow, on pairs of special and
//    random operands. Overflow is infinity of the right sign, NaN where the
//    true value is not a real number.
//  - Both tiers: a kernel's lanes give the reference evaluator's bits, in the
//    element loop, a reversed view and the streaming line loop.
// tests/python/test_math_vs_mpmath.py and test_functions_vs_numpy.py hold
// the same functions to mpmath's and NumPy's values through every surface.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "math_library.h"
#include "test_support.h"
#include "widened_math.h"

namespace bcast {
namespace {

constexpr double kBound = 0.5 + 0x1p-10;  // in ULPs of the true value's binade

// The function table's name, the recipe's `math` name and long double's function.
struct Row {
  const char* op;
  const char* math;
  long double (*truth)(long double);
};

const Row kUnary[] = {
    {"expm1", "expm1", [](long double x) { return std::expm1(x); }},
    {"log1p", "log1p", [](long double x) { return std::log1p(x); }},
    {"tanh", "tanh", [](long double x) { return std::tanh(x); }},
    {"sinh", "sinh", [](long double x) { return std::sinh(x); }},
    {"cosh", "cosh", [](long double x) { return std::cosh(x); }},
    {"arcsinh", "asinh", [](long double x) { return std::asinh(x); }},
    {"arccosh", "acosh", [](long double x) { return std::acosh(x); }},
    {"arctanh", "atanh", [](long double x) { return std::atanh(x); }},
};

// r's distance from the true value t in ULPs of t's f32 binade (subnormals:
// the smallest subnormal); 0 when both are the same infinity, the same zero
// or both NaN.
double ulps(float r, long double t) {
  constexpr double kFar = std::numeric_limits<double>::infinity();
  if (std::isnan(t)) return std::isnan(r) ? 0 : kFar;
  const long double overflow = static_cast<long double>(FLT_MAX) + std::ldexp(1.0L, 127 - 24);  // rounds to inf from here
  if (std::fabs(t) >= overflow) return std::isinf(r) && std::signbit(r) == std::signbit(t) ? 0 : kFar;
  if (!std::isfinite(r)) return kFar;
  if (t == 0) return r == 0 && std::signbit(r) == std::signbit(t) ? 0 : kFar;  // the zero's sign too
  int e = 0;
  std::frexp(t, &e);
  const long double ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return static_cast<double>(std::fabs(static_cast<long double>(r) - t) / ulp);
}

// Every 4099th f32 bit pattern, and the values that end a range.
std::vector<float> sweep() {
  std::vector<float> xs;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 4099)
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, 88.72f,
                  89.5f, -89.5f, 9.0f, 1e-7f, std::nextafter(1.0f, 2.0f), std::nextafter(1.0f, 0.0f),
                  std::nextafter(-1.0f, 0.0f), std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity()})
    xs.push_back(v);
  return xs;
}

class WidenedMath : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!math::host_has_fma()) GTEST_SKIP() << "this host has no FMA: the recipes are not used (NOTE: [Widened math])";
  }
};

TEST_F(WidenedMath, EveryRecipeIsWithinHalfAnUlpAndAHairOfLongDouble) {
  const std::vector<float> xs = sweep();
  for (const Row& row : kUnary) {
    const math::widened::UnaryF32 f = math::widened::scalar_unary(row.math);
    ASSERT_NE(f, nullptr) << row.math << " has a recipe";
    double worst = 0;
    float worst_x = 0;
    for (float x : xs) {
      const double e = ulps(f(x), row.truth(x));
      if (e > worst || std::isnan(e)) worst = e, worst_x = x;
    }
    EXPECT_LE(worst, kBound) << row.op << "(" << worst_x << ") = " << f(worst_x) << ", true "
                             << static_cast<double>(row.truth(worst_x));
  }
}

TEST_F(WidenedMath, PowIsWithinHalfAnUlpAndAHairOfLongDouble) {
  const math::widened::BinaryF32 f = math::widened::scalar_binary("pow");
  ASSERT_NE(f, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, FLT_TRUE_MIN, FLT_MAX, inf, -inf,
                           std::nextafter(1.0f, 2.0f), std::nextafter(1.0f, 0.0f)};
  std::vector<float> ys = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 3.0f, -3.0f, 0.5f, -0.5f, 1e10f, -1e10f, 0x1p24f + 2,
                           inf, -inf, 127.5f, -149.25f};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> base(0.0f, 10.0f), exponent(-40.0f, 40.0f);
  for (int i = 0; i < 200; ++i) xs.push_back(i % 2 ? base(rng) : -base(rng));
  for (int i = 0; i < 200; ++i) ys.push_back(i % 3 ? exponent(rng) : std::round(exponent(rng)));
  double worst = 0;
  float wx = 0, wy = 0;
  for (float x : xs)
    for (float y : ys) {
      const long double t = (x == 1.0f || y == 0.0f) ? 1.0L : std::pow(static_cast<long double>(x), static_cast<long double>(y));
      const double e = ulps(f(x, y), t);
      if (e > worst || std::isnan(e)) worst = e, wx = x, wy = y;
    }
  EXPECT_LE(worst, kBound) << "pow(" << wx << ", " << wy << ") = " << f(wx, wy);
}

// The first element whose bits differ (NaNs: any NaN), or "".
std::string difference(const Tensor& jit, const Tensor& reference) {
  const std::vector<std::uint8_t> g = test::bytes_of(jit), w = test::bytes_of(reference);
  if (g.size() != w.size()) return "sizes differ";
  for (std::size_t at = 0; at < g.size(); at += 4) {
    float a, b;
    std::memcpy(&a, g.data() + at, 4);
    std::memcpy(&b, w.data() + at, 4);
    if (std::memcmp(&a, &b, 4) != 0 && !(std::isnan(a) && std::isnan(b)))
      return "element " + std::to_string(at / 4) + ": " + std::to_string(a) + " vs " + std::to_string(b);
  }
  return "";
}

void expect_kernel_equals_reference(const Expr& e, const std::string& label) {
  ASSERT_NE(describe(e).kernel, "reference") << label << ": the JIT should compile it";
  const Tensor jit = evaluate(e);
  set_jit_enabled(false);
  const Tensor reference = evaluate(e);
  set_jit_enabled(true);
  EXPECT_EQ(difference(jit, reference), "") << label;
}

Tensor f32_tensor(const std::vector<float>& xs) {
  Tensor t(DType::f32, {static_cast<std::int64_t>(xs.size())});
  std::memcpy(t.data(), xs.data(), xs.size() * sizeof(float));
  return t;
}

TEST_F(WidenedMath, KernelsGiveTheReferenceBits) {
  const Tensor x = f32_tensor(sweep());
  const TensorView reversed = index(x, {Slice{std::nullopt, std::nullopt, -1}});
  for (const char* stream : {"auto", "0"}) {
    const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
    for (const Row& row : kUnary) {
      const std::string label = std::string(row.op) + ", stream " + stream;
      expect_kernel_equals_reference(parse_expression(std::string(row.op) + "(x)", {{"x", x}}), label);
      expect_kernel_equals_reference(parse_expression(std::string(row.op) + "(x)", {{"x", reversed}}), label + ", reversed");
    }
    std::vector<float> bases, exponents;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> any(-12.0f, 12.0f);
    for (int i = 0; i < 4096; ++i) bases.push_back(i % 5 ? std::fabs(any(rng)) : any(rng));
    for (int i = 0; i < 4096; ++i) exponents.push_back(i % 4 ? any(rng) : std::round(any(rng)));
    const Tensor base = f32_tensor(bases), exponent = f32_tensor(exponents);
    expect_kernel_equals_reference(parse_expression("x ** y", {{"x", base}, {"y", exponent}}),
                                   std::string("pow, stream ") + stream);
  }
}

}  // namespace
}  // namespace bcast
