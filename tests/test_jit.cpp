// The JIT: generated code really is additive and vectorised, and JIT kernels
// equal the reference executor bit for bit on random cases of every op, dtype
// and broadcast pattern.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include <fmt/format.h>

#include "codegen_settings.h"
#include "compile/host_compiler.h"
#include "dispatch.h"
#include "executor.h"
#include "expr_kernel.h"
#include "function_table.h"
#include "host_target.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "key_codec.h"
#include "math_library.h"
#include "math_recipes.h"
#include "oracle.h"
#include "reduce_executor.h"
#include "reduce_plan.h"
#include "reference_executor.h"
#include "short_rows.h"
#include "targets.h"
#include "test_support.h"
#include "thread_pool.h"

namespace bcast {
namespace {

using DC = DimCode;

KernelKey key_for(Op op, DType dtype, const BroadcastType& type) {
  return make_kernel_key(target_for(TargetKind::host), op, dtype, type, provider::current_codegen_id());
}

// ---- generated code ----

// NOTE: [Additive offsets] in the IR: no multiply or shift anywhere, and an
// address is a GEP over one element (scaled by its size) or over i8, never
// over an aggregate: a GEP over [N x T] multiplies its index by N elements, a
// stride that the first check cannot see. Fixed-row kernels step their key's
// rows of m elements as [m x T], named in `rows`.
void expect_additive(const std::string& ir, const std::string& label, const std::set<std::string>& rows = {}) {
  EXPECT_FALSE(std::regex_search(ir, std::regex(R"(= (mul|shl|fmul)\b)"))) << label << "\n" << ir;
  const std::regex gep(R"(getelementptr (?:inbounds )?([^,]+), )");
  const std::regex one_element(R"(i(8|16|32|64)|half|bfloat|float|double)");
  int geps = 0;
  for (auto it = std::sregex_iterator(ir.begin(), ir.end(), gep); it != std::sregex_iterator(); ++it, ++geps) {
    const std::string type = (*it)[1];
    EXPECT_TRUE(std::regex_match(type, one_element) || rows.contains(type)) << label << ": a GEP over " << type;
  }
  EXPECT_GT(geps, 0) << label;
}

TEST(GeneratedCode, LoopNestHasNoMultiplication) {
  // Strided operands exercise the running offsets of the inner loop too.
  std::vector<KernelKey> keys{key_for(Op::add, DType::f32, {DC::same}),
                              key_for(Op::add, DType::f32, {DC::expand_b, DC::same}),
                              key_for(Op::add, DType::i64, {DC::same, DC::expand_a, DC::same, DC::expand_b})};
  KernelKey strided = key_for(Op::sub, DType::f64, {DC::expand_a, DC::same, DC::expand_b, DC::same});
  strided.inner = {InnerStride::strided, InnerStride::strided, InnerStride::strided};
  keys.push_back(strided);
  for (const KernelKey& key : keys) {
    const std::string ir = jit::kernel_ir(key, /*optimized=*/false);
    ASSERT_THAT(ir, ::testing::HasSubstr("define void @\"" + key.to_string() + "\""));
    // No multiply of any kind, and no shift that could scale an index.
    expect_additive(ir, key.to_string());
  }
}

TEST(GeneratedCode, FixedRowKernelsAreAdditiveAndVectorised) {
  // NOTE: [Fixed rows]: [R,4] + [R,1], the case of rows too short for a loop.
  BroadcastPlan plan;
  plan.type = {DC::same, DC::expand_b};
  plan.extents = {1000, 4};
  plan.strides = {std::vector<std::int64_t>{4, 1}, {4, 1}, {1, 0}};
  const KernelKey key = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, plan, provider::current_codegen_id());
  ASSERT_EQ(key.fixed_row, 4);
  EXPECT_THAT(key.to_string(), ::testing::HasSubstr(".uuz.r4-4-4-1.host."));
  expect_additive(jit::kernel_ir(key, false), key.to_string(), {"[4 x float]"});
  if (test::host_is_x86_64()) {
    EXPECT_TRUE(std::regex_search(jit::kernel_assembly(key), std::regex(R"(\bv?addps\b)")));
  }
}

// NOTE: [Expression kernels]: the key of `text` (x0.., s0..) on contiguous
// inputs of these shapes and dtypes, broadcast to their common shape.
KernelKey expr_key(const std::string& text, const std::vector<std::pair<DType, Shape>>& inputs,
                   const std::vector<LeafType>& scalars = {}, std::uint64_t stream_min_bytes = kNeverStream) {
  std::vector<Layout> layouts;
  std::vector<LeafType> types;
  Shape out;
  for (const auto& [dtype, shape] : inputs) {
    layouts.push_back(Layout::contiguous(shape));
    types.push_back({ScalarKind::strong, dtype});
    out = broadcast_infer_shape(out, shape);
  }
  std::vector<const Layout*> pointers;
  for (const Layout& l : layouts) pointers.push_back(&l);
  const BroadcastPlan plan = plan_broadcast(Layout::contiguous(out), pointers);
  return make_expr_kernel_key(target_for(TargetKind::host), text, types, scalars, plan, provider::current_codegen_id(),
                              stream_min_bytes);
}

TEST(GeneratedCode, FiveInputExpressionNestHasNoMultiplication) {
  // x0 + x1 - x2 + x3 - x4 over five differently broadcast inputs, one of
  // them transposed-free but strided by its broadcast: additions only.
  const KernelKey key = expr_key("x0+x1-x2+x3-x4", {{DType::f32, {64, 32}},
                                                    {DType::f32, {64, 1}},
                                                    {DType::f32, {32}},
                                                    {DType::f32, {1, 32}},
                                                    {DType::f32, {64, 32}}});
  EXPECT_THAT(key.to_string(), ::testing::StartsWith("expr[x0+x1-x2+x3-x4].f32,f32,f32,f32,f32.[expand_cd,expand_b].uuzuuu."));
  // A plan whose inner level repeats two of the inputs and strides one.
  const KernelKey broadcast = expr_key("x0+x1-x2+x3-x4", {{DType::f32, {8, 64, 32}},
                                                          {DType::f32, {64, 1}},
                                                          {DType::f32, {8, 1, 32}},
                                                          {DType::f32, {1, 64, 1}},
                                                          {DType::f32, {8, 64, 32}}});
  for (const KernelKey& k : {key, broadcast}) {
    const std::string ir = jit::kernel_ir(k, /*optimized=*/false);
    ASSERT_THAT(ir, ::testing::HasSubstr("define void @\"" + k.to_string() + "\""));
    expect_additive(ir, k.to_string());
    EXPECT_EQ(parse_kernel_key(k.to_string(), k.codegen), k);  // the disk cache and bcast-cache read it back
  }
}

TEST(GeneratedCode, AffineChainUsesPackedVectorOps) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "the packed-op check knows x86-64 mnemonics only";
  // (x - m) * r * g + b: x [4096,1024], m and r [4096,1], g and b [1024].
  const KernelKey key = expr_key("(x0-x1)*x2*x3+x4", {{DType::f32, {4096, 1024}},
                                                      {DType::f32, {4096, 1}},
                                                      {DType::f32, {4096, 1}},
                                                      {DType::f32, {1024}},
                                                      {DType::f32, {1024}}});
  const std::string assembly = jit::kernel_assembly(key);
  for (const char* op : {"subps", "mulps", "addps"})
    EXPECT_TRUE(std::regex_search(assembly, std::regex(std::string(R"(\bv?)") + op + R"(\b[^\n]*%[xyz]mm)")))
        << op << "\n" << assembly;
  // No contraction into FMA: every node rounds as NumPy's op does.
  EXPECT_FALSE(std::regex_search(assembly, std::regex(R"(\bvfmadd)"))) << assembly;
}

// The widest vector ABI of the host that a math kernel's loop calls SLEEF
// through (the x86-64 vector function ABI's ISA letter and f32 lanes): the
// 16-lane AVX-512 one ('e', zmm; NOTE: [Math vector width] gives math
// kernels 512-bit vectors there even where LLVM's tuning prefers 256 bits)
// or the 8-lane AVX2 one ('d', ymm); none without FMA (no SLEEF vector
// build of ours then) or off x86-64.
struct VectorAbi {
  char isa;
  int lanes;
  std::string reg;
};
std::optional<VectorAbi> host_vector_abi() {
  if (!test::host_is_x86_64() || !test::host_has_feature("fma")) return std::nullopt;
  if (test::host_has_feature("avx512f")) return VectorAbi{'e', 16, "zmm"};
  if (test::host_has_feature("avx2")) return VectorAbi{'d', 8, "ymm"};
  return std::nullopt;
}

// The functions an assembly listing calls: named by the call, or (the JIT's
// code model) by the movabsq that loads its address into the register the
// loop calls through.
std::set<std::string> callees_of(const std::string& assembly) {
  std::set<std::string> callees;
  const std::regex named(R"((?:call\w*|movabsq)\s+\$?([A-Za-z_][\w.@]*))");
  for (auto it = std::sregex_iterator(assembly.begin(), assembly.end(), named); it != std::sregex_iterator(); ++it)
    callees.insert((*it)[1]);
  return callees;
}

TEST(GeneratedCode, F32HypotCallsSleefVectorFunctionInItsMainLoop) {
  // NOTE: [Vector math]: hypot(x, y) on f32 (a function without a recipe
  // of bcast's own) calls the host's widest vector build of SLEEF's hypotf
  // (host_vector_abi), and no scalar hypotf in the vector loop: only the
  // remainder calls SLEEF's scalar function, whose bits are the vector one's.
  const std::optional<VectorAbi> abi = host_vector_abi();
  if (!abi) GTEST_SKIP() << "the host has neither AVX-512 nor AVX2 with FMA: no vector build of SLEEF is called";
  if (math::library().flavour != math::Flavour::sleef_purecfma)
    GTEST_SKIP() << "SLEEF is not in use: " << math::library().why_libm;
  const KernelKey key = expr_key("hypot(x0,x1)", {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1024}}});
  const std::string assembly = jit::kernel_assembly(key);
  const std::set<std::string> callees = callees_of(assembly);
  const std::string widest = fmt::format("_ZGV{}N{}vv_hypotf", abi->isa, abi->lanes);
  EXPECT_TRUE(callees.contains(widest)) << assembly;
  // Every other callee is SLEEF's (a narrower vector build for an epilogue,
  // the scalar function for the last elements, bit-identical): never the C
  // library's hypotf.
  for (const std::string& callee : callees)
    EXPECT_TRUE(callee == widest || callee == "_ZGVdN8vv_hypotf" || callee == "Sleef_hypotf1_u05purecfma")
        << callee << "\n"
        << assembly;
  // The IR's call names its variants, so the vectoriser can use them.
  EXPECT_THAT(jit::kernel_ir(key, false),
              ::testing::HasSubstr(fmt::format("_ZGV_LLVM_N{}vv_Sleef_hypotf1_u05purecfma({})", abi->lanes, widest)));
}

