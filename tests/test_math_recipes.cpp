// bcast's own math functions (NOTE: [Math recipes]): what each row of
// kRecipes promises, checked against an independent computation.
//  - Accuracy: every result within its row's bound (2 ULP, tanh 1.5, NOTE:
//    [Widened math]'s 0.5 + 2**-10) of long double's value (x87's 64-bit mantissa: its
//    own error is 2**-40 of an f32 ULP), on a sweep of the f32 bit patterns
//    (every 4099th: every binade, both signs, subnormals, infinities, NaNs;
//    BCAST_RECIPE_SWEEP_STRIDE=1 takes every one, BCAST_RECIPE_SWEEP_ONLY=tanh
//    one function, five to fifteen minutes each) and, for pow and atan2, on
//    pairs of special and random operands. Overflow is infinity of the right sign, NaN where
//    the true value is not a real number, and a zero's sign counts.
//  - Both tiers: a kernel's lanes give the reference evaluator's bits, in the
//    element loop, a reversed view and the streaming line loop.
// tests/python/test_math_vs_mpmath.py and test_functions_vs_numpy.py hold
// the same functions to mpmath's and NumPy's values through every surface.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "math_library.h"
#include "math_recipes.h"
#include "test_support.h"
#include "two_part_math.h"

namespace bcast {
namespace {

// The function table's name of a recipe's `math` function, and long
// double's function: the oracle.
struct Truth {
  std::string_view math;
  const char* op;
  long double (*f)(long double);
};

const Truth kTruths[] = {
    {"exp", "exp", [](long double x) { return std::exp(x); }},
    {"log", "log", [](long double x) { return std::log(x); }},
    {"expm1", "expm1", [](long double x) { return std::expm1(x); }},
    {"log1p", "log1p", [](long double x) { return std::log1p(x); }},
    {"tanh", "tanh", [](long double x) { return std::tanh(x); }},
    {"sinh", "sinh", [](long double x) { return std::sinh(x); }},
    {"cosh", "cosh", [](long double x) { return std::cosh(x); }},
    {"exp2", "exp2", [](long double x) { return std::exp2(x); }},
    {"log2", "log2", [](long double x) { return std::log2(x); }},
    {"log10", "log10", [](long double x) { return std::log10(x); }},
    {"tan", "tan", [](long double x) { return std::tan(x); }},
    {"sin", "sin", [](long double x) { return std::sin(x); }},
    {"cos", "cos", [](long double x) { return std::cos(x); }},
    {"atan", "arctan", [](long double x) { return std::atan(x); }},
    {"asin", "arcsin", [](long double x) { return std::asin(x); }},
    {"acos", "arccos", [](long double x) { return std::acos(x); }},
    {"cbrt", "cbrt", [](long double x) { return std::cbrt(x); }},
    {"asinh", "arcsinh", [](long double x) { return std::asinh(x); }},
    {"acosh", "arccosh", [](long double x) { return std::acosh(x); }},
    {"atanh", "arctanh", [](long double x) { return std::atanh(x); }},
};

const Truth* truth_of(std::string_view math) {
  for (const Truth& t : kTruths)
    if (t.math == math) return &t;
  return nullptr;
}

// r's distance from the true value t in ULPs of t's binade in T's format
// (subnormals: the smallest subnormal); 0 when both are the same infinity,
// the same zero or both NaN.
template <class T>
double ulps(T r, long double t) {
  using Limits = std::numeric_limits<T>;
  constexpr double kFar = std::numeric_limits<double>::infinity();
  if (std::isnan(t)) return std::isnan(r) ? 0 : kFar;
  // From here a value rounds to infinity.
  const long double overflow = static_cast<long double>(Limits::max()) +
                               std::ldexp(1.0L, Limits::max_exponent - 1 - Limits::digits);
  if (std::fabs(t) >= overflow) return std::isinf(r) && std::signbit(r) == std::signbit(t) ? 0 : kFar;
  if (!std::isfinite(r)) return kFar;
  if (t == 0) return r == 0 && std::signbit(r) == std::signbit(t) ? 0 : kFar;  // the zero's sign too
  const int least = Limits::min_exponent - Limits::digits;  // the smallest subnormal's exponent
  const long double ulp = std::ldexp(1.0L, std::max(std::ilogb(t) - (Limits::digits - 1), least));
  return static_cast<double>(std::fabs(static_cast<long double>(r) - t) / ulp);
}

std::uint64_t sweep_stride() {
  const char* s = std::getenv("BCAST_RECIPE_SWEEP_STRIDE");
  const std::uint64_t stride = s ? std::strtoull(s, nullptr, 10) : 0;
  return stride > 0 ? stride : 4099;
}

// Every 4099th f32 bit pattern (or BCAST_RECIPE_SWEEP_STRIDE's), and the
// values that end a range.
std::vector<float> sweep(std::uint64_t stride = 4099) {
  std::vector<float> xs;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += stride)
    xs.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, 88.72f,
                  89.5f, -89.5f, 9.0f, 1e-7f, std::nextafter(1.0f, 2.0f), std::nextafter(1.0f, 0.0f),
                  std::nextafter(-1.0f, 0.0f), std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity()})
    xs.push_back(v);
  return xs;
}

