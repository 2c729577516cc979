// NumPy's broadcasting rules on shapes: the seven classic cases and the message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bcast/bcast.h"

namespace bcast {
namespace {

struct ClassicCase {
  Shape a, b;
  bool ok;
  Shape out;
};

void PrintTo(const ClassicCase& c, std::ostream* os) { *os << to_string(c.a) << " & " << to_string(c.b); }

class ClassicBroadcast : public ::testing::TestWithParam<ClassicCase> {};

TEST_P(ClassicBroadcast, CheckAndInferAgree) {
  const ClassicCase& c = GetParam();
  EXPECT_EQ(check_broadcast_shape(c.a, c.b), c.ok);
  EXPECT_EQ(check_broadcast_shape(c.b, c.a), c.ok);  // symmetric
  if (c.ok) {
    EXPECT_EQ(broadcast_infer_shape(c.a, c.b), c.out);
  } else {
    EXPECT_THROW(broadcast_infer_shape(c.a, c.b), Error);
  }
}

INSTANTIATE_TEST_SUITE_P(SevenClassicCases, ClassicBroadcast,
                         ::testing::Values(ClassicCase{{2, 2}, {2}, true, {2, 2}},
                                           ClassicCase{{2}, {2, 2}, true, {2, 2}},
                                           ClassicCase{{2}, {2, 1}, true, {2, 2}},
                                           ClassicCase{{2, 2}, {2, 5}, false, {}},
                                           ClassicCase{{2, 1}, {2, 1}, true, {2, 1}},
                                           ClassicCase{{2, 2, 5}, {2, 1, 5}, true, {2, 2, 5}},
                                           ClassicCase{{2, 2}, {2, 2, 5}, false, {}}));

TEST(BroadcastShape, FailureNamesShapesDimAndExtents) {
  try {
    broadcast_infer_shape({2, 2}, {2, 2, 5});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::shape);
    EXPECT_STREQ(e.what(), "shapes [2, 2] and [2, 2, 5] do not broadcast: dim -1 has 2 vs 5");
  }
}

TEST(BroadcastShape, ZeroExtentsBroadcastLikeNumPy) {
  EXPECT_EQ(broadcast_infer_shape({0, 3}, {1, 3}), (Shape{0, 3}));
  EXPECT_EQ(broadcast_infer_shape({0}, {1}), (Shape{0}));
  EXPECT_FALSE(check_broadcast_shape({0}, {2}));
}

TEST(BroadcastShape, ScalarsAndHighRanks) {
  EXPECT_EQ(broadcast_infer_shape({}, {}), Shape{});
  EXPECT_EQ(broadcast_infer_shape({}, {3, 1}), (Shape{3, 1}));
  const Shape high(20, 1);  // rank 20: no silent rank limit below kMaxRank
  Shape other(20, 1);
  other[0] = 7;
  EXPECT_EQ(broadcast_infer_shape(high, other), other);
}

}  // namespace
}  // namespace bcast