TEST(GeneratedCode, RecipeLoopsTakeTheirRowsInterleave) {
  // NOTE: [Recipe interleave]: a loop that runs a recipe asks the
  // vectoriser for its row's count of vectors an iteration; a program of
  // several recipes for the fewest of theirs.
  if (!math::host_has_fma()) GTEST_SKIP() << "this host has no FMA: the recipes are not used (NOTE: [Math recipes])";
  const auto count_of = [](const char* text) {
    const std::string ir = jit::kernel_ir(expr_key(text, {{DType::f32, {4096, 1024}}}), false);
    std::smatch m;
    return std::regex_search(ir, m, std::regex(R"(!"llvm.loop.interleave.count", i32 (\d+))")) ? std::stoi(m[1]) : 0;
  };
  EXPECT_EQ(count_of("log2(x0)"), static_cast<int>(math::recipes::interleave_of(math::recipes::Recipe::log2)));
  EXPECT_EQ(count_of("exp(x0)"), static_cast<int>(math::recipes::interleave_of(math::recipes::Recipe::exp)));
  EXPECT_NE(math::recipes::interleave_of(math::recipes::Recipe::log2),
            math::recipes::interleave_of(math::recipes::Recipe::exp));  // so the two checks above tell rows apart
  EXPECT_EQ(count_of("log2(x0)+exp(x0)"),
            static_cast<int>(std::min(math::recipes::interleave_of(math::recipes::Recipe::log2),
                                      math::recipes::interleave_of(math::recipes::Recipe::exp))));
  EXPECT_EQ(count_of("x0*x0+x0"), 0);  // no recipe: the vectoriser's choice
}

TEST(GeneratedCode, F32ExpRunsItsRecipeInlineAndSleefOnlyOnRareLanes) {
  // NOTE: [Rare lanes]: exp(x) on f32 is bcast's recipe in the loop, on the
  // host's widest vectors; its rare lanes (|x| >= 87, inf, NaN) call SLEEF's
  // vector expf behind a branch, and no other function is called.
  const std::optional<VectorAbi> abi = host_vector_abi();
  if (!abi) GTEST_SKIP() << "the host has neither AVX-512 nor AVX2 with FMA: no vector build of SLEEF is called";
  if (math::library().flavour != math::Flavour::sleef_purecfma)
    GTEST_SKIP() << "SLEEF is not in use: " << math::library().why_libm;
  const KernelKey key = expr_key("exp(x0)", {{DType::f32, {4096, 1024}}});
  const std::string assembly = jit::kernel_assembly(key);
  for (const std::string& callee : callees_of(assembly))
    EXPECT_TRUE(callee.starts_with("_ZGV") || callee == "Sleef_expf1_u10purecfma") << callee << "\n" << assembly;
  EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bvfmadd\w*ps\b[^\n]*%)" + abi->reg))) << assembly;
  EXPECT_THAT(jit::kernel_ir(key, false), ::testing::HasSubstr("bcast.rare.exp.f32.fix"));
}

TEST(GeneratedCode, LoopConstantsAreLoadedOnceWhereThereAre16VectorRegisters) {
  // NOTE: [Loop constants]: exp(x - m) of a row's m on AVX2's 16 vector
  // registers reads its recipe's constants once, as volatile loads in the
  // entry block; x + y, with few constants, is left alone, and so is every
  // kernel on AVX-512's 32 registers.
  if (!test::host_is_x86_64() || !test::host_has_feature("avx2") || !test::host_has_feature("fma"))
    GTEST_SKIP() << "the host has no AVX2 with FMA";
  const std::string isa = get_setting("BCAST_MAX_ISA");
  const auto volatile_loads = [](const std::string& ir) {
    std::size_t n = 0;
    for (std::size_t at = ir.find("load volatile"); at != std::string::npos; at = ir.find("load volatile", at + 1)) ++n;
    return n;
  };
  const std::vector<std::pair<DType, Shape>> rows = {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1}}};
  set_setting("BCAST_MAX_ISA", "avx2");
  const std::string exp_ir = jit::kernel_ir(expr_key("exp(x0-x1)", rows), true);
  EXPECT_GE(volatile_loads(exp_ir), 8u) << exp_ir;
  EXPECT_EQ(volatile_loads(jit::kernel_ir(expr_key("x0+x1", rows), true)), 0u);
  if (test::host_has_feature("avx512f")) {
    set_setting("BCAST_MAX_ISA", "avx512");
    EXPECT_EQ(volatile_loads(jit::kernel_ir(expr_key("exp(x0-x1)", rows), true)), 0u);
  }
  set_setting("BCAST_MAX_ISA", isa);
}

TEST(GeneratedCode, AValueOfRepeatedOperandsIsComputedOutsideTheLoops) {
  // NOTE: [Pass pipeline]'s licm: a layer norm's sqrt(v + eps), v one value
  // a row, is computed once a row, not in the element loop (the vectoriser's
  // or the streaming lines'); in a loop it shared the divider with the
  // division. A loop's block is its own predecessor in the optimised IR.
  const std::vector<std::pair<DType, Shape>> rows = {{DType::f32, {64, 1024}}, {DType::f32, {64, 1}}};
  for (const std::uint64_t stream : {kNeverStream, std::uint64_t{0}}) {
    const std::string ir = jit::kernel_ir(expr_key("x0/sqrt(x1)", rows, {}, stream), true);
    const std::regex block(R"((^|\n)([\w.]+):[^\n]*; preds = ([^\n]*))");
    int loops = 0;
    for (auto it = std::sregex_iterator(ir.begin(), ir.end(), block); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[2], preds = (*it)[3];
      if (preds.find("%" + name) == std::string::npos) continue;  // not a loop's block
      ++loops;
      const std::size_t from = static_cast<std::size_t>(it->position() + it->length());
      const std::string body = ir.substr(from, ir.find("\n\n", from) - from);
      EXPECT_THAT(body, ::testing::Not(::testing::HasSubstr("@llvm.sqrt"))) << name << "\n" << ir;
    }
    EXPECT_GT(loops, 0) << ir;
    EXPECT_THAT(ir, ::testing::HasSubstr("@llvm.sqrt"));
  }
}

TEST(GeneratedCode, MathKernelsPrefer512BitVectorsOnAvx512Hosts) {
  // NOTE: [Math vector width]: a kernel that computes a math function asks
  // for 512-bit vectors on an AVX-512 host; one that only adds keeps LLVM's
  // choice (no attribute of ours), or on AMD's AVX-512 CPUs asks for 256 bits
  // (NOTE: [Memory-bound vector width]).
  if (!test::host_is_x86_64() || !test::host_has_feature("avx512f"))
    GTEST_SKIP() << "the host has no AVX-512: kernels keep LLVM's vector width";
  const std::vector<std::pair<DType, Shape>> inputs = {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1024}}};
  EXPECT_THAT(jit::kernel_ir(expr_key("exp(x0)*x1", inputs), false),
              ::testing::HasSubstr("\"prefer-vector-width\"=\"512\""));
  const KernelKey adds = expr_key("x0+x1", inputs);
  if (codegen_settings(adds.codegen).cpu.starts_with("znver"))
    EXPECT_THAT(jit::kernel_ir(adds, false), ::testing::HasSubstr("\"prefer-vector-width\"=\"256\""));
  else
    EXPECT_THAT(jit::kernel_ir(adds, false), ::testing::Not(::testing::HasSubstr("prefer-vector-width")));
  // A c64 abs takes a square root (of f64 parts): bound by the divider, it
  // keeps LLVM's width, where the c64 sum it reads is held to 256 bits.
  const std::vector<std::pair<DType, Shape>> complex = {{DType::c64, {4096, 1024}}, {DType::c64, {4096, 1024}}};
  EXPECT_THAT(jit::kernel_ir(expr_key("abs(x0+x1)", complex), false),
              ::testing::Not(::testing::HasSubstr("\"prefer-vector-width\"=\"256\"")));
  if (codegen_settings(adds.codegen).cpu.starts_with("znver"))
    EXPECT_THAT(jit::kernel_ir(expr_key("x0+x1", complex), false),
                ::testing::HasSubstr("\"prefer-vector-width\"=\"256\""));
  // An inexact function with no C library name of its own (sigmoid's exp is
  // inside its lowering) is arithmetic too.
  EXPECT_THAT(jit::kernel_ir(expr_key("sigmoid(x0)*x1", inputs), false),
              ::testing::HasSubstr("\"prefer-vector-width\"=\"512\""));
  EXPECT_TRUE(
      std::regex_search(jit::kernel_assembly(expr_key("log(x0)+x1", inputs)), std::regex(R"(\bv\w+ps\s.*%zmm)")));
}

TEST(GeneratedCode, TheQuickTierPrefers256BitVectorsOnAvx512Hosts) {
  // NOTE: [Tiers]: the quick first tier asks for 256-bit vectors on an
  // AVX-512 host, math kernels too; the full tier keeps its choice.
  if (!test::host_is_x86_64() || !test::host_has_feature("avx512f"))
    GTEST_SKIP() << "the host has no AVX-512: both tiers keep LLVM's vector width";
  const std::vector<std::pair<DType, Shape>> inputs = {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1024}}};
  for (const char* text : {"x0+x1", "exp(x0)*x1"}) {
    KernelKey quick = expr_key(text, inputs);
    CodegenSettings settings = codegen_settings(quick.codegen);
    settings.quick = true;
    quick.codegen = intern_codegen_settings(settings);
    EXPECT_THAT(jit::kernel_ir(quick, false), ::testing::HasSubstr("\"prefer-vector-width\"=\"256\"")) << text;
    const std::string assembly = jit::kernel_assembly(quick);
    EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv\w+ps\s.*%ymm)"))) << text << "\n" << assembly;
    EXPECT_FALSE(std::regex_search(assembly, std::regex(R"(%zmm)"))) << text << "\n" << assembly;
  }
}

// A kernel held to 256-bit registers (the quick tier on an AVX-512 host,
// NOTE: [Memory-bound vector width]) calls no 512-bit build of a vector
// math function: its 512-bit arguments would travel in two 256-bit
// registers where that build reads one. abs of c128 streams out whole lines
// of 8 lanes through SLEEF's hypot; the quick tier's must call the 4-lane
// AVX2 build, and give the full tier's bits.
TEST(GeneratedCode, AKernelHeldTo256BitsCallsNo512BitVectorBuild) {
  if (!test::host_is_x86_64() || !test::host_streams()) GTEST_SKIP() << "x86-64 code generation with streaming stores";
  if (math::library().flavour != math::Flavour::sleef_purecfma)
    GTEST_SKIP() << "SLEEF is not in use: " << math::library().why_libm;
  KernelKey quick = expr_key("abs(x0)", {{DType::c128, {4096, 1024}}}, {}, /*stream_min_bytes=*/0);
  ASSERT_TRUE(quick.stream) << quick.to_string();
  CodegenSettings settings = jit::named_cpu_codegen_settings(2, "znver5");           // an AVX-512 CPU on any host
  if (!has_feature(settings.features, "evex512")) settings.features += ",+evex512";  // as such a host lists it
  settings.quick = true;
  quick.codegen = intern_codegen_settings(settings);
  const std::string ir = jit::kernel_ir(quick, false);
  EXPECT_THAT(ir, ::testing::HasSubstr("\"min-legal-vector-width\"=\"0\"")) << ir;
  EXPECT_THAT(ir, ::testing::Not(::testing::HasSubstr("_ZGVe"))) << ir;
  EXPECT_THAT(ir, ::testing::HasSubstr("_ZGVd")) << ir;
}

