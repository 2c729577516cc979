// One block's pipes (NOTE: [Ascend pipes]): the schedule of the instructions
// a block issues, each on its pipe with its cost (NOTE: [Ascend cost model]),
// ordered only by the flags its queues set and wait for; and the hazards a
// real core would meet: a queue slot used out of turn, or two pipes touching
// the same UB bytes with nothing ordering them.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ascend_abi.h"
#include "ascend_isa.h"
#include "ascend_vector.h"

namespace bcast::ascend {

// A TQue: buffers (slots) that a producer pipe fills and a consumer pipe
// drains. Ascend C's VECIN queues go from MTE2 to V, VECOUT from V to MTE3.
struct QueueSpec {
  std::string name;  // "inQueueX"
  Pipe producer = Pipe::mte2, consumer = Pipe::vector;
  int slots = 1;     // BUFFER_NUM
};

// What a block's schedule came to.
struct PipeSummary {
  std::int64_t cycles = 0;                      // when the last pipe ends: the block's estimated time
  std::array<std::int64_t, kNumPipes> busy{};   // cycles each pipe spent working
  std::array<std::int64_t, kNumPipes> issued{}; // instructions each pipe ran
  Pipe critical = Pipe::mte2;                   // the busiest pipe
  std::vector<std::string> hazards;             // in issue order; empty for a sound kernel
};

// NOTE: [Pipe schedule] Instructions arrive in program order, each on its
// pipe. A pipe runs its instructions in order, each starting when the pipe is
// free and the scalar unit has issued it. Queues order the pipes, as Ascend C's
// EnQue / DeQue / AllocTensor / FreeTensor do through SetFlag / WaitFlag:
//   alloc(q, s)  the producer waits until slot s was last freed;
//   enque(q, s)  the slot's data is ready when the producer's work so far ends;
//   deque(q, s)  the consumer waits until then;
//   free(q, s)   the slot is free again when the consumer's work so far ends.
// A slot goes free -> alloc -> enque -> deque -> free; any other step is a
// hazard ("allocated again before it was freed"). Besides timing, each pipe
// keeps a vector clock of what it is ordered after; an instruction whose UB
// footprint overlaps, with a write on either side, that of an instruction on
// another pipe not ordered before it is a race, and a hazard, whatever the
// estimated times say. The block's estimate is never below its busiest pipe.
class PipeSchedule {
 public:
  explicit PipeSchedule(std::vector<QueueSpec> queues);

  // One instruction of `cycles` on `pipe`, reading `reads` and writing
  // `writes` of the UB; `label` names it in hazards.
  void issue(Pipe pipe, std::int64_t cycles, std::string_view label, std::span<const UbRange> reads,
             std::span<const UbRange> writes);
  void step(QueueOp op, int queue, int slot);
  void alloc(int queue, int slot) { step(QueueOp::alloc, queue, slot); }
  void enque(int queue, int slot) { step(QueueOp::enque, queue, slot); }
  void deque(int queue, int slot) { step(QueueOp::deque, queue, slot); }
  void free(int queue, int slot) { step(QueueOp::free, queue, slot); }
  // SetFlag<from_to>(event) / WaitFlag<from_to>(event), as a kernel writes them by hand.
  void set_flag(Pipe from, Pipe to, int event);
  void wait_flag(Pipe from, Pipe to, int event);

  // The summary at the block's end; a slot still in use is a hazard.
  PipeSummary finish();

 private:
  using Clock = std::array<std::int64_t, kNumPipes>;  // per pipe: how many of its instructions come before
  struct Flag {
    bool set = false;
    std::int64_t time = 0;
    Clock clock{};
  };
  struct Step {
    std::int64_t start = 0, end = 0;
    std::vector<UbRange> reads, writes;
    std::string label;
  };
  enum class SlotState : std::uint8_t { free, allocated, enqueued, dequeued };
  struct Slot {
    SlotState state = SlotState::free;
    Flag ready, freed;
  };

  void signal(Pipe from, Flag& flag);
  void wait(Pipe on, const Flag& flag);
  bool slot_ok(int queue, int slot, SlotState expected, std::string_view step);
  void check_races(Pipe pipe, const Step& step);
  void hazard(std::string text);

  std::vector<QueueSpec> queues_;
  std::vector<std::vector<Slot>> slots_;
  std::array<std::int64_t, kNumPipes> free_at_{};  // when each pipe is next free
  std::array<Clock, kNumPipes> clock_{};
  std::array<std::vector<Step>, kNumPipes> steps_;
  std::vector<std::pair<std::array<int, 3>, Flag>> flags_;  // (from, to, event) -> flag
  PipeSummary summary_;
};

}  // namespace bcast::ascend
