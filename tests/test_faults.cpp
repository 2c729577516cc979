// Fault injection: each failure bcast can meet (a kernel that will not compile,
// a disk cache that cannot be read or is full, an output that cannot be
// allocated, worker threads that cannot start, an ascend-sim kernel that the
// simulator stops, a kernel that calls a missing function) ends in a correct
// result or a clear error, with nothing partial left behind. Under the
// address sanitizer build these also show that no failure path leaks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "bcast/bcast.h"
#include "cache_folder_fixture.h"
#include "fault_injection.h"
#include "log_capture.h"
#include "logging.h"
#include "naive_executor.h"
#include "oracle.h"
#include "test_support.h"
#include "thread_pool.h"

namespace bcast {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Random broadcast calls on random views (strided, permuted, reversed), each
// supported (op, dtype) pair in turn, each checked against the oracle from an
// out filled with the sentinel.
void expect_random_calls_correct(int count, std::uint64_t seed) {
  const std::vector<std::pair<Op, DType>> pairs = test::supported_pairs();
  std::mt19937_64 rng(seed);
  for (int i = 0; i < count; ++i) {
    const auto [op, dtype] = pairs[static_cast<std::size_t>(i) % pairs.size()];
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 5, 6, 3000);
    const test::RandomView a = test::random_view(dtype, s.a, rng), b = test::random_view(dtype, s.b, rng);
    test::fill_random(a.view, rng);
    test::fill_random(b.view, rng);
    test::keep_in_domain(op, b.view);
    Tensor got(result_dtype(op, dtype), s.out);
    test::fill_sentinel(got);
    binary(op, a.view, b.view, got);
    ASSERT_EQ(test::oracle_mismatch(op, a.view, b.view, got), "")
        << op_name(op) << "." << dtype_name(dtype) << " " << to_string(s.a) << " & " << to_string(s.b);
  }
}

TEST(Faults, EveryCallIsCorrectWhenNoKernelCompiles) {
  clear_kernel_cache();
  const KernelCacheStats before = kernel_cache_stats();
  {
    const fault::Armed failing(fault::Fault::compile);
    expect_random_calls_correct(2 * 170, 1);  // every supported pair twice
  }
  EXPECT_GT(kernel_cache_stats().failures, before.failures) << "compilation really failed";
  EXPECT_EQ(kernel_cache_stats().failures - before.failures, kernel_cache_stats().compiles - before.compiles)
      << "every compilation attempted failed";
}

class DiskFaults : public test::CacheFolderTest {
 protected:
  DiskFaults() : CacheFolderTest("bcast_fault_test_") {}
  std::size_t entries() const {
    std::size_t n = 0;
    if (fs::exists(dir_))
      for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir_)) ++n;
    return n;
  }
};

TEST_F(DiskFaults, AnUnreadableCacheFileMeansACompileNotAFailure) {
  expect_random_calls_correct(30, 2);  // fills the folder
  ASSERT_GT(entries(), 0u);
  clear_kernel_cache();
  const KernelCacheStats before = kernel_cache_stats();
  {
    const fault::Armed unreadable(fault::Fault::disk_read);
    expect_random_calls_correct(30, 2);  // the same calls: every file is there, none can be read
  }
  const KernelCacheStats after = kernel_cache_stats();
  EXPECT_EQ(after.disk_hits, before.disk_hits);
  EXPECT_GT(after.compiles, before.compiles);
  EXPECT_EQ(after.failures, before.failures);
}

TEST_F(DiskFaults, AFullDiskLeavesNoFileAndDisablesTheFolder) {
  const KernelCacheStats before = kernel_cache_stats();
  {
    const fault::Armed full(fault::Fault::disk_write);
    expect_random_calls_correct(30, 3);
  }
  EXPECT_EQ(entries(), 0u) << "no partial or temporary file is left";
  EXPECT_GT(kernel_cache_stats().compiles, before.compiles);
  EXPECT_EQ(kernel_cache_stats().failures, before.failures);
  // The folder stays disabled for this process: the calls go on, in memory.
  expect_random_calls_correct(30, 4);
  EXPECT_EQ(entries(), 0u);
}

TEST(Faults, AnOutputThatCannotBeAllocatedIsAClearErrorAndWritesNothing) {
  const Tensor a = test::make(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = test::make(DType::f32, {3}, {1, 1, 1});
  const std::vector<std::uint8_t> a_bytes = test::bytes_of(a), b_bytes = test::bytes_of(b);
  {
    const fault::Armed no_memory(fault::Fault::allocate);
    for (int round = 0; round < 2; ++round) {  // the second call takes the memoised path
      try {
        (void)add(a, b);
        FAIL() << "the allocation did not fail";
      } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::memory);
        EXPECT_THAT(e.what(), HasSubstr("add: output: cannot allocate 64 bytes for a f32 tensor of shape [2, 3]"));
      }
    }
  }
  EXPECT_EQ(test::bytes_of(a), a_bytes);
  EXPECT_EQ(test::bytes_of(b), b_bytes);
  EXPECT_EQ(test::get(add(a, b), 5), 7.0) << "the next call, with memory, works";
}