TEST(GeneratedCode, StreamingExpressionKernelsWriteWholeLinesNonTemporally) {
  if (!test::host_streams()) GTEST_SKIP() << "the host target has no streaming stores";
  // u + v - w into a large output; out f16 from f32 inputs too (additions
  // only, so that the nest's additivity shows).
  for (const char* text : {"x0+x1-x2", "f16(x0+x1-x2)"}) {
    const KernelKey key = expr_key(text, {{DType::f32, {4096, 1}}, {DType::f32, {1, 4096}}, {DType::f32, {4096, 4096}}},
                                   {}, /*stream_min_bytes=*/0);
    EXPECT_THAT(key.to_string(), ::testing::HasSubstr(".uzuu.nt.host."));
    EXPECT_EQ(parse_kernel_key(key.to_string(), key.codegen), key);
    expect_additive(jit::kernel_ir(key, false), key.to_string());
    const std::string assembly = jit::kernel_assembly(key);
    EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?movnt(ps|dq)\s+%?[xyz]mm)"))) << assembly;
    EXPECT_THAT(assembly, ::testing::HasSubstr("sfence"));
  }
}

TEST(GeneratedCode, StreamingRowsComputeTheirHeadsAndTailsAsMaskedVectors) {
  // NOTE: [Partial vectors]: exp(x - m) of a row's m, streamed: the elements
  // before a row's first whole line and after its last run as masked
  // vectors, so the kernel calls only vector builds of SLEEF's expf (for
  // rare lanes), where a head and a tail an element at a time called its
  // scalar build.
  const std::optional<VectorAbi> abi = host_vector_abi();
  if (!abi) GTEST_SKIP() << "the host has neither AVX-512 nor AVX2 with FMA: no vector build of SLEEF is called";
  if (math::library().flavour != math::Flavour::sleef_purecfma)
    GTEST_SKIP() << "SLEEF is not in use: " << math::library().why_libm;
  if (!test::host_streams()) GTEST_SKIP() << "the host target has no streaming stores";
  const KernelKey key = expr_key("exp(x0-x1)", {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1}}}, {}, 0);
  ASSERT_THAT(key.to_string(), ::testing::HasSubstr(".uuz.nt.host."));
  const std::string assembly = jit::kernel_assembly(key);
  for (const std::string& callee : callees_of(assembly))
    EXPECT_TRUE(callee.starts_with("_ZGV")) << callee << "\n" << assembly;
  const std::string ir = jit::kernel_ir(key, false);
  EXPECT_THAT(ir, ::testing::HasSubstr("@llvm.masked.load")) << ir;
  EXPECT_THAT(ir, ::testing::HasSubstr("@llvm.masked.store")) << ir;
}

TEST(GeneratedCode, AReusedObjectPipelineGivesANewOnesBytes) {
  // NOTE: [Object pipeline]: this thread compiles kernels of several kinds
  // through the pipeline its TargetMachine keeps, the first again after the
  // others (the same symbol a second time), a streaming one in between; a
  // new thread, whose first object builds a new pipeline, gives each the
  // same bytes.
  const std::vector<KernelKey> keys = {
      key_for(Op::add, DType::f32, {DC::expand_b, DC::same, DC::expand_a}),
      expr_key("exp(x0-x1)", {{DType::f32, {4096, 1024}}, {DType::f32, {4096, 1}}}, {}, 0),
      expr_key("where(x0>x1,sin(x0),x1)", {{DType::f64, {64, 32}}, {DType::f64, {32}}}),
      key_for(Op::add, DType::f32, {DC::expand_b, DC::same, DC::expand_a}),
      key_for(Op::mul, DType::u8, {DC::same}),
  };
  std::vector<std::vector<char>> reused;
  for (const KernelKey& key : keys) {
    const jit::CompiledObject o = jit::compile_object(key, "");
    ASSERT_TRUE(o.error.empty()) << key.to_string() << ": " << o.error;
    reused.push_back(o.object);
  }
  EXPECT_EQ(reused[0], reused[3]) << "the same kernel twice through one pipeline";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    std::vector<char> fresh;
    std::thread([&] { fresh = jit::compile_object(keys[i], "").object; }).join();
    EXPECT_EQ(reused[i], fresh) << keys[i].to_string();
  }
}

TEST(GeneratedCode, ComplexKernelsComputeOnVectorsOfParts) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "the check knows x86-64 mnemonics only";
  // NOTE: [Complex in IR]: interleaved c64 and c128 come apart into vectors
  // of real and imaginary parts by shuffles, and the product is packed
  // multiplies, no FMA (complex_ops::mul's bits); so is the streaming nest's
  // line loop, which writes the parts back interleaved, non-temporally.
  for (const DType d : {DType::c64, DType::c128})
    for (const std::uint64_t stream : {kNeverStream, std::uint64_t{0}}) {
      if (stream == 0 && !test::host_streams()) continue;
      const KernelKey key = expr_key("abs(x0*x1-x0)+real(x1)", {{d, {4096, 1024}}, {d, {1024}}}, {}, stream);
      ASSERT_NE(key.to_string().find(d == DType::c64 ? ".c64,c64." : ".c128,c128."), std::string::npos) << key.to_string();
      const std::string assembly = jit::kernel_assembly(key);
      const std::string p = d == DType::c64 ? "ps" : "pd";
      const std::string label = key.to_string() + "\n" + assembly;
      EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?mul)" + p + R"(\b[^\n]*%[xyz]mm)"))) << label;
      EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?(shufp[sd]|unpck[lh]p[sd]|perm\w*)\b[^\n]*%[xyz]mm)")))
          << label;
      EXPECT_FALSE(std::regex_search(assembly, std::regex(R"(\bvfmadd)"))) << label;
      if (stream == 0) {
        EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?movnt(ps|pd|dq)\s+%?[xyz]mm)"))) << label;
      }
    }
}

TEST(GeneratedCode, ComplexFunctionsComputeOnVectorsAndCallOnlyVectorMath) {
  // NOTE: [Complex math]: exp, log and sqrt of c64 and c128 are recipes on
  // packed f64 lanes; the real functions exp and log call (cos, sin, log1p,
  // atan2, hypot) are SLEEF's vector builds (the scalar ones for a
  // remainder), never the C library's cexp or clog; sqrt is arithmetic and
  // square roots only, no call at all (not csqrt).
  if (!test::host_is_x86_64() || !test::host_has_feature("avx2") || !test::host_has_feature("fma"))
    GTEST_SKIP() << "the check knows x86-64's packed mnemonics with AVX2 and FMA";
  if (math::library().flavour != math::Flavour::sleef_purecfma)
    GTEST_SKIP() << "SLEEF is not in use: " << math::library().why_libm;
  for (const DType d : {DType::c64, DType::c128})
    for (const char* fn : {"exp", "log", "sqrt"}) {
      const KernelKey key = expr_key(std::string(fn) + "(x0)", {{d, {4096, 1024}}});
      const std::string assembly = jit::kernel_assembly(key);
      const std::string label = key.to_string() + "\n" + assembly;
      EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv\w+pd\b[^\n]*%[yz]mm)"))) << label;
      bool vector_call = false;
      for (const std::string& callee : callees_of(assembly)) {
        EXPECT_TRUE(callee.starts_with("_ZGV") || callee.starts_with("Sleef_")) << callee << "\n" << label;
        vector_call = vector_call || callee.starts_with("_ZGV");
      }
      const bool arithmetic_only = std::string_view(fn) == "sqrt";
      EXPECT_EQ(vector_call, !arithmetic_only) << label;
      if (arithmetic_only) {
        EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bvsqrtpd\b)"))) << label;
      }
    }
}

TEST(GeneratedCode, UnitStrideF32AddUsesPackedVectorAdds) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "the packed-add check knows x86-64 mnemonics only";
  // Every x86-64 CPU has SSE2, so a packed add is always available.
  const std::string assembly = jit::kernel_assembly(key_for(Op::add, DType::f32, {DC::expand_b, DC::same}));
  EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?addps\b)"))) << assembly;
}

TEST(GeneratedCode, StreamingKernelsWriteWholeLinesNonTemporallyThenFence) {
  if (!test::host_streams()) GTEST_SKIP() << "the host target has no streaming stores";
  // NOTE: [Streaming stores], for a float, a half and a byte output.
  for (const DType dtype : {DType::f32, DType::f16, DType::u8}) {
    KernelKey key = key_for(Op::add, dtype, {DC::expand_a, DC::same});
    key.stream = true;
    EXPECT_THAT(key.to_string(), ::testing::HasSubstr(".uuu.nt.host."));
    // The disk cache and bcast-cache read the key back from its text.
    EXPECT_EQ(parse_kernel_key(key.to_string(), key.codegen), key);
    expect_additive(jit::kernel_ir(key, false), key.to_string());
    const std::string assembly = jit::kernel_assembly(key);
    EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?movnt(ps|dq)\s+%?[xyz]mm)"))) << assembly;
    EXPECT_THAT(assembly, ::testing::HasSubstr("sfence"));
  }
  // NOTE: [Fixed rows]: [R,4] + [R,1], four rows to a line.
  BroadcastPlan plan;
  plan.type = {DC::same, DC::expand_b};
  plan.extents = {1 << 20, 4};
  plan.strides = {std::vector<std::int64_t>{4, 1}, {4, 1}, {1, 0}};
  const KernelKey rows = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, plan, provider::current_codegen_id(), 0);
  EXPECT_THAT(rows.to_string(), ::testing::HasSubstr(".uuz.r4-4-4-1.nt.host."));
  EXPECT_EQ(parse_kernel_key(rows.to_string(), rows.codegen), rows);
  expect_additive(jit::kernel_ir(rows, false), rows.to_string(), {"[4 x float]"});
  EXPECT_TRUE(std::regex_search(jit::kernel_assembly(rows), std::regex(R"(\bv?movntps\s+%?[xyz]mm)")));
}

