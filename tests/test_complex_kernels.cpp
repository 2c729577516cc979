// Complex kernels (NOTE: [Complex in IR]) against the reference evaluator
// (NOTE: [Complex arithmetic]), bit for bit: every complex op the JIT has IR
// for, on c64 and c128, over every pairing of special parts (zeros of both
// signs, subnormals, huge values, infinities, NaN), through the element loop,
// a strided reversed view, a broadcast scalar and the streaming line loop.
// So do the complex functions with a recipe (NOTE: [Complex math]), on
// special and random values. The ops without IR run on the reference
// evaluator, and describe says so.
// tests/python/test_complex.py and test_functions_vs_numpy.py hold both to
// NumPy.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "complex_math.h"
#include "test_support.h"

namespace bcast {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The parts each operand's elements take, for P = float or double.
template <class P>
std::vector<P> special_parts() {
  return {P{0},
          -P{0},
          P{1},
          P{-1.5},
          P{3},
          std::numeric_limits<P>::denorm_min() * 3,
          std::numeric_limits<P>::min(),
          std::numeric_limits<P>::max() / 4,
          -std::numeric_limits<P>::max(),
          static_cast<P>(kInf),
          static_cast<P>(-kInf),
          static_cast<P>(kNaN)};
}

// Every pairing of the special parts as one column of complex numbers.
Tensor specials(DType dtype) {
  const std::size_t n = special_parts<double>().size();
  Tensor t(dtype, {static_cast<std::int64_t>(n * n)});
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      char* p = static_cast<char*>(t.data()) + (r * n + i) * dtype_size(dtype);
      if (dtype == DType::c64) {
        const std::complex<float> v(special_parts<float>()[r], special_parts<float>()[i]);
        std::memcpy(p, &v, sizeof v);
      } else {
        const std::complex<double> v(special_parts<double>()[r], special_parts<double>()[i]);
        std::memcpy(p, &v, sizeof v);
      }
    }
  return t;
}

// A NaN's kind per float part (quiet or signalling), not its sign or
// payload: IEEE 754 leaves open which operand's NaN a result carries.
bool same_part(const char* g, const char* w, std::size_t size) {
  if (std::memcmp(g, w, size) == 0) return true;
  if (size == 4) {
    float a, b;
    std::memcpy(&a, g, 4);
    std::memcpy(&b, w, 4);
    return std::isnan(a) && std::isnan(b);  // both quiet: no op here makes a signalling NaN
  }
  if (size == 8) {
    double a, b;
    std::memcpy(&a, g, 8);
    std::memcpy(&b, w, 8);
    return std::isnan(a) && std::isnan(b);
  }
  return false;
}

// The first element where the JIT's result differs from the reference's, or "".
std::string difference(const Tensor& jit, const Tensor& reference) {
  if (jit.dtype() != reference.dtype() || jit.shape() != reference.shape()) return "dtype or shape differs";
  const std::vector<std::uint8_t> g = test::bytes_of(jit), w = test::bytes_of(reference);
  const std::size_t size = dtype_size(jit.dtype());
  const std::size_t part = is_complex(jit.dtype()) ? size / 2 : size;
  for (std::size_t at = 0; at < g.size(); at += part) {
    const char* gp = reinterpret_cast<const char*>(g.data() + at);
    const char* wp = reinterpret_cast<const char*>(w.data() + at);
    if (!same_part(gp, wp, part)) return "element " + std::to_string(at / size) + " differs";
  }
  return "";
}

// e in a kernel and on the reference evaluator: the same bits.
void expect_kernel_equals_reference(const Expr& e, const std::string& label) {
  const ExprInfo info = describe(e);
  ASSERT_NE(info.kernel, "reference") << label << ": the JIT should compile it";
  const Tensor jit = evaluate(e);
  set_jit_enabled(false);
  const Tensor reference = evaluate(e);
  set_jit_enabled(true);
  EXPECT_EQ(difference(jit, reference), "") << label << " in " << info.kernel;
}

const Op kBinaryWithIR[] = {Op::add, Op::sub, Op::mul, Op::div, Op::eq, Op::ne, Op::lt, Op::le, Op::gt,
                            Op::ge, Op::logical_and, Op::logical_or, Op::logical_xor, Op::max, Op::min,
                            Op::fmax, Op::fmin};
const UnaryOp kUnaryWithIR[] = {UnaryOp::positive, UnaryOp::copy, UnaryOp::neg, UnaryOp::conj, UnaryOp::real,
                                UnaryOp::imag, UnaryOp::abs, UnaryOp::ones_like, UnaryOp::square,
                                UnaryOp::reciprocal, UnaryOp::sign, UnaryOp::round, UnaryOp::logical_not,
                                UnaryOp::isnan, UnaryOp::isinf, UnaryOp::isfinite};

