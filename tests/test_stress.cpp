// Concurrency stress: 16 threads run random ops over a shared pool of shapes
// while the kernel cache holds 4 kernels (so it evicts all the time), some
// calls large enough to use the thread pool, some through prepared ops, and
// one thread pre-generating kernels in the middle of it all. Every result is
// checked against the naive executor. BCAST_STRESS_CALLS sets the calls per
// thread (default 120; a soak run sets thousands).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

#include "bcast/bcast.h"
#include "naive_executor.h"
#include "oracle.h"
#include "test_support.h"
#include "thread_pool.h"

namespace bcast {
namespace {

int calls_per_thread() {
  const char* v = std::getenv("BCAST_STRESS_CALLS");
  return v != nullptr ? std::max(1, std::atoi(v)) : 120;
}

struct Pattern {
  Shape a, b;
};
const std::vector<Pattern> kPatterns{
    {{16}, {16}},           {{4, 4}, {1, 4}},         {{33, 7}, {7}},        {{5, 1, 3}, {1, 4, 1}},
    {{300, 1000}, {1000}},  {{2000, 3}, {1, 3}},      {{1}, {64}},           {{8, 1, 6, 1, 5}, {1, 7, 1, 4, 1}},
    {{0, 5}, {5}},          {{}, {3, 3}},             {{4096, 1}, {1, 64}},  {{257}, {1}},
};
const std::vector<Op> kOps{Op::add, Op::sub, Op::mul, Op::max, Op::min, Op::lt};
const std::vector<DType> kDTypes{DType::f32, DType::f64, DType::i32, DType::f16, DType::u8};

TEST(Stress, SixteenThreadsOnACacheOfFourKernelsMatchTheNaiveExecutor) {
  clear_kernel_cache();  // the counters below are this test's alone
  set_kernel_cache_capacity(4);
  set_setting("BCAST_GRAIN", "20000");  // the large patterns go through the pool, concurrently
  set_num_threads(3);
  const int calls = calls_per_thread();
  // A call that throws (a kernel evicted under it, a pool job lost) is
  // caught and reported, not std::terminate's; `agreed` counts the calls
  // whose result the oracle and the naive executor both accepted.
  std::atomic<int> mismatches{0}, errors{0}, agreed{0};
  std::mutex report;
  std::string first_report;
  auto worker = [&](int t) {
    std::mt19937_64 rng(1000 + t);
    for (int i = 0; i < calls; ++i) {
      const Pattern& p = kPatterns[rng() % kPatterns.size()];
      const Op op = kOps[rng() % kOps.size()];
      const DType dtype = kDTypes[rng() % kDTypes.size()];
      const std::string label = std::string(op_name(op)) + "." + std::string(dtype_name(dtype)) + " " +
                                to_string(p.a) + " & " + to_string(p.b) + " on thread " + std::to_string(t);
      const auto note = [&](std::atomic<int>& counter, const std::string& what) {
        ++counter;
        std::lock_guard lock(report);
        if (first_report.empty()) first_report = label + ": " + what;
      };
      try {
        Tensor a(dtype, p.a), b(dtype, p.b);
        test::fill_random(a, rng);
        test::fill_random(b, rng);
        // Into an out that starts as the sentinel: a piece that a pool thread
        // never ran cannot pass for a 0 result.
        Tensor got(result_dtype(op, dtype), broadcast_infer_shape(p.a, p.b));
        test::fill_sentinel(got);
        if (rng() % 4 == 0) {
          prepare(op, dtype, a.layout(), b.layout())(a, b, got);
        } else {
          binary(op, a, b, got);
        }
        Tensor want(result_dtype(op, dtype), got.shape());
        run_naive(op, a, b, want);
        const std::string oracle = test::oracle_mismatch(op, a, b, got);
        if (test::first_mismatch(op, got, want) >= 0 || !oracle.empty()) {
          note(mismatches, "differs (" + oracle + ")");
        } else {
          ++agreed;
        }
      } catch (const std::exception& e) {
        note(errors, std::string("threw: ") + e.what());
      }
    }
  };
  std::vector<std::jthread> threads;
  for (int t = 0; t < 16; ++t) threads.emplace_back(worker, t);
  // Pre-generation competes with the calls for the same small cache.
  const std::size_t generated = pregenerate({Op::add, Op::mul}, {DType::f32, DType::i32}, 2, 2);
  threads.clear();
  EXPECT_EQ(mismatches.load(), 0) << "first: " << first_report;
  EXPECT_EQ(errors.load(), 0) << "first: " << first_report;
  EXPECT_EQ(agreed.load(), 16 * calls);
  EXPECT_GT(generated, 0u);
  const KernelCacheStats stats = kernel_cache_stats();
  EXPECT_LE(stats.resident, 4u);
  EXPECT_GT(stats.evictions, 0u) << "the cache really was too small";
  EXPECT_EQ(stats.failures, 0u);
  EXPECT_GT(ThreadPool::instance().stats().jobs, 0u) << "some calls really ran on the pool";
}

}  // namespace
}  // namespace bcast