TEST(GeneratedCode, TransposedTileKernelsAreAdditiveAndShuffleInRegisters) {
  // NOTE: [Transposed tiles]: out [R,C] = a^T + b, a stepping 1 between rows;
  // then the same on a batch of 3 matrices that b repeats (rank 3).
  BroadcastPlan plan;
  plan.type = {DC::same, DC::same};
  plan.extents = {64, 64};
  plan.strides = {std::vector<std::int64_t>{64, 1}, {1, 64}, {64, 1}};
  BroadcastPlan batch;
  batch.type = {DC::expand_b, DC::same, DC::same};
  batch.extents = {3, 64, 64};
  batch.strides = {std::vector<std::int64_t>{4096, 64, 1}, {4096, 1, 64}, {0, 64, 1}};
  for (const BroadcastPlan& p : {plan, batch}) {
    const KernelKey key = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, p, provider::current_codegen_id());
    ASSERT_EQ(key.transposed, kA);
    EXPECT_THAT(key.to_string(), ::testing::HasSubstr(".usu.ta.host."));
    EXPECT_EQ(parse_kernel_key(key.to_string(), key.codegen), key);
    expect_additive(jit::kernel_ir(key, false), key.to_string());
    if (test::host_is_x86_64()) {
      const std::string assembly = jit::kernel_assembly(key);
      EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?(perm|unpck|shuf)\w*\s)"))) << assembly;
      EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(\bv?addps\b)"))) << assembly;
    }
  }
}

// NOTE: [Transposed tiles]: a block is one vector register of t's elements
// a side where that is less than a line. Code for a 256-bit CPU (Alder Lake,
// generated on any host) transposes f32 blocks of 8 x 8 within ymm
// registers: lane moves (vperm2f128, vinsertf128) and in-lane shuffles, no
// permute across lanes and no vector spilled. Blocks of 16 x 16 there took
// two registers a row, 32 for a block: the vectors spilled and each round
// crossed lanes (cases 14 and 16 at 0.2 of the STREAM add on the Zen 3 VM).
// For an AVX-512 CPU (Zen 5) the block is a line, in zmm registers.
TEST(GeneratedCode, TransposedBlocksFitTheVectorRegisters) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "x86-64 code generation";
  BroadcastPlan plan;
  plan.type = {DC::same, DC::same};
  plan.extents = {64, 64};
  plan.strides = {std::vector<std::int64_t>{64, 1}, {1, 64}, {64, 1}};
  const auto assembly_for = [&](const std::string& cpu) {
    const std::uint32_t codegen = intern_codegen_settings(jit::named_cpu_codegen_settings(2, cpu));
    const KernelKey key = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, plan, codegen);
    EXPECT_EQ(key.transposed, kA) << cpu;
    return jit::kernel_assembly(key);
  };
  const std::string avx2 = assembly_for("alderlake");
  EXPECT_TRUE(std::regex_search(avx2, std::regex(R"(\bv(perm2f128|insertf128)\s)"))) << avx2;
  EXPECT_FALSE(std::regex_search(avx2, std::regex(R"(\bvperm(ps|pd|q)\s)"))) << "a permute across lanes\n" << avx2;
  EXPECT_FALSE(std::regex_search(avx2, std::regex(R"(\bvmov\w*\s+%ymm\d+, -?\d*\(%rsp\))"))) << "a vector spilled\n"
                                                                                             << avx2;
  EXPECT_FALSE(std::regex_search(avx2, std::regex(R"(%zmm)"))) << avx2;
  const std::string avx512 = assembly_for("znver5");
  EXPECT_TRUE(std::regex_search(avx512, std::regex(R"(%zmm)"))) << avx512;
}

// NOTE: [Reduction kernels]: sum and max of x0 - x1 (x1 repeated along the
// rows) over [8, 1000] as rows (items in vector accumulators) and columns
// (out rows combined in place): additive, packed, and the rows kernel never
// reduces across lanes (it stores all of them; the executor's tree does the rest).
TEST(GeneratedCode, ReductionKernelsAccumulatePackedVectors) {
  BroadcastPlan plan;
  plan.type = {DC::same, DC::expand_b};
  plan.extents = {8, 1000};
  plan.strides = {std::vector<std::int64_t>{32, 0}, {1000, 1}, {1, 0}};
  plan.spans = {std::vector<std::int64_t>{224, 0}, {7000, 999}, {7, 0}};
  plan.base = {0, 0, 0};
  const std::vector<LeafType> inputs{{ScalarKind::strong, DType::f32}, {ScalarKind::strong, DType::f32}};
  for (const ReduceForm form : {ReduceForm::rows, ReduceForm::columns})
    for (const auto& [combine, op] : {std::pair{detail::Combine::add, "add"}, {detail::Combine::maximum, "max"}}) {
      const KernelKey key = make_reduction_kernel_key(target_for(TargetKind::host), "x0-x1", inputs, {}, plan,
                                                      provider::current_codegen_id(), {form, combine, DType::f32});
      expect_additive(jit::kernel_ir(key, false), key.to_string());
      if (!test::host_is_x86_64()) continue;
      const std::string assembly = jit::kernel_assembly(key);
      const std::string label = key.to_string() + "\n" + assembly;
      EXPECT_TRUE(std::regex_search(assembly, std::regex(std::string(R"(\bv?)") + op + R"(ps\b[^\n]*%[xyz]mm)")))
          << label;
      if (form == ReduceForm::rows) {
        EXPECT_FALSE(std::regex_search(assembly, std::regex(R"(\bv?(hadd|extractf|permil|shuf|movshdup|unpck)\w*\s)")))
            << label;
        // emit_extremum_step: a max step's NaN rule is behind a branch.
        if (combine == detail::Combine::maximum) {
          EXPECT_THAT(jit::kernel_ir(key, false), ::testing::HasSubstr("nan_lanes")) << label;
        }
      }
    }
}

// NOTE: [No SSE4a]: an AVX kernel for an AMD CPU (whose host features list
// SSE4a) never holds extrq, insertq, movntss or movntsd. The kernel that
// first held them: the narrow columns sum of f32(img[:, :, ::-1]), a u8
// image's channels reversed, whose 3-byte rows LLVM put together with insertq.
TEST(GeneratedCode, AvxKernelsForAmdCpusUseNoSse4a) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "x86-64 code generation";
  const Strides image{3, -1};  // [pixels, channels] of img[:, :, ::-1], merged
  const Layout values = Layout::contiguous({4096, 3});
  const ReducePlan reduction = plan_reduce(values, {true, false}, Strides{0, 1}, std::vector<Strides>{image});
  ASSERT_EQ(reduction_form(reduction), ReduceForm::narrow);
  for (const std::string cpu : {"host", "znver3", "znver4"}) {
    CodegenSettings settings = jit::host_codegen_settings(2);
    if (cpu != "host") {
      settings = jit::named_cpu_codegen_settings(2, cpu);
      settings.features += ",+sse4a";  // as an AMD host lists it
    } else if (!has_feature(settings.features, "avx")) {
      continue;  // no AVX kernel on this host
    }
    const KernelKey key = make_reduction_kernel_key(
        target_for(TargetKind::host), "f32(x0)", {{ScalarKind::strong, DType::u8}}, {},
        reduction_kernel_plan(reduction), intern_codegen_settings(settings),
        {ReduceForm::narrow, detail::Combine::add, DType::f32, 3, narrow_block_rows(3, 4096)});
    ASSERT_EQ(key.inner[1], InnerStride::reversed) << key.to_string();
    const std::string assembly = jit::kernel_assembly(key);
    EXPECT_FALSE(std::regex_search(assembly, std::regex(R"(\b(extrq|insertq|movntss|movntsd)\s)"))) << cpu << "\n"
                                                                                                    << assembly;
    EXPECT_TRUE(std::regex_search(assembly, std::regex(R"(%[yz]mm)"))) << cpu << "\n" << assembly;
  }
}

// NOTE: [Memory-bound vector width]: on an AMD AVX-512 CPU a kernel that
// computes no math function runs on 256-bit registers, its own wide vectors
// too (a rows sum's 32 lanes are four of them); a math function's kernel
// and a narrow column reduction keep 512 bits (transposed tiles too:
// TransposedBlocksFitTheVectorRegisters).
TEST(GeneratedCode, MemoryBoundKernelsForAmdAvx512UseHalfWidthRegisters) {
  if (!test::host_is_x86_64()) GTEST_SKIP() << "x86-64 code generation";
  BroadcastPlan plan;
  plan.type = {DC::same};
  plan.extents = {4096};
  plan.strides = {std::vector<std::int64_t>{1}, {1}, {1}};
  plan.spans = {std::vector<std::int64_t>{4095}, {4095}, {4095}};
  plan.base = {0, 0, 0};
  BroadcastPlan unary = plan;  // exp(x0)
  unary.strides.pop_back();
  unary.spans.pop_back();
  unary.base.pop_back();
  const std::vector<LeafType> one_f32{{ScalarKind::strong, DType::f32}};
  const ReducePlan row = plan_reduce(Layout::contiguous({4096}), {true}, Strides{0}, std::vector<Strides>{Strides{1}});
  ASSERT_EQ(reduction_form(row), ReduceForm::rows);
  const Layout values = Layout::contiguous({4096, 3});
  const ReducePlan image = plan_reduce(values, {true, false}, Strides{0, 1}, std::vector<Strides>{Strides{3, 1}});
  ASSERT_EQ(reduction_form(image), ReduceForm::narrow);
  const auto zmm = std::regex(R"(%zmm)"), ymm = std::regex(R"(%ymm)");
  for (const std::string cpu : {"znver4", "znver5"}) {
    const std::uint32_t codegen = intern_codegen_settings(jit::named_cpu_codegen_settings(2, cpu));
    const Target& host = target_for(TargetKind::host);
    const std::string add = jit::kernel_assembly(make_kernel_key(host, Op::add, DType::f32, plan, codegen));
    EXPECT_FALSE(std::regex_search(add, zmm)) << cpu << "\n" << add;
    EXPECT_TRUE(std::regex_search(add, ymm)) << cpu << "\n" << add;
    const std::string sum =
        jit::kernel_assembly(make_reduction_kernel_key(host, "x0", one_f32, {}, reduction_kernel_plan(row), codegen,
                                                       {ReduceForm::rows, detail::Combine::add, DType::f32}));
    EXPECT_FALSE(std::regex_search(sum, zmm)) << cpu << "\n" << sum;
    EXPECT_TRUE(std::regex_search(sum, ymm)) << cpu << "\n" << sum;
    const std::string exp = jit::kernel_assembly(make_expr_kernel_key(host, "exp(x0)", one_f32, {}, unary, codegen));
    EXPECT_TRUE(std::regex_search(exp, zmm)) << cpu << "\n" << exp;
    const std::string narrow = jit::kernel_assembly(make_reduction_kernel_key(
        host, "f32(x0)", {{ScalarKind::strong, DType::u8}}, {}, reduction_kernel_plan(image), codegen,
        {ReduceForm::narrow, detail::Combine::add, DType::f32, 3, narrow_block_rows(3, 4096)}));
    EXPECT_TRUE(std::regex_search(narrow, zmm)) << cpu << "\n" << narrow;
  }
}

// ---- differential: JIT against the oracle and the reference executor ----

// The reference executor's result of op(a, b) on the plan of a fresh
// out_shape tensor, which starts as the other sentinel.
Tensor reference_result(Op op, const TensorView& a, const TensorView& b, const Shape& out_shape) {
  Tensor expected(result_dtype(op, a.dtype()), out_shape);
  test::fill_sentinel(expected, test::kOtherSentinel);
  execute_plan(plan_broadcast(expected.layout(), a.layout(), b.layout()), reference_kernel(op, a.dtype()),
               {expected.data(), a.data(), b.data()}, {expected.element_size(), a.element_size(), b.element_size()},
               1);
  return expected;
}

