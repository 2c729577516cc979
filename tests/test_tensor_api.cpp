// Tensor and TensorView as a user meets them: the accessors both have,
// contiguous() and copy_to() against values written out by hand, and
// to_string() against NumPy's repr of the same arrays (with bcast's dtype
// names in front).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "bcast/bcast.h"
#include "large_buffers.h"
#include "oracle.h"
#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

// The same accessor names on both (a template that reads either compiles).
template <class T>
std::tuple<const void*, DType, Layout, int, Shape, Strides, std::int64_t, std::size_t> accessors(const T& x) {
  return {x.data(), x.dtype(), x.layout(), x.rank(), x.shape(), x.strides(), x.numel(), x.element_size()};
}

TEST(TensorApi, TensorAndViewShareTheirAccessors) {
  const Tensor t(DType::i16, {2, 3, 4});
  EXPECT_EQ(accessors(t), accessors(t.view()));
  EXPECT_EQ(std::get<0>(accessors(t)), t.data_as<const std::int16_t>());
  const TensorView v = transpose(t, 0, 2);
  EXPECT_EQ(v.data(), t.data());
  EXPECT_EQ(v.dtype(), DType::i16);
  EXPECT_EQ(v.layout(), (Layout{{4, 3, 2}, {1, 4, 12}}));
  EXPECT_EQ(t.rank(), 3);
  EXPECT_EQ(t.strides(), (Strides{12, 4, 1}));
  EXPECT_EQ(t.shape(), t.view().shape());
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(v.rank(), 3);
  EXPECT_EQ(v.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(v.strides(), (Strides{1, 4, 12}));
  EXPECT_EQ(v.numel(), 24);
}

// A transposed and a reversed view, copied: C order, the elements in index order.
TEST(TensorApi, ContiguousCopiesInCOrder) {
  const Tensor t = test::make(DType::i32, {2, 3}, {0, 1, 2, 3, 4, 5});
  const Tensor tt = transpose(t).contiguous();
  EXPECT_EQ(tt.shape(), (Shape{3, 2}));
  EXPECT_TRUE(tt.layout().is_contiguous());
  EXPECT_EQ(test::bytes_of(tt), test::bytes_of(test::make(DType::i32, {3, 2}, {0, 3, 1, 4, 2, 5})));
  const Tensor r = index(t, parse_index_expression("[::-1, 1:]")).contiguous();
  EXPECT_EQ(test::bytes_of(r), test::bytes_of(test::make(DType::i32, {2, 2}, {4, 5, 1, 2})));
  EXPECT_NE(t.contiguous().data(), t.data());  // always a new buffer
}

// Tensor::empty is the constructor without the zero fill: same layout rules,
// same alignment. The ops' results are made so; a call writes every element,
// which a buffer left dirty by a freed one of the same size shows.
TEST(TensorApi, EmptyIsTheConstructorWithoutTheFillAndResultsAreWrittenWhole) {
  const Tensor e = Tensor::empty(DType::f64, Layout::column_major({3, 5}));
  EXPECT_EQ(e.strides(), (Strides{1, 3}));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(e.data()) % Tensor::kAlignment, 0U);
  EXPECT_THROW(Tensor::empty(DType::f32, Layout{{2, 2}, {4, 1}}), Error);
  const Tensor a = test::make(DType::i32, {4, 6}, {}), row = test::make(DType::i32, {6}, {1, 2, 3, 4, 5, 6});
  for (int round = 0; round < 4; ++round) {
    {
      const Tensor dirty = Tensor::empty(DType::i32, Layout::contiguous({4, 6}));
      std::memset(dirty.data(), 0xAB, dirty.nbytes());
    }
    const Tensor r = add(a, row);
    for (std::int64_t i = 0; i < r.numel(); ++i) EXPECT_EQ(r.data_as<std::int32_t>()[i], i % 6 + 1);
  }
}

