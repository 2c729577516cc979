// Logging and BCAST_VERBOSE (NOTE: [Logging], NOTE: [Verbose lines]): the
// loggers are registered with spdlog, a host's handler takes every line and
// gives them back, BCAST_VERBOSE prints one line per prepare and per call in
// one format (and at 2 one per compile), and the debug and trace levels name
// the decisions a call made: its key and variants, where its kernel came
// from, the compile's phases, its fallback and why, how it was split.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "config.h"
#include "fault_injection.h"
#include "logging.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

struct Line {
  std::string logger;
  LogLevel level;
  std::string message;
};

// Collects every line through set_log_handler; puts the settings the test
// changed and stderr back afterwards.
class Logging : public ::testing::Test {
 protected:
  void SetUp() override {
    set_log_handler([this](const LogRecord& r) {
      const std::lock_guard lock(mutex_);
      lines_.push_back({std::string(r.logger), r.level, std::string(r.message)});
    });
    set_cache_dir("off");
    clear_kernel_cache();
  }
  void TearDown() override {
    set_log_handler({});
    config::reload_from_environment();
  }
  // The messages of `logger`'s lines.
  std::vector<std::string> of(std::string_view logger) {
    const std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const Line& l : lines_)
      if (l.logger == logger) out.push_back(l.message);
    return out;
  }
  // Whether some line of `logger` contains every one of `parts`.
  bool logged(std::string_view logger, std::initializer_list<std::string_view> parts) {
    for (const std::string& m : of(logger)) {
      bool all = true;
      for (std::string_view p : parts) all = all && m.find(p) != std::string::npos;
      if (all) return true;
    }
    return false;
  }
  std::string dump() {
    const std::lock_guard lock(mutex_);
    std::string text;
    for (const Line& l : lines_) text += "[" + l.logger + "] " + l.message + "\n";
    return text;
  }

 private:
  std::mutex mutex_;
  std::vector<Line> lines_;
};

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string f;
  std::istringstream in(line);
  while (std::getline(in, f, ';')) out.push_back(f);
  if (!line.empty() && line.back() == ';') out.emplace_back();
  return out;
}

TEST_F(Logging, LoggersAreRegisteredWithSpdlogByTheirNames) {
  EXPECT_EQ(spdlog::get("bcast").get(), &logging::core());
  EXPECT_EQ(spdlog::get("bcast.jit").get(), &logging::jit());
  EXPECT_EQ(spdlog::get("bcast.verbose").get(), &logging::verbose());
  EXPECT_THAT(kLoggerNames, ::testing::ElementsAre("bcast", "bcast.jit", "bcast.verbose"));
}

// A warning (an invalid setting) reaches the handler with its logger and
// level and nothing reaches stderr; with the handler removed, it is stderr's.
TEST_F(Logging, AHandlerTakesEveryLineAndGivesThemBack) {
  ::setenv("BCAST_GRAIN", "lots", 1);
  ::testing::internal::CaptureStderr();
  config::reload_from_environment();
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(logged("bcast", {"BCAST_GRAIN=lots is not valid"})) << dump();
  set_log_handler({});
  ::testing::internal::CaptureStderr();
  config::reload_from_environment();
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("[bcast] warning: BCAST_GRAIN=lots is not valid"));
  ::unsetenv("BCAST_GRAIN");
}