// binary(op, a, b, out) with out starting as the sentinel, and the reference
// executor on the same plan from the other sentinel, both against the oracle
// (which shares no code with the planner, the executor or the kernels): a
// piece or a tile that never ran, or ran in the wrong place, differs from it,
// and so does a bug the JIT and the reference executor share.
void expect_call_matches_reference(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                                   const std::string& label) {
  test::keep_in_domain(op, b);
  const std::vector<test::Expected> want = test::oracle(op, a, b, out.shape());
  const Tensor expected = reference_result(op, a, b, out.shape());
  test::fill_sentinel(out);
  binary(op, a, b, out);
  if (const std::string bad = test::oracle_mismatch(want, out); !bad.empty())
    FAIL() << label << ": the call's " << bad;
  if (const std::string bad = test::oracle_mismatch(want, expected); !bad.empty())
    FAIL() << label << ": the reference executor's " << bad;
}

// The bytes of `parent` outside its columns [skip, skip + extent), 0xA5
// before the call, still hold it: a call writes nothing past its view's rows
// (NOTE: [Partial vectors]: a head's or a tail's masked lanes).
void expect_room_untouched(const Tensor& parent, std::int64_t skip, std::int64_t extent, const std::string& label) {
  const std::int64_t columns = parent.shape().back();
  const std::size_t size = dtype_size(parent.dtype());
  const auto* bytes = static_cast<const unsigned char*>(parent.data());
  for (std::int64_t e = 0; e < parent.numel(); ++e) {
    const std::int64_t column = e % columns;
    if (column >= skip && column < skip + extent) continue;
    for (std::size_t i = 0; i < size; ++i)
      if (bytes[static_cast<std::size_t>(e) * size + i] != 0xA5)
        FAIL() << label << ": element " << e << " (column " << column << ") outside the view was written";
  }
}

// A call into `out` through the JIT, which must really be used: a JIT that
// silently fell back would compare the reference with itself.
void expect_jit_equals_reference(Op op, const TensorView& a, const TensorView& b, const TensorView& out,
                                 std::set<std::string>& keys, const std::string& label) {
  const BroadcastPlan plan = plan_broadcast(out.layout(), a.layout(), b.layout());
  if (plan.numel > 0) {
    keys.insert(make_kernel_key(target_for(TargetKind::host), op, a.dtype(), plan, provider::current_codegen_id()).to_string());
    ASSERT_TRUE(select_kernel(op, a.dtype(), plan).jit) << label << ": no JIT kernel";
  }
  expect_call_matches_reference(op, a, b, out, label + ", plan " + to_string(plan.type));
}

// Replaces about a fifth of x's elements with the values where semantics get
// subtle: NaNs with payloads and signs, infinities, signed zeros, integer
// extremes, -1 and 0 (division), and halves whose sums are ties.
void sprinkle_special_values(const TensorView& x, std::mt19937_64& rng) {
  static const std::vector<std::uint64_t> f64{0x7ff8000000000000, 0xfff8000000000001, 0x7ff0000000000000,
                                              0xfff0000000000000, 0x8000000000000000, 0x0000000000000001};
  static const std::vector<std::uint64_t> f32{0x7fc00000, 0xffc00100, 0x7fc00001, 0x7f800000, 0xff800000, 0x80000000,
                                              0x00000001};
  // f16 1025 and 0.5, bf16 129 and 0.5: their sums are ties that round to even.
  static const std::vector<std::uint64_t> f16{0x7e00, 0xfe01, 0x7c00, 0xfc00, 0x8000, 0x0001, 0x7bff, 0x6401, 0x3800};
  static const std::vector<std::uint64_t> bf16{0x7fc0, 0xffc1, 0x7f80, 0xff80, 0x8000, 0x0001, 0x4301, 0x3f00};
  static const std::vector<std::uint64_t> ints{0x80, 0x8000, 0x80000000, 0x8000000000000000, ~std::uint64_t{0}, 0};
  const std::vector<std::uint64_t>& pool = x.dtype() == DType::f64  ? f64
                                           : x.dtype() == DType::f32 ? f32
                                           : x.dtype() == DType::f16 ? f16
                                           : x.dtype() == DType::bf16 ? bf16
                                                                    : ints;
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    if (percent(rng) >= 20) continue;
    std::uint64_t bits = pool[pick(rng)];
    if (x.dtype() == DType::boolean) bits &= 1;
    char* p = static_cast<char*>(x.data()) + test::element_offset(x, i) * static_cast<std::int64_t>(x.element_size());
    std::memcpy(p, &bits, x.element_size());  // little-endian: the low bytes
  }
}

// Random values with special ones sprinkled in, for each operand of a case.
void fill_with_special_values(std::initializer_list<TensorView> operands, std::mt19937_64& rng) {
  for (const TensorView& x : operands) {
    test::fill_random(x, rng);
    sprinkle_special_values(x, rng);
  }
}

// The end of a differential test over specialised kernels: none failed to
// compile (a failure would have run the reference against itself), and the
// cases reached at least `per_op` distinct kernels for each op (each form a
// kernel of its own, not one kernel run again and again).
void expect_compiled_and_count(DType dtype, const std::set<std::string>& keys, const char* kind, std::size_t per_op) {
  EXPECT_EQ(kernel_cache_stats().failures, 0u);
  std::cout << dtype_name(dtype) << ": " << keys.size() << " " << kind << " kernels\n";
  EXPECT_GE(keys.size(), per_op * test::supported_ops(dtype).size()) << kind;
}

// The random cases reach variety, not one kernel: every op several broadcast
// types, and each operand every stride class (u unit, z repeated, s strided,
// r reversed: NOTE: [Walking order] gives out a reversed row where the inputs
// read forwards) of its innermost level.
void expect_every_op_and_stride_class_reached(const std::vector<Op>& ops, const std::set<std::string>& keys) {
  std::map<std::string, int> kernels_of_op;
  std::set<std::string> classes;  // "a:u", "b:s", ...
  const std::regex layout(R"(^([a-z_0-9]+)\.[a-z0-9]+\.\[[a-z_,]*\]\.([uzsr])([uzsr])([uzsr])\.)");
  for (const std::string& key : keys) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(key, m, layout)) << key;
    ++kernels_of_op[m[1]];
    for (int k = 0; k < kNumOperands; ++k) classes.insert(std::string(1, "oab"[k]) + ":" + m[2 + k].str());
  }
  for (const Op op : ops) EXPECT_GE(kernels_of_op[std::string(op_name(op))], 5) << op_name(op);
  for (const char* c : {"o:u", "o:s", "o:r", "a:u", "a:z", "a:s", "a:r", "b:u", "b:z", "b:s", "b:r"})
    EXPECT_TRUE(classes.contains(c)) << c;
}

// Each test starts from an empty cache: its failure count is its own, and no
// kernel another test made fail on purpose (Faults.*, ExprLimits.*) is kept
// as failed, which would have these tests compare the reference with itself
// when they run in one process.
class JitDifferential : public ::testing::TestWithParam<DType> {
 protected:
  void SetUp() override { clear_kernel_cache(); }
};

TEST_P(JitDifferential, RandomCasesMatchTheReferenceBitForBit) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 7919 + 1);
  const std::vector<Op> ops = test::supported_ops(dtype);
  std::set<std::string> keys;
  const int cases = 2000;  // x 10 dtypes: 20,000 cases
  for (int i = 0; i < cases; ++i) {
    const Op op = ops[i % ops.size()];
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 8, 5, 2000);
    test::RandomView a = test::random_view(dtype, s.a, rng), b = test::random_view(dtype, s.b, rng);
    test::fill_random(a.view, rng);
    test::fill_random(b.view, rng);
    sprinkle_special_values(a.view, rng);
    sprinkle_special_values(b.view, rng);
    test::keep_in_domain(op, b.view);
    const std::string label = std::string(op_name(op)) + "." + std::string(dtype_name(dtype)) + " case " +
                              std::to_string(i) + ": " + to_string(s.a) + " & " + to_string(s.b);
    if (i % 7 == 3 && s.a == s.out && result_dtype(op, dtype) == dtype) {  // in place on a
      const std::vector<test::Expected> want = test::oracle(op, a.view, b.view, s.out);
      const Tensor expected = reference_result(op, a.view, b.view, s.out);
      binary(op, a.view, b.view, a.view);
      ASSERT_EQ(test::oracle_mismatch(want, a.view), "") << label << " (in place)";
      ASSERT_EQ(test::oracle_mismatch(want, expected), "") << label << " (in place, the reference executor)";
      continue;
    }
    // out too is sometimes strided, permuted or reversed (NOTE: the planner
    // flips the dims out walks backwards).
    const test::RandomView out = test::random_view(result_dtype(op, dtype), s.out, rng, i % 4 == 1);
    expect_jit_equals_reference(op, a.view, b.view, out.view, keys, label);
    if (HasFailure()) return;
  }
  EXPECT_EQ(kernel_cache_stats().failures, 0u);
  RecordProperty("distinct_kernels", static_cast<int>(keys.size()));
  std::cout << dtype_name(dtype) << ": " << cases << " cases over " << keys.size() << " kernels\n";
  expect_every_op_and_stride_class_reached(ops, keys);
}

// NOTE: [Streaming stores]: every op and broadcast pattern a streaming kernel
// serves, with out and the inputs starting at every offset within a line
// (so the head, the whole lines and the tail all run), against the reference.
TEST_P(JitDifferential, StreamingStoresMatchTheReferenceBitForBit) {
  if (!test::host_streams()) GTEST_SKIP() << "the host target has no streaming stores";
  const DType dtype = GetParam();
  const test::ScopedSetting stream_everything("BCAST_STREAM_MIN_BYTES", "0");
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 104729 + 7);
  struct Pattern {
    Shape out, a, b;
  };
  // Rows of at least 300 elements: kStreamMinRowBytes for every dtype.
  const std::vector<Pattern> patterns{{{3, 301}, {3, 301}, {3, 301}},
                                      {{4, 333}, {4, 1}, {1, 333}},
                                      {{5, 300}, {5, 300}, {5, 1}},
                                      {{2, 3, 300}, {2, 1, 300}, {1, 3, 1}},
                                      {{1000}, {1}, {1000}}};
  // A view of `shape` whose last dim starts `skip` elements into its parent's.
  auto offset_view = [](const Tensor& parent, std::int64_t skip, std::int64_t extent) {
    std::vector<IndexItem> items(parent.shape().size() - 1, Slice{});
    items.push_back(Slice{skip, skip + extent, 1});
    return index(parent, items);
  };
  auto with_room = [](Shape s) {
    s.back() += 64;
    return s;
  };
  std::set<std::string> keys;
  for (const Op op : test::supported_ops(dtype)) {  // the pairs with a binary kernel
    for (const Pattern& p : patterns) {
      const std::int64_t skip = std::uniform_int_distribution<std::int64_t>(0, 63)(rng);
      const Tensor a_parent(dtype, with_room(p.a)), b_parent(dtype, with_room(p.b));
      const Tensor out_parent(result_dtype(op, dtype), with_room(p.out));
      const TensorView a = offset_view(a_parent, (skip * 7) % 64, p.a.back());
      const TensorView b = offset_view(b_parent, (skip * 13) % 64, p.b.back());
      const TensorView out = offset_view(out_parent, skip, p.out.back());
      fill_with_special_values({a, b}, rng);
      const BroadcastPlan plan = plan_broadcast(out.layout(), a.layout(), b.layout());
      const KernelKey key = call_kernel_key(target_for(TargetKind::host), op, dtype, plan);
      const std::string label = key.to_string() + " on " + to_string(p.a) + " & " + to_string(p.b) + ", out at +" +
                                std::to_string(skip);
      ASSERT_TRUE(key.stream) << label;
      ASSERT_TRUE(select_kernel(op, dtype, plan).jit) << label << ": no JIT kernel";
      keys.insert(key.to_string());
      std::memset(out_parent.data(), 0xA5, out_parent.nbytes());
      expect_call_matches_reference(op, a, b, out, label);
      expect_room_untouched(out_parent, skip, p.out.back(), label);
      if (HasFailure()) return;
    }
  }
  expect_compiled_and_count(dtype, keys, "streaming", patterns.size());
}

