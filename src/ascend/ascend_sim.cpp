// The Ascend-style simulator's intrinsics: each instruction run, checked and
// issued to its pipe.
#include "ascend_sim.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ascend_vector.h"

namespace bcast::ascend {

BlockContext::BlockContext(int block, const SimConfig& config, std::vector<GmRegion> gm, std::vector<std::string> names,
                           std::vector<QueueSpec> queues, std::vector<std::string>* calls)
    : block_(block), config_(config), gm_(std::move(gm)), names_(std::move(names)),
      ub_(static_cast<std::size_t>(config.ub_size)), pipes_(std::move(queues)), calls_(calls) {}

bool BlockContext::fail(const std::string& what) {
  if (error_.empty()) error_ = fmt::format("ascend-sim block {}: {}", block_, what);
  return false;
}

void BlockContext::copy(const CopyCall& call) {
  if (!error_.empty()) return;
  const CopyIssue issue = execute(ub_, *config_.product, call, gm_, names_);
  if (!issue.error.empty()) {
    fail(issue.error);
    return;
  }
  const bool in = call.dir == CopyDir::gm_to_ub;
  const std::string label = describe(call, names_[static_cast<std::size_t>(call.operand)],
                                     call.gm - gm_[static_cast<std::size_t>(call.operand)].begin);
  if (calls_) calls_->push_back(label);
  const UbRange ub[] = {issue.ub};
  if (in) pipes_.issue(Pipe::mte2, issue.cycles, label, {}, ub);
  else pipes_.issue(Pipe::mte3, issue.cycles, label, ub, {});
  (in ? counters_.gm_to_ub_bytes : counters_.ub_to_gm_bytes) += issue.bytes;
  if (!in) gm_writes_.insert(gm_writes_.end(), issue.gm.begin(), issue.gm.end());
  ++counters_.copy_calls;
  touch(issue.ub);
}

void BlockContext::vector(const VectorCall& call) {
  if (!error_.empty()) return;
  const Product& p = *config_.product;
  // The scratch rule: what an instruction works through at the UB's top
  // holds nothing the kernel keeps, from earlier calls or its own operands
  // (the block stops either way; its results are not used).
  const std::int64_t scratch = p.scratch(call.instr);
  auto scratch_rule = [&](std::int64_t kept_up_to) {
    return fail(
        fmt::format("{}'s scratch rule: on {} it takes the top {} bytes of the UB, [{:#x}, {:#x}), as its "
                    "documentation says, and this kernel keeps data up to {:#x}",
                    instr_name(call.instr), p.name, scratch, config_.ub_size - scratch, config_.ub_size, kept_up_to));
  };
  if (scratch > 0 && counters_.ub_high_water > config_.ub_size - scratch) {
    scratch_rule(counters_.ub_high_water);
    return;
  }
  const VectorIssue issue = execute(ub_, *config_.product, call);
  if (!issue.error.empty()) {
    fail(issue.error);
    return;
  }
  std::int64_t own = issue.writes[0].end;
  for (const UbRange& r : issue.reads) own = std::max(own, r.end);
  if (scratch > 0 && own > config_.ub_size - scratch) {
    scratch_rule(own);
    return;
  }
  const std::int64_t cycles =
      issue.instructions * p.vector_issue + issue.repeats * p.form(call.instr).cycles_per_repeat;
  const std::string label = describe(call);
  if (calls_) calls_->push_back(label);
  pipes_.issue(Pipe::vector, cycles, label, issue.reads, issue.writes);
  counters_.vector_calls += issue.instructions;
  counters_.vector_repeats += issue.repeats;
  touch(issue.writes[0]);  // writes[1] is the instruction's own scratch
  for (const UbRange& r : issue.reads) touch(r);
}

void BlockContext::queue(QueueOp op, int queue, int slot) {
  if (!error_.empty()) return;
  if (calls_) {
    constexpr const char* names[] = {"AllocTensor", "EnQue", "DeQue", "FreeTensor"};
    calls_->push_back(fmt::format("{}(queue {}, slot {})", names[static_cast<int>(op)], queue, slot));
  }
  pipes_.step(op, queue, slot);
}

void BlockContext::flag(bool set, Pipe from, Pipe to, int event) {
  if (!error_.empty()) return;
  if (calls_) calls_->push_back(fmt::format("{}<{}_{}>({})", set ? "SetFlag" : "WaitFlag", pipe_name(from), pipe_name(to), event));
  if (set) pipes_.set_flag(from, to, event);
  else pipes_.wait_flag(from, to, event);
}

std::uint64_t BlockContext::get_value(std::int64_t ub, int bytes) {
  std::uint64_t v = 0;
  if (!error_.empty()) return v;
  if (ub < 0 || bytes < 1 || bytes > 8 || ub + bytes > config_.ub_size) {
    fail(fmt::format("GetValue({:#x}, {} bytes) reads outside the {}-byte UB", ub, bytes, config_.ub_size));
    return v;
  }
  std::memcpy(&v, ub_.data() + ub, static_cast<std::size_t>(bytes));
  if (calls_) calls_->push_back(fmt::format("GetValue({:#x}, {} bytes)", ub, bytes));
  const UbRange read[] = {{ub, ub + bytes}};
  pipes_.issue(Pipe::scalar, config_.product->scalar_read, fmt::format("GetValue({:#x})", ub), read, {});
  return v;
}

void BlockContext::finish() {
  counters_.pipes = pipes_.finish();
  if (!counters_.pipes.hazards.empty()) fail("hazard: " + counters_.pipes.hazards.front());
}

namespace {

BlockContext& ctx(void* c) { return *static_cast<BlockContext*>(c); }

}  // namespace

extern "C" {
// Declared from the shared prototypes (NOTE: [Ascend intrinsics]): a
// definition below that differs from its prototype does not compile.
#define BCAST_DECLARE_INTRINSIC(symbol, prototype) prototype symbol;
BCAST_ASCEND_INTRINSICS(BCAST_DECLARE_INTRINSIC)
#undef BCAST_DECLARE_INTRINSIC

void bcast_sim_copy(void* c, const CopyCall* call) { ctx(c).copy(*call); }
void bcast_sim_vector(void* c, const VectorCall* call) { ctx(c).vector(*call); }
void bcast_sim_queue(void* c, std::int32_t op, std::int32_t queue, std::int32_t slot) {
  ctx(c).queue(static_cast<QueueOp>(op), queue, slot);
}
void bcast_sim_flag(void* c, std::int32_t set, std::int32_t from, std::int32_t to, std::int32_t event) {
  ctx(c).flag(set != 0, static_cast<Pipe>(from), static_cast<Pipe>(to), event);
}
std::uint64_t bcast_sim_get_value(void* c, std::int64_t ub, std::int32_t bytes) { return ctx(c).get_value(ub, bytes); }
void bcast_sim_tile_done(void* c) { ctx(c).tile_done(); }
}

std::vector<JitSymbol> intrinsics() {
#define BCAST_INTRINSIC_SYMBOL(symbol, prototype) {#symbol, reinterpret_cast<void*>(&symbol)},
  return {BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_SYMBOL)};
#undef BCAST_INTRINSIC_SYMBOL
}

}  // namespace bcast::ascend