// NOTE: [Verbose lines]: a create line per prepare, an exec line per call,
// from all four ways in, each with the same twelve fields.
TEST_F(Logging, VerboseOnePrintsALinePerPrepareAndPerCall) {
  set_verbose(1);
  const Tensor a = test::make(DType::f32, {4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor b = test::make(DType::f32, {3}, {1, 2, 3});
  (void)add(a, b);
  const PreparedOp op = prepare(Op::mul, DType::f32, a.layout(), b.layout());
  (void)op(a, b);
  (void)op(a, b);
  const Expr e = Expr(a) * 2.0 + Expr(b);
  (void)evaluate(e);
  const PreparedExpr prepared = prepare(e);
  (void)prepared();
  const std::vector<std::string> lines = of("bcast.verbose");
  std::vector<std::string> events;
  for (const std::string& l : lines) {
    const std::vector<std::string> f = fields(l);
    ASSERT_EQ(f.size(), 12u) << l;
    EXPECT_EQ(f[0], "bcast_verbose");
    events.push_back(f[1] + " " + f[2] + " " + f[3]);
    EXPECT_EQ(f[4], "f32[4,3] f32[3]") << l;
    EXPECT_EQ(f[5], "f32[4,3]") << l;
    EXPECT_EQ(f[6], "[expand_b,same]") << l;
    EXPECT_TRUE(std::regex_match(f[9], std::regex(f[1] == "create" ? "0" : "[1-9][0-9]*"))) << l;
    EXPECT_TRUE(std::regex_match(f[10], std::regex(R"([0-9]+\.[0-9])"))) << l;
    EXPECT_EQ(f[11].empty(), f[3] != "expr") << l;
  }
  EXPECT_EQ(events, (std::vector<std::string>{"exec op add", "create prepared mul", "exec prepared mul",
                                              "exec prepared mul", "exec expr expr", "create prepared_expr expr",
                                              "exec prepared_expr expr"}))
      << dump();
  EXPECT_TRUE(logged("bcast.verbose", {"exec;op;add;", ";add.f32.[expand_b,same]", ";compiled;1;"})) << dump();
}

TEST_F(Logging, VerboseZeroPrintsNothing) {
  set_verbose(0);
  const PreparedOp op = prepare(Op::add, DType::f32, Layout::contiguous({2}), Layout::contiguous({2}));
  (void)op(Tensor(DType::f32, {2}), Tensor(DType::f32, {2}));
  EXPECT_TRUE(of("bcast.verbose").empty()) << dump();
}

// BCAST_VERBOSE=2: a compile line per compile, its phases adding up to its
// total, and the failure's reason when it fails.
TEST_F(Logging, VerboseTwoAddsACompileLinePerCompile) {
  set_verbose(2);
  (void)sub(Tensor(DType::f32, {5, 2}), Tensor(DType::f32, {5, 1}));
  {
    const fault::Armed failing(fault::Fault::compile);
    (void)sub(Tensor(DType::i16, {5, 2}), Tensor(DType::i16, {5, 1}));
  }
  std::vector<std::vector<std::string>> compiles;
  for (const std::string& l : of("bcast.verbose"))
    if (l.starts_with("bcast_verbose;compile;")) compiles.push_back(fields(l));
  ASSERT_EQ(compiles.size(), 2u) << dump();
  const std::vector<std::string>& ok = compiles[0];
  ASSERT_EQ(ok.size(), 8u);
  EXPECT_EQ(ok[2], "compiled");
  EXPECT_THAT(ok[3], ::testing::StartsWith("sub.f32.[same,expand_b]"));
  EXPECT_EQ(ok[4], "ok");
  double sum = 0;
  for (const char* phase : {"setup=", "target_machine=", "emit_ir=", "verify=", "optimise=", "codegen=", "link=", "read="}) {
    const std::size_t at = ok[6].find(phase);
    ASSERT_NE(at, std::string::npos) << ok[6];
    sum += std::stod(ok[6].substr(at + std::strlen(phase)));
  }
  EXPECT_NEAR(sum, std::stod(ok[5]), 0.5);  // each rounded to 0.1 us
  EXPECT_EQ(ok[7], "");
  EXPECT_EQ(compiles[1][4], "failed");
  EXPECT_THAT(compiles[1][7], HasSubstr("fault"));
}

// BCAST_LOG_LEVEL=debug and trace: what a user debugging performance needs.
TEST_F(Logging, DebugAndTraceNameTheCallsDecisions) {
  set_log_level("trace");
  set_num_threads(2);
  const Tensor big(DType::f32, {600, 1000}), row(DType::f32, {1000});
  (void)add(big, row);  // a cold compile, split across threads
  const std::string key = "add.f32.[expand_b,same]";
  EXPECT_TRUE(logged("bcast.jit", {"key " + key, "generic nest (NOTE: [Additive offsets])", "extents [600, 1000]"}))
      << dump();
  EXPECT_TRUE(logged("bcast.jit", {"look-up " + key, "in neither cache; compiled"})) << dump();
  EXPECT_TRUE(logged("bcast.jit", {key, "compiled in", "codegen=", "bytes of code"})) << dump();
  EXPECT_TRUE(logged("bcast", {"split 600000 elements into", "for 2 threads", "ran parts"})) << dump();
  clear_kernel_cache();
  (void)add(Tensor(DType::f32, {7}), Tensor(DType::f32, {7}));
  (void)add(Tensor(DType::f32, {7}), Tensor(DType::f32, {7}));  // the call memo: no look-up, no line
  set_jit_enabled(false);
  (void)mul(Tensor(DType::f32, {3}), Tensor(DType::f32, {3}));
  set_jit_enabled(true);
  {
    const fault::Armed failing(fault::Fault::compile);
    (void)sub(Tensor(DType::i16, {5, 2}), Tensor(DType::i16, {5, 1}));
  }
  EXPECT_TRUE(logged("bcast", {"mul.f32 [same]: the JIT is off (BCAST_JIT=0); the call runs on the reference executor"}))
      << dump();
  EXPECT_TRUE(logged("bcast", {"sub.i16.[same,expand_b]", "its compile failed; the call runs on the reference executor"}))
      << dump();
  EXPECT_TRUE(logged("bcast.jit", {"sub.i16.[same,expand_b]", "compiling failed"})) << dump();
  // In memory: a trace line, seen at trace and not at debug.
  (void)prepare(Op::add, DType::f32, Layout::contiguous({7}), Layout::contiguous({7}));
  EXPECT_TRUE(logged("bcast.jit", {"look-up add.f32.[same]", ": in memory"})) << dump();
}

TEST_F(Logging, WarnShowsNoDecisions) {
  set_log_level("warn");
  (void)add(Tensor(DType::f32, {600, 1000}), Tensor(DType::f32, {1000}));
  EXPECT_TRUE(of("bcast").empty() && of("bcast.jit").empty()) << dump();
}

}  // namespace
}  // namespace bcast