TEST(Faults, WorkerThreadsThatCannotStartLeaveTheWorkToTheCaller) {
  // Each GoogleTest case runs in its own process (gtest_discover_tests): the
  // pool has no workers yet. Run with others in one process, it may have.
  const ThreadPool::Stats before = ThreadPool::instance().stats();
  if (before.workers_started > 0)
    GTEST_SKIP() << "the pool's workers started earlier in this process: run this test alone, as ctest does";
  set_num_threads(4);
  set_setting("BCAST_GRAIN", "1000");
  {
    const fault::Armed no_threads(fault::Fault::thread_start);
    std::mt19937_64 rng(5);
    Tensor a(DType::f32, {300, 200}), b(DType::f32, {200});
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    const Tensor got = add(a, b);
    Tensor want(DType::f32, {300, 200});
    run_naive(Op::add, a, b, want);
    EXPECT_EQ(test::first_mismatch(Op::add, got, want), -1);
  }
  const ThreadPool::Stats after = ThreadPool::instance().stats();
  EXPECT_GT(after.start_failures, before.start_failures) << "a start was attempted and failed";
  EXPECT_EQ(after.parts_on_workers, before.parts_on_workers) << "the caller ran every part";
  set_num_threads(0);
  set_setting("BCAST_GRAIN", "262144");
}

// An f32 [8, 64] + [64] of random values into an out that starts as the
// sentinel, so that tiles nobody wrote differ from the oracle.
struct AddCall {
  Tensor a{DType::f32, {8, 64}}, b{DType::f32, {64}}, out{DType::f32, {8, 64}};
  AddCall() {
    std::mt19937_64 rng(6);
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    test::fill_sentinel(out);
  }
  std::string wrong() const { return test::oracle_mismatch(Op::add, a, b, out); }
};

TEST(Faults, AnAscendKernelTheSimulatorStopsIsLoggedAndRunsOnTheReferenceExecutor) {
  const test::ScopedSetting target("BCAST_TARGET", "ascend-sim");
  const test::ScopedSetting blocks("BCAST_BLOCK_NUM", "4");
  AddCall call;
  const test::LogCapture log(logging::core());
  {
    const fault::Armed broken(fault::Fault::ascend_rule);  // block 0 reads outside a's global memory
    add(call.a, call.b, call.out);
  }
  const AscendTrace t = last_ascend_trace();
  EXPECT_THAT(t.kernel, HasSubstr(".ascend-sim-910b."));
  EXPECT_THAT(t.fallback, ::testing::StartsWith("ascend-sim block 0: ")) << "the trace says why it fell back";
  EXPECT_EQ(log.count("the call runs on the host"), 1) << log.text();
  EXPECT_THAT(log.text(), HasSubstr(t.fallback + " (kernel " + t.kernel + ")"));
  // Block 0 stopped before writing its tiles: only the fallback wrote them.
  EXPECT_EQ(call.wrong(), "");
  // Disarmed, the same call runs on the simulator.
  AddCall again;
  add(again.a, again.b, again.out);
  EXPECT_EQ(last_ascend_trace().fallback, "");
  EXPECT_EQ(again.wrong(), "");
  EXPECT_EQ(log.count("the call runs on the host"), 1);
}

TEST(Faults, AnAscendKernelThatDoesNotCompileRunsOnTheReferenceExecutor) {
  const test::ScopedSetting target("BCAST_TARGET", "ascend-sim");
  const test::ScopedSetting no_disk("BCAST_CACHE_DIR", "off");  // a file there would load without compiling
  clear_kernel_cache();
  AddCall call;
  const test::LogCapture log(logging::jit());
  {
    const fault::Armed failing(fault::Fault::compile);
    add(call.a, call.b, call.out);
  }
  const AscendTrace t = last_ascend_trace();
  EXPECT_THAT(t.kernel, HasSubstr(".ascend-sim-910b."));
  EXPECT_EQ(t.fallback, "no kernel (compilation failed)");
  EXPECT_EQ(log.count("compiling " + t.kernel + " failed"), 1) << log.text();
  EXPECT_EQ(call.wrong(), "");
}

// NOTE: [Unresolved symbols]: a kernel that calls a function nobody defines
// is refused before it is linked, and the kernels compiled after it link and
// run (a failed link used to release the JIT's memory slab under them: the
// next link wrote to unmapped memory).
TEST(Faults, AKernelCallingAMissingFunctionIsRefusedAndTheNextKernelsLink) {
  const test::ScopedSetting no_disk("BCAST_CACHE_DIR", "off");
  clear_kernel_cache();
  const test::LogCapture log(logging::jit());
  const KernelCacheStats before = kernel_cache_stats();
  {
    const fault::Armed missing(fault::Fault::missing_symbol);
    AddCall call;
    add(call.a, call.b, call.out);
    EXPECT_EQ(call.wrong(), "");
  }
  EXPECT_EQ(kernel_cache_stats().failures - before.failures, 1u);
  EXPECT_THAT(log.text(), HasSubstr("the kernel calls functions this process does not have: bcast_fault_missing_function"));
  expect_random_calls_correct(40, 9);  // new kernels, linked into the same memory
  EXPECT_EQ(kernel_cache_stats().failures - before.failures, 1u) << log.text();
}

}  // namespace
}  // namespace bcast
