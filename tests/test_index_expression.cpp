// The index-expression parser, and expressions applied end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bcast/bcast.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

Shape shape_after(const Shape& shape, const std::string& expression) {
  const TensorView x{reinterpret_cast<void*>(std::uintptr_t{64}), DType::f32, Layout::contiguous(shape)};
  return index(x, parse_index_expression(expression)).shape();
}

TEST(IndexExpression, ParsesEveryForm) {
  const auto items = parse_index_expression("[ ..., 1:, None, -1, ::-2, 3:4:5, : ]");
  ASSERT_EQ(items.size(), 7u);
  EXPECT_TRUE(std::holds_alternative<Ellipsis>(items[0]));
  const auto& s1 = std::get<Slice>(items[1]);
  EXPECT_EQ(s1.start, 1);
  EXPECT_FALSE(s1.stop.has_value());
  EXPECT_FALSE(s1.step.has_value());
  EXPECT_TRUE(std::holds_alternative<NewAxis>(items[2]));
  EXPECT_EQ(std::get<std::int64_t>(items[3]), -1);
  EXPECT_EQ(std::get<Slice>(items[4]).step, -2);
  const auto& s5 = std::get<Slice>(items[5]);
  EXPECT_EQ(s5.start, 3);
  EXPECT_EQ(s5.stop, 4);
  EXPECT_EQ(s5.step, 5);
  EXPECT_TRUE(parse_index_expression("[]").empty());
  EXPECT_EQ(parse_index_expression("[0,]").size(), 1u);
}

TEST(IndexExpression, AppliedLikeNumPy) {
  EXPECT_EQ(shape_after({4, 5, 3}, "[..., ::-1]"), (Shape{4, 5, 3}));
  EXPECT_EQ(shape_after({4, 5, 3}, "[1:, None, -1]"), (Shape{3, 1, 3}));
  EXPECT_EQ(shape_after({10}, "[::3]"), (Shape{4}));
  EXPECT_EQ(shape_after({2, 3}, "[None]"), (Shape{1, 2, 3}));
}

TEST(IndexExpression, MalformedInputIsAnIndexErrorWithTheColumn) {
  const std::vector<std::pair<std::string, std::string>> bad{
      {"1:2", "expected '['"},
      {"[1:2", "expected ',' or ']'"},
      {"[a]", "expected an integer, a slice, '...' or 'None'"},
      {"[1::2::3]", "expected ',' or ']'"},
      {"[99999999999999999999]", "integer out of the 64-bit range"},
      {"[1] x", "unexpected text after ']'"},
      {"[,]", "expected an integer"},
      {"[-]", "malformed integer"},
  };
  for (const auto& [text, message] : bad) {
    try {
      parse_index_expression(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::index);
      EXPECT_THAT(e.what(), HasSubstr(message)) << text;
      EXPECT_THAT(e.what(), HasSubstr("at column")) << text;
    }
  }
}

}  // namespace
}  // namespace bcast
