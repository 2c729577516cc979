// The passes memo (NOTE: [Passes memo]): an expression with reductions
// evaluated again runs its remembered passes, with the bits of the same
// expression worked out afresh, on data rewritten in place, into a new out
// or a given one, and is worked out again where what it depends on changes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bcast/bcast.h"
#include "expr_passes.h"
#include "passes_memo.h"
#include "row_blocks.h"
#include "test_support.h"

namespace bcast {
namespace {

class PassesMemo : public ::testing::Test {
 protected:
  void SetUp() override {
    set_jit_enabled(true);
    set_jit_mode(JitMode::sync);
    set_num_threads(1);
  }

 private:
  test::JitGuard guard_;
};

// The same expression over the same views, as a new tree: never remembered.
Expr rebuilt(const std::string& text, const Tensor& x, const Tensor& g) {
  return parse_expression(text, {{"x", x}, {"g", g}});
}

// Its bits worked out afresh on another thread, whose memo is its own (a
// thread remembers its last expression only).
std::vector<std::uint8_t> afresh(const std::string& text, const Tensor& x, const Tensor& g) {
  std::vector<std::uint8_t> bits;
  std::thread([&] { bits = test::bytes_of(evaluate(rebuilt(text, x, g))); }).join();
  return bits;
}

const std::vector<std::string> kTexts = {
    "(x - mean(x, axis=-1, keepdims=True)) / sqrt(var(x, axis=-1, keepdims=True) + 1e-5) * g",
    "exp(x - amax(x, axis=-1, keepdims=True)) / sum(exp(x - amax(x, axis=-1, keepdims=True)), axis=-1, "
    "keepdims=True)",
    "sum(x * g, axis=0)",
    "mean(x)",
    "x - mean(x, axis=0, keepdims=True)",
};

TEST_F(PassesMemo, AgainGivesTheBitsOfTheExpressionWorkedOutAfresh) {
  std::mt19937_64 rng(20261207);
  Tensor x(DType::f32, {8, 300}), g(DType::f32, {300});
  test::fill_random(g.view(), rng);
  for (const std::string& text : kTexts) {
    const Expr e = rebuilt(text, x, g);
    std::vector<Tensor> kept;  // each call's result: a new tensor, never rewritten by the next call
    std::vector<std::vector<std::uint8_t>> want;
    const std::uint64_t before = remembered_pass_calls();
    for (int call = 0; call < 4; ++call) {
      test::fill_random(x.view(), rng);  // the application rewrites its input in place
      kept.push_back(evaluate(e));
      want.push_back(afresh(text, x, g));
      EXPECT_EQ(test::bytes_of(kept.back()), want.back()) << text << ", call " << call;
    }
    EXPECT_EQ(remembered_pass_calls(), before + 3) << text << ": the calls after the first remembered";
    for (std::size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(test::bytes_of(kept[k]), want[k]) << text << ", kept " << k;
  }
}

TEST_F(PassesMemo, IntoAGivenOutEachLayoutWorkedOutAgain) {
  std::mt19937_64 rng(7);
  Tensor x(DType::f32, {8, 300}), g(DType::f32, {300});
  test::fill_random(g.view(), rng);
  const std::string text = kTexts[0];
  const Expr e = rebuilt(text, x, g);
  Tensor out(DType::f32, {8, 300}), wide(DType::f32, {8, 600});
  const TensorView strided = index(wide.view(), {Slice{}, Slice{0, 600, 2}});
  const std::uint64_t before = remembered_pass_calls();
  for (int call = 0; call < 5; ++call) {
    test::fill_random(x.view(), rng);
    const TensorView into = call < 3 ? (call % 2 == 0 ? out.view() : strided) : strided;
    evaluate(e, into);
    EXPECT_EQ(test::bytes_of(into), afresh(text, x, g)) << "call " << call;
  }
  EXPECT_EQ(remembered_pass_calls(), before + 1)
      << "only the last call, on the layout of the call before it, remembered";
  Tensor wrong(DType::f32, {8, 301});
  EXPECT_THROW(evaluate(e, wrong.view()), Error);
}

TEST_F(PassesMemo, WorkedOutAgainWhenTheJitTheThreadsOrTheKernelsChange) {
  std::mt19937_64 rng(11);
  Tensor x(DType::f32, {8, 300}), g(DType::f32, {300});
  test::fill_random(x.view(), rng);
  test::fill_random(g.view(), rng);
  const Expr e = rebuilt(kTexts[1], x, g);
  const std::vector<std::uint8_t> want = test::bytes_of(evaluate(e));
  std::uint64_t before = remembered_pass_calls();
  set_jit_enabled(false);  // no kernels: the usual path, and nothing remembered
  EXPECT_EQ(test::bytes_of(evaluate(e)), want);
  EXPECT_EQ(test::bytes_of(evaluate(e)), want);
  EXPECT_EQ(remembered_pass_calls(), before);
  set_jit_enabled(true);
  (void)evaluate(e);
  before = remembered_pass_calls();
  set_num_threads(3);
  EXPECT_EQ(test::bytes_of(evaluate(e)), want);  // worked out again on three threads
  EXPECT_EQ(remembered_pass_calls(), before);
  EXPECT_EQ(test::bytes_of(evaluate(e)), want);
  EXPECT_EQ(remembered_pass_calls(), before + 1);
  before = remembered_pass_calls();
  clear_kernel_cache();  // the kernels leave the cache: the stamp's epoch moves on
  EXPECT_EQ(test::bytes_of(evaluate(e)), want);
  EXPECT_EQ(remembered_pass_calls(), before);
}

// A call large enough for row blocks (NOTE: [Row blocks]) remembers its
// blocks: each later call writes its own out, new or given (two buffers of
// one layout in turn), with the bits of the expression worked out afresh.
TEST_F(PassesMemo, RememberedRowBlocksWriteEachCallsOut) {
  std::mt19937_64 rng(5);
  Tensor x(DType::f32, {1024, 600}), g(DType::f32, {600});  // 2.4 MB: row blocks
  test::fill_random(g.view(), rng);
  for (const std::string& text : {kTexts[0], kTexts[1]}) {
    const Expr e = rebuilt(text, x, g);
    Tensor a(DType::f32, {1024, 600}), b(DType::f32, {1024, 600});
    std::vector<Tensor> kept;
    std::vector<std::vector<std::uint8_t>> want;
    const std::uint64_t blocks_before = row_block_calls();
    for (int call = 0; call < 6; ++call) {
      test::fill_random(x.view(), rng);
      want.push_back(afresh(text, x, g));
      if (call < 3) {
        kept.push_back(evaluate(e));
        EXPECT_EQ(test::bytes_of(kept.back()), want.back()) << text << ", call " << call;
      } else {
        const Tensor& into = call % 2 == 0 ? a : b;
        evaluate(e, into.view());
        EXPECT_EQ(test::bytes_of(into.view()), want.back()) << text << ", call " << call;
      }
    }
    EXPECT_EQ(row_block_calls(), blocks_before + 6 + 6) << text << ": each call in row blocks (and each afresh)";
    for (std::size_t k = 0; k < kept.size(); ++k) EXPECT_EQ(test::bytes_of(kept[k]), want[k]) << text << ", kept " << k;
  }
}

// NOTE: [Reduce call memo]: a plain reduction prepared at its second call in
// a row with the same dtype, layout and parameters runs each later call on
// the call's own data, another array of that layout included, with the bits
// of the call worked out afresh; calls that alternate never prepare.
TEST_F(PassesMemo, PlainReductionsOfOneLayoutPreparedAtTheSecondCall) {
  std::mt19937_64 rng(3);
  Tensor x(DType::f32, {16, 700}), y(DType::f32, {16, 700}), z(DType::f32, {700, 16});
  const TensorView zt = transpose(z.view());  // [16, 700] in another layout
  const auto afresh_sum = [](const TensorView& v) {
    std::vector<std::uint8_t> bits;
    std::thread([&] { bits = test::bytes_of(sum(v, Axes(1))); }).join();
    return bits;
  };
  std::uint64_t before = remembered_reduce_calls();
  for (int call = 0; call < 6; ++call) {
    const Tensor& t = call % 3 == 2 ? y : x;  // y: the same layout elsewhere
    test::fill_random(t.view(), rng);
    const Tensor got = sum(t.view(), Axes(1));
    EXPECT_EQ(test::bytes_of(got), afresh_sum(t.view())) << "call " << call;
  }
  EXPECT_EQ(remembered_reduce_calls(), before + 4) << "calls 3 to 6 on the preparation of call 2";
  before = remembered_reduce_calls();
  for (int call = 0; call < 6; ++call) {  // two layouts in turn: never twice in a row
    const TensorView v = call % 2 == 0 ? zt : x.view();  // zt first: the last call was of x's layout
    test::fill_random(v, rng);
    EXPECT_EQ(test::bytes_of(sum(v, Axes(1))), afresh_sum(v)) << "alternating, call " << call;
  }
  EXPECT_EQ(remembered_reduce_calls(), before);
}

}  // namespace
}  // namespace bcast
