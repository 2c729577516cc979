// Expressions whose reductions run along rows, run a block of rows at a
// time (NOTE: [Row blocks]).
#include "row_blocks.h"

#include <algorithm>
#include <array>
#include <atomic>
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
#include "validate_binary.h"

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

  void place(std::size_t k, const TensorView& v, const std::vector<Moving>& moving) {
    first[k] = v.data();
    row_bytes[k] = row_bytes_of(moving, v);
    operands = std::max(operands, k + 1);
  }
};

// The steps of one block height.
struct Program {
  std::int64_t rows = 0;
  std::vector<Step> steps;
  std::vector<Tensor> owned;  // read by composed reductions (NOTE: [Composed reductions])
};

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
    out_is_free_ = true;
    for (const auto& [node, copy] : done)
      if (node->kind == NodeKind::input && ranges_overlap(out, node->view)) out_is_free_ = false;
    for (std::size_t i = 0; i < moving.size(); ++i)  // each operand once, however often the text names it
      if (row_bytes_of(std::span(moving).first(i), moving[i].first) == 0)
        row_bytes += bytes_of(moving[i].first) / rows_;
    const std::int64_t threads = std::max(1, num_threads());
    h_ = std::min(config::row_block_bytes() / std::max<std::int64_t>(row_bytes, 1),
                  (rows_ + kBlocksPerThread * threads - 1) / (kBlocksPerThread * threads));
    if (h_ < 2 || rows_ <= h_) h_ = 0;
  }

  // The rows of a block, 0 where the shapes do not qualify.
  std::int64_t rows_per_block() const { return h_; }

  // Works out both block heights' steps (`prepare` false: checks the
  // shapes only); false where the call does not qualify.
  bool prepare(bool prepare) {
    if (h_ == 0) return false;
    full_ = program(h_, prepare);
    if (!full_) return false;
    if (rows_ % h_ != 0) {
      last_ = program(rows_ % h_, prepare);
      if (!last_) return false;
    }
    return true;
  }

  // Runs the prepared blocks on the call's threads.
  void run() const {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    const std::int64_t blocks = (rows_ + h_ - 1) / h_;
    record_call_threads(ThreadPool::instance().run(
        num_threads(), blocks, [&](std::int64_t b) { run_block(last_ && b == blocks - 1 ? *last_ : *full_, b * h_); }));
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
    InOut in_out{.view = out, .free = out_is_free_};
    bool ok = true;
    std::size_t k = 0;
    std::vector<Tensor> unused;  // a result that does not move: the call does not qualify
    const PassFn each = [&](ReduceOp op, const Expr& input, const ReduceParams& params, DType dtype,
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
      const Expr values = in_out.read(input);
      std::optional<PreparedReduction> reduction;
      if (!in_out.worth(values)) reduction = prepare_reduction(op, values, params, first);
      if (!reduction && in_out.take(values, p, moving)) reduction = prepare_reduction(op, in_out.leaf(), params, first);
      if (!reduction) {
        ok = false;
        return first;
      }
      Step& step = p.steps.emplace_back();
      step.place(0, first, moving);
      for (std::size_t i = 0; i < reduction->inputs.size(); ++i) step.place(1 + i, reduction->inputs[i], moving);
      step.reduction = std::move(reduction);
      return first;
    };
    ExprPasses passes = reduction_passes(block, each);
    if (!ok) return std::nullopt;
    p.owned = std::move(passes.owned);
    if (!prepare) return p;
    const Expr rest =
        in_out.read(passes.root_is_reduction ? expr::cast(passes.rest, results_.back().dtype()) : passes.rest);
    if (!write_step(rest, out, p, moving)) return std::nullopt;
    return p;
  }

  // A step that writes `values` to `out` (the first block's), true; false
  // where its kernel is not ready (or an exponent needs its check).
  static bool write_step(const Expr& values, const TensorView& out, Program& p, const std::vector<Moving>& moving) {
    auto call = std::make_shared<const ExprCall>(values);
    if (call->has_exponent_checks() || call->out_shape() != out.shape() || call->program().out_dtype != out.dtype())
      return false;
    Step step;
    step.planned = call->planned_for(out.layout());
    step.kernel = select_kernel(*call, step.planned.plan);
    if (step.kernel.jit.fn == nullptr || step.kernel.provisional()) return false;
    step.place(0, out, moving);
    for (std::size_t i = 0; i < call->inputs().size(); ++i) step.place(1 + i, call->inputs()[i], moving);
    step.call = std::move(call);
    p.steps.push_back(std::move(step));
    return true;
  }

  // Out as a block's store for the values of one reduction's input, which
  // later steps read in place (the rest, in place, last): softmax's
  // exp(x - m) computed once, or an input whose reduction has no kernel of
  // its form. Out holds one such array; only where it overlaps no input.
  struct InOut {
    TensorView view;
    bool free = false;
    std::string key;  // values_key of the values held; empty: none yet
    struct {
      NodeKind kind = NodeKind::input;
      std::uint8_t code = 0;
    } root;  // their tree's root

    Expr leaf() const { return named_input(view, "out"); }

    // Worth holding: a function of the C library's (a recipe's cost) at the root.
    bool worth(const Expr& values) const {
      const ExprNode& n = *values.node();
      return free && key.empty() && n.kind == NodeKind::unary &&
             !detail::row(static_cast<UnaryOp>(n.code)).math.empty();
    }

    // Adds the step that writes `values` to out; false where out is taken
    // or cannot hold them.
    bool take(const Expr& values, Program& p, const std::vector<Moving>& moving) {
      if (!free || !key.empty() || values.node()->kind == NodeKind::input) return false;
      if (!write_step(values, view, p, moving)) return false;
      key = values_key(ExprCall(values));
      root = {values.node()->kind, values.node()->code};
      return true;
    }

    // `e` with each tree of the values held read from out.
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

  static void run_block(const Program& p, std::int64_t row) {
    for (const Step& s : p.steps) {
      std::array<const void*, kMaxOperands> at{};
      for (std::size_t k = 0; k < s.operands; ++k) at[k] = static_cast<const char*>(s.first[k]) + row * s.row_bytes[k];
      if (s.reduction) {
        ReduceSource source = s.reduction->source;
        for (std::size_t k = 1; k < s.operands; ++k) source.data[k - 1] = static_cast<const char*>(at[k]);
        ReduceCall call = s.reduction->reduce;
        call.out = const_cast<void*>(at[0]);
        if (source.fn != nullptr)
          call.source = &source;
        else
          call.x = at[1];  // a plain input, read in place
        execute_reduce(call, 1);
      } else {
        OperandPointers ptrs{.data = at, .context = s.call->scalar_slots().data()};
        run_on_caller(s.planned, s.kernel.jit.fn, ptrs);
      }
    }
  }

  const Expr& e_;
  const TensorView out_;
  const std::size_t rank_;
  std::int64_t rows_ = 0, h_ = 0;
  bool out_is_free_ = false;     // out overlaps no input: a block may hold values in it (InOut)
  std::vector<Tensor> results_;  // each pass's, whole: a block writes and reads its rows
  std::optional<Program> full_, last_;
};

bool qualifies_at_a_glance(const Expr& e) {
  return config::row_block_bytes() > 0 && worth_a_look(e) && current_target().kind() == TargetKind::host;
}

}  // namespace

bool evaluate_in_row_blocks(const Expr& e, const TensorView& out) {
  if (!qualifies_at_a_glance(e)) return false;
  const ExprCall rest = whole_rest(e);
  rest.validate_out(out, rest.inputs());
  RowBlocks blocks(e, out);
  if (!blocks.prepare(true)) return false;
  blocks.run();
  return true;
}

std::optional<Tensor> evaluate_in_row_blocks(const Expr& e) {
  if (!qualifies_at_a_glance(e)) return std::nullopt;
  const ExprCall rest = whole_rest(e);
  Tensor out = Tensor::empty(rest.program().out_dtype, rest.new_out_layout());
  RowBlocks blocks(e, out.view());
  if (!blocks.prepare(true)) return std::nullopt;
  blocks.run();
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
