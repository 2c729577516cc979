// Expressions whose reductions run along rows, run a block of rows at a
// time (NOTE: [Row blocks]).
#include "row_blocks.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <vector>

#include "bcast/runtime.h"
#include "config.h"
#include "dispatch.h"
#include "expr_call.h"
#include "expr_passes.h"
#include "function_table.h"
#include "targets.h"
#include "thread_pool.h"

namespace bcast {
namespace {

using detail::ExprNode;
using NodePtr = std::shared_ptr<const ExprNode>;

constexpr std::int64_t kLargeInput = 2 << 20;  // a call with no input this large runs its passes whole
constexpr std::int64_t kBlocksPerThread = 4;   // at least, where the rows allow: the threads' shares even out

std::atomic<std::uint64_t> g_calls{0};

std::int64_t bytes_of(const TensorView& v) { return v.numel() * static_cast<std::int64_t>(v.element_size()); }

// Whether `e`'s tree may qualify: every reduce node keeps its dims, and an
// input is large.
bool worth_a_look(const Expr& e) {
  std::set<const ExprNode*> seen;
  bool keeps = true, large = false;
  const auto walk = [&](const auto& self, const NodePtr& n) -> void {
    if (!n || !seen.insert(n.get()).second) return;
    if (n->kind == NodeKind::reduce) keeps = keeps && n->reduce.keepdims;
    if (n->kind == NodeKind::input) large = large || bytes_of(n->view) >= kLargeInput;
    for (const NodePtr& a : n->args) self(self, a);
  };
  walk(walk, e.node());
  return keeps && large;
}

// The call as a whole, worked out and not run: its rest's call, whose out
// is the call's.
ExprCall whole_rest(const Expr& e) {
  const ExprPasses whole = reduction_passes(e, false);
  return ExprCall(whole.root_is_reduction ? expr::cast(whole.rest, whole.results.back().dtype()) : whole.rest);
}

// An operand that moves with the rows: its first block's view, and the bytes
// it moves by a row.
struct Moving {
  TensorView first;
  std::ptrdiff_t row_bytes = 0;
};

// Whether input `v` has the output's rows: rank `rank` and `rows` in its
// first dim (the others repeat along it, or have no such dim).
bool moves(const TensorView& v, std::size_t rank, std::int64_t rows) {
  return v.shape().size() == rank && v.shape()[0] == rows;
}

TensorView first_rows(const TensorView& v, std::int64_t h) {
  Layout layout = v.layout();
  layout.shape[0] = h;
  return {v.data(), v.dtype(), layout};
}

// `e` with each input that has the output's rows cut to its first `h`,
// recorded in `moving`.
NodePtr narrowed(const NodePtr& n, std::size_t rank, std::int64_t rows, std::int64_t h, std::vector<Moving>& moving,
                 std::map<const ExprNode*, NodePtr>& done) {
  if (!n) return n;
  if (const auto it = done.find(n.get()); it != done.end()) return it->second;
  ExprNode copy = *n;
  if (n->kind == NodeKind::input && moves(n->view, rank, rows)) {
    copy.view = first_rows(n->view, h);
    moving.push_back({copy.view, n->view.strides()[0] * static_cast<std::ptrdiff_t>(n->view.element_size())});
  }
  for (NodePtr& a : copy.args) a = narrowed(a, rank, rows, h, moving, done);
  return done[n.get()] = std::make_shared<const ExprNode>(std::move(copy));
}

// The bytes a row moves operand `v` (a first block's view) by; 0 for one that stays.
std::ptrdiff_t row_bytes_of(std::span<const Moving> moving, const TensorView& v) {
  for (const Moving& m : moving)
    if (m.first.data() == v.data() && m.first.dtype() == v.dtype() && m.first.layout() == v.layout())
      return m.row_bytes;
  return 0;
}

// One pass of a block, or its rest: the kernel, and its operands (out
// first) as the first block has them and as a row moves them.
struct Step {
  std::optional<PreparedReduction> reduction;  // a pass; without one, values written to out:
  std::shared_ptr<const ExprCall> call;
  PlannedCall planned;
  ExprKernel kernel;
  std::size_t operands = 0;
  std::array<const void*, kMaxOperands> first{};
  std::array<std::ptrdiff_t, kMaxOperands> row_bytes{};
  std::array<bool, kMaxOperands> held{};  // the thread's block of held values, not first[k]
  bool writes_out = false;                // operand 0 is the call's out (a remembered call's moves: run_block)