// NOTE: [Streaming stores] on NOTE: [Fixed rows]: rows of 2 to 16 elements
// against a per-row column and a repeated row, either side, out
// starting 0 to 4 rows into its parent (so head rows, whole lines and tail
// rows all run), against the reference. A repeated row's call has fewer
// rows than NOTE: [Short rows] fuse: from there on fusion runs it.
TEST_P(JitDifferential, StreamingFixedRowsMatchTheReferenceBitForBit) {
  if (!test::host_streams()) GTEST_SKIP() << "the host target has no streaming stores";
  const DType dtype = GetParam();
  const test::ScopedSetting stream_everything("BCAST_STREAM_MIN_BYTES", "0");
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 49979687 + 11);
  std::uniform_int_distribution<std::int64_t> row_count(50, 300), skip(0, 4);
  std::set<std::string> keys;
  for (const Op op : test::supported_ops(dtype)) {  // the pairs with a binary kernel
    for (const std::int64_t m : {2, 3, 4, 5, 8, 16}) {
      for (const bool repeated_row : {false, true}) {
        const std::int64_t fused_from = 2 * rows_per_fused(m, dtype_size(dtype));
        const std::int64_t rows = repeated_row ? std::min(row_count(rng), fused_from - 1) : row_count(rng);
        const std::int64_t first = skip(rng);
        Tensor full(dtype, {rows, m}), column(dtype, {rows, 1}), row(dtype, {1, m});
        fill_with_special_values({full, column, row}, rng);
        const std::vector<std::pair<TensorView, TensorView>> pairs =
            repeated_row ? std::vector<std::pair<TensorView, TensorView>>{{full, row}, {row, full}}
                         : std::vector<std::pair<TensorView, TensorView>>{{full, column}, {column, full}};
        for (const auto& [a, b] : pairs) {
          Tensor out_parent(result_dtype(op, dtype), {rows + 4, m});
          const TensorView out = index(out_parent, {Slice{first, first + rows, 1}});
          const BroadcastPlan plan = plan_broadcast(out.layout(), a.layout(), b.layout());
          const KernelKey key = call_kernel_key(target_for(TargetKind::host), op, dtype, plan);
          const std::string label = key.to_string() + " on [" + std::to_string(rows) + "," + std::to_string(m) +
                                    "], out from row " + std::to_string(first);
          ASSERT_FALSE(short_rows_fuse(plan, dtype_size(dtype))) << label;
          ASSERT_EQ(key.fixed_row, m) << label;
          EXPECT_TRUE(key.stream) << label;  // a step of m lines at most, 5 here
          keys.insert(key.to_string());
          expect_call_matches_reference(op, a, b, out, label);
          if (HasFailure()) return;
        }
      }
    }
  }
  expect_compiled_and_count(dtype, keys, "fixed-row", 6 * 4);  // 6 row lengths x 4 pairs
}

// NOTE: [Transposed tiles]: either input transposed, against a contiguous,
// a per-row, a repeated-row and a transposed-broadcast other input, with
// extents that leave rows and columns over after the L x L blocks; then again
// with streaming stores (NOTE: [Streaming stores]) on rows of whole lines
// (256 and 320 columns) and of a line and a part (300 columns).
TEST_P(JitDifferential, TransposedTilesMatchTheReferenceBitForBit) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 15485863 + 3);
  std::set<std::string> keys;
  std::uniform_int_distribution<std::int64_t> extent(2, 150), wide(0, 2);
  const test::ScopedSetting restore("BCAST_STREAM_MIN_BYTES", get_setting("BCAST_STREAM_MIN_BYTES"));
  // Transposed tiles stream outputs of 4 and 8 bytes only (the size of the
  // transposed input): 1- and 2-byte dtypes get no streaming rounds.
  const bool can_stream = dtype_size(dtype) >= 4;
  if (!can_stream) std::cout << dtype_name(dtype) << ": transposed tiles of this size never stream: no such rounds\n";
  int streamed = 0;
  for (int round = 0; round < (can_stream ? 2 : 1) * kNumOps; ++round) {
    const Op op = static_cast<Op>(round % kNumOps);
    const bool stream = round >= kNumOps;
    const std::vector<Op> kernels = test::supported_ops(dtype);  // the pairs with a binary kernel
    if (std::find(kernels.begin(), kernels.end(), op) == kernels.end()) continue;
    set_setting("BCAST_STREAM_MIN_BYTES", stream ? "0" : "off");
    constexpr std::array<std::int64_t, 3> kLineColumns{256, 320, 300};
    const std::int64_t rows = extent(rng), cols = stream ? kLineColumns[wide(rng)] : extent(rng);
    Tensor parent(dtype, {cols, rows}), full(dtype, {rows, cols}), column(dtype, {rows, 1}), row(dtype, {1, cols});
    Tensor column_parent(dtype, {1, rows});
    fill_with_special_values({parent, full, column, row, column_parent}, rng);
    const TensorView transposed = transpose(parent);  // [rows, cols], strides [1, rows]
    // [rows, cols] with strides [1, 0]: a column broadcast along the rows, stepping 1 between them.
    const TensorView spread = broadcast_to(transpose(column_parent), {rows, cols});
    const std::vector<std::pair<TensorView, TensorView>> pairs{
        {transposed, full}, {full, transposed}, {transposed, column}, {row, transposed}, {spread, full}};
    for (const auto& [a, b] : pairs) {
      Tensor out(result_dtype(op, dtype), {rows, cols});
      const KernelKey key = call_kernel_key(target_for(TargetKind::host), op, dtype, plan_broadcast(out.layout(), a.layout(), b.layout()));
      const std::string label = key.to_string() + " on [" + std::to_string(rows) + "," + std::to_string(cols) + "]";
      EXPECT_NE(key.transposed, 0) << label;
      if (test::host_streams()) {
        EXPECT_EQ(key.stream, stream && out.element_size() == a.element_size()) << label;
      }
      streamed += key.stream;
      keys.insert(key.to_string());
      expect_call_matches_reference(op, a, b, out, label);
      if (HasFailure()) return;
    }
  }
  if (test::host_streams()) {
    if (can_stream) {
      EXPECT_GT(streamed, 0) << "no streaming round streamed";
    }
  }
  // At least 4 of the 5 pairs are kernels of their own (measured: 4 to 6 an
  // op, the streaming rounds adding kernels for the ops that can stream).
  expect_compiled_and_count(dtype, keys, "transposed-tile", 4);
}

// NOTE: [Transposed tiles] on batches of matrices: a 4-D input transposed in
// its last two dims, against a contiguous, a repeated-row and a
// batch-repeated other input (plans of rank 3, the batch dims merged, and
// rank 4, b repeated along one of them), plain and streaming, on one thread
// and split across three. Narrow matrices do not run in tiles: the threads'
// pieces are ranges of rows that start and end inside a matrix, so the
// kernel's odometer over the matrices starts part way. Wide ones run in
// square tiles, matrix by matrix (NOTE: [Blocked order]).
TEST_P(JitDifferential, BatchedTransposedTilesMatchTheReferenceBitForBit) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(static_cast<std::uint64_t>(dtype) * 104729 + 5);
  std::set<std::string> keys;
  std::uniform_int_distribution<std::int64_t> extent(2, 70), batch(2, 4);
  const test::ScopedSetting restore_stream("BCAST_STREAM_MIN_BYTES", get_setting("BCAST_STREAM_MIN_BYTES"));
  const test::ScopedSetting restore_threads("BCAST_NUM_THREADS", get_setting("BCAST_NUM_THREADS"));
  const test::ScopedSetting small_grain("BCAST_GRAIN", "1000");
  // Each op once (every kernel is a compile); forms and thread counts turn
  // over with the ops, so each dtype sees all six combinations.
  int round = 0;
  for (const Op op : test::supported_ops(dtype)) {  // the pairs with a binary kernel
    const int form = round % 3;  // narrow, plain; narrow, streaming; wide, streaming
    set_setting("BCAST_STREAM_MIN_BYTES", form == 0 ? "off" : "0");
    set_setting("BCAST_NUM_THREADS", round / 3 % 2 == 0 ? "1" : "3");
    ++round;
    const std::int64_t n0 = batch(rng), n1 = batch(rng);
    const std::int64_t rows = form == 2 ? 20 : extent(rng), cols = form == 0 ? extent(rng) : form == 1 ? 64 : 1104;
    Tensor parent(dtype, {n0, n1, cols, rows}), full(dtype, {n0, n1, rows, cols}), row(dtype, {cols});
    Tensor repeated(dtype, {n0, 1, rows, cols});
    fill_with_special_values({parent, full, row, repeated}, rng);
    const TensorView transposed = permute(parent, {0, 1, 3, 2});  // [n0, n1, rows, cols], rows stepping 1
    const std::vector<std::tuple<TensorView, TensorView, int>> pairs{
        {transposed, full, 3}, {full, transposed, 3}, {transposed, row, 3}, {transposed, repeated, 4},
        {repeated, transposed, 4}};
    for (const auto& [a, b, rank] : pairs) {
      Tensor out(result_dtype(op, dtype), {n0, n1, rows, cols});
      const KernelKey key = call_kernel_key(target_for(TargetKind::host), op, dtype, plan_broadcast(out.layout(), a.layout(), b.layout()));
      const std::string label = key.to_string() + " on " + to_string(out.view().shape()) + ", " +
                                get_setting("BCAST_NUM_THREADS") + " threads";
      EXPECT_NE(key.transposed, 0) << label;
      EXPECT_EQ(key.rank, rank) << label;
      keys.insert(key.to_string());
      expect_call_matches_reference(op, a, b, out, label);
      if (HasFailure()) return;
    }
  }
  expect_compiled_and_count(dtype, keys, "batched transposed-tile", 5);  // 5 pairs
}