// `count` values of T nearest k pi/2 for random k up to `max_turns` (k
// shifted right by i mod `scales` for the i-th: small k as often as large
// where scales > 1) and up to three ULPs around, signs alternating.
template <class T>
void add_near_half_pis(std::vector<T>& xs, std::mt19937_64& rng, int count, std::int64_t max_turns, int scales) {
  constexpr T kMax = std::numeric_limits<T>::max();
  std::uniform_int_distribution<std::int64_t> turns(1, max_turns);
  std::uniform_int_distribution<int> steps(-3, 3);
  for (int i = 0; i < count; ++i) {
    const std::int64_t k = std::max<std::int64_t>(turns(rng) >> (i % scales), 1);
    T x = static_cast<T>(static_cast<long double>(k) * 1.5707963267948966192313216916397514L);
    for (int s = steps(rng); s != 0; s += s > 0 ? -1 : 1) x = std::nextafter(x, s > 0 ? kMax : -kMax);
    xs.push_back(i % 2 ? x : -x);
  }
}

// The floats nearest k pi/2 for k up to 2**31 (x up to about 2**31.65:
// the trig recipes' reductions, their limits and beyond) and a few ULPs
// around them, and the float nearest a multiple of pi/2 in each of eight
// binades below 2**34, found by a search of every float there.
std::vector<float> f32_near_half_pis() {
  std::vector<float> xs = {0x1.f9cbe2p+7f, 0x1.17cc5p+11f,  0x1.9a48dep+15f, 0x1.04ccbcp+18f,
                           0x1.4ac55cp+21f, 0x1.4665d2p+25f, 0x1.27a94ap+29f, 0x1.ffa4e8p+33f};
  std::mt19937_64 rng(17);
  add_near_half_pis(xs, rng, 20000, std::int64_t{1} << 31, 24);
  return xs;
}

class MathRecipes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!math::host_has_fma()) GTEST_SKIP() << "this host has no FMA: the recipes are not used (NOTE: [Math recipes])";
  }
};

