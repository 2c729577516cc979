// The Ascend C writer: for a key of each broadcast type, the written source
// says what a kernel engineer would write (golden checks, FileCheck-style,
// in tests/ascend_c/golden/), compiles with the C++ compiler against our stub
// kernel_operator.h (tests/ascend_c/), and runs on the simulator to the LLVM
// kernel's results and call trace, bit for bit and call for call.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "ascend_c_writer.h"
#include "ascend_launch.h"
#include "ascend_lowering.h"
#include "ascend_product.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "oracle.h"
#include "targets.h"
#include "test_support.h"

namespace bcast {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;  // the golden file's
  std::string product;
  Op op;
  DType dtype;
  Shape a, b;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

const Case kCases[] = {
    {"stream", "910b", Op::add, DType::f16, {64, 100}, {64, 100}},
    {"row", "910b", Op::mul, DType::f32, {40, 96}, {96}},
    {"column", "910b", Op::add, DType::f16, {4, 16, 30, 30}, {1, 16, 1, 1}},
    {"scalar", "910b", Op::sub, DType::f32, {64, 80}, {1}},
    {"bf16_through_float", "910b", Op::add, DType::bf16, {16, 64}, {16, 64}},
    {"data_copy_310p", "310p", Op::max, DType::f32, {32, 64}, {64}},
    {"gather", "910b", Op::add, DType::f32, {48, 64}, {48, 64}},  // a is transposed: see transposed_a
    {"compare", "910b", Op::lt, DType::f32, {40, 64}, {40, 64}},
};

// A check file's lines, in order: "CHECK: text" must appear after the last
// match; "CHECK-NOT: text" must appear nowhere in the source. "#" comments.
std::string file_check(const std::string& source, const fs::path& check_file) {
  std::ifstream in(check_file);
  if (!in) return "no check file " + check_file.string();
  std::string line;
  std::size_t at = 0;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.starts_with("CHECK: ")) {
      const std::string want = line.substr(7);
      const std::size_t found = source.find(want, at);
      if (found == std::string::npos) return fmt::format("{}:{}: not found after offset {}: {}", check_file.string(), n, at, want);
      at = found + want.size();
    } else if (line.starts_with("CHECK-NOT: ")) {
      const std::string banned = line.substr(11);
      if (source.find(banned) != std::string::npos) return fmt::format("{}:{}: found: {}", check_file.string(), n, banned);
    }
  }
  return "";
}

// Compiles `source` with an entry of the launcher's kernel ABI into a shared
// object, and loads it; null with `error` when it does not compile.
ascend::KernelFn compile_and_load(const std::string& source, int inputs, const fs::path& dir, std::string& error) {
  std::string args = "(GM_ADDR)gm[0]";
  for (int k = 0; k < inputs; ++k) args += fmt::format(", (GM_ADDR)gm[{}]", k + 1);
  const std::string entry = fmt::format(
      "\n// The test's entry: the launcher's kernel ABI.\n"
      "static_assert(sizeof(BcastTilingData) == sizeof(bcast::ascend::TilingData));\n"
      "extern \"C\" void bcast_c_entry(int64_t idx, int64_t num, void* const* gm, const bcast::ascend::TilingData* t, "
      "void* ctx) {{\n  AscendC::stub::enter(idx, num, ctx);\n  bcast_kernel({}, (GM_ADDR)t);\n}}\n",
      args);
  const fs::path src = dir / "kernel.cpp", so = dir / "kernel.so", log = dir / "compile.log";
  std::ofstream(src) << source << entry;
  const std::string command = fmt::format("{} -std=c++20 -O1 -shared -fPIC {} {} -o {} > {} 2>&1", BCAST_TEST_CXX,
                                          BCAST_TEST_ASCEND_C_INCLUDES, src.string(), so.string(), log.string());
  if (std::system(command.c_str()) != 0) {
    std::stringstream text;
    text << std::ifstream(log).rdbuf();
    error = "the written source does not compile:\n" + text.str();
    return nullptr;
  }
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return error = dlerror(), nullptr;
  return reinterpret_cast<ascend::KernelFn>(dlsym(handle, "bcast_c_entry"));
}

