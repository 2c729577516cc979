// The Ascend C writer: for a key of each broadcast type, the written source
// is its golden file (tests/ascend_c/golden/NAME.golden, byte for byte), says
// what a kernel engineer would write (NAME.check, FileCheck-style), compiles
// with clang against the strict declarations of the documented API
// (tests/ascend_c/strict/: __gm__ a real address space, each product's
// dtypes), compiles with the C++ compiler against our stub kernel_operator.h
// (tests/ascend_c/), and runs on the simulator to the LLVM kernel's results
// and call trace, bit for bit and call for call.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>

#include <fmt/format.h>

#include "ascend_c_writer.h"
#include "ascend_launch.h"
#include "ascend_lowering.h"
#include "ascend_product.h"
#include "bcast/expr.h"
#include "expr_kernel.h"
#include "kernel_key.h"
#include "key_codec.h"
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
    // Rows that fit a repeat: a call covers up to 255 of them (NOTE: [Rows in
    // repeats]); tiles of 300 rows, so each crosses a chunk.
    {"row_repeats", "910b", Op::mul, DType::f32, {1500, 24}, {24}},
    {"column_repeats", "910b", Op::add, DType::f16, {1, 1500, 5, 5}, {1, 1500, 1, 1}},
    // A row that is not resident (it changes along the outer level): its queue.
    {"row_per_tile", "910b", Op::sub, DType::f32, {4, 40, 24}, {4, 1, 24}},
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