class ComplexKernels : public ::testing::TestWithParam<DType> {};

TEST_P(ComplexKernels, BinaryOpsGiveTheReferenceBitsOnEveryPairOfSpecialValues) {
  const DType d = GetParam();
  const Tensor values = specials(d);
  const TensorView column = unsqueeze(values, 1), row = values;  // [144, 1] and [144]: every pair
  const TensorView reversed = index(values, {Slice{std::nullopt, std::nullopt, -1}});
  for (const char* stream : {"auto", "0"}) {
    const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
    for (const Op op : kBinaryWithIR) {
      const std::string label = std::string(op_name(op)) + " on " + std::string(dtype_name(d)) + ", stream " + stream;
      expect_kernel_equals_reference(expr::apply(op, Expr(column), Expr(row)), label);
      expect_kernel_equals_reference(expr::apply(op, Expr(row), Expr(reversed)), label + ", reversed");
      expect_kernel_equals_reference(expr::apply(op, Expr(row), Expr(std::complex<double>(-2.5, 0.5))),
                                     label + ", weak scalar");
    }
  }
}

TEST_P(ComplexKernels, UnaryOpsCastsAndWhereGiveTheReferenceBits) {
  const DType d = GetParam();
  const Tensor values = specials(d);
  const TensorView reversed = index(values, {Slice{std::nullopt, std::nullopt, -1}});
  for (const char* stream : {"auto", "0"}) {
    const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
    for (const UnaryOp op : kUnaryWithIR) {
      const std::string label = std::string(unary_name(op)) + " on " + std::string(dtype_name(d)) + ", stream " + stream;
      expect_kernel_equals_reference(expr::apply(op, Expr(values)), label);
      expect_kernel_equals_reference(expr::apply(op, Expr(reversed)), label + ", reversed");
    }
    // Casts out of complex (NumPy's: the real part; bool: either part
    // nonzero), between the complex dtypes, and into complex from the reals.
    for (const DType to : {DType::c64, DType::c128, DType::f16, DType::f64, DType::i32, DType::u8, DType::boolean})
      expect_kernel_equals_reference(expr::cast(Expr(values), to),
                                     std::string(dtype_name(d)) + " to " + std::string(dtype_name(to)));
    const Tensor reals = test::make(DType::f16, {6}, {0.0, -1.5, 65504.0, kInf, -kInf, kNaN});
    expect_kernel_equals_reference(expr::cast(Expr(reals), d), "f16 to " + std::string(dtype_name(d)));
    const Tensor ints = test::make(DType::i64, {4}, {0, -3, 0x1p40, 0x1p53});
    expect_kernel_equals_reference(Expr(ints) * Expr(std::complex<double>(0, 1)), "i64 times 1j");
    expect_kernel_equals_reference(expr::where(expr::gt(expr::real(Expr(values)), Expr(0.0)), Expr(values), Expr(reversed)),
                                   "where on " + std::string(dtype_name(d)));
  }
}

TEST_P(ComplexKernels, BinaryCallsRunTheTwoInputExpressionKernel) {
  // ops.cpp's runs_as_expression: bcast::mul(z, w) on c64 is the expression
  // a*b, whose kernel is compiled and used; its key is a binary op's, the
  // one-node expression x0*x1, printed as the op.
  const DType d = GetParam();
  const Tensor values = specials(d);
  const TensorView column = unsqueeze(values, 1);
  const std::string key = "mul." + std::string(dtype_name(d)) + ".";
  auto uses = [&] {
    std::uint64_t n = 0;
    for (const KernelStats& k : kernel_cache_entries())
      if (k.key.starts_with(key)) n += k.hits + k.misses;
    return n;
  };
  const std::uint64_t before = uses();
  const Tensor product = mul(column, values);
  EXPECT_GT(uses(), before) << "no " << key << " kernel served bcast::mul";
  set_jit_enabled(false);
  const Tensor reference = mul(column, values);
  set_jit_enabled(true);
  EXPECT_EQ(difference(product, reference), "");
}

