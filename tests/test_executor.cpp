// The executor (planner + additive-offset nest + threads) against the oracle
// and the naive executor, bit for bit, on random views of every op and dtype.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>

#include "executor.h"
#include "function_table.h"
#include "naive_executor.h"
#include "oracle.h"
#include "short_rows.h"
#include "test_support.h"
#include "thread_pool.h"

namespace bcast {
namespace {

struct ThreadsGuard {
  int saved = num_threads();
  explicit ThreadsGuard(int n) { set_num_threads(n); }
  ~ThreadsGuard() { set_num_threads(saved); }
};

std::string describe(Op op, DType d, const TensorView& a, const TensorView& b) {
  return std::string(op_name(op)) + "." + std::string(dtype_name(d)) + " a " + to_string(a.shape()) + " strides " +
         to_string(a.strides()) + ", b " + to_string(b.shape()) + " strides " + to_string(b.strides());
}

// Runs op on the views into `out`, which starts as the sentinel, and checks
// it against the oracle (no planner, no ScalarOp) and the naive executor
// (whose result starts as the other sentinel).
void expect_matches_naive(Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  Tensor expected(out.dtype(), out.shape());
  test::fill_sentinel(expected, test::kOtherSentinel);
  run_naive(op, a, b, expected);
  test::fill_sentinel(out);
  binary(op, a, b, out);
  if (const std::string bad = test::oracle_mismatch(op, a, b, out); !bad.empty())
    FAIL() << describe(op, a.dtype(), a, b) << ": " << bad;
  const auto got = test::bytes_of(out), want = test::bytes_of(expected);
  if (got != want) {
    std::size_t i = 0;
    while (got[i] == want[i]) ++i;
    FAIL() << describe(op, a.dtype(), a, b) << ": first differing element " << i / out.element_size();
  }
}

// Once on JIT kernels and once on the reference executor's own arithmetic.
class ExecutorKinds : public ::testing::TestWithParam<bool> {};

TEST_P(ExecutorKinds, RandomViewsOfEveryOpAndDTypeMatchTheOracleAndNaive) {
  const test::ScopedSetting jit("BCAST_JIT", GetParam() ? "1" : "0");
  std::mt19937_64 rng(11);
  int cases = 0, complex_cases = 0;
  for (int o = 0; o < kNumOps; ++o) {
    for (int d = 0; d < kNumDTypes; ++d) {
      const auto op = static_cast<Op>(o);
      const auto dtype = static_cast<DType>(d);
      if (!detail::supports(op, dtype)) continue;
      // calls that run as expressions (NOTE: [Complex in IR]): on complex numbers, or making them
      if (is_complex(dtype) || is_complex(result_dtype(op, dtype))) complex_cases += 25;
      for (int i = 0; i < 25; ++i, ++cases) {
        const test::ShapeTriple s = test::random_broadcast_shapes(rng, 8, 6, 3000);
        test::RandomView a = test::random_view(dtype, s.a, rng), b = test::random_view(dtype, s.b, rng);
        test::RandomView out = test::random_view(result_dtype(op, dtype), s.out, rng);
        test::fill_random(a.view, rng);
        test::fill_random(b.view, rng);
        test::keep_in_domain(op, b.view);
        expect_matches_naive(op, a.view, b.view, out.view);
        if (HasFailure()) return;
      }
    }
  }
  // every pair with a binary kernel, 25 views each (OpSupport checks the pairs against the oracle's NumPy loops),
  // and the complex loops: c128's 19 (+ - * / ** float_power, six comparisons, three logical ops, maximum
  // minimum fmax fmin), c64's 18 (its float_power computes in c128), complex(a, b)'s f32 and f64
  EXPECT_EQ(cases - complex_cases, static_cast<int>(test::supported_pairs().size()) * 25);
  EXPECT_EQ(complex_cases, (19 + 18 + 2) * 25);
}

INSTANTIATE_TEST_SUITE_P(JitAndReference, ExecutorKinds, ::testing::Bool(),
                         [](const auto& param_info) { return param_info.param ? "jit" : "reference"; });

TEST(Executor, InPlaceOnAnInputView) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 6, 5, 2000);
    // out aliases a exactly, so a must have the full output shape.
    test::RandomView a = test::random_view(DType::f32, s.out, rng), b = test::random_view(DType::f32, s.b, rng);
    test::fill_random(a.view, rng);
    test::fill_random(b.view, rng);
    Tensor expected(DType::f32, s.out);
    run_naive(Op::sub, a.view, b.view, expected);
    const std::vector<test::Expected> want = test::oracle(Op::sub, a.view, b.view, s.out);
    sub(a.view, b.view, a.view);
    ASSERT_EQ(test::bytes_of(a.view), test::bytes_of(expected)) << describe(Op::sub, DType::f32, a.view, b.view);
    ASSERT_EQ(test::oracle_mismatch(want, a.view), "") << describe(Op::sub, DType::f32, a.view, b.view);
  }
}

