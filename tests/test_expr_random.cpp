// Random expressions on random views of mixed dtypes: JIT kernels and the
// reference evaluator, each against the independent expression oracle
// (oracle_expr.h: its own typing and arithmetic, a NaN only ever a quiet
// NaN), and against each other bit for bit, where a NaN matches only a NaN
// of the same kind (quiet or signalling).
// tests/e2e/expressions_vs_numpy.py checks bcast against NumPy itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "oracle.h"
#include "random_expr.h"
#include "test_support.h"

namespace bcast {
namespace {

// A float element's NaN kind: 0 for a number, 1 for a signalling NaN, 2
// for a quiet one. (Not its sign or payload: IEEE 754 leaves open which
// operand's NaN an arithmetic result carries, and compilers order
// commutative operands their own way.)
int nan_kind(std::uint64_t bits, DType d) {
  const int width = static_cast<int>(8 * dtype_size(d));
  const int mantissa = d == DType::f16 ? 10 : d == DType::bf16 ? 7 : d == DType::f32 ? 23 : 52;
  const std::uint64_t exponent_mask = ((std::uint64_t{1} << (width - 1 - mantissa)) - 1) << mantissa;
  const std::uint64_t mantissa_mask = (std::uint64_t{1} << mantissa) - 1;
  if ((bits & exponent_mask) != exponent_mask || (bits & mantissa_mask) == 0) return 0;
  return 1 + static_cast<int>((bits >> (mantissa - 1)) & 1);
}

// The first C-order index where got and want differ, or -1: bits equal, or
// both NaNs of one kind (their payloads may differ); a complex element part
// by part.
std::int64_t first_difference(const Tensor& got, const Tensor& want) {
  const std::vector<std::uint8_t> g = test::bytes_of(got), w = test::bytes_of(want);
  const DType part = real_part_dtype(got.dtype());
  const std::size_t size = dtype_size(part), parts = dtype_size(got.dtype()) / size;
  for (std::size_t p = 0; p < g.size() / size; ++p) {
    if (std::memcmp(g.data() + p * size, w.data() + p * size, size) == 0) continue;
    std::uint64_t gb = 0, wb = 0;
    std::memcpy(&gb, g.data() + p * size, size);
    std::memcpy(&wb, w.data() + p * size, size);
    if (is_floating(part) && nan_kind(gb, part) != 0 && nan_kind(gb, part) == nan_kind(wb, part)) continue;
    return static_cast<std::int64_t>(p / parts);
  }
  return -1;
}

// The case on JIT kernels and on the reference evaluator: each equals the
// oracle, and the two give the same bits.
void expect_both_tiers_equal_the_oracle(const test::ExprCase& c, const ExprInfo& info) {
  const Tensor jit = evaluate(c.expr);
  set_jit_enabled(false);
  const Tensor reference = evaluate(c.expr);
  set_jit_enabled(true);
  const std::string label = c.text + " = " + info.structure + " on " + info.broadcast_type + " in " + info.kernel;
  ASSERT_EQ(test::oracle_mismatch(c.oracle, c.views(), jit), "") << label << " (JIT)";
  ASSERT_EQ(test::oracle_mismatch(c.oracle, c.views(), reference), "") << label << " (reference)";
  ASSERT_EQ(jit.shape(), reference.shape());
  const std::int64_t bad = first_difference(jit, reference);
  ASSERT_EQ(bad, -1) << label << ": element " << bad << " is " << test::get(jit, bad)
                     << ", the reference evaluator gives " << test::get(reference, bad);
}

class RandomExpressions : public ::testing::TestWithParam<int> {};

TEST_P(RandomExpressions, JitAndReferenceEqualTheOracle) {
  std::mt19937_64 rng(1000 + GetParam());
  // Odd seeds stream every store they can (NOTE: [Streaming stores]).
  const test::ScopedSetting stream("BCAST_STREAM_MIN_BYTES", GetParam() % 2 ? "0" : "auto");
  test::ExprCaseOptions options;
  for (int d = 0; d < kNumDTypes; ++d) options.dtypes.push_back(static_cast<DType>(d));
  std::set<std::string> structures;
  for (int i = 0; i < 40; ++i) {
    const test::ExprCase c = test::random_expr_case(rng, options);
    const ExprInfo info = describe(c.expr);
    // The JIT compiled it; one with complex values may hold a complex
    // function, which runs on the reference evaluator (NOTE: [Complex in IR]).
    const bool complex = std::any_of(c.inputs.begin(), c.inputs.end(),
                                     [](const test::RandomView& v) { return is_complex(v.view.dtype()); }) ||
                         c.text.find("c64(") != std::string::npos || c.text.find("c128(") != std::string::npos;
    if (!complex) ASSERT_NE(info.kernel, "reference") << c.text;
    structures.insert(info.structure);
    expect_both_tiers_equal_the_oracle(c, info);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(structures.size(), 25u);  // the generator really varies
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomExpressions, ::testing::Range(0, 4));

// Complex inputs and the ops NumPy defines on them (a node that refuses its
// operands' dtype is drawn again), so the arithmetic, comparisons and casts of complex
// values (NOTE: [Complex in IR]) meet the oracle's NumPy formulas
// (oracle_values.cpp) and the reference evaluator's bits, in kernels.
TEST(RandomComplexExpressions, JitAndReferenceEqualTheOracle) {
  std::mt19937_64 rng(31);
  test::ExprCaseOptions options;
  options.dtypes = {DType::c64, DType::c128};
  options.transcendental = false;  // the complex functions run on the reference evaluator
  options.complex_ops = true;
  int kernels = 0;
  for (int i = 0; i < 60; ++i) {
    const test::ExprCase c = test::random_expr_case(rng, options);
    const ExprInfo info = describe(c.expr);
    kernels += info.kernel != "reference";
    expect_both_tiers_equal_the_oracle(c, info);
    if (HasFatalFailure()) return;
  }
  EXPECT_GE(kernels, 40);  // all but those with a complex power (pow: the C library's cpow)
}

// Random float values of every kind (random bits: huge, tiny, NaN and
// infinite; values within two of an integer dtype's limits; small values
// with fractions) cast to every integer dtype and bool, on the JIT and the
// reference evaluator, against the oracle's rule (NOTE: [Float to integer]:
// truncation, saturation, NaN to 0). tests/e2e/expressions_vs_numpy.py
// compares the values in range with NumPy.
TEST(RandomCasts, FloatToIntegerEqualsTheOracleOnRandomValues) {
  std::mt19937_64 rng(28);
  const DType targets[] = {DType::i8, DType::i16, DType::i32, DType::i64, DType::u8,
                           DType::u16, DType::u32, DType::u64, DType::boolean};
  for (const DType from : {DType::f16, DType::bf16, DType::f32, DType::f64})
    for (const DType to : targets) {
      Tensor x(from, {3000});
      const std::size_t size = dtype_size(from);
      const double top = to == DType::boolean ? 1 : std::ldexp(1.0, 8 * static_cast<int>(dtype_size(to)));
      const double bottom = to == DType::boolean || is_unsigned(to) ? 0 : -top / 2;
      const double high = to == DType::boolean || is_unsigned(to) ? top : top / 2;
      std::uniform_real_distribution<double> near(-2, 2), fraction(-300, 300);
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        if (i % 3 == 0) {
          const std::uint64_t bits = rng();
          std::memcpy(static_cast<char*>(x.data()) + i * static_cast<std::int64_t>(size), &bits, size);
        } else {
          test::set(x, i, i % 3 == 1 ? (i % 2 ? bottom : high) + near(rng) : fraction(rng));
        }
      }
      const test::OracleExpr cast = test::oracle_expr::cast(test::oracle_expr::input(0), to);
      const TensorView inputs[] = {x};
      const Tensor jit = evaluate(expr::cast(Expr(x), to));
      const test::ScopedSetting jit_off("BCAST_JIT", "0");
      const Tensor reference = evaluate(expr::cast(Expr(x), to));
      const std::string label = std::string(dtype_name(from)) + " to " + std::string(dtype_name(to));
      EXPECT_EQ(test::oracle_mismatch(cast, inputs, jit), "") << label << " (JIT)";
      EXPECT_EQ(test::oracle_mismatch(cast, inputs, reference), "") << label << " (reference)";
    }
}

}  // namespace
}  // namespace bcast