TEST_P(ComplexKernels, ComplexOfTwoRealsKeepsEachPartsBits) {
  // numexpr's complex(a, b) on every pairing of the special parts (a
  // signalling NaN too): the result's parts are the operands' bits, in a
  // kernel as on the reference evaluator.
  const DType d = GetParam(), part = real_part_dtype(d);
  const Tensor values = specials(d);
  const auto n = values.numel();
  Tensor re(part, {n}), im(part, {n});
  const std::size_t size = dtype_size(part);
  for (std::int64_t i = 0; i < n; ++i) {
    const char* p = static_cast<const char*>(values.data()) + i * 2 * size;
    std::memcpy(static_cast<char*>(re.data()) + i * size, p, size);
    std::memcpy(static_cast<char*>(im.data()) + i * size, p + size, size);
  }
  std::memcpy(re.data(), d == DType::c64 ? static_cast<const void*>("\x01\x00\x80\x7f") : "\x01\0\0\0\0\0\xf0\x7f", size);
  const Expr e = expr::complex(Expr(re), Expr(im));
  expect_kernel_equals_reference(e, "complex on " + std::string(dtype_name(part)));
  const Tensor got = evaluate(e);
  ASSERT_EQ(got.dtype(), d);
  for (std::int64_t i = 0; i < n; ++i) {
    const char* p = static_cast<const char*>(got.data()) + i * 2 * size;
    ASSERT_EQ(std::memcmp(p, static_cast<const char*>(re.data()) + i * size, size), 0) << "real part of " << i;
    ASSERT_EQ(std::memcmp(p + size, static_cast<const char*>(im.data()) + i * size, size), 0) << "imaginary part of " << i;
  }
}

TEST(ComplexOfTwoReals, PreparedRunsTheExpressionsKernelWithTheSameBits) {
  // A prepared op's kernel is its one-node expression's (NOTE: [Expression
  // kernels]): prepare(complex, f32) runs the JIT's complex(x0,x1) kernel. It
  // once reached a binary-only emitter, which divided by the element size of
  // [2 x float] (0) and stopped the process with SIGFPE; then it ran on the
  // reference executor.
  const Tensor re = test::make(DType::f32, {5}, {0.0, -1.5, 2.0, 1e30, -0.0});
  const Tensor im = test::make(DType::f32, {5}, {1.0, 0.25, -3.0, 0.0, 7.0});
  const PreparedOp p = prepare(Op::complex, DType::f32, re.layout(), im.layout());
  EXPECT_THAT(p.kernel_key(), ::testing::StartsWith("complex.f32.[same].uuu.host."));
  Tensor out(DType::c64, {5});
  p.run_data(re.data(), im.data(), out.data());
  EXPECT_EQ(test::bytes_of(out), test::bytes_of(evaluate(expr::complex(Expr(re), Expr(im)))));
}

// n complex numbers with parts of random magnitude (2**-40 to 2**20, and a
// tenth of them on the unit circle, where log's real part cancels); no
// huge parts beside small ones in a vector (NOTE: [Vector math]).
Tensor random_complex(DType dtype, std::int64_t n) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 7919 + 17);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), exponent(-40.0, 20.0), angle(-3.2, 3.2);
  Tensor t(dtype, {n});
  for (std::int64_t i = 0; i < n; ++i) {
    double re = unit(rng) * std::exp2(exponent(rng)), im = unit(rng) * std::exp2(exponent(rng));
    if (i % 10 == 0) re = std::cos(angle(rng)), im = std::sin(angle(rng));
    char* p = static_cast<char*>(t.data()) + i * dtype_size(dtype);
    if (dtype == DType::c64) {
      const std::complex<float> v(static_cast<float>(re), static_cast<float>(im));
      std::memcpy(p, &v, sizeof v);
    } else {
      const std::complex<double> v(re, im);
      std::memcpy(p, &v, sizeof v);
    }
  }
  return t;
}

// NOTE: [Complex math]: the functions with a recipe.
const UnaryOp kComplexRecipes[] = {UnaryOp::exp,  UnaryOp::exp2, UnaryOp::log,  UnaryOp::log2,  UnaryOp::log10,
                                   UnaryOp::sqrt, UnaryOp::sin,  UnaryOp::cos,  UnaryOp::sinh,  UnaryOp::cosh,
                                   UnaryOp::tan,  UnaryOp::tanh, UnaryOp::log1p, UnaryOp::expm1,
                                   UnaryOp::arcsin, UnaryOp::arccos, UnaryOp::arctan, UnaryOp::arcsinh,
                                   UnaryOp::arccosh, UnaryOp::arctanh};

