// Prepared calls give the op's results with the work done once; pre-generation
// compiles every broadcast type so that later calls only hit the cache.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "naive_executor.h"
#include "test_support.h"

namespace bcast {
namespace {

TEST(Prepared, RepeatedCallsMatchTheNaiveExecutor) {
  std::mt19937_64 rng(4);
  const PreparedOp k = prepare(Op::mul, DType::f32, Layout::contiguous({6, 1, 5}), Layout::contiguous({4, 1}));
  EXPECT_EQ(k.out_shape(), (Shape{6, 4, 5}));
  EXPECT_EQ(k.broadcast_type(), "[expand_b,expand_a,expand_b]");
  EXPECT_THAT(k.kernel_key(), ::testing::StartsWith("mul.f32.[expand_b,expand_a,expand_b].uuz."));
  for (int i = 0; i < 3; ++i) {  // new data each time, same layouts
    Tensor a(DType::f32, {6, 1, 5}), b(DType::f32, {4, 1});
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    const Tensor got = k(a, b);
    Tensor want(DType::f32, {6, 4, 5});
    run_naive(Op::mul, a, b, want);
    EXPECT_EQ(test::bytes_of(got), test::bytes_of(want));
  }
}

TEST(Prepared, StridedOutAndInPlace) {
  // x[i, j] = 4i + j; every element is checked against that formula after each call.
  Tensor x = test::make(DType::i32, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor row = test::make(DType::i32, {4}, {100, 200, 300, 400});
  const auto expect_x = [&](const std::function<std::int64_t(std::int64_t, std::int64_t)>& want, const char* step) {
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 4; ++j)
        EXPECT_EQ(test::get(x, 4 * i + j), want(i, j)) << step << " x[" << i << ", " << j << "]";
  };
  const PreparedOp k = prepare(Op::add, DType::i32, x.layout(), row.layout(), x.layout());
  k(x, row, x);  // in place
  expect_x([](std::int64_t i, std::int64_t j) { return 4 * i + j + 100 * (j + 1); }, "x += row:");
  // Rows reversed, out a negative-stride view of x itself: flipped[i] is
  // x[2 - i], so flipped - col takes col[2 - i] from x[i].
  const TensorView flipped = index(x, {Slice{{}, {}, -1}});
  const Tensor col = test::make(DType::i32, {3, 1}, {1, 20, 300});
  const PreparedOp r = prepare(Op::sub, DType::i32, flipped.layout(), col.layout(), flipped.layout());
  r(flipped, col, flipped);
  const std::int64_t col_of[3] = {1, 20, 300};
  expect_x([&](std::int64_t i, std::int64_t j) { return 4 * i + j + 100 * (j + 1) - col_of[2 - i]; },
           "flipped -= col:");
}

TEST(Prepared, RefusesBadLayoutsAtPrepareAndBadDataAtCall) {
  EXPECT_THROW(prepare(Op::add, DType::f32, Layout::contiguous({2, 2}), Layout::contiguous({3})), Error);
  EXPECT_THROW(prepare(Op::gcd, DType::f32, Layout::contiguous({2}), Layout::contiguous({2})), Error);
  EXPECT_THROW(prepare(Op::arctan2, DType::i8, Layout::contiguous({2}), Layout::contiguous({2})), Error);
  EXPECT_THROW(prepare(Op::lt, DType::f32, Layout::contiguous({2}), Layout::contiguous({2}), Layout::contiguous({3})),
               Error);
  const PreparedOp k = prepare(Op::add, DType::f32, Layout::contiguous({4}), Layout::contiguous({4}));
  Tensor a(DType::f32, {4}), b(DType::f32, {4});
  EXPECT_THROW(k(TensorView{nullptr, DType::f32, Layout::contiguous({4})}, b, a), Error);
  Tensor big(DType::f32, {8});
  const TensorView overlapping = index(big, {Slice{0, 4, {}}});
  EXPECT_THROW(k(index(big, {Slice{2, 6, {}}}), b, overlapping), Error);
}

TEST(Prepared, ViewsOfOtherLayoutsAreRefusedNotOverrun) {
  const PreparedOp k = prepare(Op::add, DType::f32, Layout::contiguous({64}), Layout::contiguous({64}));
  Tensor a(DType::f32, {2}), b(DType::f32, {2}), out(DType::f32, {2});
  try {
    k(a, b, out);
    FAIL() << "ran on the wrong shape";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("add (prepared): a has dtype f32 shape [2] strides [1], prepared for f32 [64] [1]"));
  }
  Tensor i(DType::i32, {64});
  EXPECT_THROW(k(i, i), Error);
  EXPECT_THROW(PreparedOp()(a, b, out), Error);
}

TEST(Pregenerate, CompilesEveryTypeUpToTheRankThenCallsHit) {
  set_cache_dir("off");  // counts compilations
  clear_kernel_cache();
  EXPECT_EQ(broadcast_types_of_rank(0), (std::vector<std::string>{"[]"}));
  for (int r = 1; r <= 6; ++r) EXPECT_EQ(broadcast_types_of_rank(r).size(), 3u << (r - 1));
  std::size_t ready = 0;
  {
    const test::ScopedSetting no_streaming("BCAST_STREAM_MIN_BYTES", "off");
    ready = pregenerate({Op::add}, {DType::f32, DType::i16}, 3, 2);
    EXPECT_EQ(ready, 2u * (1 + 3 + 6 + 6 * 16 + 12));  // rank 2: each type also per row length 1..16
    EXPECT_EQ(kernel_cache_stats().compiles, ready);
  }
  // NOTE: [Streaming stores]: a streaming twin of every kernel but rank 0's
  // and the fixed rows whose step of whole lines (the fewest rows that fill
  // whole lines of 64 bytes) would pass 8 lines: row lengths 9, 11, 13 and 15
  // in f32 and in i16, so 12 lengths stream; only the twins compile.
  const test::ScopedSetting streaming("BCAST_STREAM_MIN_BYTES", "0");
  const std::size_t twins = test::host_streams() ? 2u * (3 + 6 + 6 * 12 + 12) : 0;
  EXPECT_EQ(pregenerate({Op::add}, {DType::f32, DType::i16}, 3, 2), ready + twins);
  EXPECT_EQ(kernel_cache_stats().compiles, ready + twins);
  const std::uint64_t misses = kernel_cache_stats().misses;
  // Contiguous calls of rank <= 3 after merging, every one moving more than
  // the (zero) streaming threshold: all hits.
  for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{5, 6}, {6}},
                                                                   {{5, 1, 7}, {1, 6, 7}},
                                                                   {{2, 3, 4}, {2, 3, 4}},
                                                                   {{8, 1, 32}, {8, 16, 1}},
                                                                   {{3, 1000}, {1000}},
                                                                   {{70, 1, 300}, {1, 6, 300}},
                                                                   {{}, {}}}) {
    add(Tensor(DType::f32, sa), Tensor(DType::f32, sb));
    add(Tensor(DType::i16, sa), Tensor(DType::i16, sb));
  }
  EXPECT_EQ(kernel_cache_stats().misses, misses);
  EXPECT_THROW(pregenerate({Op::add}, {DType::f32}, -1), Error);
  EXPECT_THROW(pregenerate({Op::add}, {DType::f32}, 13), Error);  // 12,288 kernels per op and dtype
}

}  // namespace
}  // namespace bcast
