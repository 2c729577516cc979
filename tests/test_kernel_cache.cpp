// The kernel cache: counters, single-flight compilation, eviction that never
// pulls code from under a running call, and the fallback when the JIT fails.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>

#include "cache/kernel_cache.h"
#include "codegen_settings.h"
#include "compile/host_compiler.h"
#include "fault_injection.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "log_capture.h"
#include "logging.h"
#include "naive_executor.h"
#include "targets.h"
#include "test_support.h"

namespace bcast {
namespace {

using DC = DimCode;

// A key no other test compiles: its codegen settings carry a unique vector width.
KernelKey fresh_key(Op op, const BroadcastType& type) {
  static std::atomic<int> counter{0};
  CodegenSettings settings = jit::host_codegen_settings(2);
  settings.vector_width_bits = 100000 + counter.fetch_add(1);
  return make_kernel_key(target_for(TargetKind::host), op, DType::f32, type, intern_codegen_settings(settings));
}

struct CapacityGuard {
  std::size_t saved = kernel_cache_capacity();
  explicit CapacityGuard(std::size_t c) { set_kernel_cache_capacity(c); }
  ~CapacityGuard() { set_kernel_cache_capacity(saved); }
};

// Every test here counts compilations: the disk cache must not serve them.
class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { set_cache_dir("off"); }
};

TEST_F(KernelCacheTest, CountsMissesThenHits) {
  clear_kernel_cache();
  const Tensor a = test::make(DType::f32, {16}, std::vector<double>(16, 1.5));
  const Tensor b = test::make(DType::f32, {16}, std::vector<double>(16, 2.0));
  // The compile happens inside the first call: its time is more than 0
  // and no more than the call's, measured around it on the same clock.
  const auto start = std::chrono::steady_clock::now();
  add(a, b);
  const double first_call_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double compile_ms = kernel_cache_stats().compile_ms;
  EXPECT_GT(compile_ms, 0.0);
  EXPECT_LE(compile_ms, first_call_ms);
  add(a, b);
  const Tensor c = add(a, b);
  EXPECT_EQ(test::get(c, 15), 3.5);
  const KernelCacheStats stats = kernel_cache_stats();
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.compiles, 1u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.compile_ms, compile_ms) << "hits cost no compile time";
  EXPECT_GT(stats.code_bytes, 0u);
  const std::vector<KernelStats> entries = kernel_cache_entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].key.rfind("add.f32.[same].uuu.host.", 0), 0u) << entries[0].key;
  EXPECT_EQ(entries[0].hits, 2u);
  EXPECT_EQ(entries[0].misses, 1u);
  EXPECT_EQ(entries[0].compile_ms, compile_ms) << "the one key's time is the total";
  EXPECT_TRUE(entries[0].resident);
}

TEST_F(KernelCacheTest, EightThreadsMissingOneKeyCompileItOnce) {
  const KernelKey key = fresh_key(Op::mul, {DC::expand_a, DC::same});
  const std::uint64_t compiles_before = kernel_cache_stats().compiles;
  std::barrier start(8);
  std::vector<const jit::CompiledKernel*> got(8);
  std::vector<std::jthread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      got[t] = jit::kernel_cache().get(key).get();
    });
  threads.clear();  // joins
  EXPECT_EQ(kernel_cache_stats().compiles - compiles_before, 1u);
  for (int t = 0; t < 8; ++t) {
    ASSERT_NE(got[t], nullptr);
    EXPECT_EQ(got[t], got[0]) << "thread " << t << " got another kernel";
  }
}

TEST_F(KernelCacheTest, EvictedKernelsStayLoadedWhileHeld) {
  const CapacityGuard guard(2);
  const KernelKey first = fresh_key(Op::sub, {DC::same});
  std::shared_ptr<const jit::CompiledKernel> held = jit::kernel_cache().get(first);
  ASSERT_NE(held, nullptr);
  const std::uint64_t evictions = kernel_cache_stats().evictions;
  for (int i = 0; i < 3; ++i) ASSERT_NE(jit::kernel_cache().get(fresh_key(Op::sub, {DC::same})), nullptr);
  EXPECT_GE(kernel_cache_stats().evictions - evictions, 1u);
  EXPECT_LE(kernel_cache_stats().resident, 2u);
  // The evicted kernel's code is still there: run it.
  const Tensor a = test::make(DType::f32, {5}, {1, 2, 3, 4, 5}), b = test::make(DType::f32, {5}, {5, 4, 3, 2, 1});
  Tensor out(DType::f32, {5});
  const std::int64_t extents[1] = {5}, strides[3] = {1, 1, 1}, spans[3] = {4, 4, 4};
  void* const data[3] = {out.data(), const_cast<void*>(a.data()), const_cast<void*>(b.data())};
  const KernelArgs args{data, extents, strides, spans, nullptr, 1, 1, nullptr};
  held->fn(&args);
  EXPECT_EQ(test::get(out, 0), -4.0);
  EXPECT_EQ(test::get(out, 4), 4.0);
}

