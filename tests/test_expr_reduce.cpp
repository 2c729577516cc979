// Expressions with reductions (NOTE: [Expression passes]): each pass gives
// the bits of the same steps run one call at a time; the grammar's keywords;
// describe's passes; what is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "bcast/bcast.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

Tensor random_f32(const Shape& shape, std::mt19937_64& rng) {
  Tensor x(DType::f32, shape);
  std::uniform_real_distribution<float> u(-4, 4);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = u(rng);
  return x;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// The passes compute what the same steps compute one call at a time, bit for bit.
TEST(ExprReduce, PassesGiveTheBitsOfTheirSteps) {
  std::mt19937_64 rng(1);
  const Tensor x = random_f32({6, 7, 300}, rng), y = random_f32({7, 300}, rng);
  using namespace expr;
  {  // sum(x*y, axis=1): the product, then its sum
    const Tensor xy = evaluate(Expr(x) * Expr(y));
    EXPECT_EQ(test::bytes_of(evaluate(sum(Expr(x) * Expr(y), 1))), test::bytes_of(bcast::sum(xy, 1)));
  }
  {  // softmax's numerator and the whole softmax along the last axis
    const Tensor m = bcast::max(x, Axes(-1), true);
    const Tensor numerator = evaluate(exp(Expr(x) - Expr(m)));
    const Expr e = exp(Expr(x) - amax(Expr(x), -1, true));
    EXPECT_EQ(test::bytes_of(evaluate(e)), test::bytes_of(numerator));
    const Tensor s = bcast::sum(numerator, Axes(-1), true);
    EXPECT_EQ(test::bytes_of(evaluate(e / sum(e, -1, true))), test::bytes_of(evaluate(Expr(numerator) / Expr(s))));
  }
  {  // layer norm: a mean, a variance of the centred values, the normalisation
    const Tensor mu = bcast::mean(x, Axes(-1), true);
    const Tensor centred = evaluate(Expr(x) - Expr(mu));
    const Tensor var = bcast::mean(evaluate(Expr(centred) * Expr(centred)), Axes(-1), true);
    const Tensor want = evaluate(Expr(centred) / sqrt(Expr(var) + 1e-5));
    const Expr c = Expr(x) - mean(Expr(x), -1, true);
    EXPECT_EQ(test::bytes_of(evaluate(c / sqrt(mean(c * c, -1, true) + 1e-5))), test::bytes_of(want));
  }
  {  // a full reduction broadcasts as a 0-d operand; a reduction of a reduction
    const Tensor total = bcast::sum(x);
    EXPECT_EQ(test::bytes_of(evaluate(Expr(x) - sum(Expr(x)))), test::bytes_of(evaluate(Expr(x) - Expr(total))));
    EXPECT_EQ(test::bytes_of(evaluate(amax(sum(Expr(x), 2), 0))), test::bytes_of(bcast::max(bcast::sum(x, 2), 0)));
  }
}

TEST(ExprReduce, AReductionAtTheRootWritesIntoOut) {
  std::mt19937_64 rng(2);
  const Tensor x = random_f32({5, 9}, rng);
  Tensor out(DType::f32, Shape{5});
  evaluate(expr::sum(Expr(x) * 2.0, 1), out);
  EXPECT_EQ(test::bytes_of(out), test::bytes_of(bcast::sum(evaluate(Expr(x) * 2.0), 1)));
  Tensor wrong(DType::f32, Shape{9});
  EXPECT_THAT(error_of([&] { evaluate(expr::sum(x, 1), wrong); }), HasSubstr("out"));
}

// A node used twice is one pass; describe() lists the passes in order.
TEST(ExprReduce, DescribeListsEachPassOnce) {
  std::mt19937_64 rng(3);
  const Tensor x = random_f32({4, 8}, rng);
  const Expr e = expr::exp(Expr(x) - expr::amax(x, -1, true));
  const ExprInfo info = describe(e / expr::sum(e, -1, true));
  ASSERT_EQ(info.passes.size(), 3u) << ::testing::PrintToString(info.passes);
  EXPECT_THAT(info.passes[0], HasSubstr("r0 = max(x0,axis=-1,keepdims=True)"));
  EXPECT_THAT(info.passes[0], HasSubstr("f32[4, 1]"));
  EXPECT_THAT(info.passes[1], HasSubstr("r1 = sum(exp(x0-x1),axis=-1,keepdims=True)"));
  EXPECT_THAT(info.passes[2], HasSubstr("rest = "));
  EXPECT_EQ(info.out_shape, (Shape{4, 8}));
  EXPECT_TRUE(describe(Expr(x) + 1.0).passes.empty());
}

TEST(ExprReduce, TheGrammarTakesNumPysKeywords) {
  std::mt19937_64 rng(4);
  const Tensor x = random_f32({3, 4, 5}, rng), y = random_f32({3, 4, 5}, rng);
  const std::map<std::string, ExprOperand, std::less<>> ops{{"x", x}, {"y", y}};
  const auto run = [&](std::string_view text) { return test::bytes_of(evaluate(parse_expression(text, ops))); };
  EXPECT_EQ(run("sum(x*y, axis=1)"), test::bytes_of(evaluate(expr::sum(Expr(x) * Expr(y), 1))));
  EXPECT_EQ(run("sum(x*y, 1)"), run("sum(x * y, axis=1)"));
  EXPECT_EQ(run("mean(x, axis=(0, 2), keepdims=True)"), test::bytes_of(bcast::mean(x, Axes{0, 2}, true)));
  EXPECT_EQ(run("sum(x, axis=(1,))"), test::bytes_of(bcast::sum(x, 1)));
  EXPECT_EQ(run("sum(x, axis=None, dtype=f64)"), test::bytes_of(bcast::sum(x, Axes(), false, DType::f64)));
  EXPECT_EQ(run("amax(x, -1)"), test::bytes_of(bcast::max(x, -1)));
  EXPECT_EQ(run("max(x, axis=0)"), test::bytes_of(bcast::max(x, 0)));
  EXPECT_EQ(run("max(x)"), test::bytes_of(bcast::max(x)));
  EXPECT_EQ(run("max(x, y)"), test::bytes_of(bcast::max(x.view(), y.view())));  // two operands: elementwise
  EXPECT_EQ(run("max(x, 1)"), test::bytes_of(evaluate(expr::max(Expr(x), Expr(1.0)))));
  EXPECT_EQ(run("x - mean(x, axis=-1, keepdims=True)"), test::bytes_of(evaluate(Expr(x) - expr::mean(x, -1, true))));
  // The text names x once per mention; the same reduction of it is still one pass.
  const ExprInfo softmax =
      describe(parse_expression("exp(x - amax(x, axis=-1, keepdims=True)) / sum(exp(x - amax(x, axis=-1, "
                                "keepdims=True)), axis=-1, keepdims=True)",
                                ops));
  EXPECT_EQ(softmax.passes.size(), 3u) << ::testing::PrintToString(softmax.passes);
  const auto error = [&](std::string_view text) { return error_of([&] { parse_expression(text, ops); }); };
  EXPECT_THAT(error("sum(x, axis=1, axis=2)"), HasSubstr("sum: the axis is given twice"));
  EXPECT_THAT(error("sum(x, where=1)"),
              HasSubstr("sum: unknown keyword 'where' (it takes axis=, keepdims= and dtype=)"));
  EXPECT_THAT(error("sum(x, keepdims=maybe)"), HasSubstr("sum: keepdims is True or False"));
  EXPECT_THAT(error("sum(x, y)"), HasSubstr("sum: an axis is an integer, a tuple of integers or None"));
  EXPECT_THAT(error("sum(x, dtype=f99)"), HasSubstr("sum: dtype=f99 is not a dtype"));
  EXPECT_THAT(error_of([&] { evaluate(parse_expression("sum(x, axis=3)", ops)); }),
              HasSubstr("sum: axis 3 is out of range for x of rank 3"));
}

// Two composed reductions in one expression: each expansion's nodes live
// until the passes have run (the rewrite is keyed by node addresses).
TEST(ExprReduce, TwoComposedReductionsInOneExpression) {
  std::mt19937_64 rng(5);
  const Tensor x = random_f32({40, 30}, rng), y = random_f32({40, 30}, rng);
  const Tensor vx = bcast::var(x, 1), vy = bcast::var(y, 1), ax = bcast::argmax(x, 0), ay = bcast::argmin(y, 0);
  const Tensor sx = bcast::std(x, 1, true);
  for (int round = 0; round < 20; ++round) {
    EXPECT_EQ(test::bytes_of(evaluate(expr::var(Expr(x), 1) + expr::var(Expr(y), 1))),
              test::bytes_of(evaluate(Expr(vx) + Expr(vy))));
    EXPECT_EQ(test::bytes_of(evaluate(expr::argmax(Expr(x), 0) - expr::argmin(Expr(y), 0))),
              test::bytes_of(evaluate(Expr(ax) - Expr(ay))));
    EXPECT_EQ(test::bytes_of(evaluate(expr::var(expr::std(Expr(x), 1, true) + 1.0))),
              test::bytes_of(bcast::var(evaluate(Expr(sx) + 1.0))));
  }
}

TEST(ExprReduce, DdofBelongsToVarAndStd) {
  const Tensor x(DType::f32, Shape{3});
  EXPECT_THAT(error_of([&] { reduce(ReduceOp::sum, x, Axes(), false, std::nullopt, 1); }),
              HasSubstr("sum: takes no ddof (got ddof=1); var and std do"));
  EXPECT_THAT(error_of([&] { expr::reduce(ReduceOp::mean, Expr(x), Axes(), false, std::nullopt, 2); }),
              HasSubstr("mean: takes no ddof"));
  const std::map<std::string, ExprOperand, std::less<>> ops{{"x", x}};
  EXPECT_THAT(error_of([&] { parse_expression("var(x, ddof=1, correction=1)", ops); }),
              HasSubstr("var: correction is given twice (ddof and correction are one argument)"));
  EXPECT_THAT(error_of([&] { parse_expression("sum(x, keepdims=True, keepdims=False)", ops); }),
              HasSubstr("sum: keepdims is given twice"));
}

TEST(ExprReduce, APreparedExpressionIsElementwise) {
  const Tensor x(DType::f32, Shape{3});
  EXPECT_THAT(error_of([&] { prepare(expr::sum(x)); }), HasSubstr("prepare: the expression holds a reduction"));
}

}  // namespace
}  // namespace bcast
