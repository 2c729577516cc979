// Expressions: NEP 50 promotion, shared subexpressions, the chains of the
// issue checked against independent oracles (plain C++ arithmetic in the
// dtype NumPy computes in, and the binary ops, checked by oracle.cpp).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bcast/bcast.h"
#include "expr_graph.h"
#include "expr_program.h"
#include "promotion.h"
#include "test_support.h"

namespace bcast {
namespace {

Tensor filled(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  Tensor t(dtype, shape);
  test::fill_random(t, rng);
  return t;
}

TEST(Promotion, NumPysTableOnExamples) {
  EXPECT_EQ(promote_types(DType::u8, DType::f32), DType::f32);
  EXPECT_EQ(promote_types(DType::i32, DType::f32), DType::f64);
  EXPECT_EQ(promote_types(DType::i8, DType::u8), DType::i16);
  EXPECT_EQ(promote_types(DType::u32, DType::i32), DType::i64);
  EXPECT_EQ(promote_types(DType::u64, DType::i64), DType::f64);
  EXPECT_EQ(promote_types(DType::boolean, DType::u16), DType::u16);
  EXPECT_EQ(promote_types(DType::f16, DType::i16), DType::f32);
  EXPECT_EQ(promote_types(DType::f16, DType::bf16), DType::f32);
  const DType three[] = {DType::i8, DType::u8, DType::f16};
  EXPECT_EQ(promote_types(three), DType::f16);  // not pairwise: np.result_type(i8, u8, f16)
  // bf16 ranks with f16: bool, i8 and u8 keep it, i16 lifts it to f32.
  EXPECT_EQ(promote_types(DType::boolean, DType::bf16), DType::bf16);
  EXPECT_EQ(promote_types(DType::u8, DType::bf16), DType::bf16);
  EXPECT_EQ(promote_types(DType::i16, DType::bf16), DType::f32);
  EXPECT_EQ(promote_types(DType::i64, DType::bf16), DType::f64);
}

TEST(Promotion, IsSymmetric) {
  for (int i = 0; i < kNumDTypes; ++i)
    for (int j = 0; j < kNumDTypes; ++j)
      EXPECT_EQ(promote_types(static_cast<DType>(i), static_cast<DType>(j)),
                promote_types(static_cast<DType>(j), static_cast<DType>(i)));
}

TEST(Expr, WeakScalarsTakeTheArraysDType) {
  const Tensor f = test::make(DType::f32, {2}, {1, 2});
  const Tensor u = test::make(DType::u8, {2}, {1, 2});
  const Tensor b = test::make(DType::boolean, {2}, {0, 1});
  const Tensor i = test::make(DType::i8, {2}, {1, 2});
  EXPECT_EQ(evaluate(f * 2.5).dtype(), DType::f32);
  EXPECT_EQ(evaluate(u + 3).dtype(), DType::u8);
  EXPECT_EQ(evaluate(b + 1).dtype(), DType::i64);    // a weak int lifts bool to the default int
  EXPECT_EQ(evaluate(i + 1.5).dtype(), DType::f64);  // a weak float lifts integers to f64
  EXPECT_EQ(test::get(evaluate(u - f), 1), 0);
  EXPECT_EQ(evaluate(u - f).dtype(), DType::f32);
  EXPECT_EQ(evaluate(i + u).dtype(), DType::i16);
  // Every integer type is a weak int; one past i64 is an error.
  EXPECT_EQ(evaluate(u + 2u).dtype(), DType::u8);
  EXPECT_EQ(evaluate(u + std::uint64_t{2}).dtype(), DType::u8);
  EXPECT_EQ(evaluate(f + std::int16_t{2}).dtype(), DType::f32);
  EXPECT_THROW(evaluate(u + ~std::uint64_t{0}), Error);
  EXPECT_THROW(-Expr(INT64_MIN), Error);                   // its negation does not fit i64
  EXPECT_THROW(Expr::scalar(300, DType::u8), Error);       // a strong scalar must be a value of its dtype
  EXPECT_THROW(Expr::scalar(2.5, DType::i32), Error);
  EXPECT_THROW(ExprOperand(~std::uint64_t{0}), Error);
  // where and clamp return arrays, strong even of weak scalars (NumPy's np.where).
  const Tensor c = test::make(DType::boolean, {2}, {1, 0});
  EXPECT_EQ(evaluate(u + expr::where(c, 1, 2)).dtype(), DType::i64);
  // parse_expression's operands: views, tensors and numbers alike.
  EXPECT_EQ(test::get(evaluate(parse_expression("u + n + h", {{"u", u}, {"n", 3}, {"h", 0.5}})), 1), 5.5);
}

TEST(Expr, AnOutOfRangeWeakIntIsAValueErrorNamingIt) {
  const Tensor u = test::make(DType::u8, {2}, {1, 2});
  try {
    evaluate(u + 300);
    ADD_FAILURE() << "u8 + 300 ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value);
    EXPECT_EQ(std::string(e.what()),
              "expression 'x0+300': 300 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; "
              "to compute in u16, make either operand u16)");
  }
  EXPECT_THROW(evaluate(u + -1), Error);
  EXPECT_NO_THROW(evaluate(u + 255));
  EXPECT_NO_THROW(evaluate(expr::cast(u, DType::i16) + 300));
}

TEST(Expr, DivIsTrueDivisionAndFloorDivKeepsIntegers) {
  const Tensor a = test::make(DType::i32, {3}, {-7, 7, 1}), b = test::make(DType::i32, {3}, {2, -2, 0});
  const Tensor q = evaluate(a / b);
  EXPECT_EQ(q.dtype(), DType::f64);
  EXPECT_EQ(test::get(q, 0), -3.5);
  EXPECT_TRUE(std::isinf(test::get(q, 2)));
  const Tensor f = evaluate(expr::floor_div(a, b));
  EXPECT_EQ(f.dtype(), DType::i32);
  EXPECT_EQ(test::get(f, 0), -4);
  EXPECT_EQ(test::get(f, 1), -4);
  EXPECT_EQ(test::get(f, 2), 0);
}

TEST(Expr, UnaryFloatFunctionsOnIntegersPickNumPysLoopDType) {
  const Tensor i8(DType::i8, {2}), boolean(DType::boolean, {2}), u16(DType::u16, {2}), i32(DType::i32, {2});
  EXPECT_EQ(evaluate(expr::exp(i8)).dtype(), DType::f16);
  EXPECT_EQ(evaluate(expr::exp(boolean)).dtype(), DType::f16);
  EXPECT_EQ(evaluate(expr::sqrt(u16)).dtype(), DType::f32);
  EXPECT_EQ(evaluate(expr::log(i32)).dtype(), DType::f64);
  // floor, ceil and round leave integers alone, in their dtype.
  const Tensor i = test::make(DType::i8, {2}, {-3, 5});
  EXPECT_EQ(evaluate(expr::floor(i)).dtype(), DType::i8);
  EXPECT_EQ(test::get(evaluate(expr::round(i)), 0), -3);
  EXPECT_EQ(evaluate(expr::logical_not(i)).dtype(), DType::boolean);
  EXPECT_THROW(evaluate(-Expr(boolean)), Error);
}

// NOTE: [Scalar expressions]: Python's arithmetic on the numbers, a 0-d
// result, as numexpr and NumPy give it.
TEST(Expr, AnExpressionOfScalarsAloneIsZeroDimensional) {
  const Tensor c = evaluate(expr::cos(Expr(1) + 1));
  EXPECT_EQ(c.dtype(), DType::f64);
  EXPECT_EQ(c.shape(), Shape{});
  EXPECT_EQ(test::get(c, 0), std::cos(2.0));
  const Tensor lt = evaluate(parse_expression("7 < 5", {}));
  EXPECT_EQ(lt.dtype(), DType::boolean);
  EXPECT_EQ(test::get(lt, 0), 0);
  const Tensor mixed = evaluate(parse_expression("1 + 2.5", {}));
  EXPECT_EQ(mixed.dtype(), DType::f64);
  EXPECT_EQ(test::get(mixed, 0), 3.5);
  const Tensor wraps = evaluate(parse_expression("(n << 62) * 4 % 7", {{"n", 1}}));  // i64 wraps, as NumPy's
  EXPECT_EQ(wraps.dtype(), DType::i64);
  EXPECT_EQ(test::get(wraps, 0), 0);
  EXPECT_EQ(evaluate(expr::gcd(Expr(12), 18)).dtype(), DType::i64);
  EXPECT_EQ(test::get(evaluate(expr::gcd(Expr(12), 18)), 0), 6);
}

// The functions of the table through C++'s bcast::expr, spot values that
// NumPy documents (the Python test compares every function with NumPy).
TEST(Expr, NumPysFunctionsByName) {
  const Tensor a = test::make(DType::i32, {4}, {-7, 7, 12, -12}), b = test::make(DType::i32, {4}, {2, -2, 18, 5});
  const Tensor r = evaluate(a % b);  // the sign of the divisor
  EXPECT_EQ(r.dtype(), DType::i32);
  EXPECT_EQ(test::get(r, 0), 1);
  EXPECT_EQ(test::get(r, 1), -1);
  EXPECT_EQ(test::get(evaluate(expr::fmod(a, b)), 0), -1);  // the sign of the dividend
  EXPECT_EQ(test::get(evaluate(expr::gcd(a, b)), 2), 6);
  EXPECT_EQ(test::get(evaluate(expr::lcm(a, b)), 3), 60);
  EXPECT_EQ(evaluate(expr::arctan2(a, b)).dtype(), DType::f64);  // i32 computes in f64
  EXPECT_EQ(test::get(evaluate(expr::left_shift(a, 40)), 1), 0);  // past the width
  EXPECT_EQ(test::get(evaluate(expr::right_shift(a, 40)), 0), -1);
  EXPECT_EQ(test::get(evaluate(expr::pow(a, 2)), 0), 49);
  const Tensor x = test::make(DType::f32, {3}, {-0.0, 1.0, -2.5});
  EXPECT_EQ(evaluate(expr::signbit(x)).dtype(), DType::boolean);
  EXPECT_EQ(test::get(evaluate(expr::signbit(x)), 0), 1);
  EXPECT_EQ(test::get(evaluate(expr::spacing(x)), 1), std::ldexp(1.0, -23));
  for (const char* jit : {"1", "0"}) {  // -0's spacing is +2**-149, as NumPy's, in the kernel and the evaluator
    const test::ScopedSetting tier("BCAST_JIT", jit);
    EXPECT_EQ(test::get(evaluate(expr::spacing(x)), 0), std::ldexp(1.0, -149)) << "BCAST_JIT=" << jit;
  }
  EXPECT_EQ(test::get(evaluate(expr::heaviside(x, 0.5)), 0), 0.5);
  EXPECT_EQ(test::get(evaluate(expr::ldexp(x, 3)), 2), -20.0);
  EXPECT_THROW(evaluate(expr::ldexp(x, 1.5)), Error);  // the exponent is an integer
  EXPECT_THROW(evaluate(expr::gcd(x, 2)), Error);
}

TEST(Expr, RoundIsHalfToEven) {
  const Tensor x = test::make(DType::f32, {6}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.25});
  const Tensor r = evaluate(expr::round(x));
  const std::vector<double> want{0, 2, 2, -0.0, -2, 2};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(test::get(r, k), want[k]) << k;
  EXPECT_TRUE(std::signbit(test::get(r, 3)));
}

TEST(Expr, FloatToIntegerSaturatesAndNaNGivesZero) {
  const Tensor x = test::make(DType::f32, {6}, {1e10, -1e10, NAN, 3.9, -3.9, INFINITY});
  const Tensor i8 = evaluate(expr::cast(x, DType::i8));
  const std::vector<double> want{127, -128, 0, 3, -3, 127};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(test::get(i8, k), want[k]) << k;
  const Tensor u8 = evaluate(expr::cast(x, DType::u8));
  const std::vector<double> want_u{255, 0, 0, 3, 0, 255};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(test::get(u8, k), want_u[k]) << k;
}

TEST(Expr, ASubexpressionThatAppearsTwiceIsOneNode) {
  const Tensor x(DType::f32, {3}), y(DType::f32, {3});
  const Expr p = Expr(x) * y;
  const ExprInfo info = describe(p + p * p);
  EXPECT_EQ(info.structure, "x0*x1+x0*x1*(x0*x1)");
  const ExprGraph g = parse_structure(info.structure);
  int muls = 0;
  for (const ExprGraphNode& n : g.nodes()) muls += n.kind == NodeKind::binary && n.code == static_cast<int>(Op::mul);
  EXPECT_EQ(muls, 2);  // x0*x1 once, and the product of it with itself
}

TEST(Expr, StructureTextRoundTrips) {
  for (const char* text : {"(x0-x1)/x2", "max(x0+x1+x2,s0)", "f32(x0)", "-x0**s0", "(-x0)**s0", "x0**x1**x2",
                           "(x0**x1)**x2", "where(x0<x1,x0,x1)", "x0//x1", "~x0&x1|x2^x0", "x0-(x1-x2)",
                           "(x0<x1)==(x1<x2)", "clamp(sigmoid(x0),s0,s1)", "fma(x0,x1,x2)", "x0*-s0"}) {
    const ExprGraph g = parse_structure(text);
    EXPECT_EQ(to_text(g), text);
  }
}

TEST(Expr, ParseErrorsNameThePosition) {
  const Tensor x(DType::f32, {3});
  const std::map<std::string, ExprOperand, std::less<>> ops{{"x", x.view()}};
  auto message = [&](const char* text) {
    try {
      parse_expression(text, ops);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("x + * x"), "expression \"x + * x\": at position 4: expected an operand, found '*'");
  EXPECT_EQ(message("x + y"), "expression \"x + y\": at position 4: no operand named 'y'");
  EXPECT_EQ(message("add(x)"), "expression \"add(x)\": at position 0: add takes 2 arguments, not 1");  // max(x) reduces
  EXPECT_EQ(message("(x + 1"), "expression \"(x + 1\": at position 6: expected ')', found the end");
  EXPECT_EQ(message("x < x < x"), "expression \"x < x < x\": at position 7: comparisons do not chain; use parentheses");
}

TEST(Expr, ImageNormalisationEqualsFloatArithmetic) {
  // (f32(x) - m) / s, x u8 [64,101,3], m and s f32 [3]: NumPy computes each
  // node in f32, which is what C++ float arithmetic does. Rows of 3 fuse
  // (NOTE: [Short rows]): m and s become patterns, and rows are left over.
  std::mt19937_64 rng(11);
  const Tensor x = filled(DType::u8, {64, 101, 3}, rng);
  const Tensor m = test::make(DType::f32, {3}, {0.485f * 255, 0.456f * 255, 0.406f * 255});
  const Tensor s = test::make(DType::f32, {3}, {0.229f * 255, 0.224f * 255, 0.225f * 255});
  const Tensor y = evaluate((expr::cast(x, DType::f32) - m) / s);
  ASSERT_EQ(y.dtype(), DType::f32);
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    const float want = (static_cast<float>(test::get(x, i)) - static_cast<float>(test::get(m, i % 3))) /
                       static_cast<float>(test::get(s, i % 3));
    ASSERT_EQ(static_cast<float>(test::get(y, i)), want) << i;
  }
  // The same through the grammar.
  const Tensor z = evaluate(parse_expression("(f32(x) - m) / s", {{"x", x.view()}, {"m", m.view()}, {"s", s.view()}}));
  EXPECT_EQ(test::bytes_of(z), test::bytes_of(y));
}

// A chain in one dtype equals the same ops run one by one, bit for bit, in
// every float dtype (f16 and bf16 round after every node) and on views.
TEST(Expr, ChainsEqualTheirOpsOneByOne) {
  std::mt19937_64 rng(5);
  for (DType d : {DType::f32, DType::f16, DType::bf16, DType::f64, DType::i32}) {
    const Tensor x = filled(d, {6, 8}, rng), m = filled(d, {6, 1}, rng), r = filled(d, {6, 1}, rng);
    const Tensor g = filled(d, {8}, rng), b = filled(d, {8}, rng);
    const Tensor fused = evaluate((Expr(x) - m) * r * g + b);
    const Tensor steps = add(mul(mul(sub(x, m), r), g), b);
    EXPECT_EQ(test::bytes_of(fused), test::bytes_of(steps)) << dtype_name(d);
    const Tensor relu = evaluate(expr::max(Expr(x) + b + m, Expr::scalar(0, d)));
    EXPECT_EQ(test::bytes_of(relu), test::bytes_of(max(add(add(x, b), m), Tensor(d, {1})))) << dtype_name(d);
  }
}

// NOTE: [Negative integer exponents]: an exponent computed in the
// expression is computed first, and a negative element refused before
// anything is written, on every run of a prepared expression too.
TEST(Expr, AComputedIntegerExponentIsCheckedOnEveryRun) {
  Tensor x(DType::i64, {1, 3}), n(DType::i64, {2, 1});
  for (int i = 0; i < 3; ++i) test::set(x, i, i + 2);  // 2 3 4
  test::set(n, 0, 1);
  test::set(n, 1, 3);
  const PreparedExpr p = prepare(parse_expression("x ** (n - 1)", {{"x", x}, {"n", n}}));
  const Tensor r = p();
  const std::int64_t expected[] = {1, 1, 1, 4, 9, 16};  // x ** 0, then x ** 2
  for (int i = 0; i < 6; ++i) EXPECT_EQ(test::get(r, i), expected[i]) << i;
  Tensor n2(DType::i64, {2, 1}), out(DType::i64, {2, 3});
  test::set(n2, 0, 2);
  test::set(n2, 1, 0);  // n - 1 is -1 here
  for (int i = 0; i < 6; ++i) test::set(out, i, 7);
  try {
    p(std::vector<TensorView>{x.view(), n2.view()}, out);
    ADD_FAILURE() << "a negative computed exponent was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value);
    EXPECT_NE(std::string(e.what()).find("the exponent n-1 has the negative value -1 (element 3 in C order)"),
              std::string::npos)
        << e.what();
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(test::get(out, i), 7) << "nothing is written";
}

TEST(Expr, PreparedRunsOnNewDataAndChecksLayouts) {
  std::mt19937_64 rng(9);
  const Tensor u = filled(DType::f32, {64, 1}, rng), v = filled(DType::f32, {1, 64}, rng), w = filled(DType::f32, {64, 64}, rng);
  const PreparedExpr p = prepare(Expr(u) * v + w);
  EXPECT_EQ(p.info().structure, "x0*x1+x2");
  EXPECT_EQ(p.info().broadcast_type, "[expand_b,expand_a]");
  const Tensor u2 = filled(DType::f32, {64, 1}, rng);
  const std::vector<TensorView> inputs{u2.view(), v.view(), w.view()};
  EXPECT_EQ(test::bytes_of(p(inputs)), test::bytes_of(add(mul(u2, v), w)));
  EXPECT_EQ(test::bytes_of(p()), test::bytes_of(add(mul(u, v), w)));
  const Tensor wrong(DType::f32, {64, 2});
  EXPECT_THROW(p(std::vector<TensorView>{wrong.view(), v.view(), w.view()}), Error);
  EXPECT_THROW(PreparedExpr().info(), Error);
}

TEST(Expr, OutMayBeAnInputExactlyAndNothingElse) {
  std::mt19937_64 rng(3);
  const Tensor x = filled(DType::f32, {8}, rng), y = filled(DType::f32, {8}, rng);
  const Tensor want = add(mul(x, y), y);
  evaluate(Expr(x) * y + y, x);
  EXPECT_EQ(test::bytes_of(x), test::bytes_of(want));
  const TensorView shifted{static_cast<float*>(x.data()) + 1, DType::f32, Layout::contiguous({7})};
  const TensorView head{x.data(), DType::f32, Layout::contiguous({7})};
  EXPECT_THROW(evaluate(Expr(head) + 1.0, shifted), Error);
}

TEST(Expr, ShapesThatDoNotBroadcastNameTheOperand) {
  const Tensor a(DType::f32, {4, 3}), b(DType::f32, {5});
  try {
    evaluate(parse_expression("a + b", {{"a", a.view()}, {"b", b.view()}}));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::shape);
    EXPECT_EQ(std::string(e.what()),
              "expression 'a+b': b has shape [5], which does not broadcast with a [4, 3] (together [4, 3]): "
              "dim -1 has 3 vs 5");
  }
}

}  // namespace
}  // namespace bcast

