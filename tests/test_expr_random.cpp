// Random expressions: JIT kernels against the reference evaluator, bit for
// bit (a NaN matches any NaN of the same kind), on random views of mixed
// dtypes. tests/e2e/expressions_vs_numpy.py checks the reference against
// NumPy itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "random_expr.h"
#include "test_support.h"

namespace bcast {
namespace {

// The first C-order index where got and want differ, or -1.
std::int64_t first_difference(const Tensor& got, const Tensor& want) {
  const std::vector<std::uint8_t> g = test::bytes_of(got), w = test::bytes_of(want);
  const std::size_t size = got.layout().numel() == 0 ? 1 : dtype_size(got.dtype());
  for (std::int64_t i = 0; i < got.numel(); ++i) {
    if (std::memcmp(g.data() + i * size, w.data() + i * size, size) == 0) continue;
    if (is_floating(got.dtype()) && std::isnan(test::get(got, i)) && std::isnan(test::get(want, i))) continue;
    return i;
  }
  return -1;
}

class RandomExpressions : public ::testing::TestWithParam<int> {};

TEST_P(RandomExpressions, JitEqualsTheReferenceEvaluator) {
  std::mt19937_64 rng(1000 + GetParam());
  // Odd seeds stream every store they can (NOTE: [Streaming stores]).
  const test::ScopedSetting stream("BCAST_STREAM_MIN_BYTES", GetParam() % 2 ? "0" : "auto");
  test::ExprCaseOptions options;
  for (int d = 0; d < kNumDTypes; ++d) options.dtypes.push_back(static_cast<DType>(d));
  std::set<std::string> structures;
  for (int i = 0; i < 40; ++i) {
    const test::ExprCase c = test::random_expr_case(rng, options);
    const ExprInfo info = describe(c.expr);
    ASSERT_NE(info.kernel, "reference") << c.text;  // the JIT compiled it
    structures.insert(info.structure);
    const Tensor jit = evaluate(c.expr);
    set_jit_enabled(false);
    const Tensor reference = evaluate(c.expr);
    set_jit_enabled(true);
    ASSERT_EQ(jit.dtype(), reference.dtype());
    ASSERT_EQ(jit.shape(), reference.shape());
    const std::int64_t bad = first_difference(jit, reference);
    ASSERT_EQ(bad, -1) << c.text << " = " << info.structure << " on " << info.broadcast_type << ": element " << bad
                       << " is " << test::get(jit, bad) << ", the reference evaluator gives "
                       << test::get(reference, bad);
  }
  EXPECT_GE(structures.size(), 25u);  // the generator really varies
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomExpressions, ::testing::Range(0, 4));

}  // namespace
}  // namespace bcast