TEST_F(MathRecipes, EveryRecipeIsWithinItsBoundOfLongDouble) {
  const char* only = std::getenv("BCAST_RECIPE_SWEEP_ONLY");
  const std::uint64_t stride = sweep_stride();
  for (const math::recipes::RecipeRow& row : math::recipes::kRecipes) {
    if (row.arity != 1 || row.dtype != DType::f32 || (only && row.math != only)) continue;
    const Truth* truth = truth_of(row.math);
    ASSERT_NE(truth, nullptr) << row.math << " has a recipe but no oracle here";
    const math::recipes::Unary<float> f = math::recipes::scalar_unary<float>(row.math);
    ASSERT_NE(f, nullptr) << row.math << " has a recipe";
    double worst = 0;
    float worst_x = 0;
    const auto check = [&](float x) {
      const double e = ulps(f(x), truth->f(x));
      if (e > worst || std::isnan(e)) worst = e, worst_x = x;
    };
    std::uint64_t count = 0;
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += stride, ++count)
      check(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    for (float x : sweep(std::uint64_t{1} << 33)) check(x);  // the ends of the ranges only
    for (float x : f32_near_half_pis()) check(x);
    if (stride == 1) std::cout << truth->op << ": " << count << " arguments, at most " << worst << " ULP\n";
    EXPECT_LE(worst, row.bound) << truth->op << "(" << worst_x << ") = " << f(worst_x) << ", true "
                                << static_cast<double>(truth->f(worst_x));
  }
}

// NOTE: [Widened math]: f32 sin and cos below 2**30 in magnitude, computed
// in f64 and rounded once, are within kWidened (half an ULP and a hair),
// where their rows' bound (1 ULP) covers the library beyond.
TEST_F(MathRecipes, WidenedSinAndCosRoundOnceBelowTwoToThe30) {
  const std::uint64_t stride = sweep_stride();
  std::vector<float> xs = f32_near_half_pis();
  for (float x : {0x1p30f, -0x1p30f, 0x1.fffffep29f, -0x1.fffffep29f, 0x1p-149f, -0.0f}) xs.push_back(x);
  for (const char* name : {"sin", "cos"}) {
    const Truth* truth = truth_of(name);
    const math::recipes::Unary<float> f = math::recipes::scalar_unary<float>(name);
    ASSERT_NE(f, nullptr) << name << " has a recipe";
    double worst = 0;
    float worst_x = 0;
    const auto check = [&](float x) {
      if (!(std::fabs(x) <= 0x1p30f)) return;
      const double e = ulps(f(x), truth->f(x));
      if (e > worst || std::isnan(e)) worst = e, worst_x = x;
    };
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += stride)
      check(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    for (float x : xs) check(x);
    if (stride == 1) std::cout << name << " below 2**30: at most " << worst << " ULP\n";
    EXPECT_LE(worst, math::recipes::kWidened) << name << "(" << std::hexfloat << worst_x << ") = " << f(worst_x);
  }
}

// NOTE: [Math guards]: the library's exp near overflow, as a host without
// FMA (no recipes) calls it: past 709 the guard's f(x - 1) * e is finite
// up to the last finite result, within e/2 times the library's 1 ULP plus
// half an ULP. Not a MathRecipes test: it holds with or without FMA.
TEST(MathGuards, LibraryExpNearOverflowIsWithinItsGuardsBound) {
  std::vector<double> xs = {709.0, 709.5, 709.78, 709.782712893384, std::nextafter(709.782712893384, 0.0)};
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> near(708.5, 709.782712893384);
  for (int i = 0; i < 20000; ++i) xs.push_back(near(rng));
  double worst = 0, worst_x = 0;
  for (double x : xs) {
    const double e = ulps(math::recipes::library_function("exp", x), std::exp(static_cast<long double>(x)));
    if (e > worst || std::isnan(e)) worst = e, worst_x = x;
  }
  EXPECT_LE(worst, std::numbers::e / 2 + 0.5) << "exp(" << std::setprecision(17) << worst_x << ")";
}

// Doubles: the special ones, random bit patterns (every binade, both
// signs), random values near 1 and near the binades' ends, and over exp's
// range.
std::vector<double> f64_samples() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {0.0, -0.0, 1.0, -1.0, 8.0, 27.0, 0.125, DBL_MIN, -DBL_MIN, DBL_TRUE_MIN, DBL_MAX, -DBL_MAX,
                            inf, -inf, std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0), 0x1p1000, 0x1p-1022 * 3};
  std::mt19937_64 rng(13);
  for (int i = 0; i < 400000; ++i) xs.push_back(std::bit_cast<double>(rng()));
  std::uniform_real_distribution<double> near_one(0.5, 8.0);
  for (int i = 0; i < 100000; ++i) xs.push_back(near_one(rng));
  std::uniform_real_distribution<double> exponents(-750.0, 750.0);  // exp's whole range, and more
  for (int i = 0; i < 100000; ++i) xs.push_back(exponents(rng));
  // Near multiples of pi/2 up to 2**21 (the trig recipes' reduction, its
  // limit 2**20 and beyond): the nearest doubles and a few ULPs around.
  add_near_half_pis(xs, rng, 50000, std::int64_t{1} << 22, 1);
  return xs;
}