namespace bcast {
namespace {

// The README's expression snippet, as written there.
TEST(Expr, TheReadmeSnippetRuns) {
  std::mt19937_64 rng(4);
  const Tensor mean = test::make(DType::f32, {3}, {120, 115, 100}), scale = test::make(DType::f32, {3}, {60, 58, 57});
  const Tensor x = filled(DType::f32, {4, 3}, rng), bias = filled(DType::f32, {3}, rng), y = filled(DType::f32, {4, 3}, rng);
  Tensor out(DType::f32, {4, 3});
  Tensor img_u8(DType::u8, {1080, 1920, 3});
  Tensor img2_u8 = filled(DType::u8, {1080, 1920, 3}, rng);
  Expr e = (expr::cast(img_u8, DType::f32) - mean) / scale;
  Tensor y0 = evaluate(e);
  evaluate(Expr(x) * 2.5 + bias, out);
  PreparedExpr p = prepare(e);
  std::vector<TensorView> in{img2_u8, mean, scale};
  Tensor z = p(in);
  Expr s = parse_expression("max(x + b + y, 0)", {{"x", x}, {"b", bias}, {"y", y}});
  EXPECT_EQ(y0.dtype(), DType::f32);
  EXPECT_EQ(test::get(y0, 4), -115.0f / 58.0f);
  EXPECT_EQ(test::get(z, 7), (static_cast<float>(test::get(img2_u8, 7)) - 115.0f) / 58.0f);
  for (std::int64_t i = 0; i < out.numel(); ++i)
    EXPECT_EQ(test::get(out, i), static_cast<float>(test::get(x, i)) * 2.5f + static_cast<float>(test::get(bias, i % 3)));
  EXPECT_EQ(evaluate(s).shape(), (Shape{4, 3}));
}

}  // namespace
}  // namespace bcast

