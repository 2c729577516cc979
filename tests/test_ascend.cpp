// The Ascend-style target: results equal the oracle's bit for bit over
// random cases and simulator configurations; the simulator catches broken kernels
// with a message naming the block, the call and the address; traffic counters
// show broadcast operands loaded once per block.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ascend_launch.h"
#include "bcast/config.h"
#include "executor.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "naive_executor.h"
#include "oracle.h"
#include "targets.h"
#include "random_expr.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

class Ascend : public ::testing::Test {
 protected:
  void SetUp() override {
    set_cache_dir("off");
    set_target("ascend-sim");
  }
  void TearDown() override {
    set_target("host");
    set_setting("BCAST_UB_SIZE", "196608");
    set_setting("BCAST_BLOCK_NUM", "8");
    set_setting("BCAST_DOUBLE_BUFFER", "1");
  }
};

TEST_F(Ascend, RandomCasesEqualTheHostBitForBit) {
  std::mt19937_64 rng(55);
  std::uniform_int_distribution<int> op_pick(0, kNumOps - 1), dtype_pick(0, kNumDTypes - 1), blocks(1, 48);
  const std::int64_t ub_sizes[] = {1024, 2048, 4096, 16384, 65536, 196608, 262144};
  int ran = 0;
  for (int i = 0; i < 3000; ++i) {
    const auto op = static_cast<Op>(op_pick(rng));
    const auto dtype = static_cast<DType>(dtype_pick(rng));
    if (!op_supports(op, dtype)) continue;
    const std::int64_t ub = ub_sizes[i % 7];
    const int block_num = blocks(rng);
    set_setting("BCAST_UB_SIZE", std::to_string(ub));
    set_setting("BCAST_BLOCK_NUM", std::to_string(block_num));
    set_setting("BCAST_DOUBLE_BUFFER", i % 3 ? "1" : "0");
    // Rank 0 to 8, extents up to 9 (tails of every length), some views.
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 8, 9, 4000);
    test::RandomView a = test::random_view(dtype, s.a, rng, i % 4 == 0), b = test::random_view(dtype, s.b, rng, i % 5 == 0);
    test::fill_random(a.view, rng);
    test::fill_random(b.view, rng);
    // out too is sometimes a strided, permuted or reversed view.
    test::RandomView got_view = test::random_view(result_dtype(op, dtype), s.out, rng, i % 3 == 0);
    const TensorView got = got_view.view;
    test::fill_sentinel(got);
    binary(op, a.view, b.view, got);
    const AscendTrace trace = last_ascend_trace();
    const std::int64_t numel = checked_numel(s.out, "out");
    const std::string label = std::string(op_name(op)) + "." + std::string(dtype_name(dtype)) + " " + to_string(s.a) +
                              " & " + to_string(s.b) + ", UB " + std::to_string(ub) + ", " + std::to_string(block_num) +
                              " blocks";
    if (numel > 0) {
      ASSERT_FALSE(trace.kernel.empty()) << label << ": did not reach the simulator";
      ASSERT_EQ(trace.fallback, "") << label;
      ++ran;
    } else {
      ASSERT_EQ(trace.kernel, "") << label << ": the trace is the last call's";
      ASSERT_EQ(trace.fallback, "nothing to compute: the output is empty") << label;
    }
    // The oracle shares no code with the simulator, the planner or ScalarOp
    // (the reference executor meets it in the JIT and Executor tests).
    ASSERT_EQ(test::oracle_mismatch(op, a.view, b.view, got), "") << label;
  }
  EXPECT_GT(ran, 1500);
}

// Runs a + b (f16) on the simulator directly, with a fault injected.
ascend::Launch launch_add(const Shape& sa, const Shape& sb, int block_num, ascend::Fault fault,
                          std::int64_t ub_size = 196608) {
  static Tensor a, b, out;
  a = Tensor(DType::f16, sa);
  b = Tensor(DType::f16, sb);
  out = Tensor(DType::f16, broadcast_infer_shape(sa, sb));
  const BroadcastPlan plan = plan_broadcast(out.layout(), a.layout(), b.layout());
  const Target& target = target_for(TargetKind::ascend_sim);
  const KernelKey key = make_kernel_key(target, Op::add, DType::f16, plan, provider::current_codegen_id());
  const provider::Kernel kernel = provider::kernel_for(key, target);
  EXPECT_NE(kernel.entry, nullptr);
  return ascend::launch(reinterpret_cast<ascend::KernelFn>(kernel.entry), Op::add, plan, a, b, out,
                        {ub_size, block_num, true}, fault);
}

