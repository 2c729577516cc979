// Tiered execution (NOTE: [Tiers]): under BCAST_JIT_MODE=async a call whose
// kernel is in no cache runs at once on the fallback while a background
// thread compiles, later calls switch to the kernel, threads share one
// compile, a failed compile stays on the fallback and is logged once, and
// the process exits cleanly with a compile in flight. Every result is
// checked against the oracle (oracle.cpp) or exact arithmetic.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "async_jit_fixture.h"
#include "bcast/bcast.h"
#include "broadcast_plan.h"
#include "dispatch.h"
#include "expr_call.h"
#include "fault_injection.h"
#include "log_capture.h"
#include "logging.h"
#include "oracle.h"
#include "reference_executor.h"
#include "test_support.h"

namespace bcast {
namespace {

class Tiers : public test::AsyncJitTest {};

// Operands of a broadcast type ([expand_b, same]) with small exact values.
struct Operands {
  Tensor a{DType::f32, {64, 7}}, b{DType::f32, {1, 7}};
  Operands() {
    for (std::int64_t i = 0; i < a.numel(); ++i) test::set(a, i, static_cast<double>(i % 13));
    for (std::int64_t i = 0; i < b.numel(); ++i) test::set(b, i, 0.5 * static_cast<double>(i));
  }
};

std::string mismatch(Op op, const Operands& x, const Tensor& got) { return test::oracle_mismatch(op, x.a, x.b, got); }

// The counters of the full kernels and of their quick first tiers ("O2q").
struct TierStats {
  KernelStats full, quick;
};
TierStats tier_stats() {
  TierStats t;
  for (const KernelStats& k : kernel_cache_entries()) {
    KernelStats& into = k.key.find("q.") != std::string::npos ? t.quick : t.full;
    into.misses += k.misses, into.compiles += k.compiles, into.failures += k.failures, into.hits += k.hits;
    into.fallback_calls += k.fallback_calls;
  }
  return t;
}

// Until the one job in flight has compiled its quick first tier and stopped
// at the held full compile (fault::wait_until_held: an event, no clock);
// then whether exactly one first tier was compiled.
bool first_tier_ready() {
  fault::wait_until_held(fault::Fault::hold_full_compile);
  return tier_stats().quick.compiles == 1;
}

// Disarms `hold` once `done` is true, on a thread of its own: a call that
// may block on the held compile (when it should not) is released, and the
// test fails on what it counted instead of hanging. Joined at the end of
// the scope.
class ReleaseWhen {
 public:
  ReleaseWhen(fault::Fault hold, std::function<bool()> done)
      : thread_([hold, done = std::move(done)] {
          while (!done()) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polls; times nothing
          fault::set(hold, false);
        }) {}