namespace bcast {
namespace {

// NOTE: [Expression memo]: a repeat of the same Expr reuses its call, plan
// and kernel, but reads the data anew, follows the JIT switch, and still
// checks out.
TEST(Expr, EvaluatingTheSameExprAgainReadsTheDataAnew) {
  const Tensor x = test::make(DType::f32, {4}, {1, 2, 3, 4});
  const Tensor y = test::make(DType::i32, {4}, {10, 20, 30, 40});
  const Expr e = Expr(x) * 2 + y;
  EXPECT_EQ(test::get(evaluate(e), 3), 48);
  test::set(x, 3, 5);
  EXPECT_EQ(test::get(evaluate(e), 3), 50);
  Tensor out(DType::f64, {4});
  evaluate(e, out);
  test::set(y, 0, -1);
  set_jit_enabled(false);
  evaluate(e, out);
  set_jit_enabled(true);
  EXPECT_EQ(test::get(out, 0), 1);
  EXPECT_EQ(test::get(out, 3), 50);
  Tensor wrong(DType::f32, {4});
  EXPECT_THROW(evaluate(e, wrong), Error);  // the result is f64
  Tensor over(DType::f64, {4});
  evaluate(e, over);
  // An out of the remembered layout whose memory is an input's: refused, every time.
  EXPECT_THROW(evaluate(Expr(x) * 2 + y, TensorView{x.data(), DType::f64, Layout::contiguous({4})}), Error);
  EXPECT_THROW(evaluate(e, TensorView{y.data(), DType::f64, Layout::contiguous({4})}), Error);
  // After a call into a strided out, a new output is still dense and in the
  // inputs' order: the memo remembers which kind of out it planned.
  Tensor wide(DType::f64, {8});
  evaluate(e, index(wide, {Slice{0, 8, 2}}));
  EXPECT_EQ(evaluate(e).layout(), Layout::contiguous({4}));
}

// A subexpression shared at every level prints once per use: its text, which
// names the kernel, is capped, and the error says why.
TEST(Expr, TextOfDeeplySharedSubexpressionsIsCapped) {
  const Tensor x = test::make(DType::f32, {2}, {1, 1});
  Expr e = x;
  for (int i = 0; i < 40; ++i) e = e * e;
  try {
    evaluate(e);
    ADD_FAILURE() << "ran";
  } catch (const Error& error) {
    EXPECT_EQ(error.kind(), ErrorKind::value);
    EXPECT_THAT(std::string(error.what()), ::testing::HasSubstr("its text exceeds 65536 characters"));
  }
}

}  // namespace
}  // namespace bcast