std::string text_of(const fs::path& file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

// "" when `source` is the golden file of `name`, byte for byte. With
// BCAST_REGENERATE_GOLDEN=1 in the environment it writes the file instead
// and says so (a failure: only a run without the variable passes):
//   BCAST_REGENERATE_GOLDEN=1 build/tests/bcast_tests --gtest_filter='*AscendC*'
std::string golden_mismatch(const std::string& name, const std::string& source) {
  const fs::path file = fs::path(BCAST_TEST_ASCEND_C_DIR) / "golden" / (name + ".golden");
  if (std::getenv("BCAST_REGENERATE_GOLDEN") != nullptr) {
    std::ofstream(file) << source;
    return "regenerated " + file.string() + ": review the diff and run again without BCAST_REGENERATE_GOLDEN";
  }
  if (!fs::exists(file)) return "no golden file " + file.string();
  std::istringstream want(text_of(file)), got(source);
  std::string w, g;
  for (int line = 1;; ++line) {
    const bool more_w = static_cast<bool>(std::getline(want, w)), more_g = static_cast<bool>(std::getline(got, g));
    if (!more_w && !more_g) return "";
    if (more_w != more_g || w != g)
      return fmt::format(
          "{}:{}: the golden file has\n  {}\nthe writer writes\n  {}\n(if the change is meant, "
          "regenerate with BCAST_REGENERATE_GOLDEN=1 and review the diff)",
          file.string(), line, more_w ? w : "(the end)", more_g ? g : "(the end)");
  }
}

// "" when `source` compiles, syntax only, with clang against the strict
// declarations for `product` (-Wall -Werror: an unused variable fails too).
std::string strict_errors(const std::string& source, const ascend::Product& product, const fs::path& dir) {
  if (std::string_view(BCAST_TEST_CLANGXX).empty())
    return "no clang++-19 was found when bcast was configured (tools/setup-deps.sh installs clang-19)";
  const fs::path src = dir / "strict.cpp", log = dir / "strict.log";
  std::ofstream(src) << source;
  const std::string command =
      fmt::format("{} -fsyntax-only -std=c++17 -Wall -Wextra -Werror -D__CCE_AICORE__={} -I{}/strict {} > {} 2>&1",
                  BCAST_TEST_CLANGXX, product.aicore, BCAST_TEST_ASCEND_C_DIR, src.string(), log.string());
  if (std::system(command.c_str()) == 0) return "";
  return fmt::format("{} does not compile against the strict declarations for {} (__CCE_AICORE__={}):\n{}",
                     src.string(), product.name, product.aicore, text_of(log));
}

// Compiles `source` with an entry of the launcher's kernel ABI into a shared
// object, and loads it; null with `error` when it does not compile.
ascend::KernelFn compile_and_load(const std::string& source, int inputs, ascend::AscendCForm form, const fs::path& dir,
                                  std::string& error) {
  std::string args;
  for (int k = 0; k < inputs; ++k) args += fmt::format("(GM_ADDR)gm[{}], ", k + 1);
  args = form == ascend::AscendCForm::direct ? "(GM_ADDR)gm[0], " + args + "(GM_ADDR)t"
                                             : args + "(GM_ADDR)gm[0], nullptr, (GM_ADDR)t";
  const std::string entry = fmt::format(
      "\n// The test's entry: the launcher's kernel ABI.\n"
      "static_assert(offsetof(BcastTilingData, row_resident) == offsetof(bcast::ascend::TilingData, row_resident));\n"
      "static_assert(sizeof(BcastTilingData) <= offsetof(bcast::ascend::TilingData, ub_queue));\n"
      "extern \"C\" void bcast_c_entry(int64_t idx, int64_t num, void* const* gm, const bcast::ascend::TilingData* t, "
      "void* ctx) {{\n  AscendC::stub::enter(idx, num, ctx);\n  bcast_kernel({});\n}}\n",
      args);
  // A file of its own a form: dlopen hands back a path it has loaded already.
  const std::string stem = form == ascend::AscendCForm::direct ? "direct" : "operator";
  const fs::path src = dir / (stem + ".cpp"), so = dir / (stem + ".so"), log = dir / (stem + ".log");
  std::ofstream(src) << source << entry;
  const std::string command = fmt::format("{} -std=c++20 -O1 -shared -fPIC {} {} -o {} > {} 2>&1", BCAST_TEST_CXX,
                                          BCAST_TEST_ASCEND_C_INCLUDES, src.string(), so.string(), log.string());
  if (std::system(command.c_str()) != 0)
    return error = "the written source does not compile:\n" + text_of(log), nullptr;
  void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return error = dlerror(), nullptr;
  return reinterpret_cast<ascend::KernelFn>(dlsym(handle, "bcast_c_entry"));
}

// Runs the LLVM kernel of `key` and the written source on the simulator with
// every call recorded; "" when they make the same calls and write the same
// bytes. `views`: out, then the inputs; the written kernel writes `c_out`.
std::string compare_written_with_llvm(const KernelKey& key, const ascend::Product& product, const std::string& source,
                                      const BroadcastPlan& plan, std::vector<TensorView> views, const TensorView& c_out,
                                      std::span<const std::uint64_t> scalars, const fs::path& dir,
                                      ascend::AscendCForm form = ascend::AscendCForm::direct) {
  const ascend::Lowering lowering = ascend::lower_for_ascend(key, product);
  const ascend::SimConfig config{.product = &product, .ub_size = product.ub_bytes, .block_num = 5,
                                 .double_buffer = true, .record_calls = true};
  const provider::Kernel llvm = provider::kernel_for(key, target_for(TargetKind::ascend_sim));
  if (llvm.entry == nullptr) return "no LLVM kernel";
  const ascend::Launch want =
      ascend::launch(reinterpret_cast<ascend::KernelFn>(llvm.entry), lowering, plan, views, scalars, config);
  if (!want.error.empty()) return "the LLVM kernel: " + want.error;
  std::string why;
  const ascend::KernelFn written = compile_and_load(source, static_cast<int>(views.size()) - 1, form, dir, why);
  if (written == nullptr) return why + "\n" + source;
  const TensorView llvm_out = views[0];
  views[0] = c_out;
  const ascend::Launch got = ascend::launch(written, lowering, plan, views, scalars, config);
  if (!got.error.empty()) return "the written kernel: " + got.error;
  std::size_t calls = 0;
  for (std::size_t blk = 0; blk < want.calls.size(); ++blk) {
    if (got.calls[blk].size() != want.calls[blk].size())
      return fmt::format("block {}: {} calls written, {} in LLVM", blk, got.calls[blk].size(), want.calls[blk].size());
    for (std::size_t i = 0; i < want.calls[blk].size(); ++i)
      if (got.calls[blk][i] != want.calls[blk][i])
        return fmt::format("block {}, call {}: written {}, LLVM {}", blk, i, got.calls[blk][i], want.calls[blk][i]);
    calls += want.calls[blk].size();
  }
  if (calls < 10) return fmt::format("only {} calls", calls);
  if (test::bytes_of(c_out) != test::bytes_of(llvm_out)) return "the results differ";
  return "";
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
  const BroadcastPlan plan = plan_broadcast(llvm_out.layout(), a.layout(), b.layout());
  const Target& target = target_for(TargetKind::ascend_sim);
  const KernelKey key = make_kernel_key(target, c.op, c.dtype, plan, provider::current_codegen_id());
  const ascend::Lowering lowering = ascend::lower_for_ascend(key, product);
  ASSERT_EQ(lowering.refused, "");

  for (const ascend::AscendCForm form : {ascend::AscendCForm::direct, ascend::AscendCForm::operator_project}) {
    const bool direct = form == ascend::AscendCForm::direct;
    SCOPED_TRACE(direct ? "direct launch" : "operator project");
    // The source: its golden file, its checks, the strict declarations.
    std::string why;
    const std::optional<std::string> source = ascend::write_ascend_c(key, product, why, form);
    ASSERT_TRUE(source.has_value()) << why;
    EXPECT_EQ(golden_mismatch(direct ? c.name : c.name + ".operator", *source), "");
    if (direct)
      EXPECT_EQ(file_check(*source, fs::path(BCAST_TEST_ASCEND_C_DIR) / "golden" / (c.name + ".check")), "") << *source;
    EXPECT_EQ(strict_errors(*source, product, dir_), "");

    // Both kernels on the simulator, every call recorded.
    std::memset(c_out.data(), 0x5a, c_out.nbytes());
    ASSERT_EQ(compare_written_with_llvm(key, product, *source, plan, {llvm_out, a, b}, c_out, {}, dir_, form), "");
    EXPECT_EQ(test::oracle_mismatch(c.op, a, b, c_out), "");
  }
}

INSTANTIATE_TEST_SUITE_P(BroadcastTypes, AscendC, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

// An expression's kernel too: the u8 image normalisation (two exact Casts,
// then a column mean and std), written, compiled and run call for call.
TEST(AscendCExpressions, TheImageNormalisationIsTheLlvmKernelCallForCall) {
  const test::ScopedSetting cache("BCAST_CACHE_DIR", "off");
  const test::ScopedSetting target_setting("BCAST_TARGET", "ascend-sim");
  const ascend::Product& product = *ascend::find_product("910b");
  std::mt19937_64 rng(8);
  Tensor img(DType::u8, {2, 3, 8, 40}), mean(DType::f32, {1, 3, 1, 1}), scale(DType::f32, {1, 3, 1, 1});
  for (Tensor* t : {&img, &mean, &scale}) test::fill_random(*t, rng);
  const Expr e = parse_expression("(f32(img) - mean) / std", {{"img", img}, {"mean", mean}, {"std", scale}});
  const Tensor host = evaluate(e);  // on the simulator: its key, parsed back
  const std::optional<KernelKey> key = parse_kernel_key(last_ascend_trace().kernel, provider::current_codegen_id());
  ASSERT_TRUE(key.has_value()) << last_ascend_trace().kernel << " " << last_ascend_trace().fallback;
  // The same plan, the inputs in the order the expression numbers them.
  Tensor llvm_out(DType::f32, img.shape()), c_out(DType::f32, img.shape());
  const Layout* inputs[] = {&img.layout(), &mean.layout(), &scale.layout()};
  const BroadcastPlan plan = plan_broadcast(llvm_out.layout(), inputs);
  const ExprKernelSpec& spec = expr_kernel_spec(key->expr);
  const Target& target = target_for(TargetKind::ascend_sim);
  ASSERT_EQ(make_expr_kernel_key(target, spec.structure, spec.inputs, spec.scalars, plan, provider::current_codegen_id()),
            *key);
  const ascend::Lowering lowering = ascend::lower_for_ascend(*key, product);
  ASSERT_EQ(lowering.refused, "");
  std::string why;
  const std::optional<std::string> source = ascend::write_ascend_c(*key, product, why);
  ASSERT_TRUE(source.has_value()) << why;
  EXPECT_THAT(*source, ::testing::HasSubstr(
                           "Cast(step0.Get<half>()[r * t.pitch], x0[r * t.pitch], RoundMode::CAST_NONE, colsHere);"));

  const fs::path dir = fs::temp_directory_path() / fmt::format("bcast-ascend-c-{}-expression", getpid());
  fs::create_directories(dir);
  EXPECT_EQ(golden_mismatch("image_normalisation", *source), "");
  EXPECT_EQ(strict_errors(*source, product, dir), "");
  EXPECT_EQ(compare_written_with_llvm(*key, product, *source, plan, {llvm_out, img, mean, scale}, c_out, {}, dir), "");
  fs::remove_all(dir);
  EXPECT_EQ(test::bytes_of(c_out), test::bytes_of(host));
}

// Scalars computed on the scalar unit are written too: x * (2.5 + s) - 1
// adds two scalars once a block, then Muls and Adds.
TEST(AscendCExpressions, ScalarUnitStepsAreWritten) {
  const test::ScopedSetting cache("BCAST_CACHE_DIR", "off");
  const test::ScopedSetting target_setting("BCAST_TARGET", "ascend-sim");
  const ascend::Product& product = *ascend::find_product("910b");
  Tensor x(DType::f32, {16, 64});
  std::mt19937_64 rng(2);
  test::fill_random(x, rng);
  const Expr e = parse_expression("x * (2.5 + s) - 1", {{"x", x}, {"s", ExprOperand(0.75)}});
  const Tensor host = evaluate(e);
  ASSERT_EQ(last_ascend_trace().fallback, "");
  const std::optional<KernelKey> key = parse_kernel_key(last_ascend_trace().kernel, provider::current_codegen_id());
  ASSERT_TRUE(key.has_value());
  std::string why;
  const std::optional<std::string> source = ascend::write_ascend_c(*key, product, why);
  ASSERT_TRUE(source.has_value()) << why;
  EXPECT_THAT(*source, ::testing::HasSubstr(" = t.arg0 + t.arg1;"));
  EXPECT_THAT(*source, ::testing::HasSubstr("Muls("));
  // The scalars as the call passes them: 2.5 and 0.75 (weak floats, double), 1 (a weak int, int64_t).
  const std::uint64_t scalars[] = {std::bit_cast<std::uint64_t>(2.5), std::bit_cast<std::uint64_t>(0.75), 1};
  Tensor llvm_out(DType::f32, x.shape()), c_out(DType::f32, x.shape());
  const Layout* inputs[] = {&x.layout()};
  const BroadcastPlan plan = plan_broadcast(llvm_out.layout(), inputs);
  const fs::path dir = fs::temp_directory_path() / fmt::format("bcast-ascend-c-{}-scalars", getpid());
  fs::create_directories(dir);
  EXPECT_EQ(golden_mismatch("scalar_unit", *source), "");
  EXPECT_EQ(strict_errors(*source, product, dir), "");
  EXPECT_EQ(compare_written_with_llvm(*key, product, *source, plan, {llvm_out, x}, c_out, scalars, dir), "");
  fs::remove_all(dir);
  EXPECT_EQ(test::bytes_of(c_out), test::bytes_of(host));
}

// Every instruction and dtype the product table lets a kernel use, and every
// Cast pair, is one the documentation lists for the product: the strict
// declarations' own tables (written from the documentation, not from ours),
// asked with a static_assert each.
TEST(AscendCStrict, TheProductTableIsWithinTheDocumentedOne) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("bcast-ascend-c-{}-table", getpid());
  fs::create_directories(dir);
  for (const ascend::Product& p : ascend::products()) {
    std::string probe = "#include \"kernel_operator.h\"\nusing namespace AscendC::product;\n";
    int asked = 0;
    auto ask = [&](std::string_view tag, const std::string& types) {
      probe +=
          fmt::format("static_assert(supports<{}, {}>::value, \"{}: {} on {}\");\n", tag, types, p.name, tag, types);
      ++asked;
    };
    for (int i = 0; i < ascend::kNumInstrs; ++i) {
      const auto instr = static_cast<ascend::Instr>(i);
      if (instr == ascend::Instr::GetValue || instr == ascend::Instr::Cast) continue;
      for (int d = 0; d < kNumDTypes; ++d) {
        const auto t = static_cast<DType>(d);
        const std::optional<std::string_view> type = ascend::ascend_type_name(t);
        if (!type || !p.has(instr, t)) continue;
        const std::string name(ascend::instr_name(instr));
        if (name.starts_with("WholeReduce"))
          ask("WholeReduce", fmt::format("{0}, {0}", *type));
        else if (instr == ascend::Instr::Compare || instr == ascend::Instr::Select)
          ask(name, fmt::format("{}, uint8_t", *type));
        else
          ask(name, std::string(*type));
      }
    }
    for (const ascend::CastForm& c : p.casts)
      ask("Cast", fmt::format("{}, {}", *ascend::ascend_type_name(c.to), *ascend::ascend_type_name(c.from)));
    EXPECT_GT(asked, 60) << p.name;
    EXPECT_EQ(strict_errors(probe, p, dir), "");
  }
  fs::remove_all(dir);
}

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
