// NOTE: [Expression limits] as a specification: hostile expression text (deep
// nesting, long chains, many nodes, bytes outside the grammar) is an
// Error(value) naming the limit or the byte, never a crash; the deepest
// expression allowed runs on a thread with a small stack.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <random>
#include <string>

#include "bcast/bcast.h"
#include "compile/host_compiler.h"
#include "error_messages.h"
#include "expr_graph.h"
#include "log_capture.h"
#include "logging.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::string repeated(std::string_view part, int n) {
  std::string s;
  s.reserve(part.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) s += part;
  return s;
}

// The message of the Error(value) that parsing `text` raises ("" when none).
std::string parse_error(const std::string& text) {
  static const Tensor x = test::make(DType::f32, {4}, {1, 2, 3, 4});
  try {
    parse_expression(text, {{"x", x}, {"y", x}});
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value) << e.what();
    return e.what();
  }
  return "";
}

// Every message is printable ASCII: a NUL cannot cut it, a stray byte cannot
// stop a JSON writer or a Python decoder.
bool printable_ascii(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}

// The message of the Error(value) that `f` raises ("" when none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value) << e.what();
    return e.what();
  }
  return "";
}

std::string escaped(const std::string& s) { return detail::printable(s); }

const std::string kDepth = std::to_string(kMaxExpressionDepth);