// NOTE: [Large buffers]: a freed large buffer comes back to the next tensor
// of its size, zero-filled by the constructor as a new one would be; at most
// kMaxKept are kept, and a size above kMaxKeptBytes never is.
TEST(TensorApi, LargeBuffersAreReusedBySizeAndBounded) {
  large_buffers::release_kept();
  const Layout big = Layout::contiguous({1024, 1024});  // 4 MiB of f32: two huge pages
  const void* first = nullptr;
  {
    const Tensor t = Tensor::empty(DType::f32, big);
    first = t.data();
    std::memset(t.data(), 0xAB, t.nbytes());
  }
  EXPECT_EQ(large_buffers::kept(), 1U);
  {
    const Tensor again(DType::f32, big);
    EXPECT_EQ(again.data(), first);
    EXPECT_EQ(large_buffers::kept(), 0U);
    for (std::int64_t i = 0; i < again.numel(); i += 4099) EXPECT_EQ(again.data_as<float>()[i], 0.0f);
    const Tensor other = Tensor::empty(DType::f32, Layout::contiguous({2048, 1024}));  // another size: new
    EXPECT_NE(other.data(), first);
  }
  {
    std::vector<Tensor> many;
    for (std::size_t i = 0; i < large_buffers::kMaxKept + 3; ++i) many.push_back(Tensor::empty(DType::f32, big));
  }
  EXPECT_EQ(large_buffers::kept(), large_buffers::kMaxKept);
  EXPECT_LE(large_buffers::kept_bytes(), large_buffers::kMaxKeptBytes);
  large_buffers::release_kept();
  EXPECT_EQ(large_buffers::kept(), 0U);
  EXPECT_EQ(large_buffers::kept_bytes(), 0U);
}

// copy_to broadcasts as the ops do and converts as astype does; a shape
// that does not broadcast and an overlapping out are the ops' errors, and
// write nothing.
TEST(TensorApi, CopyToBroadcastsConvertsAndRefusesWhatOpsRefuse) {
  const Tensor row = test::make(DType::f32, {3}, {1.5, -2.7, 300});
  Tensor out(DType::f32, {2, 3});
  row.copy_to(out);
  EXPECT_EQ(test::bytes_of(out), test::bytes_of(test::make(DType::f32, {2, 3}, {1.5, -2.7, 300, 1.5, -2.7, 300})));
  Tensor ints(DType::i16, {3});
  row.copy_to(ints);
  EXPECT_EQ(test::bytes_of(ints), test::bytes_of(test::make(DType::i16, {3}, {1, -2, 300})));  // truncation, as astype
  Tensor wrong(DType::f32, {2, 4});
  test::fill_sentinel(wrong, test::kSentinel);
  const std::vector<std::uint8_t> before = test::bytes_of(wrong);
  EXPECT_THROW(row.copy_to(wrong), Error);
  EXPECT_EQ(test::bytes_of(wrong), before);
  const Tensor five = test::make(DType::f32, {5}, {0, 1, 2, 3, 4});
  EXPECT_THROW(index(five, parse_index_expression("[:4]")).copy_to(index(five, parse_index_expression("[1:]"))), Error);
}

// NumPy's repr of the same arrays, after bcast's "dtype[shape] ".
TEST(TensorApi, ToStringLaysOutElementsAsNumPysRepr) {
  EXPECT_EQ(test::make(DType::f32, {2, 3}, {0, 1.5, 2, 3, 4, -5}).to_string(), "f32[2, 3] [[0, 1.5, 2], [3, 4, -5]]");
  EXPECT_EQ(transpose(test::make(DType::i8, {2, 2}, {-1, 2, 3, -128})).to_string(), "i8[2, 2] [[-1, 3], [2, -128]]");
  EXPECT_EQ(test::make(DType::boolean, {3}, {1, 0, 1}).to_string(), "bool[3] [True, False, True]");
  EXPECT_EQ(test::make(DType::f16, {2}, {0.5, 65504}).to_string(), "f16[2] [0.5, 65504]");
  EXPECT_EQ(test::make(DType::u64, {}, {7}).to_string(), "u64[] 7");
  EXPECT_EQ(Tensor(DType::f64, {0, 3}).to_string(), "f64[0, 3] []");
  // NaN of either sign is "nan" (np.array([np.nan, -np.nan, np.inf, -np.inf]) in every float dtype).
  const std::vector<double> specials{NAN, -NAN, INFINITY, -INFINITY};
  for (const DType d : {DType::f16, DType::bf16, DType::f32, DType::f64})
    EXPECT_EQ(test::make(d, {4}, specials).to_string(), std::string(dtype_name(d)) + "[4] [nan, nan, inf, -inf]");
  // Above 1000 elements: the first and last 3 of each level.
  std::vector<double> values(40 * 40);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
  const std::string big = test::make(DType::i32, {40, 40}, values).to_string();
  EXPECT_THAT(big, ::testing::StartsWith("i32[40, 40] [[0, 1, 2, ..., 37, 38, 39], [40, 41, 42, ..., 77, 78, 79], "
                                         "[80, 81, 82, ..., 117, 118, 119], ..., [1480, 1481, 1482, ..., 1517, 1518, 1519]"));
  EXPECT_THAT(big, ::testing::EndsWith("[1560, 1561, 1562, ..., 1597, 1598, 1599]]"));
  EXPECT_EQ(test::make(DType::i32, {1000}, std::vector<double>(1000, 1)).to_string().find("..."), std::string::npos);
}

}  // namespace
}  // namespace bcast
