// NOTE: [Passes memo]: an expression's passes planned once, run again.
#include "passes_memo.h"

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "bcast/runtime.h"
#include "config.h"
#include "dispatch.h"
#include "expr_call.h"
#include "expr_passes.h"
#include "targets.h"
#include "thread_pool.h"

namespace bcast {
namespace {

std::atomic<std::uint64_t> g_remembered_calls{0};

// The most bytes of results a remembered expression keeps between calls
// (a thread's, until its next expression with reductions): a small call's
// (a layer norm's of [8, 1024] keeps 64 bytes); a larger call's planning is
// a small part of it.
constexpr std::size_t kMostHeldBytes = std::size_t{1} << 20;

struct PassesMemo {
  std::weak_ptr<const detail::ExprNode> root;
  KernelStamp stamp;
  std::uint64_t settings = 0;  // config::generation(): the thread count too
  bool fresh = false;  // evaluate(e) (a new out each call), not evaluate(e, out)
  Layout out;          // the out it was planned for

  std::vector<Tensor> results;            // each pass's, reused call after call
  std::vector<PreparedReduction> passes;  // each into its result
  std::vector<Tensor> owned;              // read by composed reductions
  bool root_is_reduction = false;         // fresh: the last pass writes a new out

  std::optional<ExprCall> rest;  // reads the results; absent where the root is the last pass, fresh
  PlannedCall planned;
  ExprKernel kernel;
  bool just_selected = false;

  bool matches(const Expr& e, bool want_fresh, const Layout* want_out) const {
    return !passes.empty() && !root.expired() && root.lock() == e.node() && fresh == want_fresh &&
           (want_out == nullptr || *want_out == out) && stamp == kernel_stamp() && settings == config::generation();
  }

  // The passes, then the rest into `o` (or, fresh and root_is_reduction, the
  // last pass into `o`).
  void run(const TensorView& o) {
    const std::size_t last = passes.size() - 1;
    for (std::size_t i = 0; i < passes.size(); ++i)
      record_call_threads(run_prepared_reduction(
          passes[i], i == last && fresh && root_is_reduction ? o.data() : results[i].data(), num_threads()));
    if (!rest) return;
    rest->validate_out(o, rest->inputs());
    // NOTE: [Tiers]: a provisional kernel is asked for again, except by the
    // call that has just selected it.
    if (kernel.provisional() && !just_selected) kernel = select_kernel(*rest, planned.plan);
    just_selected = false;
    run_expression(*rest, kernel, planned, o, rest->inputs());
  }

  void book_reuse() const {
    g_remembered_calls.fetch_add(1, std::memory_order_relaxed);
    for (const PreparedReduction& p : passes)
      if (p.memo_hits != nullptr) p.memo_hits->fetch_add(1, std::memory_order_relaxed);
  }

  DType out_dtype() const { return rest ? rest->program().out_dtype : results.back().dtype(); }
};
thread_local PassesMemo t_passes_memo;

// e's passes prepared, not run, and its rest planned for `out` (fresh: a
// new out of the rest's own layout); nullopt where a pass has no JIT
// kernel to run on, or the call would not run on the host.
std::optional<PassesMemo> remembered(const Expr& e, const TensorView* out) {
  if (current_target().kind() != TargetKind::host) return std::nullopt;
  PassesMemo m;
  m.stamp = kernel_stamp();  // read first: an eviction after it shows at the next call
  m.settings = config::generation();
  bool ok = true;
  ExprPasses passes = reduction_passes(e,
                                       [&](ReduceOp op, const Expr& input, ExprCall&& call, const ReduceParams& p,
                                           DType dtype, const Shape& shape) -> TensorView {
                                         m.results.push_back(Tensor::empty(dtype, Layout::contiguous(shape)));
                                         const TensorView result = m.results.back().view();
                                         if (ok) {
                                           std::optional<PreparedReduction> prepared =
                                               prepare_reduction(op, input, std::move(call), p, result);
                                           ok = prepared && prepared->source.fn != nullptr;
                                           if (ok) m.passes.push_back(std::move(*prepared));
                                         }
                                         return result;
                                       });
  std::size_t held = 0;
  for (const Tensor& t : m.results) held += t.nbytes();
  for (const Tensor& t : passes.owned) held += t.nbytes();
  if (!ok || m.passes.empty() || held > kMostHeldBytes) return std::nullopt;
  m.owned = std::move(passes.owned);
  m.root_is_reduction = passes.root_is_reduction;
  m.fresh = out == nullptr;
  if (!(m.fresh && m.root_is_reduction)) {
    m.rest.emplace(passes.root_is_reduction ? expr::cast(passes.rest, m.results.back().dtype()) : passes.rest);
    m.out = m.fresh ? m.rest->new_out_layout() : out->layout();
    if (!m.fresh) m.rest->validate_out(*out, m.rest->inputs());
    m.planned = m.rest->planned_for(m.out);
    m.kernel = select_kernel(*m.rest, m.planned.plan);
    m.just_selected = true;
  } else {
    m.out = m.results.back().layout();
  }
  m.root = e.node();
  return m;
}

}  // namespace

std::optional<Tensor> evaluate_remembered_passes(const Expr& e) {
  PassesMemo& memo = t_passes_memo;
  if (!memo.matches(e, true, nullptr)) return std::nullopt;
  memo.book_reuse();
  Tensor out = Tensor::empty(memo.out_dtype(), memo.out);
  memo.run(out.view());
  return out;
}

bool evaluate_remembered_passes(const Expr& e, const TensorView& out) {
  PassesMemo& memo = t_passes_memo;
  const Layout layout = out.layout();
  if (!memo.matches(e, false, &layout)) return false;
  memo.book_reuse();
  memo.run(out);
  return true;
}

std::optional<Tensor> evaluate_and_remember_passes(const Expr& e) {
  std::optional<PassesMemo> m = remembered(e, nullptr);
  if (!m) return std::nullopt;
  PassesMemo& memo = t_passes_memo;
  memo = std::move(*m);
  Tensor out = Tensor::empty(memo.out_dtype(), memo.out);
  memo.run(out.view());
  return out;
}

bool evaluate_and_remember_passes(const Expr& e, const TensorView& out) {
  std::optional<PassesMemo> m = remembered(e, &out);
  if (!m) return false;
  PassesMemo& memo = t_passes_memo;
  memo = std::move(*m);
  memo.run(out);
  return true;
}

std::uint64_t remembered_pass_calls() { return g_remembered_calls.load(std::memory_order_relaxed); }

}  // namespace bcast