TEST_F(KernelCacheTest, CapacityTwoUnderConcurrentCallsStaysCorrect) {
  const CapacityGuard guard(2);
  // Six broadcast patterns cycling through a cache of two: constant eviction,
  // with other threads running the kernels being evicted.
  const std::vector<std::pair<Shape, Shape>> patterns{{{300, 301}, {301}}, {{300, 301}, {300, 1}}, {{90301}, {1}},
                                                      {{1, 301}, {300, 1}}, {{30, 10, 301}, {10, 1}}, {{301, 300}, {300}}};
  std::atomic<int> mismatches{0};
  std::vector<std::jthread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (int i = 0; i < 30; ++i) {
        const auto& [sa, sb] = patterns[(t + i) % patterns.size()];
        Tensor a(DType::f32, sa), b(DType::f32, sb);
        test::fill_random(a, rng);
        test::fill_random(b, rng);
        const Tensor got = add(a, b);
        Tensor want(DType::f32, got.shape());
        run_naive(Op::add, a, b, want);
        if (test::bytes_of(got) != test::bytes_of(want)) ++mismatches;
      }
    });
  threads.clear();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_LE(kernel_cache_stats().resident, 2u);
}

TEST_F(KernelCacheTest, TheCallMemoNeverOutlivesItsKernelsCacheEntryOrSettings) {
  // NOTE: [Call memo]: repeated calls reuse the kernel without a look-up, but
  // are booked as hits, and a clear, an eviction or a settings change makes
  // the next call look the kernel up again.
  clear_kernel_cache();
  const Tensor a = test::make(DType::f32, {2, 8}, std::vector<double>(16, 1.5));
  const Tensor b = test::make(DType::f32, {8}, std::vector<double>(8, 2.0));
  Tensor c(DType::f32, {2, 8});
  for (int i = 0; i < 4; ++i) add(a, b, c);
  EXPECT_EQ(kernel_cache_stats().hits, 3u);
  EXPECT_EQ(kernel_cache_entries().at(0).hits, 3u);
  clear_kernel_cache();
  add(a, b, c);
  EXPECT_EQ(kernel_cache_stats().misses, 1u) << "after a clear the memo looked the kernel up again";
  EXPECT_EQ(kernel_cache_stats().compiles, 1u);
  set_kernel_cache_capacity(1);
  sub(a, b, c);  // evicts add's kernel
  add(a, b, c);
  EXPECT_EQ(kernel_cache_stats().misses, 3u) << "an evicted kernel is looked up (and compiled) again";
  set_jit_enabled(false);
  const KernelCacheStats before = kernel_cache_stats();
  add(a, b, c);
  EXPECT_EQ(kernel_cache_stats().hits, before.hits) << "with the JIT off the memoised kernel is not used";
  EXPECT_EQ(test::get(c, 15), 3.5);
  set_jit_enabled(true);
  set_kernel_cache_capacity(1024);
}

TEST_F(KernelCacheTest, CompileFailureFallsBackToTheReferenceAndIsRecorded) {
  clear_kernel_cache();
  std::optional<fault::Armed> failing(fault::Fault::compile);
  const Tensor a = test::make(DType::i32, {2, 3}, {1, 2, 3, 4, 5, 6}), b = test::make(DType::i32, {3}, {10, 20, 30});
  const Tensor c = add(a, b);
  const Tensor d = add(a, b);  // the failure is remembered: no second attempt
  failing.reset();
  EXPECT_EQ(test::get(c, 5), 36.0);
  EXPECT_EQ(test::bytes_of(c), test::bytes_of(d));
  const KernelCacheStats stats = kernel_cache_stats();
  EXPECT_EQ(stats.failures, 1u);
  EXPECT_EQ(stats.compiles, 1u);
  ASSERT_EQ(kernel_cache_entries().size(), 1u);
  EXPECT_EQ(kernel_cache_entries()[0].failures, 1u);
  clear_kernel_cache();  // later tests get a working kernel for this key
}

TEST_F(KernelCacheTest, ACompileFailureIsLoggedOncePerKeyHoweverOftenItRecurs) {
  clear_kernel_cache();
  const CapacityGuard none(0);  // nothing is kept: every call below compiles again, and fails again
  const test::LogCapture log(logging::jit());
  const fault::Armed failing(fault::Fault::compile);
  std::vector<std::string> keys;
  for (const Op op : {Op::add, Op::mul}) {
    for (const std::string& wrong : test::calls_of_one_key(op)) EXPECT_EQ(wrong, "") << op_name(op);
    for (const std::int64_t n : test::kOneKeyLengths) {
      const Layout x = Layout::contiguous({n});
      keys.push_back(kernel_key_for(op, DType::i32, x, x, x));
    }
  }
  ASSERT_EQ(keys[0], keys[2]);
  ASSERT_EQ(keys[3], keys[5]);
  EXPECT_EQ(kernel_cache_stats().failures, 6u) << "each call tried to compile";
  EXPECT_EQ(log.count("compiling " + keys[0] + " failed; its calls run on the reference executor"), 1) << log.text();
  EXPECT_EQ(log.count("compiling " + keys[3] + " failed; its calls run on the reference executor"), 1) << log.text();
  EXPECT_EQ(log.count("failed"), 2) << log.text();
}

}  // namespace
}  // namespace bcast