  // Operand k is `v`, a first block's view: one that moves (in `moving`),
  // one that stays, or the held values (at `held_data`).
  void place(std::size_t k, const TensorView& v, const std::vector<Moving>& moving, const void* held_data) {
    first[k] = v.data();
    row_bytes[k] = row_bytes_of(moving, v);
    held[k] = held_data != nullptr && v.data() == held_data;
    operands = std::max(operands, k + 1);
  }
};

// The steps of one block height.
struct Program {
  std::int64_t rows = 0;
  std::vector<Step> steps;
  std::vector<Tensor> owned;  // read by composed reductions (NOTE: [Composed reductions])
  std::size_t held_bytes = 0;  // a block's held values (Held)
};

// This thread's buffer for a block's held values: grown to the largest block
// it has run, so bounded by the row blocks' size (and kept for the next call).
std::byte* held_buffer(std::size_t bytes) {
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    std::size_t size = 0;
  };
  thread_local Buffer buffer;
  if (buffer.size < bytes) {
    buffer.data = std::make_unique_for_overwrite<std::byte[]>(bytes);
    buffer.size = bytes;
  }
  return buffer.data.get();
}

class RowBlocks {
 public:
  // `out`: the call's whole out (only its layout is read when `prepare` is false).
  RowBlocks(const Expr& e, const TensorView& out) : e_(e), out_(out), rank_(out.shape().size()) {
    if (rank_ < 2 || out.shape()[0] < 2) return;
    rows_ = out.shape()[0];
    std::int64_t row_bytes = bytes_of(out) / rows_;
    std::vector<Moving> moving;
    std::map<const ExprNode*, NodePtr> done;
    narrowed(e.node(), rank_, rows_, rows_, moving, done);
    for (std::size_t i = 0; i < moving.size(); ++i)  // each operand once, however often the text names it
      if (row_bytes_of(std::span(moving).first(i), moving[i].first) == 0)
        row_bytes += bytes_of(moving[i].first) / rows_;
    const std::int64_t threads = std::max(1, num_threads());
    h_ = std::min(config::row_block_bytes() / std::max<std::int64_t>(row_bytes, 1),
                  (rows_ + kBlocksPerThread * threads - 1) / (kBlocksPerThread * threads));
    if (h_ < 2 || rows_ < 2 * h_) h_ = 0;
    streams_ = static_cast<std::uint64_t>(row_bytes * rows_) >= stream_threshold(target_for(TargetKind::host));
  }

  // The rows of a block, 0 where the shapes do not qualify.
  std::int64_t rows_per_block() const { return h_; }

  // Works out both block heights' steps (`prepare` false: checks the
  // shapes only); false where the call does not qualify. The last block
  // takes the rows left over too, so that no block has one row: a first
  // block's view of one row may be the very view of an input that repeats
  // along the rows (x[0:1] beside x), and would move with x.
  bool prepare(bool prepare) {
    if (h_ == 0) return false;
    full_ = program(h_, prepare);
    if (!full_) return false;
    if (rows_ % h_ != 0) {
      last_ = program(h_ + rows_ % h_, prepare);
      if (!last_) return false;
    }
    return true;
  }

