// Row blocks (NOTE: [Row blocks]): an expression whose reductions keep the
// output's rows, run a block of rows at a time, gives the bits of its passes
// run whole, on any thread count and view; calls that do not qualify run
// their passes, and say so in describe().
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "expr_passes.h"
#include "row_blocks.h"
#include "test_support.h"

namespace bcast {
namespace {

// Each test runs with the JIT on, compiling before a call runs (every step
// of a block needs its kernel: NOTE: [Row blocks]).
class RowBlocks : public ::testing::Test {
 protected:
  void SetUp() override {
    set_jit_enabled(true);
    set_jit_mode(JitMode::sync);
  }

 private:
  test::JitGuard guard_;
};

Expr softmax_of(const TensorView& x) {
  using namespace expr;
  const Expr e = exp(Expr(x) - amax(Expr(x), -1, true));
  return e / sum(e, -1, true);
}

// The oracle: the passes run whole (NOTE: [Expression passes]), which is
// what evaluate() did before row blocks, on one thread.
std::vector<std::uint8_t> passes_bits(const Expr& e) {
  const int threads = num_threads();
  set_num_threads(1);
  ExprPasses passes = reduction_passes(e, true);
  const Tensor out = passes.root_is_reduction ? std::move(passes.results.back()) : evaluate(passes.rest);
  set_num_threads(threads);
  return test::bytes_of(out);
}

bool says_row_blocks(const Expr& e) {
  for (const std::string& line : describe(e).passes)
    if (line.starts_with("in blocks of ")) return true;
  return false;
}

struct Case {
  std::string what;
  Expr e;
};

// The row-wise expressions of the tables and their kin, over x
// (its rows first) and g, b (a row each).
std::vector<Case> row_cases(const Expr& x, const Expr& g, const Expr& b) {
  using namespace expr;
  const Expr e = exp(x - amax(x, -1, true));
  const Expr c = x - mean(x, -1, true);
  return {
      {"softmax", e / sum(e, -1, true)},
      {"layer norm", c / sqrt(mean(c * c, -1, true) + 1e-5) * g + b},
      {"standardise (std, composed)", c / expr::std(x, -1, true)},
      {"row sum of squares, the root", sum(x * x, -1, true)},
      {"argmax plus x", cast(argmax(x, -1, true), DType::f32) * 0.5 + x},
      {"log-sum-exp", x - (log(sum(exp(x - amax(x, -1, true)), -1, true)) + amax(x, -1, true))},
  };
}

TEST_F(RowBlocks, GiveThePassesBitsOnAnyThreadCount) {
  std::mt19937_64 rng(20261206);
  // Rows and row lengths around a block's edges; every x is 2 MiB or more.
  const Shape shapes[] = {{1031, 1000}, {300, 2049}, {3000, 257}, {400, 3, 600}, {2100, 513}};
  int trial = 0;
  for (const Shape& shape : shapes) {
    for (const DType d : {DType::f32, DType::f64}) {
      const test::RandomView x = test::random_view(d, shape, rng, /*allow_strange=*/trial++ % 2 == 0);
      test::fill_random(x.view, rng);
      Tensor g(d, {shape.back()}), b(d, {shape.back()});
      test::fill_random(g.view(), rng);
      test::fill_random(b.view(), rng);
      for (const Case& c : row_cases(Expr(x.view), Expr(g), Expr(b))) {
        const std::string label =
            c.what + " on " + std::string(dtype_name(d)) + to_string(shape) + " strides " + to_string(x.view.strides());
        ASSERT_TRUE(says_row_blocks(c.e)) << label;
        const std::vector<std::uint8_t> want = passes_bits(c.e);
        for (const int threads : {1, 2, 3, 16}) {
          set_num_threads(threads);
          const std::uint64_t before = row_block_calls();
          EXPECT_EQ(test::bytes_of(evaluate(c.e)), want) << label << " on " << threads << " threads";
          EXPECT_EQ(row_block_calls(), before + 1) << label << ": did not run in row blocks";
        }
      }
    }
  }
}

// A view whose channels and reduced dim both run backwards in memory: its
// sums' held exp(x - m) reduce in the columns form (n = 600) or, where n is
// a multiple of 16 (608, 640), the narrow columns form, and row blocks must
// keep the passes' bits (a change to the narrow form's items once broke
// this, 2026-12-07, docs/performance.md).
TEST_F(RowBlocks, KeepThePassesBitsForChannelsAndRowsRunningBackwards) {
  std::mt19937_64 rng(20261207);
  Tensor parent(DType::f32, {400, 5120});
  test::fill_random(parent.view(), rng);
  // x[i, c, j] = parent[i, 5119 - c - 8 j]: strides [5120, -1, -8].
  const TensorView backwards = index(parent.view(), {Slice{}, Slice{{}, {}, -1}});
  for (const std::int64_t n : {600, 608, 640}) {
    const TensorView x = TensorView(backwards.data(), DType::f32, Layout{{400, 3, n}, {5120, -1, -8}});
    using namespace expr;
    const Expr e = exp(Expr(x) - amax(Expr(x), -1, true));
    for (const Expr& c : {sum(e, -1, true), e / sum(e, -1, true)}) {
      ASSERT_TRUE(says_row_blocks(c)) << n;
      const std::vector<std::uint8_t> want = passes_bits(c);
      for (const int threads : {1, 2}) {
        set_num_threads(threads);
        EXPECT_EQ(test::bytes_of(evaluate(c)), want) << "[400, 3, " << n << "] on " << threads << " threads";
      }
      test::JitGuard guard;  // and the fallback's blocks: the same bits
      set_jit_enabled(false);
      EXPECT_EQ(test::bytes_of(evaluate(c)), want) << "[400, 3, " << n << "] on the fallback";
    }
  }
}

// softmax(x) evaluated into `out` runs in row blocks and gives the passes' bits.
void expect_softmax_in_blocks(const TensorView& x, const TensorView& out) {
  const Expr softmax = softmax_of(x);
  const std::vector<std::uint8_t> want = passes_bits(softmax);
  const std::uint64_t before = row_block_calls();
  evaluate(softmax, out);
  EXPECT_EQ(row_block_calls(), before + 1);
  EXPECT_EQ(test::bytes_of(out), want);
}

TEST_F(RowBlocks, RunInPlaceWhereOutIsTheInput) {
  std::mt19937_64 rng(6);
  Tensor x(DType::f32, {1500, 700});
  test::fill_random(x.view(), rng);
  expect_softmax_in_blocks(x.view(), x.view());
}

// Into an out of another memory order than the values: the held values
// keep the passes' layout, so their reductions keep their order.
TEST_F(RowBlocks, RunIntoAnOutOfAnotherOrder) {
  std::mt19937_64 rng(9);
  Tensor parent(DType::f32, {700, 1500});
  test::fill_random(parent.view(), rng);
  const TensorView x(parent.data(), DType::f32, Layout{{1500, 700}, {1, 1500}});  // parent transposed
  Tensor out(DType::f32, {1500, 700});  // C order, where the values' own order is x's
  expect_softmax_in_blocks(x, out.view());
}

// x less its first row, x[0:1]: the same data, strides and, for a block of
// one row, shape as x's first block. Rows one past a whole number of
// blocks on 1, 2 and 16 threads (24, 24 and 16 rows a block): no block has
// one row, so x[0:1] stays where it is.
TEST_F(RowBlocks, AnInputThatIsTheFirstRowOfAnotherStays) {
  std::mt19937_64 rng(10);
  Tensor x(DType::f32, {1009, 1024});
  test::fill_random(x.view(), rng);
  const TensorView first_row(x.data(), DType::f32, Layout{{1, 1024}, x.strides()});
  using namespace expr;
  const Expr e = (Expr(x) - Expr(first_row)) / sum(Expr(x) * Expr(x), -1, true);
  const std::vector<std::uint8_t> want = passes_bits(e);
  for (const int threads : {1, 2, 16}) {
    set_num_threads(threads);
    const std::uint64_t before = row_block_calls();
    EXPECT_EQ(test::bytes_of(evaluate(e)), want) << threads << " threads";
    EXPECT_EQ(row_block_calls(), before + 1);
  }
}

// What does not qualify runs its passes whole: a reduction along the first
// dim, a reduction without keepdims, a small call.
TEST_F(RowBlocks, OtherCallsRunTheirPassesWhole) {
  std::mt19937_64 rng(7);
  Tensor x(DType::f32, {1024, 1024}), small(DType::f32, {64, 1024});
  test::fill_random(x.view(), rng);
  test::fill_random(small.view(), rng);
  using namespace expr;
  const Case cases[] = {
      {"along the first dim", Expr(x) - mean(Expr(x), 0, true)},
      {"along every dim", Expr(x) - mean(Expr(x), Axes(), true)},
      {"without keepdims", sum(Expr(x) * Expr(x), -1)},
      {"small", Expr(small) - amax(Expr(small), -1, true)},
  };
  for (const Case& c : cases) {
    EXPECT_FALSE(says_row_blocks(c.e)) << c.what;
    const std::vector<std::uint8_t> want = passes_bits(c.e);
    const std::uint64_t before = row_block_calls();
    EXPECT_EQ(test::bytes_of(evaluate(c.e)), want) << c.what;
    EXPECT_EQ(row_block_calls(), before) << c.what;
  }
  // BCAST_ROW_BLOCK_BYTES=0: none does.
  const Expr softmax = softmax_of(x);
  ASSERT_TRUE(says_row_blocks(softmax));
  const std::string setting = get_setting("BCAST_ROW_BLOCK_BYTES");
  set_setting("BCAST_ROW_BLOCK_BYTES", "0");
  EXPECT_FALSE(says_row_blocks(softmax));
  const std::uint64_t before = row_block_calls();
  EXPECT_EQ(test::bytes_of(evaluate(softmax)), passes_bits(softmax));
  EXPECT_EQ(row_block_calls(), before);
  set_setting("BCAST_ROW_BLOCK_BYTES", setting);
}

// A bad out is refused as the passes refuse it, and nothing is written.
TEST_F(RowBlocks, ABadOutIsRefusedBeforeAnyBlockRuns) {
  std::mt19937_64 rng(8);
  Tensor buffer(DType::f32, {1025, 1024});
  test::fill_random(buffer.view(), rng);
  const Layout rows = Layout::contiguous({1024, 1024});
  const TensorView x(buffer.data(), DType::f32, rows);
  const TensorView a_row_on(static_cast<float*>(buffer.data()) + 1024, DType::f32, rows);  // overlaps x
  const Expr e = expr::exp(Expr(x) - expr::amax(Expr(x), -1, true));
  ASSERT_TRUE(says_row_blocks(e));
  Tensor wrong(DType::f32, {1024, 1023});
  EXPECT_THROW(evaluate(e, wrong.view()), Error);
  const std::vector<std::uint8_t> before = test::bytes_of(buffer);
  const std::uint64_t calls = row_block_calls();
  EXPECT_THROW(evaluate(e, a_row_on), Error);
  EXPECT_EQ(test::bytes_of(buffer), before);
  EXPECT_EQ(row_block_calls(), calls);
}

}  // namespace
}  // namespace bcast
