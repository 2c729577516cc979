// The broadcast planner: worked examples, and the property that the planned
// nest visits every output element exactly once with the naive offsets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "broadcast_plan.h"
#include "plan_walk.h"
#include "test_support.h"

namespace bcast {
namespace {

using DC = DimCode;

BroadcastPlan plan_contiguous(const Shape& a, const Shape& b) {
  return plan_broadcast(Layout::contiguous(broadcast_infer_shape(a, b)), Layout::contiguous(a), Layout::contiguous(b));
}

TEST(Planner, RowBroadcastMergesToTwoLevels) {
  const BroadcastPlan p = plan_contiguous({4, 3}, {3});
  EXPECT_EQ(p.type, (BroadcastType{DC::expand_b, DC::same}));
  EXPECT_EQ(p.extents, (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(p.strides[kB], (std::vector<std::int64_t>{0, 1}));
}

TEST(Planner, SameShapeMergesToOneLevel) {
  const BroadcastPlan p = plan_contiguous({2, 3, 4}, {2, 3, 4});
  EXPECT_EQ(p.type, (BroadcastType{DC::same}));
  EXPECT_EQ(p.extents, (std::vector<std::int64_t>{24}));
}

TEST(Planner, UnitDimsDropAndNeighboursMerge) {
  // [8,1,32,1,512] + [1,16,1,64,1]: the output [8,16,32,64,512] keeps five levels
  // (the codes alternate), each input repeating where it had extent 1.
  const BroadcastPlan p = plan_contiguous({8, 1, 32, 1, 512}, {1, 16, 1, 64, 1});
  EXPECT_EQ(p.type, (BroadcastType{DC::expand_b, DC::expand_a, DC::expand_b, DC::expand_a, DC::expand_b}));
  // [64,256,1024] + [64,1,1024] -> [same, expand_b, same]
  EXPECT_EQ(plan_contiguous({64, 256, 1024}, {64, 1, 1024}).type,
            (BroadcastType{DC::same, DC::expand_b, DC::same}));
  // A channel bias [N,C,H,W] + [1,C,1,1]: H and W merge.
  const BroadcastPlan bias = plan_contiguous({8, 64, 56, 56}, {1, 64, 1, 1});
  EXPECT_EQ(bias.type, (BroadcastType{DC::expand_b, DC::same, DC::expand_b}));
  EXPECT_EQ(bias.extents, (std::vector<std::int64_t>{8, 64, 56 * 56}));
}

TEST(Planner, ScalarAndSingleElementPlansHaveNoLevels) {
  const BroadcastPlan p = plan_contiguous({}, {1, 1});
  EXPECT_TRUE(p.type.empty());
  EXPECT_EQ(p.numel, 1);
  EXPECT_EQ(plan_contiguous({5}, {}).type, (BroadcastType{DC::expand_b}));
}

TEST(Planner, ZeroSizeOutputPlansNothing) {
  EXPECT_EQ(plan_contiguous({0, 3}, {3}).numel, 0);
}

TEST(Planner, TransposedOutputStillMergesWithUnitInnerStride) {
  // out is the transpose of a contiguous [3,4] buffer; a and b are laid out the
  // same way: one level of 12 with unit strides.
  const Layout t{{4, 3}, {1, 4}};
  const BroadcastPlan p = plan_broadcast(t, t, t);
  EXPECT_EQ(p.type, (BroadcastType{DC::same}));
  EXPECT_EQ(p.extents, (std::vector<std::int64_t>{12}));
  EXPECT_EQ(p.strides[kOut], (std::vector<std::int64_t>{1}));
}

TEST(Planner, ReversedOutputIsWalkedForwards) {
  // out and a walk memory backwards: the plan flips the dim, starting at the far end.
  const Layout reversed{{5}, {-1}};
  const BroadcastPlan p = plan_broadcast(reversed, reversed, Layout::contiguous({5}));
  EXPECT_EQ(p.strides[kOut], (std::vector<std::int64_t>{1}));
  EXPECT_EQ(p.strides[kB], (std::vector<std::int64_t>{-1}));
  EXPECT_EQ(p.base[kOut], -4);
  EXPECT_EQ(p.base[kB], 4);
}

// NOTE: [Walking order]: a dim is walked the way that the inputs' elements
// read forwards; out, the fresh array, takes the backwards walk.
TEST(Planner, AFlippedInputIsReadForwardsAndOutWalksBack) {
  const Layout rows_flipped{{4, 5}, {-5, 1}};  // x[::-1] of a contiguous [4, 5], its base at row 3
  const BroadcastPlan p = plan_broadcast(Layout::contiguous({4, 5}), rows_flipped, Layout::contiguous({5}));
  EXPECT_EQ(p.strides[kOut], (std::vector<std::int64_t>{-5, 1}));
  EXPECT_EQ(p.strides[kA], (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(p.base[kOut], 15);  // out's last row first
  EXPECT_EQ(p.base[kA], -15);   // a's first row in memory, 3 rows before its view's base
}

TEST(Planner, EachInputWeighsTheElementsItReads) {
  // x[:, ::-1] (20 elements) + a row (5): the columns are turned for x, and
  // the row and out walk them back; innermost, out's stride is -1.
  const Layout columns_reversed{{4, 5}, {5, -1}};
  const BroadcastPlan p = plan_broadcast(Layout::contiguous({4, 5}), columns_reversed, Layout::contiguous({5}));
  EXPECT_EQ(p.strides[kOut], (std::vector<std::int64_t>{5, -1}));
  EXPECT_EQ(p.strides[kA], (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(p.strides[kB], (std::vector<std::int64_t>{0, -1}));
  // One full input each way is a tie: out walks forwards.
  const BroadcastPlan tie = plan_broadcast(Layout::contiguous({4, 5}), columns_reversed, Layout::contiguous({4, 5}));
  EXPECT_EQ(tie.strides[kOut], (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(tie.strides[kA], (std::vector<std::int64_t>{5, -1}));
}

TEST(Planner, WithOutForwardsTurnsBackEveryLevelOutWalksBackwards) {
  const Layout rows_flipped{{4, 5}, {-5, 1}};
  const BroadcastPlan p = plan_broadcast(Layout::contiguous({4, 5}), rows_flipped, Layout::contiguous({5}));
  const BroadcastPlan forwards = with_out_forwards(p);
  EXPECT_EQ(forwards.strides[kOut], (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(forwards.strides[kA], (std::vector<std::int64_t>{-5, 1}));
  EXPECT_EQ(forwards.spans[kA], (std::vector<std::int64_t>{-15, 4}));
  EXPECT_EQ(forwards.base[kOut], 0);
  EXPECT_EQ(forwards.base[kA], 0);
}

TEST(Planner, ContiguousTypesAlternateCodes) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 10, 5, 1 << 14);
    const BroadcastPlan p = plan_contiguous(s.a, s.b);
    for (std::size_t l = 1; l < p.type.size(); ++l)
      ASSERT_NE(p.type[l - 1], p.type[l]) << to_string(s.a) << " & " << to_string(s.b) << " -> " << to_string(p.type);
  }
}

TEST(Planner, PlannedOffsetsEqualNaiveOffsetsOnRandomViews) {
  std::mt19937_64 rng(2026);
  int checked = 0;
  for (int i = 0; i < 4000; ++i) {
    const test::ShapeTriple s = test::random_broadcast_shapes(rng, 10, 5, 4096);
    test::RandomView out = test::random_view(DType::f32, s.out, rng);
    test::RandomView a = test::random_view(DType::f32, s.a, rng);
    test::RandomView b = test::random_view(DType::f32, s.b, rng);
    // Sometimes make an input a stride-0 broadcast view of full extent.
    if (i % 5 == 0 && s.a.size() <= s.out.size()) {
      Shape ones(s.a.size(), 1);
      test::RandomView one = test::random_view(DType::f32, ones, rng);
      a.view = broadcast_to(one.view, s.a);
      a.parent = std::move(one.parent);
    }
    const BroadcastPlan plan = plan_broadcast(out.view.layout(), a.view.layout(), b.view.layout());
    ASSERT_EQ(test::compare_walks(plan, out.view.layout(), a.view.layout(), b.view.layout()), "")
        << to_string(s.out) << " = " << to_string(s.a) << " op " << to_string(s.b) << ", plan " << to_string(plan.type);
    checked += static_cast<int>(out.view.numel());
  }
  EXPECT_GT(checked, 100000);  // the generator really produced sizeable cases
}

// ---- N inputs (NOTE: [Dim classes]) ----

BroadcastPlan plan_inputs(const Shape& out, const std::vector<Shape>& inputs) {
  std::vector<Layout> layouts;
  for (const Shape& s : inputs) layouts.push_back(Layout::contiguous(s));
  std::vector<const Layout*> pointers;
  for (const Layout& l : layouts) pointers.push_back(&l);
  return plan_broadcast(Layout::contiguous(out), pointers);
}

TEST(Planner, DimClassNamesTheRepeatingInputs) {
  EXPECT_EQ(to_string(DC::same), "same");
  EXPECT_EQ(to_string(DC::expand_a), "expand_a");
  EXPECT_EQ(to_string(DC::expand_b), "expand_b");
  EXPECT_EQ(to_string(static_cast<DC>(0b101)), "expand_ac");
  EXPECT_EQ(to_string(static_cast<DC>(1u << 15)), "expand_p");
  EXPECT_TRUE(repeats(static_cast<DC>(0b101), 2));
  EXPECT_FALSE(repeats(static_cast<DC>(0b101), 1));
}

TEST(Planner, AffineChainOfFiveInputs) {
  // (x - m) * r * g + b: x [4096,1024], m and r [4096,1], g and b [1024].
  // Rows: m and r move, g and b repeat; columns: the other way round.
  const BroadcastPlan p = plan_inputs({4096, 1024}, {{4096, 1024}, {4096, 1}, {4096, 1}, {1024}, {1024}});
  EXPECT_EQ(p.operands(), 6);
  EXPECT_EQ(to_string(p.type), "[expand_de,expand_bc]");
  EXPECT_EQ(p.extents, (std::vector<std::int64_t>{4096, 1024}));
  EXPECT_EQ(p.strides[1], (std::vector<std::int64_t>{1024, 1}));
  EXPECT_EQ(p.strides[2], (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(p.strides[4], (std::vector<std::int64_t>{0, 1}));
}

TEST(Planner, OneInputAndManyInputsMergeLikeTwo) {
  // One input, a copy: everything merges.
  EXPECT_EQ(to_string(plan_inputs({2, 3, 4}, {{2, 3, 4}}).type), "[same]");
  // Sixteen inputs, the first a row: two levels.
  std::vector<Shape> inputs(kMaxInputs, Shape{8, 5});
  inputs[0] = {5};
  EXPECT_EQ(to_string(plan_inputs({8, 5}, inputs).type), "[expand_a,same]");
  // A dim where every input has extent 1 is an output dim of extent 1: dropped.
  // The others keep their own classes.
  EXPECT_EQ(to_string(plan_inputs({3, 1, 4}, {{3, 1, 4}, {3, 1, 1}, {1, 1, 4}}).type), "[expand_c,expand_b]");
}

TEST(Planner, TooManyInputsIsAnError) {
  const Layout x = Layout::contiguous({2});
  std::vector<const Layout*> inputs(kMaxInputs + 1, &x);
  EXPECT_THROW(plan_broadcast(x, inputs), Error);
  EXPECT_THROW(plan_broadcast(x, std::vector<const Layout*>{}), Error);
}

TEST(Planner, NaryPlannedOffsetsEqualNaiveOffsetsOnRandomViews) {
  std::mt19937_64 rng(2027);
  std::uniform_int_distribution<int> count_pick(1, 7), percent(0, 99);
  int checked = 0;
  for (int i = 0; i < 6000; ++i) {
    const Shape full = test::random_broadcast_shapes(rng, 7, 5, 2048).out;
    std::vector<test::RandomView> views;
    std::vector<Layout> layouts;
    Shape out_shape;
    const int n = count_pick(rng);
    for (int k = 0; k < n; ++k) {
      // A trailing part of `full` with some extents 1.
      const int r = std::uniform_int_distribution<int>(0, static_cast<int>(full.size()))(rng);
      Shape s(full.end() - r, full.end());
      for (std::int64_t& e : s)
        if (percent(rng) < 35) e = 1;
      views.push_back(test::random_view(DType::f32, s, rng));
      layouts.push_back(views.back().view.layout());
      out_shape = broadcast_infer_shape(out_shape, s);
    }
    test::RandomView out = test::random_view(DType::f32, out_shape, rng);
    std::vector<const Layout*> pointers;
    for (const Layout& l : layouts) pointers.push_back(&l);
    const BroadcastPlan plan = plan_broadcast(out.view.layout(), pointers);
    ASSERT_EQ(plan.operands(), n + 1);
    ASSERT_EQ(test::compare_walks(plan, out.view.layout(), layouts), "")
        << n << " inputs into " << to_string(out_shape) << ", plan " << to_string(plan.type);
    // Every level's class is exactly the set of inputs whose stride is 0 there
    // while out moves (the planner's classes agree with its strides).
    for (int l = 0; l < plan.rank(); ++l) {
      for (int k = 0; k < n; ++k) {
        if (repeats(plan.type[l], k)) {
          ASSERT_EQ(plan.strides[1 + k][l], 0) << to_string(plan.type);
        }
      }
    }
    checked += static_cast<int>(out.view.numel());
  }
  EXPECT_GT(checked, 40000);  // the generator really produced sizeable cases
}

}  // namespace
}  // namespace bcast
