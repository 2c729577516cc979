// Views share memory and never copy: squeeze, unsqueeze, permute, transpose,
// broadcast_to and NumPy basic indexing, with NumPy's documented results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

TensorView view_of(const Layout& l, void* data = reinterpret_cast<void*>(std::uintptr_t{4096})) {
  return {data, DType::f32, l};
}

// The element offset (from x's data) where a view starts.
std::int64_t start_offset(const TensorView& base, const TensorView& v) {
  return (static_cast<const char*>(v.data()) - static_cast<const char*>(base.data())) / static_cast<std::int64_t>(base.element_size());
}

template <class F>
void expect_error(F f, ErrorKind kind, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(Squeeze, ByDimsFollowsTheWorkedExample) {
  // shape (1,4,1) strides (4,1,1), dims {0,2} -> shape (4) stride (1)
  const TensorView v = squeeze(view_of({{1, 4, 1}, {4, 1, 1}}), {0, 2});
  EXPECT_EQ(v.layout(), (Layout{{4}, {1}}));
  EXPECT_EQ(squeeze(view_of({{1, 4, 1}, {4, 1, 1}}), {-1}).layout(), (Layout{{1, 4}, {4, 1}}));
}

TEST(Squeeze, ByPatternAndAll) {
  const TensorView x = view_of({{1, 4, 1, 2}, {8, 2, 2, 1}});
  using M = SqueezeMark;
  EXPECT_EQ(squeeze(x, std::vector<M>{M::remove, M::keep, M::keep, M::keep}).layout(), (Layout{{4, 1, 2}, {2, 2, 1}}));
  EXPECT_EQ(squeeze(x).layout(), (Layout{{4, 2}, {2, 1}}));
  EXPECT_EQ(squeeze(x).data(), x.data());
}

TEST(Squeeze, RejectsDimsThatAreNotOne) {
  const TensorView x = view_of({{1, 4, 1}, {4, 1, 1}});
  expect_error([&] { squeeze(x, {1}); }, ErrorKind::shape, "squeeze: dim 1 has extent 4, not 1, in shape [1, 4, 1]");
  expect_error([&] { squeeze(x, {0, 0}); }, ErrorKind::shape, "dim 0 is listed twice");
  expect_error([&] { squeeze(x, {3}); }, ErrorKind::index, "dim 3 is out of range for rank 3");
  using M = SqueezeMark;
  expect_error([&] { squeeze(x, std::vector<M>{M::keep, M::remove, M::keep}); }, ErrorKind::shape,
               "pattern removes dim 1 of extent 4");
  expect_error([&] { squeeze(x, std::vector<M>{M::keep}); }, ErrorKind::shape, "pattern has 1 marks for shape [1, 4, 1]");
}

TEST(Unsqueeze, InsertsAtPositionLikeNumPyExpandDims) {
  const TensorView x = view_of(Layout::contiguous({3, 4}));
  EXPECT_EQ(unsqueeze(x, 0).shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(unsqueeze(x, 1).shape(), (Shape{3, 1, 4}));
  EXPECT_EQ(unsqueeze(x, -1).shape(), (Shape{3, 4, 1}));
  expect_error([&] { unsqueeze(x, 3); }, ErrorKind::index, "unsqueeze: dim 3 is out of range");
}

TEST(Permute, ReordersShapeAndStrides) {
  const TensorView x = view_of(Layout::contiguous({2, 3, 4}));
  EXPECT_EQ(permute(x, {2, 0, 1}).layout(), (Layout{{4, 2, 3}, {1, 12, 4}}));
  EXPECT_EQ(transpose(x).layout(), (Layout{{4, 3, 2}, {1, 4, 12}}));
  EXPECT_EQ(transpose(x, 0, -1).layout(), (Layout{{4, 3, 2}, {1, 4, 12}}));
  expect_error([&] { permute(x, {0, 0, 1}); }, ErrorKind::shape, "dim 0 appears twice");
  expect_error([&] { permute(x, {0, 1}); }, ErrorKind::shape, "order has 2 dims for shape [2, 3, 4]");
}

TEST(BroadcastTo, RepeatsWithStrideZero) {
  const TensorView x = view_of(Layout::contiguous({3, 1}));
  EXPECT_EQ(broadcast_to(x, {2, 3, 4}).layout(), (Layout{{2, 3, 4}, {0, 1, 0}}));
  expect_error([&] { broadcast_to(x, {3, 2, 2}); }, ErrorKind::shape, "shape [3, 1] cannot be broadcast to [3, 2, 2]");
  expect_error([&] { broadcast_to(x, {4}); }, ErrorKind::shape, "cannot be broadcast to [4]");
}

TEST(Index, IntegerRemovesTheDimAndNegativeCountsFromTheEnd) {
  const TensorView x = view_of(Layout::contiguous({3, 4, 5}));
  const TensorView v = index(x, {1});
  EXPECT_EQ(v.layout(), (Layout{{4, 5}, {5, 1}}));
  EXPECT_EQ(start_offset(x, v), 20);
  const TensorView w = index(x, {Slice{}, -1});
  EXPECT_EQ(w.layout(), (Layout{{3, 5}, {20, 1}}));
  EXPECT_EQ(start_offset(x, w), 15);
  EXPECT_EQ(index(x, {0, 0, 0}).layout(), (Layout{}));  // a scalar view
}

TEST(Index, SlicesFollowNumPyIncludingNegativeSteps) {
  // x = np.arange(10): expectations are NumPy's x[s] for each slice s.
  const TensorView x = view_of(Layout::contiguous({10}));
  struct Case {
    Slice s;
    std::int64_t length, start, stride;
  };
  const std::vector<Case> cases{
      {{2, 8, 2}, 3, 2, 2},               // x[2:8:2]   -> 2 4 6
      {{{}, {}, -1}, 10, 9, -1},          // x[::-1]    -> 9 .. 0
      {{8, 2, -3}, 2, 8, -3},             // x[8:2:-3]  -> 8 5
      {{-3, {}, {}}, 3, 7, 1},            // x[-3:]     -> 7 8 9
      {{{}, -7, {}}, 3, 0, 1},            // x[:-7]     -> 0 1 2
      {{-100, 100, {}}, 10, 0, 1},        // clamped
      {{5, 5, {}}, 0, 0, 1},              // empty
      {{{}, {}, -4}, 3, 9, -4},           // x[::-4]    -> 9 5 1
      {{3, {}, -1}, 4, 3, -1},            // x[3::-1]   -> 3 2 1 0
      {{-1, -11, -1}, 10, 9, -1},         // x[-1:-11:-1]
      {{20, {}, -1}, 10, 9, -1},          // start clamped to the end
  };
  for (const Case& c : cases) {
    const TensorView v = index(x, {c.s});
    EXPECT_EQ(v.shape(), (Shape{c.length}));
    if (c.length > 0) {
      EXPECT_EQ(start_offset(x, v), c.start);
      if (c.length > 1) {
        EXPECT_EQ(v.strides()[0], c.stride);
      }
    }
  }
}

TEST(Index, EllipsisAndNewAxis) {
  const TensorView x = view_of(Layout::contiguous({2, 3, 4}));
  EXPECT_EQ(index(x, {Ellipsis{}, Slice{{}, {}, -1}}).layout(), (Layout{{2, 3, 4}, {12, 4, -1}}));
  EXPECT_EQ(index(x, {Ellipsis{}, 1}).shape(), (Shape{2, 3}));
  EXPECT_EQ(index(x, {1, Ellipsis{}}).shape(), (Shape{3, 4}));
  EXPECT_EQ(index(x, {NewAxis{}, Ellipsis{}, NewAxis{}}).shape(), (Shape{1, 2, 3, 4, 1}));
  EXPECT_EQ(index(x, {Slice{1, {}, {}}, NewAxis{}, -1}).shape(), (Shape{1, 1, 4}));  // x[1:, None, -1]
  EXPECT_EQ(index(x, {Ellipsis{}}).layout(), x.layout());
  EXPECT_EQ(index(x, {0, 1, 2, Ellipsis{}}).shape(), Shape{});
}

TEST(Index, ViewsShareMemoryWithTheTensor) {
  Tensor t = test::make(DType::i32, {2, 3}, {0, 1, 2, 3, 4, 5});
  const TensorView col = index(t, {Slice{}, 2});  // [2, 5]
  test::set(col, 1, 50);
  EXPECT_EQ(test::get(t, 5), 50);
  const TensorView rev = index(t, {Slice{{}, {}, -1}, Slice{{}, {}, -1}});
  EXPECT_EQ(test::get(rev, 0), 50);
  EXPECT_EQ(test::get(rev, 5), 0);
}

TEST(Index, ExtremeStepsAndExtentsStayDefined) {
  // Python clamps a step of -2^63 to -(2^63 - 1): x[::-2**63] of arange(10) is [9].
  const TensorView x = view_of(Layout::contiguous({10}));
  const TensorView v = index(x, {Slice{{}, {}, INT64_MIN}});
  EXPECT_EQ(v.shape(), (Shape{1}));
  EXPECT_EQ(start_offset(x, v), 9);
  EXPECT_EQ(index(x, {Slice{{}, {}, INT64_MAX}}).shape(), (Shape{1}));
  // A zero extent beside extents whose product overflows: no element, no overflow.
  const Tensor empty(DType::f32, {0, std::int64_t{1} << 40, std::int64_t{1} << 40});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(unsqueeze(empty, 2).shape(), (Shape{0, std::int64_t{1} << 40, 1, std::int64_t{1} << 40}));
}

TEST(Index, MalformedInputViewsAreRefused) {
  const TensorView bad{reinterpret_cast<void*>(std::uintptr_t{64}), DType::f32, {{2, 2}, {1}}};
  expect_error([&] { index(bad, {0, 0}); }, ErrorKind::shape, "index input has 2 extents but 1 strides");
  expect_error([&] { squeeze(bad); }, ErrorKind::shape, "squeeze input has 2 extents but 1 strides");
  expect_error([&] { transpose(bad); }, ErrorKind::shape, "transpose input");
  expect_error([&] { broadcast_to(bad, {2, 2}); }, ErrorKind::shape, "broadcast_to input");
}

TEST(Index, ErrorsNameTheAxisTheIndexAndTheExtent) {
  const TensorView x = view_of(Layout::contiguous({3, 4}));
  expect_error([&] { index(x, {0, 4}); }, ErrorKind::index, "index 4 is out of bounds for axis 1 with size 4");
  expect_error([&] { index(x, {-4}); }, ErrorKind::index, "index -4 is out of bounds for axis 0 with size 3");
  expect_error([&] { index(x, {0, 0, 0}); }, ErrorKind::index, "too many indices: tensor is 2-dimensional, but 3 were indexed");
  expect_error([&] { index(x, {Ellipsis{}, Ellipsis{}}); }, ErrorKind::index, "only have a single ellipsis");
  expect_error([&] { index(x, {Slice{{}, {}, 0}}); }, ErrorKind::index, "slice step cannot be zero (axis 0)");
}

}  // namespace
}  // namespace bcast