TEST_F(MathRecipes, EveryF64RecipeIsWithinItsBoundOfLongDouble) {
  for (const math::recipes::RecipeRow& row : math::recipes::kRecipes) {
    if (row.dtype != DType::f64 || row.arity != 1) continue;
    const Truth* truth = truth_of(row.math);
    ASSERT_NE(truth, nullptr) << row.math << " has a recipe but no oracle here";
    const math::recipes::Unary<double> f = math::recipes::scalar_unary<double>(row.math);
    ASSERT_NE(f, nullptr) << row.math;
    double worst = 0, worst_x = 0;
    for (double x : f64_samples()) {
      const double e = ulps(f(x), truth->f(x));
      if (e > worst || std::isnan(e)) worst = e, worst_x = x;
    }
    std::cout << truth->op << " f64: at most " << worst << " ULP\n";
    EXPECT_LE(worst, row.bound) << truth->op << "(" << worst_x << ") = " << f(worst_x) << ", true "
                                << static_cast<double>(truth->f(worst_x));
  }
}

TEST_F(MathRecipes, PowIsWithinItsBoundOfLongDouble) {
  const math::recipes::Binary<float> f = math::recipes::scalar_binary<float>("pow");
  ASSERT_NE(f, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f,
                           FLT_TRUE_MIN, FLT_MAX, inf, -inf,
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
      const long double t =
          (x == 1.0f || y == 0.0f) ? 1.0L : std::pow(static_cast<long double>(x), static_cast<long double>(y));
      const double e = ulps(f(x, y), t);
      if (e > worst || std::isnan(e)) worst = e, wx = x, wy = y;
    }
  EXPECT_LE(worst, math::recipes::kWidened) << "pow(" << wx << ", " << wy << ") = " << f(wx, wy);
}