// Each case on 1 and 3 threads, streaming or not: its kernel's key matches
// `variant` and its bits are the reference evaluator's.
void expect_expressions_take_variant(const std::vector<std::pair<std::string, Expr>>& cases, const std::regex& variant,
                                     const std::string& context) {
  for (const char* threads : {"1", "3"})
    for (const char* stream : {"auto", "0"}) {
      const test::ScopedSetting pool("BCAST_NUM_THREADS", threads);
      const test::ScopedSetting grain("BCAST_GRAIN", "1000");
      const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
      for (const auto& [name, e] : cases) {
        const std::string label = name + context + ", threads " + threads + ", stream " + stream;
        const std::string kernel = describe(e).kernel;
        EXPECT_TRUE(std::regex_search(kernel, variant)) << label << ": " << kernel;
        const Tensor jit = evaluate(e);
        set_jit_enabled(false);
        const Tensor reference = evaluate(e);
        set_jit_enabled(true);
        EXPECT_EQ(test::bytes_of(jit), test::bytes_of(reference)) << label << " in " << kernel;
      }
    }
}

// NOTE: [Transposed tiles] in expression kernels (the one loop nest's): one
// transposed input among others of other dtypes (contiguous, one value per
// row, one row for all), either input position, f32 and f16, batches of
// matrices; with and without streaming stores, on one thread and on three.
// Each against the reference evaluator, bit for bit.
TEST(ExpressionTransposedTiles, ATransposedInputAmongAnyOthersMatchesTheReference) {
  std::mt19937_64 rng(91);
  const std::int64_t rows = 67, cols = 131;  // whole blocks and leftovers both ways
  Tensor parent(DType::f32, {cols, rows}), parent16(DType::f16, {cols, rows}), batch(DType::f32, {3, cols, rows});
  Tensor full(DType::f64, {rows, cols}), full32(DType::f32, {rows, cols}), full16(DType::f16, {rows, cols}),
      full_batch(DType::f32, {3, rows, cols}), column(DType::i32, {rows, 1}), row(DType::f32, {1, cols}),
      row16(DType::f16, {1, cols});
  for (const Tensor* x : {&parent, &parent16, &batch, &full, &full32, &full16, &full_batch, &column, &row, &row16})
    test::fill_random(*x, rng);
  const TensorView t = transpose(parent), t16 = transpose(parent16), tb = permute(batch, {0, 2, 1});
  // Each with a contiguous operand of out's shape, so that out is allocated
  // row-major and the transposed input walks it across.
  const std::vector<std::pair<std::string, Expr>> cases{
      {"t * full + column", Expr(t) * Expr(full) + Expr(column)},
      {"full32 - t * 2 + row", Expr(full32) - Expr(t) * 2.0 + Expr(row)},
      {"full16 + row16 * t16", Expr(full16) + Expr(row16) * Expr(t16)},
      {"full_batch - batch + row", Expr(full_batch) - Expr(tb) + Expr(row)},
      {"column * batch + full", Expr(column) * Expr(tb) + Expr(full)}};
  expect_expressions_take_variant(cases, std::regex(R"(\.t[a-c]\.)"), "");
}

// NOTE: [Fixed rows] for expressions: rows of 3 to 16 elements with a
// per-row input (which NOTE: [Short rows] cannot fuse) among any others,
// contiguous or one row for all, of any dtypes (complex too) and a weak
// scalar; each streaming or not, on 1 and 3 threads, against the reference
// evaluator bit for bit.
TEST(ExpressionFixedRows, ShortRowsWithAPerRowInputAmongAnyOthersMatchTheReference) {
  std::mt19937_64 rng(17);
  for (const std::int64_t m : {3, 4, 8, 16}) {
    const std::int64_t rows = 4099;
    Tensor x(DType::f32, {rows, m}), x64(DType::f64, {rows, m}), img(DType::u8, {rows, m}), z(DType::c64, {rows, m}),
        column(DType::i32, {rows, 1}), column32(DType::f32, {rows, 1}), row(DType::f32, {1, m}),
        row16(DType::f16, {1, m}), zcolumn(DType::c64, {rows, 1}), zrow(DType::c128, {1, m});
    for (const Tensor* t : {&x, &x64, &img, &z, &column, &column32, &row, &row16, &zcolumn, &zrow})
      test::fill_random(*t, rng);
    const std::vector<std::pair<std::string, Expr>> cases{
        {"x * column + row", Expr(x) * Expr(column) + Expr(row)},
        {"(img - row16) * column32", (Expr(img) - Expr(row16)) * Expr(column32)},
        {"x64 * 2.5 + column32 - row16", Expr(x64) * 2.5 + Expr(column32) - Expr(row16)},
        {"z * column32 + row", Expr(z) * Expr(column32) + Expr(row)},
        {"z * zcolumn + zrow", Expr(z) * Expr(zcolumn) + Expr(zrow)},
        {"z * zcolumn, a binary op's key", Expr(z) * Expr(zcolumn)}};
    expect_expressions_take_variant(cases, std::regex(R"(\.r)" + std::to_string(m) + R"((-\d+){3,5}\.)"),
                                    ", m " + std::to_string(m));
  }
}

// NOTE: [Fixed rows] walked backwards: a horizontally mirrored image,
// img[:, ::-1] of [H, W, 3], cannot merge its pixels' rows, so it stays rank
// 3, read forwards with out's rows stepping -3 (NOTE: [Walking order]); a
// vertically mirrored [N, 3], x[::-1], alike at rank 2, its per-row column
// then stepping -1. Both take the fixed-rows kernel (a "b3" step in the
// key), with a per-channel row and a per-row column, on 1 and 3 threads,
// streaming or not, against the reference evaluator bit for bit; the key
// prints and parses back.
TEST(ExpressionFixedRows, MirroredViewsWalkTheirRowsBackwards) {
  std::mt19937_64 rng(29);
  Tensor img(DType::u8, {37, 41, 3}), img32(DType::f32, {37, 41, 3}), pixels(DType::f32, {4099, 3}),
      channel(DType::f32, {3}), channel16(DType::f16, {3}), per_row(DType::f32, {4099, 1});
  for (const Tensor* t : {&img, &img32, &pixels, &channel, &channel16, &per_row}) test::fill_random(*t, rng);
  const std::vector<IndexItem> flip_width = parse_index_expression("[:, ::-1]");
  const std::vector<IndexItem> flip_rows = parse_index_expression("[::-1]");
  const TensorView mirrored = index(img, flip_width), mirrored32 = index(img32, flip_width),
                   upside_down = index(pixels, flip_rows);
  const std::vector<std::pair<std::string, Expr>> cases{
      {"(f32(img[:, ::-1]) - channel) / channel16",
       (expr::cast(Expr(mirrored), DType::f32) - Expr(channel)) / Expr(channel16)},
      {"img32[:, ::-1] * channel", Expr(mirrored32) * Expr(channel)},
      {"pixels[::-1] * per_row + channel", Expr(upside_down) * Expr(per_row) + Expr(channel)}};
  expect_expressions_take_variant(cases, std::regex(R"(\.r3(-b?\d+){2,4}\.)"), "");
  for (const auto& [name, e] : cases) {
    const std::string kernel = describe(e).kernel;
    EXPECT_THAT(kernel, ::testing::HasSubstr("-b3")) << name;
    const std::optional<KernelKey> key = parse_kernel_key(kernel, provider::current_codegen_id());
    ASSERT_TRUE(key.has_value()) << kernel;
    EXPECT_EQ(key->to_string(), kernel);
  }
}

// Negative strides on every dim (NOTE: [Walking order]): random draws flip
// each dim of each input, and of out, with even odds, on an image with a
// per-channel row (fixed rows), a matrix with a row and a column (long rows,
// reversed ones), a batch with a column, and short rows with a per-row
// column; as binary calls and as expressions, streaming or not, on 1 and 3
// threads, into a fresh out and into a flipped view of one. Each against the
// reference executor bit for bit. The draws must reach every way a kernel
// walks backwards: a reversed input row and a reversed out row (key letter
// r), fixed rows with out's rows reversed or stepping back (b), and
// streaming stores on both.
TEST(GeneratedCode, ElementLoopsAreDeclaredIndependentAndNeedNoOverlapCheck) {
  // NOTE: [Independent iterations]: the element loop's loads and stores form
  // a parallel access group, so the vectoriser emits no run-time overlap
  // check (its "vector.memcheck" block) and no scalar copy of the loop for it.
  const KernelKey key = key_for(Op::add, DType::f32, {DC::expand_b, DC::same, DC::expand_a});
  EXPECT_THAT(jit::kernel_ir(key, false), ::testing::HasSubstr("llvm.loop.parallel_accesses"));
  const std::string optimised = jit::kernel_ir(key, true);
  EXPECT_THAT(optimised, ::testing::HasSubstr("vector.body")) << optimised;
  EXPECT_THAT(optimised, ::testing::Not(::testing::HasSubstr("memcheck"))) << optimised;
}

TEST(GeneratedCode, ElementLoopsInPlaceOnEveryInnerStrideMatchTheReference) {
  // NOTE: [Independent iterations] rests on out overlapping an input only as
  // the same view: in place on unit, reversed and strided rows, long enough
  // for the vectorised loop, out = x * x + y matches the reference.
  std::mt19937_64 rng(5);
  Tensor y(DType::f32, {7, 2000});
  test::fill_random(y, rng);
  const std::vector<std::vector<IndexItem>> views{{Slice{}, Slice{}},
                                                  {Slice{}, Slice{{}, {}, -1}},
                                                  {Slice{}, Slice{{}, {}, 2}},
                                                  {Slice{{}, {}, -1}, Slice{{}, {}, -3}}};
  for (const std::vector<IndexItem>& items : views) {
    Tensor x_jit(DType::f32, {7, 2000}), x_reference(DType::f32, {7, 2000});
    test::fill_random(x_jit, rng);
    std::memcpy(x_reference.data(), x_jit.data(), x_jit.nbytes());
    const TensorView in_jit = index(x_jit, items), in_reference = index(x_reference, items);
    const TensorView y_view = index(y, {Slice{}, Slice{{}, in_jit.shape()[1]}});
    const Expr e_jit = Expr(in_jit) * Expr(in_jit) + Expr(y_view),
               e_reference = Expr(in_reference) * Expr(in_reference) + Expr(y_view);
    evaluate(e_jit, in_jit);
    set_jit_enabled(false);
    evaluate(e_reference, in_reference);
    set_jit_enabled(true);
    EXPECT_EQ(test::bytes_of(x_jit), test::bytes_of(x_reference))
        << "strides " << to_string(in_jit.strides()) << " in " << describe(e_jit).kernel;
  }
}