  // Runs the prepared blocks on the call's threads, into `out`: the out
  // they were prepared for, or another of its layout (NOTE: [Passes memo]).
  void run(const TensorView& out) const {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    const std::int64_t blocks = rows_ / h_;
    // As addresses: the out prepared for may be gone.
    const auto out_shift = static_cast<std::uintptr_t>(reinterpret_cast<std::uintptr_t>(out.data()) -
                                                       reinterpret_cast<std::uintptr_t>(out_.data()));
    record_call_threads(ThreadPool::instance().run(num_threads(), blocks, [&](std::int64_t b) {
      run_block(last_ && b == blocks - 1 ? *last_ : *full_, b * h_, out_shift);
    }));
  }

 private:
  std::optional<Program> program(std::int64_t h, bool prepare) {
    Program p;
    p.rows = h;
    std::vector<Moving> moving;
    std::map<const ExprNode*, NodePtr> done;
    const Expr block(narrowed(e_.node(), rank_, rows_, h, moving, done));
    const TensorView out = first_rows(out_, h);
    moving.push_back({out, out_.strides()[0] * static_cast<std::ptrdiff_t>(out_.element_size())});
    Held held;
    bool ok = true;
    std::size_t k = 0;
    std::vector<Tensor> unused;  // a result that does not move: the call does not qualify
    const PassFn each = [&](ReduceOp op, const Expr& input, ExprCall&& call, const ReduceParams& params, DType dtype,
                            const Shape& shape) -> TensorView {
      if (shape.size() != rank_ || shape[0] != h || (k < results_.size() && results_[k].dtype() != dtype)) {
        ok = false;  // along the first dim, or of values that do not move
        unused.push_back(Tensor::empty(dtype, Layout::contiguous(shape)));
        return unused.back().view();
      }
      if (k == results_.size()) {
        Shape whole = shape;
        whole[0] = rows_;
        results_.push_back(Tensor::empty(dtype, Layout::contiguous(whole)));
      }
      const Tensor& result = results_[k++];
      const TensorView first = first_rows(result.view(), h);
      moving.push_back({first, result.strides()[0] * static_cast<std::ptrdiff_t>(result.element_size())});
      if (!prepare || !ok) return first;
      const Expr values = held.read(input);
      std::optional<PreparedReduction> reduction;
      if (!held.worth(values))
        reduction = values.node() == input.node() ? prepare_reduction(op, values, std::move(call), params, first)
                                                  : prepare_reduction(op, values, params, first);
      if (!reduction && held.take(values, rank_, h, p, moving))
        reduction = prepare_reduction(op, held.leaf(), params, first);
      if (!reduction) {
        ok = false;
        return first;
      }
      Step& step = p.steps.emplace_back();
      step.place(0, first, moving, held.data());
      for (std::size_t i = 0; i < reduction->inputs.size(); ++i)
        step.place(1 + i, reduction->inputs[i], moving, held.data());
      step.reduction = std::move(reduction);
      return first;
    };
    ExprPasses passes = reduction_passes(block, each);
    if (!ok) return std::nullopt;
    p.owned = std::move(passes.owned);
    if (!prepare) return p;
    const Expr rest =
        held.read(passes.root_is_reduction ? expr::cast(passes.rest, results_.back().dtype()) : passes.rest);
    if (!write_step(std::make_shared<const ExprCall>(rest), out, streams_, held.data(), p, moving)) return std::nullopt;
    p.steps.back().writes_out = true;
    p.held_bytes = held.buffer.nbytes();
    p.owned.push_back(std::move(held.buffer));
    return p;
  }

  // A step that writes the values of `call` to `out` (a first block's
  // view), true; false where its kernel is not ready (or an exponent needs
  // its check). `stream`: with streaming stores (NOTE: [Streaming stores])
  // where the layout can, as the whole call would have.
  static bool write_step(std::shared_ptr<const ExprCall> call, const TensorView& out, bool stream, const void* held,
                         Program& p, const std::vector<Moving>& moving) {
    if (call->has_exponent_checks() || call->out_shape() != out.shape() || call->program().out_dtype != out.dtype())
      return false;
    Step step;
    step.planned = call->planned_for(out.layout());
    step.kernel = select_kernel(*call, step.planned.plan, stream ? std::optional<std::uint64_t>(0) : std::nullopt);
    if (step.kernel.jit.fn == nullptr || step.kernel.provisional()) return false;
    step.place(0, out, moving, held);
    for (std::size_t i = 0; i < call->inputs().size(); ++i) step.place(1 + i, call->inputs()[i], moving, held);
    step.call = std::move(call);
    p.steps.push_back(std::move(step));
    return true;
  }