 private:
  std::jthread thread_;
};

// The kernel a plain call would take now, without running it.
SelectedKernel kernel_now(const Operands& x) {
  const Tensor out(DType::f32, {64, 7});
  return select_kernel(Op::add, DType::f32, plan_broadcast(out.layout(), x.a.layout(), x.b.layout()));
}

TEST_F(Tiers, TheFirstCallIsCorrectWhileItsCompileIsHeld) {
  const Operands x;
  const fault::Armed hold(fault::Fault::hold_compile);
  const Tensor out = add(x.a, x.b);
  EXPECT_EQ(mismatch(Op::add, x, out), "");
  const KernelCacheStats s = kernel_cache_stats();
  EXPECT_EQ(s.compiles, 0u);
  EXPECT_EQ(s.fallback_calls, 1u);
  EXPECT_EQ(s.queued, 1u);
  EXPECT_EQ(kernel_now(x).outcome, Outcome::pending);
}

TEST_F(Tiers, LaterCallsSwitchToTheKernelOnceItIsReady) {
  const Operands x;
  Tensor out(DType::f32, {64, 7});
  {
    const fault::Armed hold(fault::Fault::hold_compile);
    for (int i = 0; i < 3; ++i) {
      test::fill_sentinel(out);
      add(x.a, x.b, out);
      EXPECT_EQ(mismatch(Op::add, x, out), "") << "call " << i;
    }
    EXPECT_EQ(kernel_cache_stats().fallback_calls, 3u);  // the memo asks again while pending
  }
  wait_for_compiles();
  EXPECT_EQ(tier_stats().full.compiles, 1u);
  EXPECT_EQ(tier_stats().quick.compiles, 1u);  // the first tier, then the full kernel
  const SelectedKernel now = kernel_now(x);
  EXPECT_TRUE(now.jit);
  test::fill_sentinel(out);
  add(x.a, x.b, out);
  EXPECT_EQ(mismatch(Op::add, x, out), "");
  EXPECT_EQ(kernel_cache_stats().fallback_calls, 3u);
  EXPECT_EQ(kernel_cache_stats().queued, 0u);
}

TEST_F(Tiers, APreparedOpStartsOnTheFallbackAndKeepsTheKernelOnceReady) {
  const Operands x;
  Tensor out(DType::f32, {64, 7});
  std::optional<PreparedOp> k;
  {
    const fault::Armed hold(fault::Fault::hold_compile);
    k = prepare(Op::add, DType::f32, x.a.layout(), x.b.layout());
    EXPECT_NE(k->kernel_key(), "reference");  // the key being compiled
    (*k)(x.a, x.b, out);
    EXPECT_EQ(mismatch(Op::add, x, out), "");
  }
  wait_for_compiles();
  const std::uint64_t fallbacks = kernel_cache_stats().fallback_calls;
  EXPECT_GE(fallbacks, 1u);
  for (int i = 0; i < 3; ++i) {
    test::fill_sentinel(out);
    (*k)(x.a, x.b, out);
    EXPECT_EQ(mismatch(Op::add, x, out), "");
  }
  EXPECT_EQ(kernel_cache_stats().fallback_calls, fallbacks);  // no call ran on the fallback since
  EXPECT_EQ(tier_stats().full.compiles, 1u);
  EXPECT_LE(kernel_cache_stats().hits, fallbacks + 1);  // one look-up found it ready; the rest ran the kept kernel
}

TEST_F(Tiers, AnExpressionRunsOnTheEvaluatorWhileItsKernelCompiles) {
  Tensor img(DType::u8, {5, 6}), mean(DType::f32, {6});
  for (std::int64_t i = 0; i < img.numel(); ++i) test::set(img, i, static_cast<double>(i * 7 % 256));
  for (std::int64_t i = 0; i < mean.numel(); ++i) test::set(mean, i, static_cast<double>(i) + 0.25);
  const Expr e = (expr::cast(Expr(img), DType::f32) - Expr(mean)) * 2.0;
  const auto check = [&](const Tensor& got) {
    for (std::int64_t r = 0; r < 5; ++r)
      for (std::int64_t c = 0; c < 6; ++c) {
        const float want = (static_cast<float>((r * 6 + c) * 7 % 256) - (static_cast<float>(c) + 0.25f)) * 2.0f;
        ASSERT_EQ(test::get(got, r * 6 + c), want) << r << "," << c;
      }
  };
  {
    const fault::Armed hold(fault::Fault::hold_compile);
    check(evaluate(e));
    const PreparedExpr p = prepare(e);
    check(p());
    EXPECT_GE(kernel_cache_stats().fallback_calls, 2u);
    EXPECT_EQ(kernel_cache_stats().compiles, 0u);
  }
  wait_for_compiles();
  EXPECT_EQ(tier_stats().full.compiles, 1u);
  const std::uint64_t fallbacks = kernel_cache_stats().fallback_calls;
  check(evaluate(e));
  EXPECT_EQ(kernel_cache_stats().fallback_calls, fallbacks);
}

// NOTE: [Dispatch]: one fallback rule for both fronts. An expression that is
// one binary op on x0 and x1 of one dtype falls back to the reference
// executor's typed loop, as the binary call does; any other program to the
// evaluator.
TEST_F(Tiers, AOneOpExpressionFallsBackToTheBinaryCallsTypedLoop) {
  std::mt19937_64 rng(31);
  const Tensor x(DType::f32, {5, 6}), y(DType::f32, {6}), h(DType::f16, {6}), z(DType::c64, {6});
  test::fill_random(x, rng);
  test::fill_random(y, rng);
  const auto fallback_of = [](const Expr& e) { return reference_kernel_of(ExprCall(e).program()); };
  EXPECT_EQ(fallback_of(Expr(x) + Expr(y)), reference_kernel(Op::add, DType::f32));
  EXPECT_EQ(fallback_of(expr::max(Expr(x), Expr(y))), reference_kernel(Op::max, DType::f32));
  EXPECT_EQ(fallback_of(expr::lt(Expr(x), Expr(y))), reference_kernel(Op::lt, DType::f32));
  // NOTE: [Waiting rule]: a call waits for its compile by what its fallback costs.
  EXPECT_EQ(fallback_ns_of(ExprCall(Expr(x) + Expr(y)).program()), kReferenceNsPerElement);
  EXPECT_GE(fallback_ns_of(ExprCall(Expr(x) + Expr(y) * 2.0).program()),
            kEvaluatorNsPerElement + 2 * kEvaluatorNsPerNode);  // the evaluator's, two nodes or more
  for (const Expr& other :
       {Expr(y) + Expr(x) * 1.0, Expr(x) + Expr(x), Expr(x) + 2.0, Expr(x) + Expr(h),
        expr::cast(Expr(x) + Expr(y), DType::f64), Expr(z) + Expr(z), expr::complex(Expr(x), Expr(y))})
    EXPECT_EQ(fallback_of(other), nullptr) << ExprCall(other).text();
  {
    const fault::Armed hold(fault::Fault::hold_compile);
    const Expr e = Expr(x) + Expr(y);
    const ExprCall call(e);
    const ExprKernel kernel = select_kernel(call, call.plan_for(call.new_out_layout()));
    EXPECT_EQ(kernel.jit.fn, nullptr);  // pending
    EXPECT_EQ(kernel.typed, reference_kernel(Op::add, DType::f32));
    EXPECT_EQ(kernel.evaluator, nullptr);
    const Tensor got = evaluate(e);
    EXPECT_EQ(test::oracle_mismatch(Op::add, x, y, got), "");
  }
  wait_for_compiles();
}

TEST_F(Tiers, ThreadsAskingForOneKeyShareOneCompile) {
  const Operands x;
  {
    const fault::Armed hold(fault::Fault::hold_compile);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&] {
        for (int i = 0; i < 20; ++i)
          if (!mismatch(Op::add, x, add(x.a, x.b)).empty()) ++wrong;
      });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(kernel_cache_stats().fallback_calls, 160u);  // no call blocked on the held compile
  }
  wait_for_compiles();
  const TierStats t = tier_stats();
  EXPECT_EQ(t.full.misses, 1u);
  EXPECT_EQ(t.full.compiles, 1u);
  EXPECT_EQ(t.quick.compiles, 1u);
}

