// One block's pipe schedule and its hazard checks (NOTE: [Pipe schedule]).
#include "ascend_pipes.h"

#include <algorithm>

#include <fmt/format.h>

namespace bcast::ascend {
namespace {

constexpr std::size_t kMaxHazards = 16;  // the first ones; the rest are counted

std::size_t at(Pipe p) { return static_cast<std::size_t>(p); }

std::string_view state_name(int s) {
  constexpr std::string_view names[] = {"free", "allocated", "enqueued", "dequeued"};
  return names[s];
}

std::string event_name(Pipe from, Pipe to) { return fmt::format("{}_{}", pipe_name(from), pipe_name(to)); }

// The first overlap of a write in `a` with anything in `b`, or of a write in
// `b` with a read in `a`.
const UbRange* conflict(const std::vector<UbRange>& a_reads, const std::vector<UbRange>& a_writes,
                        const std::vector<UbRange>& b_reads, const std::vector<UbRange>& b_writes, bool& a_writes_it) {
  for (const UbRange& w : a_writes) {
    for (const UbRange& r : b_reads)
      if (w.overlaps(r)) return a_writes_it = true, &w;
    for (const UbRange& o : b_writes)
      if (w.overlaps(o)) return a_writes_it = true, &w;
  }
  for (const UbRange& w : b_writes)
    for (const UbRange& r : a_reads)
      if (w.overlaps(r)) return a_writes_it = false, &r;
  return nullptr;
}

}  // namespace

PipeSchedule::PipeSchedule(std::vector<QueueSpec> queues) : queues_(std::move(queues)) {
  for (const QueueSpec& q : queues_) slots_.emplace_back(static_cast<std::size_t>(q.slots));
}

void PipeSchedule::hazard(std::string text) {
  if (summary_.hazards.size() < kMaxHazards) summary_.hazards.push_back(std::move(text));
  else if (summary_.hazards.size() == kMaxHazards) summary_.hazards.push_back("... and more hazards");
}

void PipeSchedule::issue(Pipe pipe, std::int64_t cycles, std::string_view label, std::span<const UbRange> reads,
                         std::span<const UbRange> writes) {
  const std::size_t p = at(pipe);
  // The scalar unit issues every instruction: nothing starts before what it
  // waited for, and everything after it is ordered after that.
  if (pipe != Pipe::scalar)
    for (std::size_t q = 0; q < kNumPipes; ++q) clock_[p][q] = std::max(clock_[p][q], clock_[at(Pipe::scalar)][q]);
  Step step;
  step.start = std::max(free_at_[p], pipe == Pipe::scalar ? 0 : free_at_[at(Pipe::scalar)]);
  step.end = step.start + cycles;
  for (const UbRange& r : reads)
    if (!r.empty()) step.reads.push_back(r);
  for (const UbRange& w : writes)
    if (!w.empty()) step.writes.push_back(w);
  step.label = std::string(label);
  check_races(pipe, step);
  free_at_[p] = step.end;
  summary_.busy[p] += cycles;
  ++summary_.issued[p];
  steps_[p].push_back(std::move(step));
  clock_[p][p] = static_cast<std::int64_t>(steps_[p].size());
}

void PipeSchedule::check_races(Pipe pipe, const Step& step) {
  const std::size_t p = at(pipe);
  for (std::size_t q = 0; q < kNumPipes; ++q) {
    if (q == p) continue;  // a pipe runs its own instructions in order
    // q's instructions from clock_[p][q] on are not ordered before this one.
    for (auto k = static_cast<std::size_t>(clock_[p][q]); k < steps_[q].size(); ++k) {
      const Step& other = steps_[q][k];
      bool this_writes = false;
      const UbRange* r = conflict(step.reads, step.writes, other.reads, other.writes, this_writes);
      if (r == nullptr) continue;
      hazard(fmt::format("{} {} (cycles {}-{}) {} UB [{:#x}, {:#x}) while {} {} (cycles {}-{}) {} it, with no flag "
                         "ordering them",
                         pipe_name(pipe), step.label, step.start, step.end, this_writes ? "writes" : "reads", r->begin,
                         r->end, pipe_name(static_cast<Pipe>(q)), other.label, other.start, other.end,
                         this_writes ? "uses" : "writes"));
      return;
    }
  }
}

void PipeSchedule::signal(Pipe from, Flag& flag) {
  flag.set = true;
  flag.time = free_at_[at(from)];
  flag.clock = clock_[at(from)];
}

void PipeSchedule::wait(Pipe on, const Flag& flag) {
  const std::size_t p = at(on);
  free_at_[p] = std::max(free_at_[p], flag.time);
  for (std::size_t q = 0; q < kNumPipes; ++q) clock_[p][q] = std::max(clock_[p][q], flag.clock[q]);
}

bool PipeSchedule::slot_ok(int queue, int slot, SlotState expected, std::string_view step) {
  if (queue < 0 || queue >= static_cast<int>(queues_.size()) || slot < 0 ||
      slot >= static_cast<int>(slots_[static_cast<std::size_t>(queue)].size())) {
    hazard(fmt::format("{}(queue {}, slot {}): no such queue slot", step, queue, slot));
    return false;
  }
  const SlotState state = slots_[static_cast<std::size_t>(queue)][static_cast<std::size_t>(slot)].state;
  if (state == expected) return true;
  const std::string& name = queues_[static_cast<std::size_t>(queue)].name;
  if (step == "AllocTensor")
    hazard(fmt::format("AllocTensor({} slot {}): the slot is refilled while {}, before FreeTensor released it", name,
                       slot, state_name(static_cast<int>(state))));
  else
    hazard(fmt::format("{}({} slot {}): the slot is {}, not {}", step, name, slot, state_name(static_cast<int>(state)),
                       state_name(static_cast<int>(expected))));
  return false;
}

namespace {

// NOTE: [Pipe schedule]'s slot steps, in QueueOp's order: the state a step
// expects and leaves, whose pipe takes it, and whether it sets its flag (at
// the end of that pipe's work so far) or waits for it.
struct SlotStep {
  const char* name;
  int from, to;  // SlotState
  bool producer, sets;
  bool ready_flag;  // the slot's ready flag; else its freed flag
};
constexpr SlotStep kSlotSteps[] = {
    {"AllocTensor", 0, 1, true, false, false},
    {"EnQue", 1, 2, true, true, true},
    {"DeQue", 2, 3, false, false, true},
    {"FreeTensor", 3, 0, false, true, false},
};

}  // namespace

void PipeSchedule::step(QueueOp op, int queue, int slot) {
  const SlotStep& s = kSlotSteps[static_cast<int>(op)];
  if (!slot_ok(queue, slot, static_cast<SlotState>(s.from), s.name)) {
    // A refill out of turn goes ahead: the race check sees what follows.
    if (op == QueueOp::alloc && queue >= 0 && queue < static_cast<int>(queues_.size()) && slot >= 0 &&
        slot < queues_[queue].slots)
      slots_[queue][slot].state = SlotState::allocated;
    return;
  }
  Slot& sl = slots_[queue][slot];
  const Pipe pipe = s.producer ? queues_[queue].producer : queues_[queue].consumer;
  Flag& flag = s.ready_flag ? sl.ready : sl.freed;
  if (s.sets) signal(pipe, flag);
  else if (flag.set) wait(pipe, flag);
  sl.state = static_cast<SlotState>(s.to);
}

void PipeSchedule::set_flag(Pipe from, Pipe to, int event) {
  const std::array<int, 3> id{static_cast<int>(from), static_cast<int>(to), event};
  auto it = std::find_if(flags_.begin(), flags_.end(), [&](const auto& f) { return f.first == id; });
  if (it == flags_.end()) it = flags_.insert(flags_.end(), {id, Flag{}});
  signal(from, it->second);
}

void PipeSchedule::wait_flag(Pipe from, Pipe to, int event) {
  const std::array<int, 3> id{static_cast<int>(from), static_cast<int>(to), event};
  auto it = std::find_if(flags_.begin(), flags_.end(), [&](const auto& f) { return f.first == id && f.second.set; });
  if (it == flags_.end()) {
    hazard(fmt::format("WaitFlag<{}>({}) with no SetFlag before it: {} would wait forever", event_name(from, to), event,
                       pipe_name(to)));
    return;
  }
  wait(to, it->second);
  it->second.set = false;  // a wait consumes the flag
}

PipeSummary PipeSchedule::finish() {
  for (std::size_t q = 0; q < slots_.size(); ++q)
    for (std::size_t s = 0; s < slots_[q].size(); ++s)
      if (slots_[q][s].state != SlotState::free)
        hazard(fmt::format("end of block: {} slot {} is still {}", queues_[q].name, s,
                           state_name(static_cast<int>(slots_[q][s].state))));
  summary_.cycles = *std::max_element(free_at_.begin(), free_at_.end());
  const auto busiest = std::max_element(summary_.busy.begin(), summary_.busy.end());
  summary_.critical = static_cast<Pipe>(busiest - summary_.busy.begin());
  return summary_;
}

}  // namespace bcast::ascend