// f64 pow (NOTE: [F64 pow]) against long double's powl: special pairs,
// random bases with exponents that take |y ln x| up to 745 (the whole
// range of finite results, subnormal ones too), bases a few ULPs from 1
// with huge exponents, negative bases with integer exponents, and the
// overflow and underflow thresholds.
TEST_F(MathRecipes, PowF64IsWithinItsBoundOfLongDouble) {
  const math::recipes::Binary<double> f = math::recipes::scalar_binary<double>("pow");
  ASSERT_NE(f, nullptr);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, double>> pairs;
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             2.0,
                             -2.0,
                             0.5,
                             -0.5,
                             3.0,
                             -3.0,
                             DBL_TRUE_MIN,
                             DBL_MIN,
                             DBL_MAX,
                             inf,
                             -inf,
                             std::nextafter(1.0, 2.0),
                             std::nextafter(1.0, 0.0),
                             1e300,
                             1e-300};
  for (double x : specials)
    for (double y : specials) pairs.emplace_back(x, y);
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), base(0.0, 10.0);
  std::uniform_int_distribution<int> binade(-1074, 1023), small_integer(-60, 60);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::ldexp(1.0 + std::fabs(unit(rng)), binade(rng));
    if (x == 0 || !std::isfinite(x) || x == 1) continue;
    pairs.emplace_back(x, unit(rng) * 745.0 / std::fabs(std::log(x)));
  }
  for (int i = 0; i < 50000; ++i) pairs.emplace_back(base(rng), unit(rng) * 40.0);
  for (int i = 0; i < 20000; ++i) {
    double x = 1.0;
    for (int k = small_integer(rng); k != 0; k += k > 0 ? -1 : 1) x = std::nextafter(x, k > 0 ? 2.0 : 0.0);
    pairs.emplace_back(x, unit(rng) * 0x1p60);
  }
  for (int i = 0; i < 20000; ++i) pairs.emplace_back(-base(rng), static_cast<double>(small_integer(rng)));
  // Bases just below sqrt(2) and above sqrt(1/2), where t = f / (2 + f) is
  // largest and its low part counts, with |y ln x| near 745 (found by a
  // review: 1.84 ULP before the series took t's low part).
  std::uniform_int_distribution<int> big_exponent(1000, 2048);
  for (int i = 0; i < 20000; ++i) {
    const double x =
        i % 2 ? 1.4142135623730951 - std::fabs(unit(rng)) * 1e-5 : 0.7071067811865476 + std::fabs(unit(rng)) * 1e-5;
    pairs.emplace_back(x, (i % 4 < 2 ? 1.0 : -1.0) * static_cast<double>(big_exponent(rng)));
  }
  // Negative bases with exponents from 2**51 to 2**53, where a double may
  // still be a half-integer or odd (NumPy: NaN, or the sign of an odd power).
  for (double y : {0x1p51 + 0.5, 0x1p51 + 1.5, 0x1p52 - 0.5, 0x1p52 + 1, 0x1p52 + 2, 0x1p53 - 1, 0x1p53})
    for (double x : {-1.0, -2.0, -0.5, -0.0, -inf, -1.0000000000000002})
      for (double sign : {1.0, -1.0}) pairs.emplace_back(x, sign * y);
  for (int i = 0; i < 20000; ++i) pairs.emplace_back(2.0 + unit(rng) * 0.01, 1010.0 + unit(rng) * 90.0);
  for (int i = 0; i < 20000; ++i) pairs.emplace_back(0.5 + unit(rng) * 0.01, 1010.0 + unit(rng) * 90.0);
  double worst = 0, wx = 0, wy = 0;
  for (const auto& [x, y] : pairs) {
    const long double t =
        (x == 1.0 || y == 0.0) ? 1.0L : std::pow(static_cast<long double>(x), static_cast<long double>(y));
    const double e = ulps(f(x, y), t);
    if (e > worst || std::isnan(e)) worst = e, wx = x, wy = y;
  }
  std::cout << "pow f64: at most " << worst << " ULP on " << pairs.size() << " pairs\n";
  EXPECT_LE(worst, 1.0) << "pow(" << wx << ", " << wy << ") = " << f(wx, wy);  // the row's bound
}

// atan2 in T (float or double) on every pairing of special values (C99
// F.9.1.4: signed zeros, infinities), of values whose quotient is near 1,
// and random ones of every size; the most it is from long double's.
template <class T>
void expect_atan2_within_bound() {
  using Limits = std::numeric_limits<T>;
  const math::recipes::Binary<T> f = math::recipes::scalar_binary<T>("atan2");
  ASSERT_NE(f, nullptr);
  const T inf = Limits::infinity(), one = 1;
  std::vector<T> vs = {0, -T{0}, 1, -1, inf, -inf, Limits::denorm_min(), -Limits::denorm_min(), Limits::min(),
                       Limits::max(), -Limits::max(), std::nextafter(one, T{2}), std::nextafter(one, T{0}),
                       T{0.5}, 2, 3, T{-7.5}, static_cast<T>(0.41421356237309503), static_cast<T>(2.414213562373095)};
  std::mt19937 rng(3);
  std::uniform_real_distribution<T> mantissa(1, 2);
  std::uniform_int_distribution<int> exponent(Limits::min_exponent - Limits::digits, Limits::max_exponent - 1);
  for (int i = 0; i < 300; ++i) vs.push_back((i % 2 ? -one : one) * std::ldexp(mantissa(rng), exponent(rng)));
  for (int i = 0; i < 100; ++i) vs.push_back(i % 2 ? mantissa(rng) : -mantissa(rng));
  double worst = 0;
  T wy = 0, wx = 0;
  for (T y : vs)
    for (T x : vs) {
      const double e = ulps(f(y, x), std::atan2(static_cast<long double>(y), static_cast<long double>(x)));
      if (e > worst || std::isnan(e)) worst = e, wy = y, wx = x;
    }
  EXPECT_LE(worst, 2.0) << "atan2(" << wy << ", " << wx << ") = " << f(wy, wx);
}