TEST_F(Ascend, TheSimulatorCatchesBrokenKernels) {
  const ascend::Launch fine = launch_add({64, 100}, {64, 100}, 4, ascend::Fault::none);
  EXPECT_EQ(fine.error, "");
  const ascend::Launch misaligned = launch_add({64, 100}, {64, 100}, 4, ascend::Fault::misaligned_ub);
  EXPECT_THAT(misaligned.error, ::testing::MatchesRegex(
                                    "ascend-sim block [0-9]+: data_copy_gm_to_ub\\(0x[0-9a-f]+, .*\\): UB address 0x[0-9a-f]+ is "
                                    "not a multiple of 32 bytes"));
  const ascend::Launch overflow = launch_add({64, 100}, {64, 100}, 4, ascend::Fault::ub_overflow);
  EXPECT_THAT(overflow.error, HasSubstr("overflows the 196608-byte UB"));
  EXPECT_THAT(overflow.error, HasSubstr("data_copy_gm_to_ub(0x2ffe0"));
  const ascend::Launch outside = launch_add({64, 100}, {64, 100}, 4, ascend::Fault::gm_out_of_bounds);
  EXPECT_THAT(outside.error, HasSubstr("ascend-sim block 0: data_copy_gm_to_ub"));
  EXPECT_THAT(outside.error, HasSubstr("is outside operand a's buffer"));
}

TEST(AscendSimulator, QueueDisciplineIsChecked) {
  const std::vector<ascend::GmRegion> gm(3);
  const std::vector<int> sizes{4, 4, 4};
  const ascend::BlockWork work{.op_code = 0, .dtype_code = static_cast<int>(DType::f32)};
  ascend::BlockContext ctx(3, ascend::SimConfig{}, gm, sizes, work);
  ctx.deque(1, 0);
  EXPECT_EQ(ctx.error(), "ascend-sim block 3: deque(queue 1, slot 0): nothing was enqueued there");
  ascend::BlockContext twice(0, ascend::SimConfig{}, gm, sizes, work);
  twice.enque(2, 1);
  twice.enque(2, 1);
  EXPECT_THAT(twice.error(), HasSubstr("the slot is already queued"));
  ascend::BlockContext left(0, ascend::SimConfig{}, gm, sizes, work);
  left.enque(0, 0);
  left.finish();
  EXPECT_THAT(left.error(), HasSubstr("end of block: queue 0 slot 0 is still enqueued"));
}

// Sums a trace's counters.
ascend::BlockCounters total(const ascend::Launch& l, std::int64_t& max_tiles, int& busy_blocks) {
  ascend::BlockCounters t;
  max_tiles = 0;
  busy_blocks = 0;
  for (const ascend::BlockCounters& c : l.blocks) {
    t.gm_to_ub_bytes += c.gm_to_ub_bytes;
    t.ub_to_gm_bytes += c.ub_to_gm_bytes;
    t.tiles += c.tiles;
    max_tiles = std::max(max_tiles, c.tiles);
    busy_blocks += c.tiles > 0;
  }
  return t;
}

