// NOTE: [Output order]: a new output follows its inputs' memory order, as
// NumPy's order='K' does. The expected strides are NumPy 1.24's for
// np.add on the same views (in elements).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bcast/bcast.h"
#include "output_layout.h"
#include "oracle.h"
#include "test_support.h"

namespace bcast {
namespace {

struct Case {
  const char* name;
  Layout a, b;
  Strides want;  // NumPy's, in elements
};

Layout permuted_layout(const Shape& shape, const std::vector<std::int64_t>& dims) {
  return permute(TensorView{nullptr, DType::f32, Layout::contiguous(shape)}, dims).layout();
}

TEST(OutputOrder, FollowsTheInputsAsNumPysOrderK) {
  const Layout f43 = Layout::column_major({4, 3}), c43 = Layout::contiguous({4, 3});
  const Layout permuted = permuted_layout({2, 3, 4}, {2, 0, 1});  // shape [4,2,3], strides (1,12,4)
  const Layout reversed{{4, 3}, {-3, 1}};
  const Case cases[] = {
      {"both Fortran", f43, f43, {1, 4}},
      {"Fortran and a row", f43, Layout::contiguous({3}), {1, 4}},
      {"Fortran and C disagree: C", f43, c43, {3, 1}},
      {"C and Fortran disagree: C", c43, f43, {3, 1}},
      {"both permuted alike", permuted, permuted, {1, 12, 4}},
      {"permuted and C: C", permuted, Layout::contiguous({4, 2, 3}), {6, 3, 1}},
      {"a column and a Fortran matrix", Layout::contiguous({4, 1}), Layout::column_major({4, 5}), {1, 4}},
      {"a row and a Fortran matrix", Layout::contiguous({1, 5}), Layout::column_major({4, 5}), {1, 4}},
      {"reversed rows: positive strides", reversed, reversed, {3, 1}},
      {"scalars", Layout::contiguous({}), Layout::contiguous({}), {}},
  };
  for (const Case& c : cases) {
    const Shape shape = broadcast_infer_shape(c.a.shape, c.b.shape);
    const Layout got = output_layout(shape, {&c.a, &c.b});
    EXPECT_EQ(got.strides, c.want) << c.name;
    EXPECT_TRUE(got.is_dense()) << c.name;
  }
}

// The point of the order: out walks memory with its Fortran-order inputs,
// so the planner merges everything into one row (a C-order out made it a
// transposed, tiled call).
TEST(OutputOrder, TwoFortranInputsGiveAFortranResultThatRunsAsOneRow) {
  Tensor a(DType::f32, {200, 300}, Order::fortran), b(DType::f32, {200, 300}, Order::fortran);
  std::mt19937_64 rng(7);
  test::fill_random(a, rng);
  test::fill_random(b, rng);
  const Tensor out = add(a, b);
  EXPECT_EQ(out.layout(), Layout::column_major({200, 300}));
  EXPECT_EQ(broadcast_type_of(out.layout(), a.layout(), b.layout()), "[same]");
  EXPECT_EQ(test::oracle_mismatch(Op::add, a, b, out), "");
  // The memo's repeat allocates the same layout.
  EXPECT_EQ(add(a, b).layout(), out.layout());
  // So does a prepared op's own result.
  const PreparedOp p = prepare(Op::add, DType::f32, a.layout(), b.layout());
  EXPECT_EQ(p(a, b).layout(), out.layout());
}

TEST(OutputOrder, ATensorTakesOnlyDenseLayouts) {
  EXPECT_EQ(Tensor(DType::i16, Layout::dense({2, 3, 4}, {2, 0, 1})).layout().strides, (Strides{3, 1, 6}));
  EXPECT_TRUE((Layout{{2, 1, 3}, {3, 99, 1}}.is_dense())) << "a dim of extent 1 may have any stride";
  EXPECT_TRUE((Layout{{2, 0}, {5, 7}}.is_dense())) << "an empty layout is dense";
  EXPECT_FALSE((Layout{{2, 3}, {4, 1}}.is_dense())) << "a gap";
  EXPECT_FALSE((Layout{{2, 3}, {-3, 1}}.is_dense())) << "a negative stride";
  try {
    Tensor t(DType::f32, Layout{{2, 3}, {4, 1}});
    FAIL() << "a layout with gaps was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::value);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("shape [2, 3] strides [4, 1] is not a dense layout"));
  }
}

}  // namespace
}  // namespace bcast