  // A block's values held in a buffer of the thread's, in its L2, for the
  // steps after: the values of a reduction's input that later steps read
  // again (softmax's exp(x - m): computed once), or that its reduction has
  // no kernel of its form to compute in registers. One array a block.
  struct Held {
    Tensor buffer;    // the first block's stand-in: a run takes its thread's own (held_buffer)
    std::string key;  // values_key of the values held; empty: none yet
    struct {
      NodeKind kind = NodeKind::input;
      std::uint8_t code = 0;
    } root;  // their tree's root

    const void* data() const { return key.empty() ? nullptr : buffer.data(); }
    Expr leaf() const { return named_input(buffer.view(), "held"); }

    // Worth holding: a function of the C library's (a recipe's cost) at the root.
    bool worth(const Expr& values) const {
      const ExprNode& n = *values.node();
      return key.empty() && n.kind == NodeKind::unary && !detail::row(static_cast<UnaryOp>(n.code)).math.empty();
    }

    // Adds the step that writes `values` (a block's, `h` rows of rank
    // `rank`) to the buffer; false where one is held already or they do not
    // move with the rows.
    bool take(const Expr& values, std::size_t rank, std::int64_t h, Program& p, const std::vector<Moving>& moving) {
      if (!key.empty() || values.node()->kind == NodeKind::input) return false;
      auto call = std::make_shared<const ExprCall>(values);
      if (call->out_shape().size() != rank || call->out_shape()[0] != h) return false;
      // Laid out as the passes would write them (NOTE: [Output order]): a
      // reduction's order follows its values' layout (NOTE: [Reduction plan]).
      buffer = Tensor::empty(call->program().out_dtype, call->new_out_layout());
      key = values_key(*call);
      if (!write_step(std::move(call), buffer.view(), /*stream=*/false, buffer.data(), p, moving)) {
        key.clear();
        return false;
      }
      root = {values.node()->kind, values.node()->code};
      return true;
    }

    // `e` with each tree of the values held read from the buffer.
    Expr read(const Expr& e) const {
      if (key.empty()) return e;
      std::map<const ExprNode*, NodePtr> done;
      return Expr(replaced(e.node(), done));
    }

   private:
    NodePtr replaced(const NodePtr& n, std::map<const ExprNode*, NodePtr>& done) const {
      if (!n || n->kind == NodeKind::input || n->kind == NodeKind::scalar) return n;
      if (const auto it = done.find(n.get()); it != done.end()) return it->second;
      if (n->kind == root.kind && n->code == root.code && values_key(ExprCall(Expr(n))) == key)
        return done[n.get()] = leaf().node();
      ExprNode copy = *n;
      bool changed = false;
      for (NodePtr& a : copy.args) {
        NodePtr r = replaced(a, done);
        changed = changed || r != a;
        a = std::move(r);
      }
      return done[n.get()] = changed ? std::make_shared<const ExprNode>(std::move(copy)) : n;
    }
  };

  static void run_block(const Program& p, std::int64_t row, std::uintptr_t out_shift) {
    std::byte* held = p.held_bytes > 0 ? held_buffer(p.held_bytes) : nullptr;
    for (const Step& s : p.steps) {
      std::array<const void*, kMaxOperands> at{};
      for (std::size_t k = 0; k < s.operands; ++k)
        at[k] =
            s.held[k] ? static_cast<const void*>(held) : static_cast<const char*>(s.first[k]) + row * s.row_bytes[k];
      if (s.writes_out) at[0] = reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(at[0]) + out_shift);
      if (s.reduction) {
        run_prepared_reduction(*s.reduction, const_cast<void*>(at[0]), 1, std::span(at).subspan(1, s.operands - 1));
      } else {
        OperandPointers ptrs{.data = at, .context = s.call->scalar_slots().data()};
        run_on_caller(s.planned, s.kernel.jit.fn, ptrs);
      }
    }
  }