class AscendC : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    set_cache_dir("off");
    set_setting("BCAST_ASCEND_PRODUCT", GetParam().product);
    dir_ = fs::temp_directory_path() / fmt::format("bcast-ascend-c-{}-{}", getpid(), GetParam().name);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    set_setting("BCAST_ASCEND_PRODUCT", "910b");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_P(AscendC, TheWrittenKernelIsTheLlvmKernelCallForCall) {
  const Case& c = GetParam();
  const ascend::Product& product = *ascend::find_product(c.product);
  std::mt19937_64 rng(3);
  // The gather case reads a through a transposed view.
  const bool transposed_a = c.name == "gather";
  Tensor a_storage(c.dtype, transposed_a ? Shape{c.a[1], c.a[0]} : c.a), b(c.dtype, c.b);
  test::fill_random(a_storage, rng);
  test::fill_random(b, rng);
  const TensorView a = transposed_a ? permute(a_storage, {1, 0}) : a_storage.view();
  const Shape out_shape = broadcast_infer_shape(c.a, c.b);
  Tensor llvm_out(result_dtype(c.op, c.dtype), out_shape), c_out(result_dtype(c.op, c.dtype), out_shape);
  const BroadcastPlan plan = plan_broadcast(llvm_out.layout(), a.layout, b.layout());
  const Target& target = target_for(TargetKind::ascend_sim);
  const KernelKey key = make_kernel_key(target, c.op, c.dtype, plan, provider::current_codegen_id());
  const ascend::Lowering lowering = ascend::lower_for_ascend(key, product);
  ASSERT_EQ(lowering.refused, "");

  // The source, against its golden checks.
  std::string why;
  const std::optional<std::string> source = ascend::write_ascend_c(key, product, why);
  ASSERT_TRUE(source.has_value()) << why;
  EXPECT_EQ(file_check(*source, fs::path(BCAST_TEST_ASCEND_C_DIR) / "golden" / (c.name + ".check")), "") << *source;

  // Both kernels on the simulator, every call recorded.
  const ascend::SimConfig config{.product = &product, .ub_size = product.ub_bytes, .block_num = 5,
                                 .double_buffer = true, .record_calls = true};
  const provider::Kernel llvm = provider::kernel_for(key, target);
  ASSERT_NE(llvm.entry, nullptr);
  const TensorView llvm_views[] = {llvm_out, a, b}, c_views[] = {c_out, a, b};
  const ascend::Launch want = ascend::launch(reinterpret_cast<ascend::KernelFn>(llvm.entry), lowering, plan,
                                             llvm_views, {}, config);
  ASSERT_EQ(want.error, "");
  const ascend::KernelFn written = compile_and_load(*source, 2, dir_, why);
  ASSERT_NE(written, nullptr) << why << "\n" << *source;
  const ascend::Launch got = ascend::launch(written, lowering, plan, c_views, {}, config);
  ASSERT_EQ(got.error, "") << *source;

  ASSERT_EQ(got.calls.size(), want.calls.size());
  std::size_t calls = 0;
  for (std::size_t blk = 0; blk < want.calls.size(); ++blk) {
    ASSERT_EQ(got.calls[blk].size(), want.calls[blk].size()) << "block " << blk;
    for (std::size_t i = 0; i < want.calls[blk].size(); ++i)
      ASSERT_EQ(got.calls[blk][i], want.calls[blk][i]) << "block " << blk << ", call " << i;
    calls += want.calls[blk].size();
  }
  EXPECT_GT(calls, 20u);
  EXPECT_EQ(test::bytes_of(c_out), test::bytes_of(llvm_out));
  EXPECT_EQ(test::oracle_mismatch(c.op, a, b, c_out), "");
}

INSTANTIATE_TEST_SUITE_P(BroadcastTypes, AscendC, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

// What the writer cannot write yet, it says.
TEST(AscendCWriter, SaysWhyItWritesNothing) {
  const ascend::Product& product = *ascend::find_product("910b");
  const test::ScopedSetting target("BCAST_TARGET", "ascend-sim");
  Tensor a(DType::i8, {4, 8}), b(DType::i8, {4, 8});
  const BroadcastPlan plan = plan_broadcast(a.layout(), a.layout(), b.layout());
  const KernelKey key =
      make_kernel_key(target_for(TargetKind::ascend_sim), Op::add, DType::i8, plan, provider::current_codegen_id());
  std::string why;
  EXPECT_FALSE(ascend::write_ascend_c(key, product, why).has_value());
  EXPECT_EQ(why, "910b: Add has no int8_t");
}

}  // namespace
}  // namespace bcast
