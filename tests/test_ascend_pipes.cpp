// The pipe schedule (NOTE: [Pipe schedule]): what double buffering buys, with
// the times worked out by hand; bounds that hold for any schedule; and the
// hazards a real core would meet, each planted in an otherwise sound kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "ascend_pipes.h"

namespace bcast::ascend {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr int kIn = 0, kOut = 1;

// The three stages of an elementwise kernel, as Ascend C's Process loop
// issues them (CopyIn(i); Compute(i); CopyOut(i)), with `slots` buffers per
// queue and a cost per stage. Input slot s lives at UB 0x1000 * s, output
// slot s at 0x8000 + 0x1000 * s.
struct Pipeline {
  std::int64_t copy_in = 10, compute = 10, copy_out = 10;
  int slots = 2;

  PipeSummary run(int tiles, const std::function<void(PipeSchedule&, int tile)>& plant = {}) const {
    PipeSchedule s({{"inQueueX", Pipe::mte2, Pipe::vector, slots}, {"outQueueZ", Pipe::vector, Pipe::mte3, slots}});
    for (int i = 0; i < tiles; ++i) {
      const int slot = i % slots;
      const UbRange in{0x1000 * slot, 0x1000 * slot + 0x100}, out{0x8000 + 0x1000 * slot, 0x8000 + 0x1000 * slot + 0x100};
      if (plant) plant(s, i);
      // CopyIn
      s.alloc(kIn, slot);
      s.issue(Pipe::mte2, copy_in, "DataCopy", {}, std::array{in});
      s.enque(kIn, slot);
      // Compute
      s.deque(kIn, slot);
      s.alloc(kOut, slot);
      s.issue(Pipe::vector, compute, "Adds", std::array{in}, std::array{out});
      s.enque(kOut, slot);
      s.free(kIn, slot);
      // CopyOut
      s.deque(kOut, slot);
      s.issue(Pipe::mte3, copy_out, "DataCopy", std::array{out}, {});
      s.free(kOut, slot);
    }
    return s.finish();
  }
};

// Double buffering: copy-in of tile i + 1 overlaps compute of tile i and
// copy-out of tile i - 1, so n tiles of three stages of t take (n + 2) t.
TEST(AscendPipes, DoubleBufferingOverlapsTheThreeStages) {
  for (const int n : {1, 2, 5, 64}) {
    const PipeSummary s = Pipeline{.slots = 2}.run(n);
    EXPECT_EQ(s.cycles, (n + 2) * 10) << n;
    EXPECT_THAT(s.hazards, IsEmpty());
    for (int p = 0; p < 3; ++p) EXPECT_EQ(s.busy[p], n * 10) << n;
  }
}

// One buffer per queue: copy-in of tile i + 1 must wait for compute of tile
// i to free the input buffer, and compute for copy-out to free the output
// one; only copy-out of tile i and copy-in of tile i + 1 overlap (they use
// different buffers and different engines): (2n + 1) t.
TEST(AscendPipes, SingleBuffersOverlapOnlyCopyOutWithCopyIn) {
  for (const int n : {1, 2, 5, 64}) {
    const PipeSummary s = Pipeline{.slots = 1}.run(n);
    EXPECT_EQ(s.cycles, (2 * n + 1) * 10) << n;
    EXPECT_THAT(s.hazards, IsEmpty());
  }
}

// One buffer for all three stages (an in-place kernel, ordered by hand with
// SetFlag / WaitFlag): nothing overlaps, 3 n t.
TEST(AscendPipes, OneSharedBufferSerialisesEverything) {
  for (const int n : {1, 2, 5, 64}) {
    PipeSchedule s({});
    const UbRange buffer{0, 0x100};
    for (int i = 0; i < n; ++i) {
      if (i > 0) s.wait_flag(Pipe::mte3, Pipe::mte2, 0);
      s.issue(Pipe::mte2, 10, "DataCopy", {}, std::array{buffer});
      s.set_flag(Pipe::mte2, Pipe::vector, 0);
      s.wait_flag(Pipe::mte2, Pipe::vector, 0);
      s.issue(Pipe::vector, 10, "Adds", std::array{buffer}, std::array{buffer});
      s.set_flag(Pipe::vector, Pipe::mte3, 0);
      s.wait_flag(Pipe::vector, Pipe::mte3, 0);
      s.issue(Pipe::mte3, 10, "DataCopy", std::array{buffer}, {});
      s.set_flag(Pipe::mte3, Pipe::mte2, 0);
    }
    const PipeSummary summary = s.finish();
    EXPECT_EQ(summary.cycles, 3 * n * 10) << n;
    EXPECT_THAT(summary.hazards, IsEmpty());
  }
}

// The busiest pipe bounds the time: copies twice as dear as compute make
// MTE2 critical, and the block takes its time plus the other two stages once.
TEST(AscendPipes, TheBusiestPipeIsCritical) {
  const PipeSummary s = Pipeline{.copy_in = 20, .compute = 10, .copy_out = 5}.run(32);
  EXPECT_EQ(s.critical, Pipe::mte2);
  EXPECT_EQ(s.busy[static_cast<int>(Pipe::mte2)], 32 * 20);
  EXPECT_EQ(s.cycles, 32 * 20 + 10 + 5);
}

// Any schedule lies between its busiest pipe and all pipes back to back.
TEST(AscendPipes, EstimatesAreBoundedByBusiestPipeAndSerialSum) {
  std::mt19937 rng(17);
  std::uniform_int_distribution<std::int64_t> cost(1, 50);
  for (int trial = 0; trial < 200; ++trial) {
    const Pipeline p{.copy_in = cost(rng), .compute = cost(rng), .copy_out = cost(rng), .slots = 1 + trial % 3};
    const PipeSummary s = p.run(1 + trial % 17);
    std::int64_t busiest = 0, sum = 0;
    for (const std::int64_t b : s.busy) busiest = std::max(busiest, b), sum += b;
    EXPECT_GE(s.cycles, busiest);
    EXPECT_LE(s.cycles, sum);
    EXPECT_EQ(s.busy[static_cast<int>(s.critical)], busiest);
  }
}

// Planted: tile 2 refills input slot 0 without tile 0's FreeTensor. The
// queue says so, and the race check sees the copy overwrite data that the
// vector unit may still be reading.
TEST(AscendPipes, ARefillBeforeFreeIsAHazard) {
  PipeSchedule s({{"inQueueX", Pipe::mte2, Pipe::vector, 2}});
  const UbRange slot0{0, 0x100};
  s.alloc(0, 0);
  s.issue(Pipe::mte2, 10, "DataCopy(tile 0)", {}, std::array{slot0});
  s.enque(0, 0);
  s.deque(0, 0);
  s.issue(Pipe::vector, 50, "Add(tile 0)", std::array{slot0}, {});
  // missing: s.free(0, 0);
  s.alloc(0, 0);
  s.issue(Pipe::mte2, 10, "DataCopy(tile 2)", {}, std::array{slot0});
  const PipeSummary summary = s.finish();
  ASSERT_GE(summary.hazards.size(), 2u);
  EXPECT_EQ(summary.hazards[0],
            "AllocTensor(inQueueX slot 0): the slot is refilled while dequeued, before FreeTensor released it");
  EXPECT_EQ(summary.hazards[1],
            "MTE2 DataCopy(tile 2) (cycles 10-20) writes UB [0x0, 0x100) while V Add(tile 0) (cycles 10-60) uses it, "
            "with no flag ordering them");
}

// Planted: a copy into the wrong slot's buffer, with the queue calls all in
// order: only the UB footprints show the race.
TEST(AscendPipes, AWriteIntoABufferInUseIsARace) {
  const PipeSummary sound = Pipeline{}.run(4);
  EXPECT_THAT(sound.hazards, IsEmpty());
  const PipeSummary planted = Pipeline{}.run(4, [](PipeSchedule& s, int tile) {
    if (tile == 1) s.issue(Pipe::mte2, 10, "DataCopy(into slot 0)", {}, std::array{UbRange{0, 0x100}});
  });
  ASSERT_THAT(planted.hazards, ::testing::Not(IsEmpty()));
  EXPECT_THAT(planted.hazards[0], HasSubstr("MTE2 DataCopy(into slot 0)"));
  EXPECT_THAT(planted.hazards[0], HasSubstr("writes UB [0x0, 0x100) while V Adds"));
}

// The flag bookkeeping: a wait with no set, and a block ending with data
// still queued.
TEST(AscendPipes, UnpairedFlagsAndUnfinishedQueuesAreHazards) {
  PipeSchedule s({{"outQueueZ", Pipe::vector, Pipe::mte3, 1}});
  s.wait_flag(Pipe::vector, Pipe::mte3, 3);
  s.alloc(0, 0);
  s.enque(0, 0);
  const PipeSummary summary = s.finish();
  ASSERT_EQ(summary.hazards.size(), 2u);
  EXPECT_EQ(summary.hazards[0], "WaitFlag<V_MTE3>(3) with no SetFlag before it: MTE3 would wait forever");
  EXPECT_EQ(summary.hazards[1], "end of block: outQueueZ slot 0 is still enqueued");
}

// A scalar read that waits for the vector unit holds back every
// instruction issued after it.
TEST(AscendPipes, AScalarWaitHoldsBackLaterIssues) {
  PipeSchedule s({});
  s.issue(Pipe::vector, 40, "Add", {}, std::array{UbRange{0, 32}});
  s.set_flag(Pipe::vector, Pipe::scalar, 0);
  s.wait_flag(Pipe::vector, Pipe::scalar, 0);
  s.issue(Pipe::scalar, 20, "GetValue", std::array{UbRange{0, 32}}, {});
  s.issue(Pipe::mte2, 10, "DataCopy", {}, std::array{UbRange{0, 32}});
  const PipeSummary summary = s.finish();
  EXPECT_EQ(summary.cycles, 40 + 20 + 10);
  EXPECT_THAT(summary.hazards, IsEmpty());
}

}  // namespace
}  // namespace bcast::ascend