TEST_F(MathRecipes, Atan2IsWithinItsBoundOfLongDouble) {
  expect_atan2_within_bound<float>();
  expect_atan2_within_bound<double>();
}

// The first element whose bits differ (NaNs: any NaN), or "", in floats
// of type T.
template <class T>
std::string difference_of(const Tensor& jit, const Tensor& reference) {
  const std::vector<std::uint8_t> g = test::bytes_of(jit), w = test::bytes_of(reference);
  if (g.size() != w.size()) return "sizes differ";
  for (std::size_t at = 0; at < g.size(); at += sizeof(T)) {
    T a, b;
    std::memcpy(&a, g.data() + at, sizeof(T));
    std::memcpy(&b, w.data() + at, sizeof(T));
    if (std::memcmp(&a, &b, sizeof(T)) != 0 && !(std::isnan(a) && std::isnan(b)))
      return "element " + std::to_string(at / sizeof(T)) + ": " + std::to_string(a) + " vs " + std::to_string(b);
  }
  return "";
}
std::string difference(const Tensor& jit, const Tensor& reference) {
  return jit.dtype() == DType::f64 ? difference_of<double>(jit, reference) : difference_of<float>(jit, reference);
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

// NOTE: [Rare lanes]: where a recipe has a main path, it gives the full
// recipe's bits on every argument that rare_of does not name (the sweep's
// f32 bit patterns, the f64 samples: subnormals, zeros, infinities and NaNs
// among them), so a kernel that runs it there computes what the reference
// evaluator does. Never NaN there, so that a kernel leaves the NaN rule
// (math::one_nan) to the rare lanes too.
template <class T>
std::size_t expect_main_path_is_the_recipe(math::recipes::Recipe r, std::string_view math, const std::vector<T>& xs) {
  std::size_t checked = 0;
  for (T x : xs) {
    if (math::recipes::rare_of(r, x)) continue;
    ++checked;
    const T main = math::recipes::run_main(r, x), full = math::recipes::run(r, x);
    using Bits = typename math::recipes::Format<T>::Bits;
    EXPECT_EQ(std::bit_cast<Bits>(main), std::bit_cast<Bits>(full))
        << math << "(" << x << "): main path " << main << ", recipe " << full;
    EXPECT_FALSE(std::isnan(main)) << math << "(" << x << ") is NaN on the main path";
  }
  return checked;
}

// The same for a recipe of two arguments, on every pair of xs and ys.
template <class T>
std::size_t expect_binary_main_path_is_the_recipe(math::recipes::Recipe r, std::string_view math,
                                                  const std::vector<T>& xs, const std::vector<T>& ys) {
  std::size_t checked = 0;
  for (T x : xs)
    for (T y : ys) {
      if (math::recipes::rare_of(r, x, y)) continue;
      ++checked;
      const T main = math::recipes::run_main(r, x, y), full = math::recipes::run(r, x, y);
      using Bits = typename math::recipes::Format<T>::Bits;
      EXPECT_EQ(std::bit_cast<Bits>(main), std::bit_cast<Bits>(full))
          << math << "(" << x << ", " << y << "): main path " << main << ", recipe " << full;
      EXPECT_FALSE(std::isnan(main)) << math << "(" << x << ", " << y << ") is NaN on the main path";
    }
  return checked;
}

TEST_F(MathRecipes, MainPathsGiveTheRecipesBitsWhereNoLaneIsRare) {
  const std::vector<float> f32s = sweep();
  const std::vector<double> f64s = f64_samples();
  std::vector<float> bases, exponents;  // every 64th sample: from subnormals to inf, both signs
  for (std::size_t i = 0; i < f32s.size(); i += 64) bases.push_back(f32s[i]);
  for (float y : {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 3.0f, -3.0f, 1e-3f, 17.25f, -150.5f, 1e30f, -7.0f, 16777215.0f})
    exponents.push_back(y);
  std::vector<double> xs64, ys64;  // every 256th sample, and the ends of atan2's ordinary range
  for (std::size_t i = 0; i < f64s.size(); i += 256) xs64.push_back(f64s[i]);
  for (double y : {0.0, -0.0, 1.0, -1.0, 1e-300, 0x1p-1000, 0x1p-1001, 0x1p1022, -0x1p1023, 3.5, -1e5, 1e300, 3.0, -7.0,
                   0x1p53 - 1})
    ys64.push_back(y);
  int rows = 0;
  for (const math::recipes::RecipeRow& row : math::recipes::kRecipes) {
    if (!row.main_path) continue;
    ++rows;
    const bool f32 = row.dtype == DType::f32;
    const std::size_t checked =
        row.arity == 2 ? (f32 ? expect_binary_main_path_is_the_recipe(row.recipe, row.math, bases, exponents)
                              : expect_binary_main_path_is_the_recipe(row.recipe, row.math, xs64, ys64))
        : f32          ? expect_main_path_is_the_recipe(row.recipe, row.math, f32s)
                       : expect_main_path_is_the_recipe(row.recipe, row.math, f64s);
    EXPECT_GT(checked, 1000u) << row.math << ": the main path is taken on the samples";
  }
  EXPECT_GT(rows, 0);
}

TEST_F(MathRecipes, KernelsGiveTheReferenceBits) {
  const Tensor x = f32_tensor(sweep());
  const TensorView reversed = index(x, {Slice{std::nullopt, std::nullopt, -1}});
  for (const char* stream : {"auto", "0"}) {
    const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
    for (const math::recipes::RecipeRow& row : math::recipes::kRecipes) {
      if (row.arity != 1 || row.dtype != DType::f32) continue;
      const std::string op(truth_of(row.math)->op);
      const std::string label = op + ", stream " + stream;
      expect_kernel_equals_reference(parse_expression(op + "(x)", {{"x", x}}), label);
      expect_kernel_equals_reference(parse_expression(op + "(x)", {{"x", reversed}}), label + ", reversed");
    }
    std::vector<float> bases, exponents;
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> any(-12.0f, 12.0f);
    for (int i = 0; i < 4096; ++i) bases.push_back(i % 5 ? std::fabs(any(rng)) : any(rng));
    for (int i = 0; i < 4096; ++i) exponents.push_back(i % 4 ? any(rng) : std::round(any(rng)));
    const Tensor base = f32_tensor(bases), exponent = f32_tensor(exponents);
    expect_kernel_equals_reference(parse_expression("x ** y", {{"x", base}, {"y", exponent}}),
                                   std::string("pow, stream ") + stream);
    // NOTE: [Rare lanes]: every vector above has a negative base; here one
    // in four also has a zero or an infinity, in f32, and both kinds in f64.
    std::vector<float> special_bases = bases;
    for (std::size_t i = 0; i < special_bases.size(); i += 64) special_bases[i] = i % 128 ? 0.0f : -INFINITY;
    const Tensor specials = f32_tensor(special_bases);
    Tensor base64(DType::f64, {4096}), specials64(DType::f64, {4096}), exponent64(DType::f64, {4096});
    for (std::size_t i = 0; i < 4096; ++i) {
      static_cast<double*>(base64.data())[i] = bases[i];
      static_cast<double*>(specials64.data())[i] = special_bases[i];
      static_cast<double*>(exponent64.data())[i] = exponents[i] * 7;
    }
    const auto expect_pow = [&](const Tensor& x_values, const Tensor& y, const std::string& what) {
      expect_kernel_equals_reference(parse_expression("x ** y", {{"x", x_values}, {"y", y}}),
                                     what + ", stream " + stream);
    };
    expect_pow(specials, exponent, "pow, zeros and infinities");
    expect_pow(base64, exponent64, "pow f64");
    expect_pow(specials64, exponent64, "pow f64, zeros and infinities");
    expect_kernel_equals_reference(parse_expression("arctan2(x, y)", {{"x", base}, {"y", exponent}}),
                                   std::string("arctan2, stream ") + stream);
    Tensor doubles(DType::f64, {1024});
    const std::vector<double> samples = f64_samples();  // the special ones, then every kind
    for (std::size_t i = 0; i < 1024; ++i)
      static_cast<double*>(doubles.data())[i] = samples[i < 32 ? i : i * (samples.size() / 1024)];
    for (const math::recipes::RecipeRow& row : math::recipes::kRecipes)
      if (row.dtype == DType::f64 && row.arity == 1)
        expect_kernel_equals_reference(parse_expression(std::string(truth_of(row.math)->op) + "(x)", {{"x", doubles}}),
                                       std::string(row.math) + " f64, stream " + stream);
    const TensorView flipped = index(doubles, {Slice{std::nullopt, std::nullopt, -1}});
    expect_kernel_equals_reference(parse_expression("arctan2(x, y)", {{"x", doubles}, {"y", flipped}}),
                                   std::string("arctan2 f64, stream ") + stream);
  }
}

// NOTE: [Two-part math]'s pairs, the factors of a c128 recipe, against
// long double (its own error is 2**-11 of 2**-53): within 2**-55 of the
// true value in relative terms (the rounding of a product of two such pairs
// is then within 0.5 + 0.25 ULP), on y up to 2**20 (the reduction's own
// range; the argument's every binade down to 2**-40) and on x up to 22.
struct LibrarySinCos {
  static double sin_beyond(double y, double limit, double main) { return std::fabs(y) <= limit ? main : std::sin(y); }
  static double cos_beyond(double y, double limit, double main) { return std::fabs(y) <= limit ? main : std::cos(y); }
};
TEST(TwoPartMath, SinCosSinhCoshPairsAreWithinTwoToTheMinus55OfLongDouble) {
  std::mt19937_64 random(55);
  auto off = [](const math::recipes::TwoSum<double>& pair, long double truth) {
    return static_cast<double>(std::fabs(static_cast<long double>(pair.sum) + pair.error - truth) / std::fabs(truth));
  };
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const double scale = std::ldexp(1.0, static_cast<int>(random() % 61) - 40);  // 2**-40 to 2**20
    const double y = std::uniform_real_distribution<double>(-1.0, 1.0)(random) * scale;
    const auto t = math::recipes::sin_cos_two_parts<LibrarySinCos>(y);
    const double sin_off = off(t.sin, sinl(y)), cos_off = off(t.cos, cosl(y));
    EXPECT_LE(sin_off, 0x1p-55) << "sin at " << std::hexfloat << y;
    EXPECT_LE(cos_off, 0x1p-55) << "cos at " << std::hexfloat << y;
    const double x = std::uniform_real_distribution<double>(-22.0, 22.0)(random) * (i % 2 ? 1.0 : scale * 0x1p-20);
    const auto h = math::recipes::sinh_cosh_two_parts(x);
    const double sinh_off = x == 0 ? 0 : off(h.sinh, sinhl(x)), cosh_off = off(h.cosh, coshl(x));
    EXPECT_LE(sinh_off, 0x1p-55) << "sinh at " << std::hexfloat << x;
    EXPECT_LE(cosh_off, 0x1p-55) << "cosh at " << std::hexfloat << x;
    worst = std::max({worst, sin_off, cos_off, sinh_off, cosh_off});
    if (HasFailure()) break;
  }
  std::cout << "most relative error of a pair: 2**" << std::log2(worst) << "\n";
}

}  // namespace
}  // namespace bcast