TEST(ExprLimits, DeepNestingIsAnErrorNamingTheLimitNotACrash) {
  const struct {
    std::string what, text;
  } cases[] = {
      {"10,000 parentheses", repeated("(", 10'000) + "x" + repeated(")", 10'000)},
      {"30,000 unary minuses", repeated("-", 30'000) + "x"},
      {"30,000 unary pluses and tildes", repeated("+~", 15'000) + "x"},
      {"abs( 10,000 deep", repeated("abs(", 10'000) + "x" + repeated(")", 10'000)},
      {"powers 10,000 deep", repeated("x**", 10'000) + "x"},
      {"a chain of 20,000 terms", "x" + repeated("+x", 19'999)},
      {"a chain of 100,000 terms", "x" + repeated("-y", 99'999)},
      {"parentheses one past the limit", repeated("(", kMaxExpressionDepth + 1) + "x" +
                                             repeated(")", kMaxExpressionDepth + 1)},
  };
  for (const auto& c : cases)
    EXPECT_THAT(parse_error(c.text), AllOf(HasSubstr("nest"), HasSubstr("deeper than " + kDepth + " levels"),
                                           HasSubstr("Expression limits")))
        << c.what;
}

TEST(ExprLimits, TheDeepestAllowedExpressionIsAccepted) {
  // The text's nesting: unary() counts each level once, the leaf's included.
  const int parens = kMaxExpressionDepth - 1;
  EXPECT_EQ(parse_error(repeated("(", parens) + "x" + repeated(")", parens)), "");
  // The graph's: a chain of kMaxExpressionDepth - 1 operations on a leaf.
  EXPECT_EQ(parse_error("x" + repeated("+y", kMaxExpressionDepth - 1)), "");
  EXPECT_THAT(parse_error("x" + repeated("+y", kMaxExpressionDepth)), HasSubstr("deeper than " + kDepth));
}

TEST(ExprLimits, TreesBuiltInCppHoldTheSameDepth) {
  const Tensor x = test::make(DType::f32, {2}, {1, 2});
  Expr e = x;
  for (int i = 1; i < kMaxExpressionDepth; ++i) e = e + 1.0;
  EXPECT_THAT(error_of([&] { e = e * 2.0; }), HasSubstr("deeper than " + kDepth + " levels"));
  EXPECT_EQ(test::get(evaluate(e), 1), 2.0 + (kMaxExpressionDepth - 1));  // the tree as it was, intact
}

TEST(ExprLimits, TooManyNodesAndTooLongATextAreErrorsNamingTheLimit) {
  // Distinct scalars, balanced: shallow, but more nodes than allowed.
  std::function<std::string(int, int)> balanced = [&](int lo, int hi) -> std::string {
    if (hi - lo == 1) return "x*" + std::to_string(lo);
    const int mid = (lo + hi) / 2;
    return "(" + balanced(lo, mid) + "+" + balanced(mid, hi) + ")";
  };
  EXPECT_THAT(parse_error(balanced(0, kMaxExpressionNodes)),
              AllOf(HasSubstr("more than " + std::to_string(kMaxExpressionNodes)), HasSubstr("Expression limits")));
  EXPECT_EQ(parse_error(balanced(0, 1000)), "");
  const std::string long_text = "x" + std::string(kMaxExpressionTextBytes, ' ');
  EXPECT_THAT(parse_error(long_text), AllOf(HasSubstr("longer than " + std::to_string(kMaxExpressionTextBytes)),
                                            HasSubstr("bytes)")));  // and quoted in part only
  EXPECT_LT(parse_error(long_text).size(), 400u);
}

TEST(ExprLimits, BytesOutsideTheGrammarAreErrorsWithEveryByteEscaped) {
  const struct {
    std::string text, message;
  } cases[] = {
      {"x + \xd9\xa1", "at position 4: character U+0661 is not part of the grammar"},  // Arabic-Indic one
      {"x + \xe2\x88\x92y", "at position 4: character U+2212"},                         // a minus sign
      {"x + \xff", "at position 4: byte 0xff is not valid UTF-8"},
      {"x + \xc3", "at position 4: byte 0xc3 is not valid UTF-8"},          // truncated
      {"x + \xc0\xaf", "at position 4: byte 0xc0 is not valid UTF-8"},      // overlong
      {"x + \xed\xa0\x80", "at position 4: byte 0xed is not valid UTF-8"},  // a surrogate
      {std::string("x\0+y", 4), "at position 1: control byte \\x00 is not part of the grammar"},
      {"x\x1b[2J+y", "at position 1: control byte \\x1b"},
      {"x\x7f", "at position 1: control byte \\x7f"},
  };
  for (const auto& c : cases) {
    const std::string message = parse_error(c.text);
    EXPECT_THAT(message, HasSubstr(c.message)) << escaped(c.text);
    EXPECT_TRUE(printable_ascii(message)) << escaped(message);
    EXPECT_THAT(message, HasSubstr("\"" + escaped(c.text) + "\"")) << "the whole text, escaped, past a NUL too";
  }
  EXPECT_EQ(parse_error("x +\t y\n"), "") << "white space is part of the grammar";
}

// A key's structure text (bcast-cache show KEY) is held to the same limits:
// its graph is built without an Expr tree.
TEST(ExprLimits, KeyTextsAreHeldToTheLimitsToo) {
  for (const std::string text : {"x99999999999+x0", "s123456789012345678901234567890"})
    EXPECT_THAT(error_of([&] { parse_structure(text); }), HasSubstr("is not a leaf"));
  EXPECT_EQ(parse_structure("x0" + repeated("+x1", kMaxExpressionDepth - 1)).nodes().size(),
            static_cast<std::size_t>(kMaxExpressionDepth + 1));
  EXPECT_THAT(error_of([&] { parse_structure("x0" + repeated("+x1", kMaxExpressionDepth)); }),
              HasSubstr("deeper than " + kDepth + " levels"));
  EXPECT_THAT(error_of([&] { parse_structure(repeated("-", 1000) + "x0"); }), HasSubstr("deeper than " + kDepth));
}

// Runs `f` on a thread whose stack is `bytes` (a crash fails the test).
void on_small_stack(std::size_t bytes, const std::function<void()>& f) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, bytes), 0);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    (*static_cast<const std::function<void()>*>(p))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()>*>(&f)), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(ExprLimits, TheDeepestExpressionsParsePrintAndRunOnA256KiBStack) {
  const Tensor x = test::make(DType::f32, {3}, {1, 2, 3});
  const int n = kMaxExpressionDepth - 1;
  const std::string texts[] = {
      repeated("(", n) + "x" + repeated(")", n),
      repeated("-", n) + "x",
      repeated("abs(", n) + "x" + repeated(")", n),
      "x" + repeated("+1", n),
      repeated("(1+", n) + "x" + repeated(")", n),
      repeated("x**", n / 64) + "1",
  };
  for (const std::string& text : texts) {
    std::string outcome = "did not run";
    on_small_stack(256 << 10, [&] {
      try {
        const Expr e = parse_expression(text, {{"x", x}});
        const ExprInfo info = describe(e);  // flattened, lowered, printed, keyed
        const Tensor y = evaluate(e);
        outcome = info.structure.empty() || y.numel() != 3 ? "wrong" : "ok";
      } catch (const std::exception& e) {
        outcome = e.what();
      }
    });
    EXPECT_EQ(outcome, "ok") << text.substr(0, 40);
  }
}

// NOTE: [Kernel size]: a kernel whose IR is past the JIT's budget (a chain
// of 40 complex powers: ~29,000 instructions, 20 s or more to compile) is
// refused before it is optimised, and its calls run on the reference
// executor; one complex power still compiles.
TEST(ExprLimits, AKernelTooLargeToCompileRunsOnTheReferenceExecutor) {
  Tensor v(DType::c64, {4});
  std::mt19937_64 rng(3);
  test::fill_random(v, rng);
  clear_kernel_cache();
  const test::LogCapture log(logging::jit());
  const auto run = [&](const std::string& text) {
    const Expr e = parse_expression(text, {{"v", v.view()}});
    const Tensor got = evaluate(e);
    set_jit_enabled(false);
    const Tensor reference = evaluate(e);
    set_jit_enabled(true);
    EXPECT_EQ(test::bytes_of(got), test::bytes_of(reference)) << text;
  };
  const KernelCacheStats before = kernel_cache_stats();
  run("v**v");
  EXPECT_EQ(kernel_cache_stats().failures, before.failures) << log.text();
  EXPECT_GT(kernel_cache_stats().compiles, before.compiles);
  run("v" + repeated("**v", 40));
  EXPECT_EQ(kernel_cache_stats().failures - before.failures, 1u);
  EXPECT_EQ(log.count("IR instructions, more than " + std::to_string(jit::kMaxKernelInstructions)), 1) << log.text();
  run("v" + repeated("**v", 40));  // the refusal is kept: not emitted again
  EXPECT_EQ(kernel_cache_stats().failures - before.failures, 1u);
}

}  // namespace
}  // namespace bcast
