// Expressions with reductions, as passes (NOTE: [Expression passes]).
#include "expr_passes.h"

#include <bit>
#include <cstdint>
#include <map>
#include <memory>

#include "bcast/errors.h"
#include "composed_reductions.h"
#include "error_messages.h"
#include "expr_call.h"
#include "reduce_plan.h"
#include "reduction_table.h"

namespace bcast {
namespace {

using NodePtr = std::shared_ptr<const detail::ExprNode>;

bool holds_reduction(const NodePtr& n, std::map<const detail::ExprNode*, bool>& seen) {
  if (!n) return false;
  if (const auto it = seen.find(n.get()); it != seen.end()) return it->second;
  bool found = n->kind == NodeKind::reduce;
  for (const NodePtr& a : n->args) found = holds_reduction(a, seen) || found;
  seen.emplace(n.get(), found);
  return found;
}

// The text of a pass: "r0 = sum(x*y, axis=1): f32[4096]".
std::string pass_line(std::size_t k, const detail::ExprNode& n, const ExprInfo& input, DType dtype,
                      const Shape& shape) {
  std::string names;
  for (std::size_t i = 0; i < input.inputs.size(); ++i)
    names += (i ? ", x" : " with x") + std::to_string(i) + "=" + input.inputs[i];
  ExprGraph g;
  g.root = g.reduction(static_cast<ReduceOp>(n.code), g.input(0), n.reduce);
  std::string text = to_text(g);  // sum(x0,axis=1): its input's text goes where x0 is
  text.replace(text.find("x0"), 2, input.structure);
  return "r" + std::to_string(k) + " = " + text + names + ": " + std::string(dtype_name(dtype)) + to_string(shape);
}

// What tells two reduce nodes of the same input apart: the op and its
// parameters (ddof by its bits).
std::string reduction_key(const detail::ExprNode& n) {
  const ReduceParams& p = n.reduce;
  std::string key = std::to_string(n.code) + (p.axes.every() ? "*" : "") + (p.keepdims ? "k" : "");
  for (const int axis : p.axes.list()) key += "," + std::to_string(axis);
  if (p.dtype) key += dtype_name(*p.dtype);
  return key + "/" + std::to_string(std::bit_cast<std::uint64_t>(p.ddof));
}

class Rewriter {
 public:
  Rewriter(const PassFn& each, bool describe) : each_(each), describe_(describe) {}

  NodePtr rewrite(const NodePtr& n) {
    if (!n) return n;
    if (const auto it = done_.find(n.get()); it != done_.end()) return it->second;
    detail::ExprNode copy = *n;
    bool changed = false;
    for (NodePtr& a : copy.args) {
      NodePtr r = rewrite(a);
      changed = changed || r != a;
      a = std::move(r);
    }
    NodePtr result = n->kind == NodeKind::reduce ? pass(copy)
                     : changed                   ? std::make_shared<const detail::ExprNode>(std::move(copy))
                                                 : n;
    done_.emplace(n.get(), result);
    return result;
  }

  std::vector<Tensor> owned;  // what composed reductions read beside their input
  std::vector<std::string> described;  // with describe_
  TensorView last;  // the latest pass's result
  std::size_t passes() const { return passes_; }

 private:
  // One reduction: its input, an expression whose own reductions are leaves
  // now, evaluated (a tensor leaf is read in place), then reduced.
  NodePtr pass(const detail::ExprNode& n) {
    const auto op = static_cast<ReduceOp>(n.code);
    const Expr input(n.args[0]);
    ExprCall call(input);
    const DType values_dtype = call.program().out_dtype;
    const Shape values_shape = call.out_shape();
    // The same reduction of the same values, reached twice (a text names
    // its operands once per mention): one pass.
    const std::string key = reduction_key(n) + " " + values_key(call);
    if (const auto same = by_key_.find(key); same != by_key_.end()) return same->second;
    if (detail::reduce_row(op).combine == detail::Combine::composed) {  // NOTE: [Composed reductions]
      // Kept alive: done_ is keyed by the addresses of the nodes it has seen.
      composed_.push_back(composed_reduction(op, input, values_dtype, values_shape, n.reduce, owned));
      return by_key_[key] = rewrite(composed_.back().node());
    }
    const detail::ReduceRow& row = detail::reduce_row(op);
    const std::vector<bool> along = reduced_dims(n.reduce.axes, static_cast<int>(values_shape.size()), row.name);
    const DType dtype = reduce_result_dtype(op, values_dtype, n.reduce.dtype);
    const Shape shape = reduced_shape(values_shape, along, n.reduce.keepdims);
    const std::string name = "r" + std::to_string(passes_++);
    if (describe_) described.push_back(pass_line(described.size(), n, call.info(), dtype, shape));
    last = each_(op, input, std::move(call), n.reduce, dtype, shape);
    return by_key_[key] = named_input(last, name).node();
  }

  const PassFn& each_;
  const bool describe_;  // describe()'s call: the passes' lines too
  std::size_t passes_ = 0;
  std::map<const detail::ExprNode*, NodePtr> done_;
  std::map<std::string, NodePtr> by_key_;
  std::vector<Expr> composed_;
};

}  // namespace

std::string values_key(const ExprCall& call) {
  std::string key = call.text();
  for (const TensorView& v : call.inputs())
    key += " " + std::to_string(reinterpret_cast<std::uintptr_t>(v.data())) + dtype_name(v.dtype()).data() +
           to_string(v.shape()) + to_string(v.strides());
  return key;
}

bool has_reductions(const Expr& e) {
  std::map<const detail::ExprNode*, bool> seen;
  return holds_reduction(e.node(), seen);
}

ExprPasses reduction_passes(const Expr& e, const PassFn& each, bool describe) {
  Rewriter r(each, describe);
  const NodePtr rest = r.rewrite(e.node());
  const bool root_is_result = rest->kind == NodeKind::input && r.passes() > 0 && rest->view.data() == r.last.data() &&
                              rest->view.layout() == r.last.layout();
  return {Expr(rest), {}, std::move(r.owned), std::move(r.described), root_is_result};
}

ExprPasses reduction_passes(const Expr& e, bool run, bool describe) {
  std::vector<Tensor> results;
  ExprPasses passes = reduction_passes(
      e,
      [&](ReduceOp op, const Expr& input, ExprCall&& values, const ReduceParams& p, DType dtype, const Shape& shape) {
        results.push_back(run ? reduce_expression(op, input, std::move(values), p.axes, p.keepdims, p.dtype)
                              : Tensor::empty(dtype, Layout::contiguous(shape)));
        return results.back().view();
      },
      describe);
  passes.results = std::move(results);
  return passes;
}

}  // namespace bcast
