// Expressions with reductions, as passes (NOTE: [Expression passes]).
#include "expr_passes.h"

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

class Rewriter {
 public:
  explicit Rewriter(const PassFn& each) : each_(each) {}

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
  std::vector<std::string> described;
  TensorView last;  // the latest pass's result

 private:
  // One reduction: its input, an expression whose own reductions are leaves
  // now, evaluated (a tensor leaf is read in place), then reduced.
  NodePtr pass(const detail::ExprNode& n) {
    const auto op = static_cast<ReduceOp>(n.code);
    const Expr input(n.args[0]);
    const ExprCall call(input);
    const ExprInfo info = call.info();
    // The same reduction of the same values, reached twice (a text names
    // its operands once per mention): one pass.
    const std::string key =
        std::to_string(n.code) + " " + pass_line(0, n, info, DType::f32, {}) + " " + values_key(call);
    if (const auto same = by_key_.find(key); same != by_key_.end()) return same->second;
    if (detail::reduce_row(op).combine == detail::Combine::composed) {  // NOTE: [Composed reductions]
      // Kept alive: done_ is keyed by the addresses of the nodes it has seen.
      composed_.push_back(composed_reduction(op, input, info.out_dtype, info.out_shape, n.reduce, owned));
      return by_key_[key] = rewrite(composed_.back().node());
    }
    const detail::ReduceRow& row = detail::reduce_row(op);
    const std::vector<bool> along = reduced_dims(n.reduce.axes, static_cast<int>(info.out_shape.size()), row.name);
    const DType dtype = reduce_result_dtype(op, info.out_dtype, n.reduce.dtype);
    const Shape shape = reduced_shape(info.out_shape, along, n.reduce.keepdims);
    const std::string name = "r" + std::to_string(described.size());
    described.push_back(pass_line(described.size(), n, info, dtype, shape));
    last = each_(op, input, n.reduce, dtype, shape);
    return by_key_[key] = named_input(last, name).node();
  }

  const PassFn& each_;
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

ExprPasses reduction_passes(const Expr& e, const PassFn& each) {
  Rewriter r(each);
  const NodePtr rest = r.rewrite(e.node());
  const bool root_is_result = rest->kind == NodeKind::input && !r.described.empty() &&
                              rest->view.data() == r.last.data() && rest->view.layout() == r.last.layout();
  return {Expr(rest), {}, std::move(r.owned), std::move(r.described), root_is_result};
}

ExprPasses reduction_passes(const Expr& e, bool run) {
  std::vector<Tensor> results;
  ExprPasses passes =
      reduction_passes(e, [&](ReduceOp op, const Expr& input, const ReduceParams& p, DType dtype, const Shape& shape) {
        results.push_back(run ? reduce_expression(op, input, p.axes, p.keepdims, p.dtype)
                              : Tensor::empty(dtype, Layout::contiguous(shape)));
        return results.back().view();
      });
  passes.results = std::move(results);
  return passes;
}

}  // namespace bcast