  const Expr e_;
  const TensorView out_;
  const std::size_t rank_;
  std::int64_t rows_ = 0, h_ = 0;
  bool streams_ = false;         // the whole call would stream its out (NOTE: [Streaming stores]): the rest does
  std::vector<Tensor> results_;  // each pass's, whole: a block writes and reads its rows
  std::optional<Program> full_, last_;
};

bool qualifies_at_a_glance(const Expr& e) {
  return config::row_block_bytes() > 0 && worth_a_look(e) && current_target().kind() == TargetKind::host;
}

// NOTE: [Passes memo]'s row blocks: the thread's last call in row blocks,
// its blocks' programs and the whole call's rest (which checks each out
// against the inputs), reused for the same expression into an out of the
// same layout while the kernel stamp and the settings hold; a block writes
// its rows of the call's out wherever that is. Working the programs out was
// about a third of layer norm of f32 [512, 1024] on the Zen 5 VM.
struct RememberedBlocks {
  std::weak_ptr<const ExprNode> root;
  KernelStamp stamp;
  std::uint64_t settings = 0;
  Layout out;
  std::optional<ExprCall> rest;
  std::unique_ptr<RowBlocks> blocks;

  bool same(const Expr& e) const {
    return blocks && !root.expired() && root.lock() == e.node() && stamp == kernel_stamp() &&
           settings == config::generation();
  }
};
thread_local RememberedBlocks t_blocks;

// Runs `e` into `out` (checked against `rest`, the whole call's) in row
// blocks and remembers them, true; false where it does not qualify.
bool run_in_row_blocks(const Expr& e, ExprCall rest, const TensorView& out) {
  const KernelStamp stamp = kernel_stamp();  // read first: an eviction after it shows at the next call
  auto blocks = std::make_unique<RowBlocks>(e, out);
  if (!blocks->prepare(true)) return false;
  blocks->run(out);
  t_blocks = {e.node(), stamp, config::generation(), out.layout(), std::move(rest), std::move(blocks)};
  return true;
}

}  // namespace

bool evaluate_in_row_blocks(const Expr& e, const TensorView& out) {
  if (t_blocks.same(e) && out.layout() == t_blocks.out) {
    t_blocks.rest->validate_out(out, t_blocks.rest->inputs());
    t_blocks.blocks->run(out);
    return true;
  }
  if (!qualifies_at_a_glance(e)) return false;
  ExprCall rest = whole_rest(e);
  rest.validate_out(out, rest.inputs());
  return run_in_row_blocks(e, std::move(rest), out);
}

std::optional<Tensor> evaluate_in_row_blocks(const Expr& e) {
  if (t_blocks.same(e) && t_blocks.rest->new_out_layout() == t_blocks.out) {
    Tensor out = Tensor::empty(t_blocks.rest->program().out_dtype, t_blocks.out);
    t_blocks.blocks->run(out.view());
    return out;
  }
  if (!qualifies_at_a_glance(e)) return std::nullopt;
  ExprCall rest = whole_rest(e);
  Tensor out = Tensor::empty(rest.program().out_dtype, rest.new_out_layout());
  if (!run_in_row_blocks(e, std::move(rest), out.view())) return std::nullopt;
  return out;
}

std::uint64_t row_block_calls() { return g_calls.load(std::memory_order_relaxed); }

std::optional<std::int64_t> row_block_rows(const Expr& e) {
  if (!qualifies_at_a_glance(e)) return std::nullopt;
  const ExprCall rest = whole_rest(e);
  const TensorView out(nullptr, rest.program().out_dtype, rest.new_out_layout());
  RowBlocks blocks(e, out);
  if (!blocks.prepare(false)) return std::nullopt;
  return blocks.rows_per_block();
}

}  // namespace bcast