TEST(NegativeStrides, RandomFlipsOfEveryDimMatchTheReference) {
  std::mt19937_64 rng(71);
  std::bernoulli_distribution flip(0.5);
  auto flips = [&](std::size_t rank) {
    std::vector<IndexItem> items;
    for (std::size_t d = 0; d < rank; ++d) items.push_back(flip(rng) ? Slice{{}, {}, -1} : Slice{});
    return items;
  };
  auto flipped = [&](const TensorView& x) { return index(x, flips(x.shape().size())); };
  Tensor img(DType::u8, {29, 131, 3}), img32(DType::f32, {29, 131, 3}), channel(DType::f32, {3}),
      channel16(DType::f16, {3}), x(DType::f32, {67, 1031}), row(DType::f32, {1031}), column(DType::f32, {67, 1}),
      batch(DType::f32, {3, 67, 259}), row259(DType::f32, {259}), pixels(DType::f32, {4099, 5}),
      per_row(DType::f32, {4099, 1}), row5(DType::f32, {5});
  for (const Tensor* t : {&img, &img32, &channel, &channel16, &x, &row, &column, &batch, &row259, &pixels, &per_row, &row5})
    test::fill_random(*t, rng);
  struct Case {
    std::string name;
    std::vector<const Tensor*> inputs;
    std::function<Expr(const std::vector<TensorView>&)> expression;
    Op op;  // the binary call on the first two inputs, same dtype
  };
  const std::vector<Case> cases{
      {"(f32(img) - channel) / channel16 | img32 - channel", {&img32, &channel, &img, &channel16},
       [](const auto& v) { return (expr::cast(Expr(v[2]), DType::f32) - Expr(v[1])) / Expr(v[3]); }, Op::sub},
      {"x * row + column | x + row", {&x, &row, &column},
       [](const auto& v) { return Expr(v[0]) * Expr(v[1]) + Expr(v[2]); }, Op::add},
      {"batch * column - row | batch * column", {&batch, &column, &row259},
       [](const auto& v) { return Expr(v[0]) * Expr(v[1]) - Expr(v[2]); }, Op::mul},
      {"pixels * per_row + row | pixels * per_row", {&pixels, &per_row, &row5},
       [](const auto& v) { return Expr(v[0]) * Expr(v[1]) + Expr(v[2]); }, Op::mul}};
  std::set<std::string> kernels;
  for (const char* threads : {"1", "3"})
    for (const char* stream : {"auto", "0"}) {
      const test::ScopedSetting pool("BCAST_NUM_THREADS", threads);
      const test::ScopedSetting grain("BCAST_GRAIN", "1000");
      const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", stream);
      for (const Case& c : cases)
        for (int draw = 0; draw < 6; ++draw) {
          std::vector<TensorView> v;
          for (const Tensor* t : c.inputs) v.push_back(flipped(*t));
          const std::string label = c.name + ", threads " + threads + ", stream " + stream + ", draw " +
                                    std::to_string(draw) + ", strides a " + to_string(v[0].strides()) + " b " +
                                    to_string(v[1].strides());
          const Expr e = c.expression(v);
          kernels.insert(describe(e).kernel);
          const Tensor binary_jit = binary(c.op, v[0], v[1]), expr_jit = evaluate(e);
          Tensor out_parent(expr_jit.dtype(), expr_jit.shape()), reference_parent(expr_jit.dtype(), expr_jit.shape());
          const std::vector<IndexItem> out_flips = flips(expr_jit.shape().size());
          const TensorView out = index(out_parent, out_flips), reference_out = index(reference_parent, out_flips);
          evaluate(e, out);
          set_jit_enabled(false);
          const Tensor binary_reference = binary(c.op, v[0], v[1]), expr_reference = evaluate(e);
          evaluate(e, reference_out);
          set_jit_enabled(true);
          EXPECT_EQ(test::bytes_of(binary_jit), test::bytes_of(binary_reference)) << label;
          EXPECT_EQ(test::bytes_of(expr_jit), test::bytes_of(expr_reference)) << label << " in " << describe(e).kernel;
          EXPECT_EQ(test::bytes_of(out_parent), test::bytes_of(reference_parent))
              << label << ", out strides " << to_string(out.strides());
          if (HasFailure()) return;
        }
    }
  auto reached = [&](const char* pattern) {
    return std::ranges::any_of(kernels, [&](const std::string& k) { return std::regex_search(k, std::regex(pattern)); });
  };
  for (const char* pattern : {R"(\]\.[uzs]*r[uzsr]*\.)",        // an input's row reversed
                              R"(\]\.r[uzsr]*\.(host|nt))",     // out's row reversed
                              R"(\]\.r[uzsr]*\.nt\.)",          // ... streaming
                              R"(\]\.r[uzsr]*\.r\d+-)",           // fixed rows, out's rows reversed
                              R"(\.r\d+-b\d+)",                 // fixed rows, out stepping back
                              R"(\.r\d+(-\d+)+-b\d+)",          // fixed rows, an input stepping back
                              R"(\.r\d+(-b?\d+)+\.nt\.)"})      // fixed rows streaming
    EXPECT_TRUE(reached(pattern)) << pattern << " in none of " << kernels.size() << " kernels";
}

// NOTE: [Expression kernels] on f16 and bf16: the ops that copy their
// inputs' bits (copysign, heaviside, max, min, fmax, fmin) keep a signalling
// NaN and its payload inside an expression, from an input or from another
// such op, as the reference evaluator (on stored values) does.
TEST(ExpressionStoredBits, OpsThatCopyBitsKeepSignallingNaNsAsTheEvaluatorDoes) {
  std::mt19937_64 rng(23);
  for (const DType dtype : {DType::f16, DType::bf16}) {
    // Signalling NaNs of both signs, a quiet one with a payload, zeros, +-1, +inf.
    const std::vector<std::uint16_t> pool =
        dtype == DType::f16 ? std::vector<std::uint16_t>{0x7d01, 0xfc81, 0x7e05, 0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00}
                            : std::vector<std::uint16_t>{0x7f81, 0xff81, 0x7fc5, 0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80};
    const std::uint16_t quiet_bit = dtype == DType::f16 ? 0x0200 : 0x0040;
    std::uniform_int_distribution<std::size_t> pick(0, pool.size() - 1);
    Tensor x(dtype, {4099}), y(dtype, {4099}), z(dtype, {4099});
    for (const Tensor* t : {&x, &y, &z})
      for (std::int64_t i = 0; i < t->numel(); ++i) static_cast<std::uint16_t*>(t->data())[i] = pool[pick(rng)];
    const Expr copysign = expr::apply(Op::copysign, Expr(x), Expr(y));
    const std::vector<std::pair<std::string, Expr>> cases{
        {"max(copysign(x, y), z)", expr::apply(Op::max, copysign, Expr(z))},
        {"fmin(heaviside(x, y), z)", expr::apply(Op::fmin, expr::apply(Op::heaviside, Expr(x), Expr(y)), Expr(z))},
        {"min(fmax(x, y), copysign(z, x))", expr::apply(Op::min, expr::apply(Op::fmax, Expr(x), Expr(y)),
                                                  expr::apply(Op::copysign, Expr(z), Expr(x)))}};
    for (const auto& [name, e] : cases) {
      const std::string label = name + " on " + std::string(dtype_name(dtype));
      const std::string kernel = describe(e).kernel;
      EXPECT_THAT(kernel, ::testing::StartsWith("expr[")) << label;
      const Tensor jit = evaluate(e);
      set_jit_enabled(false);
      const Tensor reference = evaluate(e);
      set_jit_enabled(true);
      EXPECT_EQ(test::bytes_of(jit), test::bytes_of(reference)) << label << " in " << kernel;
      int signalling = 0;  // the property is vacuous unless some survive
      for (std::int64_t i = 0; i < reference.numel(); ++i) {
        const std::uint16_t bits = static_cast<const std::uint16_t*>(reference.data())[i];
        const bool nan = dtype == DType::f16 ? (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff) != 0
                                             : (bits & 0x7f80) == 0x7f80 && (bits & 0x7f) != 0;
        signalling += nan && (bits & quiet_bit) == 0;
      }
      EXPECT_GT(signalling, 0) << label;
    }
  }
}

// NOTE: [Streaming stores] and NOTE: [Transposed tiles] on calls split across
// three threads: chunks and tiles start anywhere in a line, and each worker's
// stores must be fenced before the caller reads out.
TEST(JitThreads, StreamingAndTransposedCallsSplitAcrossThreadsMatchTheReference) {
  const test::ScopedSetting stream_everything("BCAST_STREAM_MIN_BYTES", "0");
  const test::ScopedSetting small_grain("BCAST_GRAIN", "1000");
  const test::ScopedSetting threads("BCAST_NUM_THREADS", "3");
  std::mt19937_64 rng(77);
  Tensor full(DType::f32, {777, 1031}), column(DType::f32, {777, 1}), row(DType::f32, {1, 1031});
  Tensor parent(DType::f32, {1031, 777}), narrow(DType::f32, {50001, 4}), per_row(DType::f32, {50001, 1});
  for (const Tensor* t : {&full, &column, &row, &parent, &narrow, &per_row}) test::fill_random(*t, rng);
  const TensorView transposed = transpose(parent);
  const std::vector<std::tuple<Op, TensorView, TensorView>> calls{
      {Op::add, full, full}, {Op::sub, column, row}, {Op::mul, full, column},
      {Op::max, transposed, full}, {Op::div, row, transposed}, {Op::add, narrow, per_row}};
  for (const auto& [op, a, b] : calls) {
    Tensor out(DType::f32, broadcast_infer_shape(a.shape(), b.shape()));
    const KernelKey key = call_kernel_key(target_for(TargetKind::host), op, DType::f32, plan_broadcast(out.layout(), a.layout(), b.layout()));
    if (test::host_streams()) {
      EXPECT_TRUE(key.stream) << key.to_string();
    }
    expect_call_matches_reference(op, a, b, out, key.to_string());
  }
  // Four rows for three threads: pieces are ranges of columns across the
  // rows, each positioned by every operand's own inner stride (a steps 2, b
  // repeats a column).
  Tensor wide_parent(DType::f32, {4, 60002}), per_row4(DType::f32, {4, 1});
  test::fill_random(wide_parent, rng);
  test::fill_random(per_row4, rng);
  const TensorView every_other = index(wide_parent, parse_index_expression("[:, ::2]"));
  Tensor out(DType::f32, {4, 30001});
  expect_call_matches_reference(Op::sub, every_other, per_row4, out, "columns split across threads");
  EXPECT_GT(ThreadPool::instance().stats().parts_on_workers, 0u) << "the calls really ran on the pool";
}

INSTANTIATE_TEST_SUITE_P(EveryDType, JitDifferential,
                         ::testing::Values(DType::f16, DType::bf16, DType::f32, DType::f64, DType::i8, DType::i16,
                                           DType::i32, DType::i64, DType::u8, DType::boolean),
                         [](const auto& param_info) { return std::string(dtype_name(param_info.param)); });

}  // namespace
}  // namespace bcast
