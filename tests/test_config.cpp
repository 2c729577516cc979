// BCAST_* settings: each valid value takes effect (seen through behaviour),
// each invalid one warns, names the variable, the value and the accepted
// values, and leaves the default; the API wins over the environment.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "bcast/config.h"
#include "bcast/expr.h"
#include "bcast/prepared.h"
#include "compile/host_compiler.h"
#include "config.h"
#include "executor.h"
#include "fault_injection.h"
#include "isa.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "logging.h"
#include "oracle.h"
#include "targets.h"
#include "test_support.h"
#include "thread_pool.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Sets environment variables, re-reads the configuration, and restores both.
class Env : public ::testing::Test {
 protected:
  void set(const char* name, const char* value) {
    remember(name);
    ::setenv(name, value, 1);
  }
  void unset(const char* name) {
    remember(name);
    ::unsetenv(name);
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
  void remember(const char* name) {
    if (saved_.contains(name)) return;
    const char* old = std::getenv(name);
    saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

Tensor big_add(std::int64_t n) { return add(Tensor(DType::f32, {n}), Tensor(DType::f32, {1})); }

// The assembly of op's kernel on f32 operands of one contiguous level.
std::string f32_assembly(Op op) {
  return jit::kernel_assembly(
      make_kernel_key(target_for(TargetKind::host), op, DType::f32, BroadcastType{DimCode::same}, provider::current_codegen_id()));
}

TEST_F(Env, InvalidValuesWarnAndKeepTheDefault) {
  const std::vector<std::tuple<const char*, const char*, const char*>> bad{
      {"BCAST_LOG_LEVEL", "loud", "off error warn info debug trace"},
      {"BCAST_VERBOSE", "yes", "0 1 2"},
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
      {"BCAST_UB_SIZE", "1000", "auto, or 1024 .. 1048576, a multiple of 32"},
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

// BCAST_MAX_ISA's accepted values are the one ISA list (src/core/isa.h),
// which the code generator's caps and bcast-cache read too.
TEST_F(Env, MaxIsaAcceptsExactlyTheIsaLevels) {
  std::string levels;
  for (std::string_view level : kIsaLevels) levels += (levels.empty() ? "" : " ") + std::string(level);
  const std::vector<SettingInfo> all = effective_settings();
  const auto isa = std::find_if(all.begin(), all.end(), [](const SettingInfo& s) { return s.name == "BCAST_MAX_ISA"; });
  ASSERT_NE(isa, all.end());
  EXPECT_EQ(isa->accepted, levels);
  for (std::string_view level : kIsaLevels) EXPECT_NO_THROW(set_setting("BCAST_MAX_ISA", level)) << level;
  EXPECT_THROW(set_setting("BCAST_MAX_ISA", "avx10"), Error);
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
  EXPECT_THAT(log, HasSubstr("bcast_verbose;exec;op;add;f32[4,3] f32[3];f32[4,3];[expand_b,same];add.f32.[expand_b,same]"));
  EXPECT_THAT(log, HasSubstr("bcast_verbose;exec;op;mul;i32[2] i32[2];i32[2];[same];"));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2);
}

// NOTE: [Call memo]: a repeated call reuses its kernel as a hit.
TEST_F(Env, VerboseNamesEachCacheOutcome) {
  const fs::path cache = scratch("verbose_cache");
  set("BCAST_CACHE_DIR", cache.c_str());
  set("BCAST_VERBOSE", "1");
  reload();
  clear_kernel_cache();
  const Tensor a(DType::f32, {4, 3}), b(DType::f32, {3});
  ::testing::internal::CaptureStderr();
  add(a, b);  // compiled, and stored on disk
  add(a, b);  // the same call again: a hit
  clear_kernel_cache();
  add(a, b);  // not in memory, on disk
  {
    const fault::Armed failing(fault::Fault::compile);
    sub(Tensor(DType::i16, {5, 2}), Tensor(DType::i16, {5, 1}));  // a new key that will not compile
  }
  set_jit_enabled(false);
  mul(a, b);  // the JIT off
  set_jit_enabled(true);
  const std::string log = ::testing::internal::GetCapturedStderr();
  std::vector<std::string> outcomes;
  const std::regex line(R"(^bcast_verbose;exec;op;\w+;[^;]*;[^;]*;[^;]*;[^;]+;(\w+);\d+;[0-9.]+;$)");
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);)
    if (std::smatch m; std::regex_match(l, m, line)) outcomes.push_back(m[1]);
  EXPECT_EQ(outcomes, (std::vector<std::string>{"compiled", "hit", "disk", "failed", "reference"})) << log;
  fs::remove_all(cache);
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
      make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, BroadcastType{DimCode::same}, provider::current_codegen_id());
  EXPECT_THAT(key.to_string(), HasSubstr(".O0."));
  if (test::host_is_x86_64()) {  // the mnemonic below is x86-64's
    EXPECT_FALSE(std::regex_search(f32_assembly(Op::add), std::regex(R"(\bv?addps\b)")));
    set("BCAST_OPT_LEVEL", "2");
    reload();
    EXPECT_TRUE(std::regex_search(f32_assembly(Op::add), std::regex(R"(\bv?addps\b)")));
  }
}

TEST_F(Env, OptLevelThreeRunsLlvmsFullPipeline) {
  // NOTE: [Pass pipeline]: only LLVM's full pipeline infers function
  // attributes (its function-attrs pass): the kernel is then marked nosync.
  const fs::path dump = scratch("o3_dump");
  set("BCAST_CACHE_DIR", "off");
  set("BCAST_DUMP_DIR", dump.c_str());
  const auto optimised_ir = [&](const char* level) {
    set("BCAST_OPT_LEVEL", level);
    reload();
    clear_kernel_cache();
    fs::remove_all(dump);
    const Tensor c = add(test::make(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}), test::make(DType::f32, {3}, {10, 20, 30}));
    EXPECT_EQ(test::bytes_of(c), test::bytes_of(test::make(DType::f32, {2, 3}, {11, 22, 33, 14, 25, 36}))) << level;
    std::string ir;
    for (const auto& f : fs::directory_iterator(dump))
      if (f.path().string().ends_with(".opt.ll")) {
        EXPECT_THAT(f.path().filename().string(), HasSubstr(std::string(".O") + level + ".")) << "the key names it";
        ir = (std::ostringstream() << std::ifstream(f.path()).rdbuf()).str();
      }
    EXPECT_FALSE(ir.empty()) << "level " << level << ": no optimised IR was dumped";
    return ir;
  };
  const std::regex nosync(R"(attributes #\d+ = \{[^}]*\bnosync\b)");
  EXPECT_TRUE(std::regex_search(optimised_ir("3"), nosync));
  EXPECT_FALSE(std::regex_search(optimised_ir("2"), nosync)) << "the lean pipeline infers no attributes";
  EXPECT_EQ(config::opt_level(), 2);
  set("BCAST_OPT_LEVEL", "3");
  reload();
  EXPECT_EQ(config::opt_level(), 3);
  if (test::host_is_x86_64()) {
    EXPECT_TRUE(std::regex_search(f32_assembly(Op::add), std::regex(R"(\bv?addps\b)"))) << "O3 vectorises";
  }
  fs::remove_all(dump);
}

