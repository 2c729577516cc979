// The bad-input table: every caller mistake raises bcast::Error of the right
// kind, with a message naming the operand, the dim and the values, and leaves
// `out` untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

// Tensors the cases share; `out` is filled with a sentinel before each case.
struct Fixture {
  Tensor f32_2x2{DType::f32, {2, 2}}, f32_2x5{DType::f32, {2, 5}}, f32_2{DType::f32, {2}};
  Tensor i32_2x2{DType::i32, {2, 2}}, bool_2x2{DType::boolean, {2, 2}}, f32_4x4{DType::f32, {4, 4}};
  Tensor out{DType::f32, {2, 2}};
};

struct BadCase {
  std::string name;
  std::function<void(Fixture&)> call;
  ErrorKind kind;
  std::string message;
};

TensorView with_strides(const TensorView& x, Strides s) { return {x.data, x.dtype, {x.shape(), std::move(s)}}; }

const std::vector<BadCase>& bad_cases() {
  static const std::vector<BadCase> cases{
      {"shapes_do_not_broadcast", [](Fixture& f) { add(f.f32_2x2, f.f32_2x5, f.out); }, ErrorKind::shape,
       "add: shapes [2, 2] and [2, 5] do not broadcast: dim -1 has 2 vs 5"},
      {"rank_mismatch_does_not_broadcast", [](Fixture& f) { sub(f.f32_2x2, Tensor(DType::f32, {2, 2, 5}), f.out); },
       ErrorKind::shape, "shapes [2, 2] and [2, 2, 5] do not broadcast: dim -1 has 2 vs 5"},
      {"dtype_mismatch", [](Fixture& f) { mul(f.f32_2x2, f.i32_2x2, f.out); }, ErrorKind::dtype,
       "mul: operands have different dtypes: a is f32, b is i32"},
      {"pow_on_integers", [](Fixture& f) { binary(Op::pow, f.i32_2x2, f.i32_2x2, f.out); }, ErrorKind::dtype,
       "pow: not defined for dtype i32"},
      {"bitwise_on_floats", [](Fixture& f) { bit_and(f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "bit_and: not defined for dtype f32"},
      {"sub_on_bool", [](Fixture& f) { sub(f.bool_2x2, f.bool_2x2, f.out); }, ErrorKind::dtype,
       "sub: not defined for dtype bool"},
      {"out_wrong_shape", [](Fixture& f) { add(f.f32_2, f.f32_2, f.out); }, ErrorKind::shape,
       "add: out has shape [2, 2] but a [2] and b [2] broadcast to [2]"},
      {"out_wrong_dtype_for_comparison", [](Fixture& f) { lt(f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "lt: out has dtype f32 but the result of lt on f32 is bool"},
      {"out_broadcast_view", [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, broadcast_to(index(f.out, {0}), {2, 2})); },
       ErrorKind::value, "add: out of shape [2, 2] and strides [0, 1] writes some elements more than once"},
      {"out_self_overlapping_strides", [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, with_strides(f.out, {1, 1})); },
       ErrorKind::value, "writes some elements more than once"},
      {"out_partially_overlaps_a",
       [](Fixture& f) {
         const TensorView a = index(f.f32_4x4, parse_index_expression("[0:2, 0:2]"));
         const TensorView o = index(f.f32_4x4, parse_index_expression("[1:3, 1:3]"));
         add(a, f.f32_2x2, o);
       },
       ErrorKind::value, "add: out overlaps a in memory without being the same view"},
      {"out_is_b_transposed",
       [](Fixture& f) { add(f.f32_2x2, transpose(f.out), f.out); }, ErrorKind::value,
       "out overlaps b in memory"},
      {"null_data_with_elements",
       [](Fixture& f) { add(TensorView{nullptr, DType::f32, Layout::contiguous({2, 2})}, f.f32_2x2, f.out); },
       ErrorKind::value, "add: a has shape [2, 2] but its data pointer is null"},
      {"negative_extent",
       [](Fixture& f) { add(f.f32_2x2, TensorView{f.f32_2.data(), DType::f32, {{-2}, {1}}}, f.out); }, ErrorKind::shape,
       "b has a negative extent at dim 0: -2"},
      {"shape_strides_length_mismatch",
       [](Fixture& f) { add(TensorView{f.f32_2x2.data(), DType::f32, {{2, 2}, {1}}}, f.f32_2x2, f.out); },
       ErrorKind::shape, "a has 2 extents but 1 strides"},
      {"element_count_overflows",
       [](Fixture& f) {
         add(TensorView{f.f32_2.data(), DType::f32, {{1 << 30, 1 << 30, 1 << 30}, {0, 0, 0}}}, f.f32_2x2, f.out);
       },
       ErrorKind::shape, "a of shape [1073741824, 1073741824, 1073741824] has more elements than fit in 64 bits"},
      {"stride_reach_overflows",
       [](Fixture& f) { add(TensorView{f.f32_2.data(), DType::f32, {{4}, {INT64_MAX / 2}}}, f.f32_2x2, f.out); },
       ErrorKind::shape, "reaches beyond 64-bit offsets"},
      {"rank_over_the_limit",
       [](Fixture& f) { add(TensorView{f.f32_2.data(), DType::f32, Layout::contiguous(Shape(kMaxRank + 1, 1))}, f.f32_2x2, f.out); },
       ErrorKind::shape, "a has rank 65, above the limit of 64"},
      {"broadcast_result_overflows",
       [](Fixture& f) {
         add(TensorView{f.f32_2.data(), DType::f32, {{1 << 30, 1, 1 << 30}, {0, 0, 0}}},
             TensorView{f.f32_2.data(), DType::f32, {{1, 1 << 30, 1}, {0, 0, 0}}}, f.out);
       },
       ErrorKind::shape, "the broadcast result of shape [1073741824, 1073741824, 1073741824] has more elements"},
      {"index_out_of_range", [](Fixture& f) { add(index(f.f32_2x2, {5}), f.f32_2, f.out); }, ErrorKind::index,
       "index 5 is out of bounds for axis 0 with size 2"},
      {"squeeze_non_unit_dim", [](Fixture& f) { add(squeeze(f.f32_2x2, {0}), f.f32_2, f.out); }, ErrorKind::shape,
       "squeeze: dim 0 has extent 2, not 1"},
  };
  return cases;
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, RaisesTheRightErrorAndWritesNothing) {
  const BadCase& c = GetParam();
  Fixture f;
  for (std::int64_t i = 0; i < 4; ++i) test::set(f.out, i, 42.0);
  const auto before = test::bytes_of(f.out);
  try {
    c.call(f);
    FAIL() << c.name << ": no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), c.kind) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(c.message));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
  }
  EXPECT_EQ(test::bytes_of(f.out), before) << c.name << ": out was written";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(bad_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(InPlace, OutMayBeAnInputExactly) {
  Tensor x = test::make(DType::f32, {2, 2}, {1, 2, 3, 4});
  const Tensor row = test::make(DType::f32, {2}, {10, 20});
  add(x, row, x);
  EXPECT_EQ(test::get(x, 3), 24.0);
  mul(x, x, x);  // both inputs and out the same view
  EXPECT_EQ(test::get(x, 0), 121.0);
}

}  // namespace
}  // namespace bcast