TEST_F(Ascend, BroadcastOperandsAreLoadedOncePerBlock) {
  struct Case {
    Shape a, b;
    int blocks;
  };
  // Per-channel bias, and a row; f16, 2 bytes an element.
  for (const Case& c : {Case{{32, 64, 56, 56}, {1, 64, 1, 1}, 8}, Case{{4, 16, 30, 30}, {1, 16, 1, 1}, 7},
                        Case{{1000, 300}, {1, 300}, 24}, Case{{33, 4096}, {4096}, 5}}) {
    const ascend::Launch l = launch_add(c.a, c.b, c.blocks, ascend::Fault::none);
    ASSERT_EQ(l.error, "");
    ASSERT_TRUE(l.plan.resident[kB]) << to_string(c.b) << " is not kept in the UB";
    ASSERT_FALSE(l.plan.resident[kA]) << to_string(c.a) << " is read once: it has no reason to stay in the UB";
    std::int64_t max_tiles = 0;
    int busy = 0;
    const ascend::BlockCounters t = total(l, max_tiles, busy);
    const std::int64_t a_bytes = checked_numel(c.a, "a") * 2, b_bytes = checked_numel(c.b, "b") * 2;
    EXPECT_EQ(t.gm_to_ub_bytes, a_bytes + b_bytes * busy) << to_string(c.a);
    EXPECT_EQ(t.ub_to_gm_bytes, checked_numel(broadcast_infer_shape(c.a, c.b), "out") * 2);
    EXPECT_EQ(t.tiles, l.plan.tiles);
    EXPECT_LE(max_tiles, (l.plan.tiles + c.blocks - 1) / c.blocks);
  }
}

TEST_F(Ascend, TheTraceIsTheLastCallsAndNamesTheResidentInput) {
  // A per-channel bias as the first operand is the resident one.
  std::mt19937_64 rng(4);
  Tensor bias(DType::f32, {1, 16, 1, 1}), x(DType::f32, {2, 16, 8, 8});
  test::fill_random(bias, rng);
  test::fill_random(x, rng);
  const Tensor y = sub(bias, x);
  AscendTrace trace = last_ascend_trace();
  EXPECT_THAT(trace.kernel, HasSubstr("sub.f32.[expand_a,same,expand_a].uzu.ascend-sim."));
  EXPECT_TRUE(trace.a_resident);
  EXPECT_FALSE(trace.b_resident);
  EXPECT_EQ(test::oracle_mismatch(Op::sub, bias, x, y), "");
  // The next calls do not reach the simulator, and say why.
  (void)sub(bias, Tensor(DType::f32, {0, 16, 8, 8}));
  trace = last_ascend_trace();
  EXPECT_EQ(trace.kernel, "");
  EXPECT_EQ(trace.fallback, "nothing to compute: the output is empty");
  const test::ScopedSetting jit_off("BCAST_JIT", "0");
  EXPECT_EQ(test::oracle_mismatch(Op::sub, bias, x, sub(bias, x)), "");
  trace = last_ascend_trace();
  EXPECT_EQ(trace.kernel, "");
  EXPECT_EQ(trace.fallback, "the JIT is off (BCAST_JIT=0)");
  EXPECT_TRUE(trace.blocks.empty());
}

TEST_F(Ascend, PreparedCallsAndPregenerationFollowTheTarget) {
  const std::size_t ready = pregenerate({Op::mul}, {DType::i32}, 1, 1);
  EXPECT_EQ(ready, 4u);
  bool ascend_keys = true;
  for (const KernelStats& s : kernel_cache_entries())
    if (s.key.starts_with("mul.i32.")) ascend_keys = ascend_keys && s.key.find(".ascend-sim.") != std::string::npos;
  EXPECT_TRUE(ascend_keys);
  const Tensor a = test::make(DType::i32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor row = test::make(DType::i32, {4}, {2, 2, 2, 2});
  const PreparedOp k = prepare(Op::mul, DType::i32, a.layout(), row.layout());
  const Tensor c = k(a, row);
  EXPECT_EQ(test::get(c, 11), 24.0);
  EXPECT_THAT(last_ascend_trace().kernel, HasSubstr("mul.i32.[expand_b,same].uuu.ascend-sim."));
}

TEST_F(Ascend, AnOutputWalkedBackwardsNeverReadsAResidentInputBackwards) {
  // out reversed along its rows flips that dim for every operand: a's inner
  // stride becomes -1, and a 9-element f32 row (36 bytes) can still start on a
  // 32-byte boundary. a must then be copied per tile, not read from the UB.
  std::mt19937_64 rng(8);
  for (std::int64_t n : {9, 17, 8, 40}) {
    Tensor a(DType::f32, {n}), b(DType::f32, {4, n}), storage(DType::f32, {4, n});
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    const TensorView out = index(storage, parse_index_expression("[:, ::-1]"));
    add(a, b, out);
    ASSERT_EQ(last_ascend_trace().fallback, "");
    Tensor want(DType::f32, {4, n});
    run_naive(Op::add, a, b, index(want, parse_index_expression("[:, ::-1]")));
    EXPECT_EQ(test::bytes_of(storage), test::bytes_of(want)) << "row of " << n;
  }
}

TEST_F(Ascend, TailsAndTinyBuffersStayInBounds) {
  // Rows of 37 f16 elements (74 bytes: not a multiple of 32) in a 1 KiB UB.
  const ascend::Launch l = launch_add({13, 37}, {13, 37}, 3, ascend::Fault::none, 1024);
  EXPECT_EQ(l.error, "");
  for (const ascend::BlockCounters& c : l.blocks) EXPECT_LE(c.ub_high_water, 1024);
  std::int64_t max_tiles = 0;
  int busy = 0;
  EXPECT_EQ(total(l, max_tiles, busy).ub_to_gm_bytes, 13 * 37 * 2);
}

}  // namespace
}  // namespace bcast