// Registers only AVX-512 has (AT&T syntax): 512-bit vectors and mask registers.
// LLVM prefers 256-bit vectors on Intel cores (Rocket Lake, Ice Lake, ...),
// so there an AVX-512 kernel shows as mask registers: a comparison writes one.
const std::regex kAvx512Registers(R"(%zmm\d|%k[0-7]\b)");

TEST_F(Env, MaxIsaCapsTheVectorRegisters) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "ISA caps are defined for x86-64 only";
  for (const char* isa : {"avx", "avx2", "sse4.2"}) {
    set("BCAST_MAX_ISA", isa);
    reload();
    const std::string add = f32_assembly(Op::add), lt = f32_assembly(Op::lt);
    EXPECT_FALSE(std::regex_search(add, kAvx512Registers)) << isa;
    EXPECT_FALSE(std::regex_search(lt, kAvx512Registers)) << isa;
    if (std::string(isa) == "sse4.2") {
      EXPECT_THAT(add, ::testing::Not(HasSubstr("ymm")));
      EXPECT_TRUE(std::regex_search(add, std::regex(R"(\baddps\b)"))) << "SSE still vectorises";
    } else {
      EXPECT_THAT(add, HasSubstr("ymm")) << isa << " has 256-bit float vectors";
    }
  }
}