TEST_F(Tiers, AFailedBackgroundCompileStaysOnTheFallbackAndIsLoggedOnce) {
  const Operands x;
  test::LogCapture log(logging::jit());
  {
    const fault::Armed fail(fault::Fault::compile);
    EXPECT_EQ(mismatch(Op::add, x, add(x.a, x.b)), "");
    wait_for_compiles();
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(mismatch(Op::add, x, add(x.a, x.b)), "");
  EXPECT_EQ(kernel_now(x).outcome, Outcome::failed);
  EXPECT_EQ(tier_stats().full.failures, 1u);
  EXPECT_EQ(log.count("failed on purpose"), 2) << log.text();  // once per key: the first tier's and the full one's
}

TEST_F(Tiers, SyncModeCompilesBeforeTheCallReturns) {
  set_jit_mode(JitMode::sync);
  const Operands x;
  EXPECT_EQ(mismatch(Op::add, x, add(x.a, x.b)), "");
  const KernelCacheStats s = kernel_cache_stats();
  EXPECT_EQ(s.compiles, 1u);
  EXPECT_EQ(s.fallback_calls, 0u);
  EXPECT_EQ(s.queued, 0u);
}

TEST_F(Tiers, TheModeIsASetting) {
  set_setting("BCAST_JIT_MODE", "sync");
  EXPECT_EQ(jit_mode(), JitMode::sync);
  set_setting("BCAST_JIT_MODE", "async");
  EXPECT_EQ(jit_mode(), JitMode::async);
  EXPECT_THROW(set_setting("BCAST_JIT_MODE", "later"), Error);
}

// NOTE: [Waiting rule]: a call whose fallback would take longer than the
// compile waits: a four-node chain over 16 M elements (the evaluator ~9 ns an
// element, ~150 ms, against the ~6 ms a job is expected to take before this
// process has measured one, and tens of ms on a loaded machine or under a
// sanitizer); a tiny call never does.
TEST_F(Tiers, OnlyACallWhoseFallbackTakesLongerThanTheCompileWaits) {
  EXPECT_LT(wait_budget_us(16, kReferenceNsPerElement), 1.0);
  EXPECT_GT(wait_budget_us(std::int64_t{1} << 28, kReferenceNsPerElement), 10'000.0);
  const Tensor small(DType::f32, {64}), x(DType::f32, {std::int64_t{1} << 24}), m(DType::f32, {1});
  test::fill_sentinel(small, 0);
  test::fill_sentinel(x, 0);
  test::set(m, 0, 1.5);
  const int threads = num_threads();
  set_num_threads(1);  // the budget shrinks with the threads a call uses
  // The big call's compile is held until the call has counted its wait: so
  // it waits (the job cannot have finished before it looked), and its
  // result comes from the full kernel, not the fallback or the first tier.
  {
    std::atomic<bool> returned{false};
    fault::set(fault::Fault::hold_compile, true);
    const ReleaseWhen release(fault::Fault::hold_compile,
                              [&] { return returned.load() || kernel_cache_stats().waits > 0; });
    const Tensor out = evaluate(((Expr(x) - Expr(m)) * Expr(m) + 1.0) * 3.0);
    returned = true;
    EXPECT_EQ(test::get(out, 12345), ((0.0f - 1.5f) * 1.5f + 1.0f) * 3.0f);
  }
  EXPECT_EQ(kernel_cache_stats().waits, 1u);
  EXPECT_EQ(kernel_cache_stats().fallback_calls, 0u);
  EXPECT_EQ(tier_stats().quick.hits, 0u);
  // The tiny call does not wait: with its compile held it runs on the
  // fallback. (Had it waited, the release below would free it, and the
  // count of waits would say so.)
  {
    std::atomic<bool> returned{false};
    fault::set(fault::Fault::hold_compile, true);
    const ReleaseWhen release(fault::Fault::hold_compile,
                              [&] { return returned.load() || kernel_cache_stats().waits > 1; });
    evaluate((Expr(small) - Expr(m)) * 2.0 * Expr(m) + 1.0);  // another kernel
    returned = true;
  }
  set_num_threads(threads);
  EXPECT_EQ(kernel_cache_stats().waits, 1u);
  EXPECT_EQ(kernel_cache_stats().fallback_calls, 1u);
}

// NOTE: [Tiers]: the first tier serves calls while the full compile runs.
TEST_F(Tiers, TheQuickFirstTierRunsWhileTheFullCompileRuns) {
  const Operands x;
  {
    const fault::Armed hold(fault::Fault::hold_full_compile);
    EXPECT_EQ(mismatch(Op::add, x, add(x.a, x.b)), "");
    ASSERT_TRUE(first_tier_ready());
    const std::uint64_t fallbacks = kernel_cache_stats().fallback_calls;
    EXPECT_EQ(kernel_now(x).outcome, Outcome::quick);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(mismatch(Op::add, x, add(x.a, x.b)), "");
    EXPECT_EQ(kernel_cache_stats().fallback_calls, fallbacks);  // they ran on the first tier
  }
  wait_for_compiles();
  EXPECT_TRUE(kernel_now(x).jit);
  EXPECT_EQ(kernel_now(x).outcome, Outcome::hit);
}

// The first tier's code (LLVM's fast instruction selection and register
// allocation) against the oracle, over every dtype and a spread of ops.
TEST_F(Tiers, TheFirstTierGivesTheOraclesResults) {
  std::mt19937_64 rng(16);
  int checked = 0;
  const std::vector<std::pair<Op, DType>> pairs = test::supported_pairs();
  for (std::size_t i = 0; i < pairs.size(); i += 5) {
    const auto [op, dtype] = pairs[i];
    clear_kernel_cache();
    const Tensor a(dtype, {9, 1, 17}), b(dtype, {1, 5, 17});
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    {
      const fault::Armed hold(fault::Fault::hold_full_compile);
      binary(op, a, b);
      ASSERT_TRUE(first_tier_ready()) << op_name(op) << " " << dtype_name(dtype);
      SelectedKernel ran;
      const Tensor out(result_dtype(op, dtype), {9, 5, 17});
      BinaryCall call(op, dtype, out.dtype(), plan_broadcast(out.layout(), a.layout(), b.layout()));
      dispatch(call, a, b, out, &ran);
      EXPECT_EQ(ran.outcome, Outcome::quick) << op_name(op) << " " << dtype_name(dtype);
      EXPECT_EQ(test::oracle_mismatch(op, a, b, out), "") << op_name(op) << " " << dtype_name(dtype);
      ++checked;
    }
    wait_for_compiles();
  }
  EXPECT_GE(checked, 20);
}

// The process exits with a compile held at its start, or running in LLVM:
// the queue stops first, so nothing leaks (LeakSanitizer runs at the
// child's exit under tools/bcast-dev asan, and fails its exit code) and
// nothing races (tools/bcast-dev tsan).
TEST_F(Tiers, ExitingWithACompileInFlightIsClean) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  // Held at its start, or after its first tier ran in LLVM (whose statics
  // now exist) and before the full compile, which the stopping queue
  // releases into LLVM while the process exits. Either way the job is in
  // flight when exit() runs: the test waits for the hold, not for time.
  const auto exit_during = [](fault::Fault hold) {
    set_jit_mode(JitMode::async);
    fault::set(hold, true);
    const Operands x;
    const Tensor out = add(x.a, x.b);
    fault::wait_until_held(hold);
    std::exit(mismatch(Op::add, x, out).empty() && kernel_cache_stats().queued == 1 ? 0 : 1);
  };
  EXPECT_EXIT(exit_during(fault::Fault::hold_compile), ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(exit_during(fault::Fault::hold_full_compile), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace bcast