namespace bcast {
namespace {

// NOTE: [Expression kernels] on the simulator: random expressions (mixed
// dtypes, scalars, views, broadcasting on every side) give the host's bits;
// the UB and GM rules hold on every block (a broken one fails the launch).
TEST_F(Ascend, RandomExpressionsEqualTheHostBitForBit) {
  std::mt19937_64 rng(77);
  test::ExprCaseOptions options;
  for (int d = 0; d < kNumDTypes; ++d) options.dtypes.push_back(static_cast<DType>(d));
  options.max_inputs = 4;
  int on_the_simulator = 0;
  for (int i = 0; i < 30; ++i) {
    if (i % 3 == 1) set_setting("BCAST_UB_SIZE", "4096");  // small tiles: many per row, no residents
    if (i % 3 == 2) set_setting("BCAST_DOUBLE_BUFFER", "0");
    const test::ExprCase c = test::random_expr_case(rng, options);
    const Tensor got = evaluate(c.expr);
    const AscendTrace trace = last_ascend_trace();
    set_target("host");
    const Tensor want = evaluate(c.expr);
    set_target("ascend-sim");
    set_setting("BCAST_UB_SIZE", "196608");
    set_setting("BCAST_DOUBLE_BUFFER", "1");
    ASSERT_TRUE(trace.fallback.empty() || trace.fallback.find("copies an input") != std::string::npos ||
                trace.fallback.find("output is empty") != std::string::npos)
        << c.text << ": " << trace.fallback;
    on_the_simulator += !trace.kernel.empty() && trace.fallback.empty();
    ASSERT_EQ(got.dtype(), want.dtype()) << c.text;
    const std::vector<std::uint8_t> g = test::bytes_of(got), w = test::bytes_of(want);
    for (std::int64_t k = 0; k < got.numel(); ++k) {
      const std::size_t n = dtype_size(got.dtype());
      if (std::memcmp(g.data() + k * n, w.data() + k * n, n) == 0) continue;
      if (is_floating(got.dtype()) && std::isnan(test::get(got, k)) && std::isnan(test::get(want, k))) continue;
      FAIL() << c.text << " on " << trace.kernel << ": element " << k << " is " << test::get(got, k) << ", the host's "
             << test::get(want, k);
    }
  }
  EXPECT_GT(on_the_simulator, 20);
}

// A mixed-dtype binary call is an expression, on the simulator too.
TEST_F(Ascend, MixedDTypeCallsRunAsExpressions) {
  const Tensor x = test::make(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor y = test::make(DType::i32, {3}, {1, 1, 2});
  const Tensor got = add(x, y);
  EXPECT_EQ(got.dtype(), DType::f64);
  EXPECT_EQ(test::get(got, 5), 8);
  const AscendTrace trace = last_ascend_trace();
  EXPECT_THAT(trace.kernel, HasSubstr("expr[x0+x1].f32,i32.[expand_b,same].uuu.ascend-sim."));
  EXPECT_TRUE(trace.fallback.empty()) << trace.fallback;
  EXPECT_TRUE(trace.b_resident);
}

}  // namespace
}  // namespace bcast