// The positive control of the caps above: where the host has AVX-512, the
// uncapped settings do use its registers in the same kernel, so the caps'
// checks can fail.
TEST_F(Env, MaxIsaAvx512AndAllUseAvx512RegistersOnAnAvx512Host) {
  if (!test::host_is_x86_64() || !test::host_has_feature("avx512f")) GTEST_SKIP() << "the host has no AVX-512F: no setting can use its registers";
  for (const char* isa : {"avx512", "all"}) {
    set("BCAST_MAX_ISA", isa);
    reload();
    EXPECT_TRUE(std::regex_search(f32_assembly(Op::lt), kAvx512Registers)) << isa << ":\n" << f32_assembly(Op::lt);
  }
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

TEST_F(Env, NumThreadsZeroIsOnePerHardwareThread) {
  set("BCAST_NUM_THREADS", "3");
  reload();
  ASSERT_EQ(num_threads(), 3);
  set("BCAST_NUM_THREADS", "0");
  set("BCAST_GRAIN", "1000");
  reload();
  const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(num_threads(), hardware);
  // A call of many grains uses that many threads: afterwards the pool holds
  // one worker fewer (the caller is the other), or as many as it held.
  const std::uint64_t before = ThreadPool::instance().stats().workers_started;
  big_add(100000);
  EXPECT_EQ(ThreadPool::instance().stats().workers_started,
            std::max(before, static_cast<std::uint64_t>(hardware - 1)));
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
  // grain holds, at least one. Every split gives the oracle's result.
  Tensor parent(DType::f32, {1000, 1000}), b(DType::f32, {1000, 1000});
  std::mt19937_64 rng(5);
  test::fill_random(parent, rng);
  test::fill_random(b, rng);
  const TensorView a = transpose(parent);
  const std::vector<test::Expected> want = test::oracle(Op::add, a, b, {1000, 1000});
  for (const auto& [grain, pieces] : std::vector<std::pair<const char*, std::uint64_t>>{
           {"1000", 16}, {"200000", 8}, {"300000", 4}}) {
    set("BCAST_GRAIN", grain);
    reload();
    Tensor out(DType::f32, {1000, 1000});
    test::fill_sentinel(out);
    EXPECT_EQ(parts_of([&] { add(a, b, out); }), pieces) << "grain " << grain;
    EXPECT_EQ(test::oracle_mismatch(want, out), "") << "grain " << grain;
  }
}

TEST_F(Env, StreamMinBytesDecidesWhichOutputsGetStreamingStores) {
  // NOTE: [Streaming stores]: [2048,1] + [1,2048] f32 writes 16 MiB of out and
  // reads 8 KiB of each input: 16,793,600 bytes moved.
  const Tensor a(DType::f32, {2048, 1}), b(DType::f32, {1, 2048});
  const auto key = [&] {
    return kernel_key_for(Op::add, DType::f32, Layout::contiguous({2048, 2048}), a.layout(), b.layout());
  };
  if (test::host_streams()) {
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
    const std::uint64_t threshold = stream_threshold(target_for(TargetKind::host));
    EXPECT_GE(threshold, 1u << 20) << "auto is a last-level cache size";
    EXPECT_LT(threshold, kNeverStream);
    EXPECT_EQ(threshold, target_for(TargetKind::host).auto_stream_bytes(config::threads()));
    EXPECT_EQ(runtime_info().stream_min_bytes, threshold);
    EXPECT_THAT(runtime_info().stream_decision, HasSubstr("auto: "));
  } else {
    set("BCAST_STREAM_MIN_BYTES", "0");
    reload();
    EXPECT_THAT(key(), ::testing::Not(HasSubstr(".nt."))) << "the host target has no streaming stores";
  }
}

TEST_F(Env, CacheCapacityBoundsResidentKernels) {
  set("BCAST_CACHE_CAPACITY", "2");
  reload();
  for (Op op : {Op::add, Op::sub, Op::mul, Op::max}) binary(op, Tensor(DType::f32, {8}), Tensor(DType::f32, {8}));
  EXPECT_LE(kernel_cache_stats().resident, 2u);
  EXPECT_GE(kernel_cache_stats().evictions, 2u);
}

TEST_F(Env, CacheCapacityZeroKeepsNoKernelAndCallsStayCorrect) {
  clear_kernel_cache();  // the cache exists before the setting changes: the change must reach it
  set("BCAST_CACHE_DIR", "off");
  set("BCAST_CACHE_CAPACITY", "0");
  reload();
  for (const std::string& wrong : test::calls_of_one_key(Op::add)) EXPECT_EQ(wrong, "");
  const KernelCacheStats stats = kernel_cache_stats();
  EXPECT_EQ(stats.resident, 0u);
  EXPECT_EQ(stats.compiles, 3u) << "nothing kept: the key compiled for each call";
  EXPECT_EQ(stats.hits, 0u);
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

TEST_F(Env, DumpDirTakesAKernelWhoseKeyHasADivision) {
  // An expression's key is its text: "/" in a file's name would be a folder.
  const fs::path dump = scratch("division_dump");
  set("BCAST_CACHE_DIR", "off");
  set("BCAST_DUMP_DIR", dump.c_str());
  reload();
  clear_kernel_cache();
  const Tensor x = test::make(DType::f64, {2}, {1, 2});
  EXPECT_EQ(test::bytes_of(evaluate(Expr(x) / (Expr(x) + 1.0))),
            test::bytes_of(test::make(DType::f64, {2}, {0.5, 2.0 / 3})));
  std::set<std::string> dumps;
  if (fs::exists(dump))
    for (const auto& f : fs::directory_iterator(dump)) dumps.insert(f.path().filename().string());
  EXPECT_EQ(std::count_if(dumps.begin(), dumps.end(), [](const std::string& n) { return n.ends_with(".s"); }), 1)
      << ::testing::PrintToString(dumps);
  fs::remove_all(dump);
}

// .bck files in a folder and their total size.
std::pair<std::size_t, std::uintmax_t> kernel_files(const fs::path& folder) {
  std::size_t files = 0;
  std::uintmax_t bytes = 0;
  if (fs::exists(folder))
    for (const auto& f : fs::directory_iterator(folder))
      if (f.path().extension() == ".bck") ++files, bytes += f.file_size();
  return {files, bytes};
}

TEST_F(Env, DefaultCacheFolderIsXdgCacheHomeElseHome) {
  const fs::path xdg = scratch("xdg"), home = scratch("home");
  unset("BCAST_CACHE_DIR");
  set("XDG_CACHE_HOME", xdg.c_str());
  set("HOME", home.c_str());
  reload();
  EXPECT_EQ(config::cache_dir(), (xdg / "bcast").string());
  clear_kernel_cache();
  sub(Tensor(DType::i8, {3, 7}), Tensor(DType::i8, {7}));
  EXPECT_EQ(kernel_files(xdg / "bcast").first, 1u) << "the kernel was stored there";
  set("XDG_CACHE_HOME", "");  // empty counts as unset
  reload();
  EXPECT_EQ(config::cache_dir(), (home / ".cache" / "bcast").string());
  clear_kernel_cache();
  sub(Tensor(DType::i8, {3, 7}), Tensor(DType::i8, {7}));
  EXPECT_EQ(kernel_files(home / ".cache" / "bcast").first, 1u);
  unset("XDG_CACHE_HOME");
  reload();
  EXPECT_EQ(config::cache_dir(), (home / ".cache" / "bcast").string());
  set("BCAST_CACHE_DIR", "off");  // no folder left in use before removing them
  reload();
  fs::remove_all(xdg);
  fs::remove_all(home);
}

TEST_F(Env, CacheMaxMbBoundsTheDiskCache) {
  // Two old 600 KiB files fill the folder; storing one kernel then goes over
  // 1 MiB, and the least recently used file goes. Under 2 MiB both stay.
  const fs::path cache = scratch("max_mb");
  set("BCAST_CACHE_DIR", cache.c_str());
  const auto fill = [&] {
    fs::remove_all(cache);
    fs::create_directories(cache);
    fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
    for (const char* name : {"old", "older"}) {
      std::ofstream(cache / (std::string(name) + ".bck"), std::ios::binary) << std::string(600 << 10, 'x');
      fs::last_write_time(cache / (std::string(name) + ".bck"),
                          fs::file_time_type::clock::now() - std::chrono::hours(name == std::string("old") ? 1 : 2));
    }
  };
  for (const char* mb : {"2", "1"}) {
    set("BCAST_CACHE_MAX_MB", mb);
    reload();
    fill();
    clear_kernel_cache();
    mul(Tensor(DType::u8, {9, 4}), Tensor(DType::u8, {9, 1}));
    ASSERT_EQ(kernel_cache_stats().compiles, 1u);
    const bool bounded = std::string(mb) == "1";
    EXPECT_EQ(fs::exists(cache / "older.bck"), !bounded) << "BCAST_CACHE_MAX_MB=" << mb;
    EXPECT_TRUE(fs::exists(cache / "old.bck")) << "BCAST_CACHE_MAX_MB=" << mb;
    EXPECT_EQ(kernel_files(cache).first, 3u - bounded) << "the new kernel is kept";
    if (bounded) {
      EXPECT_LE(kernel_files(cache).second, std::uintmax_t{1} << 20);
    }
  }
  set("BCAST_CACHE_DIR", "off");
  reload();
  fs::remove_all(cache);
}

TEST_F(Env, AscendSettingsReachTheSimulator) {
  set("BCAST_CACHE_DIR", "off");
  set("BCAST_TARGET", "ascend-sim");
  set("BCAST_UB_SIZE", "2048");
  set("BCAST_BLOCK_NUM", "3");
  set("BCAST_DOUBLE_BUFFER", "0");
  reload();
  // a[i, j] = 50i + j and b[j] = 4096 (j + 1): every sum is exact in f32 and
  // tells which a and which b element went into it.
  Tensor a(DType::f32, {40, 50}), b(DType::f32, {50});
  for (std::int64_t i = 0; i < 2000; ++i) test::set(a, i, static_cast<double>(i));
  for (std::int64_t j = 0; j < 50; ++j) test::set(b, j, 4096.0 * static_cast<double>(j + 1));
  const Tensor c = add(a, b);
  for (std::int64_t i = 0; i < 40; ++i)
    for (std::int64_t j = 0; j < 50; ++j)
      ASSERT_EQ(test::get(c, 50 * i + j), static_cast<double>(50 * i + j + 4096 * (j + 1))) << "c[" << i << ", " << j
                                                                                             << "]";
  const AscendTrace t = last_ascend_trace();
  EXPECT_THAT(t.kernel, HasSubstr(".ascend-sim-910b."));
  EXPECT_EQ(t.blocks.size(), 3u);
  EXPECT_EQ(t.slots, 1);
  EXPECT_LE(t.ub_bytes, 2048);
  for (const AscendBlockTrace& block : t.blocks) EXPECT_LE(block.ub_high_water, 2048);
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