TEST(Executor, LargeCallsSplitAcrossThreadsMatchNaive) {
  std::mt19937_64 rng(3);
  const ThreadsGuard threads(3);
  // Sizes above the parallel grain, with outer ranges that do not divide evenly.
  const std::vector<std::pair<Shape, Shape>> cases{
      {{1001, 517}, {517}}, {{7, 300, 211}, {7, 1, 211}}, {{600, 1}, {1, 999}}, {{3, 5, 7, 11, 13, 17}, {1}},
      // Fewer outer iterations than threads: the innermost level is split instead.
      {{2, 300007}, {300007}}, {{700001}, {1}}};
  for (const auto& [sa, sb] : cases) {
    test::RandomView a = test::random_view(DType::i32, sa, rng, false), b = test::random_view(DType::i32, sb, rng);
    test::fill_random(a.view, rng);
    test::fill_random(b.view, rng);
    Tensor out(DType::i32, broadcast_infer_shape(sa, sb));
    expect_matches_naive(Op::mul, a.view, b.view, out);
  }
}

// NOTE: [Threads used]: the pool's count is the number of distinct threads
// that ran parts, counted here from their ids.
TEST(Executor, ThreadPoolCountsTheThreadsThatRanParts) {
  for (const auto& [threads, parts] : std::vector<std::pair<int, std::int64_t>>{{1, 50}, {3, 1}, {3, 400}, {4, 2}}) {
    std::mutex m;
    std::set<std::thread::id> ran;
    const int reported = ThreadPool::instance().run(threads, parts, [&](std::int64_t) {
      volatile std::int64_t spin = 0;
      for (int i = 0; i < 20000; ++i) spin = spin + i;
      const std::lock_guard lock(m);
      ran.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(reported, static_cast<int>(ran.size())) << threads << " threads, " << parts << " parts";
    EXPECT_GE(reported, 1);
    EXPECT_LE(reported, std::min<std::int64_t>(threads, parts));
  }
}

// last_call_threads(): 0 on a thread that has made no call, 1 for a call that
// stays on the caller whatever the setting, between 1 and the setting for one
// that is split, and kept per thread.
TEST(Executor, LastCallThreadsReportsWhatTheCallUsed) {
  const ThreadsGuard threads(3);
  std::thread([] { EXPECT_EQ(last_call_threads(), 0); }).join();
  const Tensor small = test::make(DType::f32, {4}, {1, 2, 3, 4});
  (void)add(small, small);
  EXPECT_EQ(last_call_threads(), 1);
  const Tensor big(DType::f32, {1500, 1000}), row(DType::f32, {1000});
  (void)add(big, row);
  EXPECT_GE(last_call_threads(), 1);
  EXPECT_LE(last_call_threads(), 3);
  (void)add(small, small);
  EXPECT_EQ(last_call_threads(), 1);
  set_num_threads(1);
  (void)add(big, big);
  EXPECT_EQ(last_call_threads(), 1);
}

TEST(Executor, TransposedInputsRunInTilesAndMatchNaive) {
  // NOTE: [Blocked order]: rows and columns around the tile sizes (128 rows,
  // 8 to 64 columns),
  // reversed and rank-3 views, a broadcast row, one thread and three.
  std::mt19937_64 rng(14);
  set_setting("BCAST_GRAIN", "5000");
  int blocked = 0;
  for (const int threads : {1, 3}) {
    const ThreadsGuard guard(threads);
    for (const std::int64_t rows : {2, 127, 129, 300}) {
      for (const std::int64_t cols : {17, 65, 300}) {
        for (const DType dtype : {DType::f32, DType::i8, DType::f64}) {
          Tensor parent(dtype, {cols, rows});  // a = parent transposed: strides [1, rows]
          test::fill_random(parent, rng);
          const TensorView a = transpose(parent);
          const TensorView a_reversed = index(a, parse_index_expression("[::-1, ::-1]"));
          Tensor b(dtype, {rows, cols}), row(dtype, {cols}), out(dtype, {rows, cols});
          test::fill_random(b, rng);
          test::fill_random(row, rng);
          for (const TensorView& x : {a, a_reversed}) {
            blocked += uses_blocked_order(plan_broadcast(out.layout(), x.layout(), b.layout()), dtype_size(dtype));
            expect_matches_naive(Op::sub, x, b, out);
            expect_matches_naive(Op::add, row, x, out);
            if (HasFailure()) return;
          }
          Tensor parent3(dtype, {2, cols, rows}), out3(dtype, {2, rows, cols});
          test::fill_random(parent3, rng);
          const TensorView a3 = permute(parent3, {0, 2, 1});
          blocked += uses_blocked_order(plan_broadcast(out3.layout(), a3.layout(), row.layout()), dtype_size(dtype));
          expect_matches_naive(Op::max, a3, row, out3);
        }
      }
    }
  }
  set_setting("BCAST_GRAIN", "262144");
  // Narrow tiles are one 64-byte line of out wide: 16 f32, 8 f64, 64 i8
  // columns; a (rank 2 or 3) stepping 1 between rows gets square tiles 1 KiB
  // wide: 256 f32, 128 f64, 1024 i8 columns. Cases wider than their tile, per
  // thread count and row count: a 2 (300 columns in f32 and f64), reversed a
  // 8 (all but the 17-column i8), rank-3 a 2 (as a).
  EXPECT_EQ(blocked, 2 * 4 * (2 + 8 + 2)) << "the cases wider than a tile ran in tiles";
}

TEST(Executor, ZeroSizeAndRankZero) {
  const Tensor empty_a(DType::f32, {0, 3}), row(DType::f32, {3});
  const Tensor r = add(empty_a, row);
  EXPECT_EQ(r.shape(), (Shape{0, 3}));
  EXPECT_EQ(r.numel(), 0);
  // An empty out writes nothing, whatever its strides: NumPy gives some
  // empty views strides of 0 (found by the Python module's property tests).
  float unused = 0;
  EXPECT_NO_THROW(add(empty_a, row, TensorView(&unused, DType::f32, Layout{{0, 3}, {0, 0}})));
  const Tensor x = test::make(DType::f64, {}, {2.5}), y = test::make(DType::f64, {}, {4});
  const Tensor z = mul(x, y);
  EXPECT_EQ(z.shape(), Shape{});
  EXPECT_EQ(test::get(z, 0), 10.0);
  // A scalar broadcast against a vector.
  const Tensor v = test::make(DType::i16, {3}, {1, 2, 3});
  const Tensor w = sub(test::make(DType::i16, {}, {10}), v);
  EXPECT_EQ(test::get(w, 2), 7);
}

TEST(Executor, HighRankNonMergeableViews) {
  // Rank 16 with alternating codes and every dim reversed: nothing merges.
  Shape sa(16), sb(16);
  for (int d = 0; d < 16; ++d) sa[d] = d % 2 ? 2 : 1, sb[d] = d % 2 ? 1 : 2;
  std::mt19937_64 rng(9);
  test::RandomView a = test::random_view(DType::u8, sa, rng), b = test::random_view(DType::u8, sb, rng);
  test::fill_random(a.view, rng);
  test::fill_random(b.view, rng);
  Tensor out(DType::u8, broadcast_infer_shape(sa, sb));
  expect_matches_naive(Op::add, a.view, b.view, out);
}

TEST(Executor, ShortRowsFuseAndMatchNaive) {
  // NOTE: [Short rows]: rows of 1 to 16 elements, a row count with and without
  // rows left over, either input repeated, and every dtype size.
  std::mt19937_64 rng(21);
  int fused = 0;
  for (DType dtype : {DType::f32, DType::u8, DType::f16, DType::f64, DType::i32}) {
    for (std::int64_t m = 1; m <= 16; ++m) {
      const std::int64_t k = rows_per_fused(m, dtype_size(dtype));
      for (std::int64_t rows : {std::int64_t{3}, 2 * k, 2 * k + 5, 3 * k + 1}) {
        for (bool repeated_a : {false, true}) {
          const Shape big{rows, m}, row{m};
          Tensor x(dtype, repeated_a ? row : big), y(dtype, repeated_a ? big : row), out(dtype, big);
          test::fill_random(x, rng);
          test::fill_random(y, rng);
          fused += fuse_short_rows(plan_broadcast(out.layout(), x.layout(), y.layout()), dtype_size(dtype)).has_value();
          expect_matches_naive(Op::sub, x, y, out);
          if (HasFailure()) return;
        }
      }
    }
  }
  EXPECT_GT(fused, 200);  // most of these cases took the fused path
  // NOTE: [Fixed rows]: [R, m] with a per-row operand [R, 1], either side, and
  // in place on the full operand.
  for (DType dtype : {DType::f32, DType::u8, DType::bf16, DType::i64})
    for (std::int64_t m = 1; m <= 17; ++m)
      for (bool per_row_a : {false, true}) {
        const Shape big{301, m}, column{301, 1};
        Tensor x(dtype, per_row_a ? column : big), y(dtype, per_row_a ? big : column), out(dtype, big);
        test::fill_random(x, rng);
        test::fill_random(y, rng);
        expect_matches_naive(Op::max, x, y, out);
        Tensor expected(dtype, big);
        run_naive(Op::sub, x, y, expected);
        Tensor& full = per_row_a ? y : x;
        sub(x, y, full);
        ASSERT_EQ(test::bytes_of(full), test::bytes_of(expected)) << "in place, m " << m;
      }
  // Not fused: rows too long, or the repeated operand varies between rows.
  EXPECT_FALSE(fuse_short_rows(plan_broadcast(Layout::contiguous({500, 17}), Layout::contiguous({500, 17}),
                                              Layout::contiguous({17})), 4));
  EXPECT_FALSE(fuse_short_rows(plan_broadcast(Layout::contiguous({500, 4}), Layout::contiguous({500, 4}),
                                              Layout::contiguous({500, 1})), 4));
}

}  // namespace
}  // namespace bcast