TEST_P(ComplexKernels, FunctionRecipesGiveTheReferenceBits) {
  // The kernel and the reference evaluator run one recipe, on vector lanes
  // and on doubles: the same bits, special parts included.
  const DType d = GetParam();
  const Tensor values = specials(d), random = random_complex(d, 1001);
  const TensorView reversed = index(values, {Slice{std::nullopt, std::nullopt, -1}});
  for (const UnaryOp op : kComplexRecipes) {
    ASSERT_TRUE(math::recipes::has_complex_recipe(op)) << unary_name(op);
    const std::string label = std::string(unary_name(op)) + " on " + std::string(dtype_name(d));
    expect_kernel_equals_reference(expr::apply(op, Expr(values)), label);
    expect_kernel_equals_reference(expr::apply(op, Expr(reversed)), label + ", reversed");
    expect_kernel_equals_reference(expr::apply(op, Expr(random)), label + ", random");
  }
}

TEST_P(ComplexKernels, EveryComplexFunctionRunsInAKernel) {
  // NOTE: [Complex math]: every function NumPy defines on complex numbers,
  // ** included (its integer path's products and exp(w log z)).
  for (const UnaryOp op : kComplexRecipes) EXPECT_TRUE(math::recipes::has_complex_recipe(op)) << unary_name(op);
  const Tensor values = specials(GetParam());
  EXPECT_NE(describe(expr::apply(Op::pow, Expr(values), Expr(values))).kernel, "reference");
  expect_kernel_equals_reference(expr::apply(Op::pow, Expr(values), Expr(std::complex<double>(3.0, 0.0))), "z ** 3");
  expect_kernel_equals_reference(expr::apply(Op::pow, Expr(values), Expr(std::complex<double>(-7.0, 0.0))), "z ** -7");
  // Random bases to moderate exponents: a vector of SLEEF's f64 cos with a
  // huge argument in one lane may round another lane's differently from the
  // scalar function (NOTE: [Vector math]), so huge exponents go alone above.
  const Tensor random = random_complex(GetParam(), 1001);
  for (const std::complex<double> w : {std::complex<double>(-1.5, 0.0), std::complex<double>(0.5, 0.5),
                                       std::complex<double>(2.5, -1.0), std::complex<double>(-7.0, 0.0)})
    expect_kernel_equals_reference(expr::apply(Op::pow, Expr(random), Expr(w)), "random ** w");
}

TEST_P(ComplexKernels, AnglesPast2To20TakeTheRealSinAndCosOnTheirLanes) {
  // NOTE: [Two-part math]: past |y| = 2**20 a c128's sin y and cos y are the
  // real functions', called for a vector only when a lane is that far
  // (emit_beyond), beside lanes that reduce y themselves: the reference's
  // bits on every lane, and e**x cos y, e**x sin y within 3 ULPs of the C
  // library's (each side within an ULP and a rounding of the true value).
  const DType d = GetParam();
  const std::vector<std::complex<double>> z = {{1.0, 0.5},  {2.0, 3e6},    {-1.0, 1e10}, {0.5, -1e300},
                                               {3.0, 0x1p20}, {3.0, 0x1.00001p20}, {0.25, -7.0}, {1.5, 2e15}};
  Tensor t(d, {static_cast<std::int64_t>(z.size())});
  for (std::size_t i = 0; i < z.size(); ++i) {
    char* p = static_cast<char*>(t.data()) + i * dtype_size(d);
    if (d == DType::c64) {
      const std::complex<float> v(static_cast<float>(z[i].real()), static_cast<float>(z[i].imag()));
      std::memcpy(p, &v, sizeof v);
    } else {
      std::memcpy(p, &z[i], sizeof z[i]);
    }
  }
  for (const UnaryOp op : {UnaryOp::exp, UnaryOp::sin, UnaryOp::cos, UnaryOp::tanh, UnaryOp::expm1})
    expect_kernel_equals_reference(expr::apply(op, Expr(t)), std::string(unary_name(op)) + " of far angles");
  if (d != DType::c128) return;
  const Tensor e = evaluate(expr::exp(Expr(t)));
  for (std::size_t i = 0; i < z.size(); ++i) {
    std::complex<double> got;
    std::memcpy(&got, static_cast<const char*>(e.data()) + i * sizeof got, sizeof got);
    const double m = std::exp(z[i].real()), y = z[i].imag();
    for (const auto& [part, want] : {std::pair{got.real(), m * std::cos(y)}, std::pair{got.imag(), m * std::sin(y)}})
      EXPECT_LE(std::fabs(part - want), 3 * (std::nextafter(std::fabs(want), INFINITY) - std::fabs(want)))
          << "exp(" << z[i] << "): " << got;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, ComplexKernels, ::testing::Values(DType::c64, DType::c128),
                         [](const auto& param_info) { return std::string(dtype_name(param_info.param)); });

}  // namespace
}  // namespace bcast
