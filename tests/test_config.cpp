// BCAST_* settings: each valid value takes effect (seen through behaviour),
// each invalid one warns, names the variable, the value and the accepted
// values, and leaves the default; the API wins over the environment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <regex>
#include <set>

#include "bcast/config.h"
#include "bcast/prepared.h"
#include "config.h"
#include "thread_pool.h"
#include "executor.h"
#include "jit/host_compiler.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "logging.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Sets environment variables, re-reads the configuration, and restores both.
class Env : public ::testing::Test {
 protected:
  void set(const char* name, const char* value) {
    if (!saved_.contains(name)) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    ::setenv(name, value, 1);
  }
  // Re-reads the environment; returns what was logged meanwhile.
  std::string reload() {
    ::testing::internal::CaptureStderr();
    config::reload_from_environment();
    return ::testing::internal::GetCapturedStderr();
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
    config::reload_from_environment();
  }
  fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("bcast_config_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    return p;
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

Tensor big_add(std::int64_t n) { return add(Tensor(DType::f32, {n}), Tensor(DType::f32, {1})); }

std::string f32_add_assembly() {
  return jit::kernel_assembly(
      make_kernel_key(Target::host, Op::add, DType::f32, BroadcastType{DimCode::same}, current_codegen_id()));
}

TEST_F(Env, InvalidValuesWarnAndKeepTheDefault) {
  const std::vector<std::tuple<const char*, const char*, const char*>> bad{
      {"BCAST_LOG_LEVEL", "loud", "off error warn info debug trace"},
      {"BCAST_VERBOSE", "yes", "0 1"},
      {"BCAST_JIT", "2", "0 1"},
      {"BCAST_OPT_LEVEL", "7", "0 1 2 3"},
      {"BCAST_MAX_ISA", "avx1024", "sse4.2 avx avx2 avx512 all"},
      {"BCAST_NUM_THREADS", "-3", "0 .. 1024"},
      {"BCAST_GRAIN", "0", "1 .. 1099511627776"},
      {"BCAST_CACHE_CAPACITY", "lots", "0 .. 1048576"},
      {"BCAST_CACHE_DIR", "", "a folder, or off"},
      {"BCAST_CACHE_MAX_MB", "0", "1 .. 1048576"},
      {"BCAST_STREAM_MIN_BYTES", "-1", "auto, off, or 0 .. 2^50 bytes"},
      {"BCAST_TARGET", "gpu", "host ascend-sim"},
      {"BCAST_UB_SIZE", "1000", "1024 .. 1048576, a multiple of 32"},
      {"BCAST_BLOCK_NUM", "0", "1 .. 64"},
      {"BCAST_DOUBLE_BUFFER", "on", "0 1"},
  };
  for (const auto& [name, value, accepted] : bad) set(name, value);
  const std::string log = reload();
  for (const auto& [name, value, accepted] : bad) {
    EXPECT_THAT(log, HasSubstr(std::string(name) + "=" + value + " is not valid (accepted: " + accepted + ")"));
    for (const SettingInfo& s : effective_settings())
      if (s.name == name) {
        EXPECT_EQ(s.source, SettingSource::default_value) << name;
        if (s.name != "BCAST_CACHE_DIR") {
          EXPECT_EQ(s.value, s.default_value) << name;
        }
      }
  }
  EXPECT_TRUE(jit_enabled());
  EXPECT_EQ(config::opt_level(), 2);
}

TEST_F(Env, JitOffRunsTheReferenceExecutor) {
  set("BCAST_JIT", "0");
  reload();
  clear_kernel_cache();
  const Tensor c = add(test::make(DType::f32, {3}, {1, 2, 3}), test::make(DType::f32, {1}, {1}));
  EXPECT_EQ(test::get(c, 2), 4.0);
  EXPECT_EQ(kernel_cache_stats().misses, 0u);
  EXPECT_EQ(kernel_key_for(Op::add, DType::f32, c.layout(), c.layout(), Layout::contiguous({1})), "reference");
  set_jit_enabled(true);  // the API wins over the environment
  add(test::make(DType::f32, {3}, {1, 2, 3}), test::make(DType::f32, {1}, {1}));
  EXPECT_EQ(kernel_cache_stats().misses, 1u);
  for (const SettingInfo& s : effective_settings())
    if (s.name == "BCAST_JIT") {
      EXPECT_EQ(s.source, SettingSource::api);
    }
}

TEST_F(Env, VerbosePrintsOneLinePerCall) {
  set("BCAST_VERBOSE", "1");
  reload();
  ::testing::internal::CaptureStderr();
  add(Tensor(DType::f32, {4, 3}), Tensor(DType::f32, {3}));
  mul(Tensor(DType::i32, {2}), Tensor(DType::i32, {2}));
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("bcast: add f32 [4, 3] & [3] -> [4, 3] f32 type [expand_b,same] kernel add.f32.[expand_b,same]"));
  EXPECT_THAT(log, HasSubstr("bcast: mul i32 [2] & [2] -> [2] i32 type [same]"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2);
}

TEST_F(Env, LogLevelReachesTheLoggers) {
  set("BCAST_LOG_LEVEL", "debug");
  reload();
  EXPECT_TRUE(logging::jit().should_log(spdlog::level::debug));
  set("BCAST_LOG_LEVEL", "off");
  reload();
  EXPECT_FALSE(logging::core().should_log(spdlog::level::err));
}

TEST_F(Env, OptLevelZeroTurnsTheVectoriserOff) {
  set("BCAST_OPT_LEVEL", "0");
  reload();
  const KernelKey key =
      make_kernel_key(Target::host, Op::add, DType::f32, BroadcastType{DimCode::same}, current_codegen_id());
  EXPECT_THAT(key.to_string(), HasSubstr(".O0."));
#if defined(__x86_64__)
  EXPECT_FALSE(std::regex_search(f32_add_assembly(), std::regex(R"(\bv?addps\b)")));
  set("BCAST_OPT_LEVEL", "2");
  reload();
  EXPECT_TRUE(std::regex_search(f32_add_assembly(), std::regex(R"(\bv?addps\b)")));
#endif
}

TEST_F(Env, MaxIsaCapsTheVectorRegisters) {
#if defined(__x86_64__)
  set("BCAST_MAX_ISA", "avx2");
  reload();
  EXPECT_THAT(f32_add_assembly(), ::testing::Not(HasSubstr("zmm")));
  set("BCAST_MAX_ISA", "sse4.2");
  reload();
  const std::string sse = f32_add_assembly();
  EXPECT_THAT(sse, ::testing::Not(HasSubstr("ymm")));
  EXPECT_THAT(sse, ::testing::Not(HasSubstr("zmm")));
  EXPECT_TRUE(std::regex_search(sse, std::regex(R"(\baddps\b)"))) << "SSE still vectorises";
#else
  GTEST_SKIP() << "ISA caps are defined for x86-64 only";
#endif
}

TEST_F(Env, ThreadsAndGrainDecideHowACallSplits) {
  set("BCAST_NUM_THREADS", "3");
  set("BCAST_GRAIN", "1000");
  reload();
  EXPECT_EQ(num_threads(), 3);
  ThreadPool::Stats before = ThreadPool::instance().stats();
  big_add(100000);
  ThreadPool::Stats after = ThreadPool::instance().stats();
  EXPECT_GE(after.workers_started, 2u) << "the pool holds the two workers a 3-thread call needs";
  EXPECT_EQ(after.jobs - before.jobs, 1u) << "the call woke the workers once";
  set("BCAST_GRAIN", "1000000");
  reload();
  before = ThreadPool::instance().stats();
  big_add(100000);
  after = ThreadPool::instance().stats();
  EXPECT_EQ(after.jobs, before.jobs) << "a call under the grain never wakes a worker";
  EXPECT_EQ(after.parts_on_workers, before.parts_on_workers);
}

TEST_F(Env, SplitCallsHandOutPiecesOfAboutAGrain) {
  // NOTE: [Thread pool]: a call is handed out in at least four pieces per
  // thread and in pieces of about a grain, so no thread gets more than its
  // share plus one grain; rows longer than a grain stay whole.
  set("BCAST_NUM_THREADS", "3");
  set("BCAST_GRAIN", "1000");
  reload();
  auto parts_of = [](const std::function<void()>& call) {
    const ThreadPool::Stats before = ThreadPool::instance().stats();
    call();
    const ThreadPool::Stats after = ThreadPool::instance().stats();
    EXPECT_EQ(after.jobs - before.jobs, 1u);
    return after.parts - before.parts;
  };
  EXPECT_EQ(parts_of([] { big_add(100000); }), 100u) << "100,000 elements in grains of 1,000";
  EXPECT_EQ(parts_of([] { big_add(5000); }), 12u) << "four pieces per thread";
  const Tensor long_rows(DType::f32, {20, 3000}), few_rows(DType::f32, {4, 30000});
  EXPECT_EQ(parts_of([&] { add(long_rows, Tensor(DType::f32, {3000})); }), 20u)
      << "enough rows for four pieces a thread: whole rows, one a piece when a row is over a grain";
  EXPECT_EQ(parts_of([&] { add(few_rows, Tensor(DType::f32, {30000})); }), 120u)
      << "too few rows: ranges of columns across the rows, a grain each";
  set("BCAST_GRAIN", "1");
  reload();
  EXPECT_EQ(parts_of([] { big_add(100000); }), 65536u) << "at most 65,536 pieces";
  set("BCAST_GRAIN", "1000");
  reload();
  // NOTE: [Blocked order]: a transposed [1000,1000] f32 runs in 4 x 4 tiles of
  // 256 x 256 (65,536 elements); a piece is as many tiles of a band as a
  // grain holds, at least one. Every split gives the one-thread result.
  Tensor parent(DType::f32, {1000, 1000}), b(DType::f32, {1000, 1000});
  std::mt19937_64 rng(5);
  test::fill_random(parent, rng);
  test::fill_random(b, rng);
  const TensorView a = transpose(parent);
  set("BCAST_NUM_THREADS", "1");
  reload();
  const Tensor expected = add(a, b);
  set("BCAST_NUM_THREADS", "3");
  for (const auto& [grain, pieces] : std::vector<std::pair<const char*, std::uint64_t>>{
           {"1000", 16}, {"200000", 8}, {"300000", 4}}) {
    set("BCAST_GRAIN", grain);
    reload();
    Tensor out(DType::f32, {1000, 1000});
    EXPECT_EQ(parts_of([&] { add(a, b, out); }), pieces) << "grain " << grain;
    EXPECT_EQ(std::memcmp(out.data(), expected.data(), expected.nbytes()), 0) << "grain " << grain;
  }
}

TEST_F(Env, StreamMinBytesDecidesWhichOutputsGetStreamingStores) {
  // NOTE: [Streaming stores]: [2048,1] + [1,2048] f32 writes 16 MiB of out and
  // reads 8 KiB of each input: 16,793,600 bytes moved.
  const Tensor a(DType::f32, {2048, 1}), b(DType::f32, {1, 2048});
  const auto key = [&] {
    return kernel_key_for(Op::add, DType::f32, Layout::contiguous({2048, 2048}), a.layout(), b.layout());
  };
#if defined(__x86_64__)
  set("BCAST_STREAM_MIN_BYTES", "16793600");
  reload();
  EXPECT_THAT(key(), HasSubstr(".uzu.nt."));
  set("BCAST_STREAM_MIN_BYTES", "16793601");
  reload();
  EXPECT_THAT(key(), ::testing::Not(HasSubstr(".nt.")));
  set("BCAST_STREAM_MIN_BYTES", "0");
  reload();
  EXPECT_THAT(key(), HasSubstr(".uzu.nt."));
  // Rows under kStreamMinRowBytes never stream: [R,63] + [1,63] f32 rows are 252 bytes.
  EXPECT_THAT(kernel_key_for(Op::add, DType::f32, Layout::contiguous({9, 63}), Layout::contiguous({9, 63}),
                             Layout::contiguous({1, 63})),
              ::testing::Not(HasSubstr(".nt.")));
  set("BCAST_STREAM_MIN_BYTES", "off");
  reload();
  EXPECT_THAT(key(), ::testing::Not(HasSubstr(".nt.")));
  set("BCAST_STREAM_MIN_BYTES", "auto");
  reload();
  EXPECT_GE(config::stream_min_bytes(), 1u << 20) << "auto is a last-level cache size";
  EXPECT_LT(config::stream_min_bytes(), kNeverStream);
#else
  set("BCAST_STREAM_MIN_BYTES", "0");
  reload();
  EXPECT_THAT(key(), ::testing::Not(HasSubstr(".nt."))) << "streaming stores are x86-64 only";
#endif
}

TEST_F(Env, CacheCapacityBoundsResidentKernels) {
  set("BCAST_CACHE_CAPACITY", "2");
  reload();
  for (Op op : {Op::add, Op::sub, Op::mul, Op::max}) binary(op, Tensor(DType::f32, {8}), Tensor(DType::f32, {8}));
  EXPECT_LE(kernel_cache_stats().resident, 2u);
  EXPECT_GE(kernel_cache_stats().evictions, 2u);
}

TEST_F(Env, CacheDirAndDumpDirReceiveFiles) {
  const fs::path cache = scratch("cache"), dump = scratch("dump");
  set("BCAST_CACHE_DIR", cache.c_str());
  set("BCAST_DUMP_DIR", dump.c_str());
  reload();
  clear_kernel_cache();
  sub(Tensor(DType::f64, {5, 2}), Tensor(DType::f64, {5, 1}));
  std::size_t objects = 0;
  std::set<std::string> dumps;
  for (const auto& f : fs::directory_iterator(cache)) objects += f.path().extension() == ".bck";
  for (const auto& f : fs::directory_iterator(dump)) dumps.insert(f.path().filename().string());
  EXPECT_EQ(objects, 1u);
  ASSERT_EQ(dumps.size(), 3u);  // IR before and after optimisation, assembly
  for (const std::string& name : dumps) EXPECT_THAT(name, ::testing::StartsWith("sub.f64.same-expand_b.uuz."));
  EXPECT_EQ(std::count_if(dumps.begin(), dumps.end(), [](const std::string& n) { return n.ends_with(".opt.ll"); }), 1);
  EXPECT_EQ(std::count_if(dumps.begin(), dumps.end(), [](const std::string& n) { return n.ends_with(".s"); }), 1);
  set("BCAST_CACHE_DIR", "off");
  reload();
  EXPECT_EQ(config::cache_dir(), "");
  fs::remove_all(cache);
  fs::remove_all(dump);
}

TEST_F(Env, AscendSettingsReachTheSimulator) {
  set("BCAST_CACHE_DIR", "off");
  set("BCAST_TARGET", "ascend-sim");
  set("BCAST_UB_SIZE", "2048");
  set("BCAST_BLOCK_NUM", "3");
  set("BCAST_DOUBLE_BUFFER", "0");
  reload();
  const Tensor c = add(test::make(DType::f32, {40, 50}, std::vector<double>(2000, 1)), Tensor(DType::f32, {50}));
  EXPECT_EQ(test::get(c, 1999), 1.0);
  const AscendTrace t = last_ascend_trace();
  EXPECT_THAT(t.kernel, HasSubstr(".ascend-sim."));
  EXPECT_EQ(t.blocks.size(), 3u);
  EXPECT_EQ(t.slots, 1);
  EXPECT_LE(t.ub_bytes, 2048);
  for (const AscendBlockTrace& b : t.blocks) EXPECT_LE(b.ub_high_water, 2048);
}

TEST_F(Env, ApiRejectsInvalidValuesWithTheAcceptedRange) {
  try {
    set_opt_level(9);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value);
    EXPECT_THAT(e.what(), HasSubstr("BCAST_OPT_LEVEL=9 is not valid (accepted: 0 1 2 3)"));
  }
  EXPECT_THROW(set_setting("BCAST_NOPE", "1"), Error);
  EXPECT_EQ(config::opt_level(), 2);
}

}  // namespace
}  // namespace bcast
