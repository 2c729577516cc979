// One evaluation of an expression, worked out: the tree flattened into a
// graph and its leaves, validated, lowered, planned. evaluate(), describe()
// and prepare() all start here.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bcast/expr.h"
#include "broadcast_plan.h"
#include "call_report.h"
#include "expr_evaluator.h"
#include "expr_graph.h"
#include "dispatch.h"
#include "expr_program.h"

namespace bcast {

// A scalar leaf's value: a weak int (i), a weak float (f), a weak complex
// (f + im j), or a strong value of `dtype` (f).
struct ScalarValue {
  ScalarKind kind = ScalarKind::weak_float;
  DType dtype = DType::f64;
  std::int64_t i = 0;
  double f = 0;
  double im = 0;
};

namespace detail {
struct ExprNode {
  NodeKind kind = NodeKind::input;
  std::uint8_t code = 0;
  TensorView view{};
  ScalarValue scalar{};
  std::string name;  // the operand's name in parse_expression's text
  // A binary node that the caller reached by the op's name, not by writing an
  // expression: Python's bcast.add(a, 300), a C++ add of two dtypes. Messages
  // about it start "add:", as a binary op's own do (call_of).
  bool named_call = false;
  std::array<std::shared_ptr<const ExprNode>, 3> args{};
  ReduceParams reduce{};  // a reduce node's axis, keepdims and dtype
  int depth = 1;     // a leaf's is 1; at most kMaxExpressionDepth (NOTE: [Expression limits])
};
}  // namespace detail

// A tensor leaf that messages name `name` (as parse_expression's leaves).
Expr named_input(const TensorView& view, std::string name);
// op(a, b) as the caller's call of the op by name (ExprNode::named_call):
// call_of(Op::add, named_input(u8, "a"), 300) fails "add: 300 does not fit u8 ...",
// where expr::add(...) would fail "expression 'a+300': 300 does not fit u8 ...".
Expr call_of(Op op, const Expr& a, const Expr& b);

class ExprCall {
 public:
  // Flattens, validates the inputs and their shapes, lowers (dtype errors),
  // and checks the scalars' values (NEP 50's ranges).
  explicit ExprCall(const Expr& e);

  ExprInfo info() const;
  // The plan of the call into an out of this layout.
  BroadcastPlan plan_for(const Layout& out) const;
  // That plan with its fusion and direct call (NOTE: [Dispatch]).
  PlannedCall planned_for(const Layout& out) const;

  const std::vector<TensorView>& inputs() const { return inputs_; }
  const ExprProgram& program() const { return program_; }
  const Shape& out_shape() const { return out_shape_; }
  const std::vector<ScalarSlot>& scalar_slots() const { return slots_; }
  const std::vector<LeafType>& input_types() const { return input_types_; }
  const std::vector<LeafType>& scalar_types() const { return scalar_types_; }
  std::string text() const;  // the expression as the user wrote it: names and values, quoted
  // What messages about the call start with: "expression 'x+300'", or the
  // op's name for a call_of ("add").
  std::string subject() const;
  std::string structure() const { return to_text(graph_); }
  // The checks on a caller's out: shape, dtype, and no overlap with `inputs`
  // (the call's own, or a prepared run's) but as exactly one of them.
  void validate_out(const TensorView& out, const std::vector<TensorView>& inputs) const;
  Layout new_out_layout() const;
  // NOTE: [Negative integer exponents]: the inputs that are a signed integer
  // power's exponent, read for a negative value (an Error(value)), and the
  // exponents computed from them, computed first and read.
  void check_exponent_inputs(const std::vector<TensorView>& inputs, std::int64_t out_elements) const;
  bool has_exponent_checks() const { return !exponent_inputs_.empty() || !computed_exponents_.empty(); }

 private:
  ExprCall() = default;
  // Flattens, validates and lowers `e` into this call; each tree node's graph node.
  std::map<const detail::ExprNode*, int> build(const Expr& e);
  std::string leaf_name(NodeKind kind, int leaf) const;
  [[noreturn]] void fail_does_not_fit(std::size_t scalar, DType dtype) const;
  void find_exponents();
  void check_computed_exponent(int value, const std::vector<TensorView>& inputs) const;

  ExprGraph graph_;
  std::vector<TensorView> inputs_;
  std::vector<std::string> input_names_;
  std::vector<ScalarValue> scalars_;
  std::vector<std::string> scalar_names_;
  std::vector<LeafType> input_types_, scalar_types_;
  ExprProgram program_;
  std::vector<ScalarSlot> slots_;     // each scalar in its program dtype
  std::vector<int> exponent_inputs_;  // find_exponents()
  std::vector<int> computed_exponents_;  // the program values of the others
  std::string call_;                  // the op's name for a call_of, else empty
  std::string written_;               // text() where the graph is not what the caller wrote
  Shape out_shape_;
  // NOTE: [Scalar expressions] the 0-d tensor that the first scalar of an
  // expression without tensors becomes.
  std::shared_ptr<Tensor> scalar_input_;
};

// How a planned expression runs: its JIT kernel, or (fn null) its fallback:
// the reference executor's typed kernel where the program is one binary op
// (reference_kernel_of), else the reference evaluator of its program.
struct ExprKernel {
  SelectedKernel jit;
  KernelFn typed = nullptr;                        // reference_kernel_of
  std::shared_ptr<const ExprEvaluator> evaluator;  // where typed is null
  std::string key = "reference";
  bool provisional() const { return jit.provisional(); }  // NOTE: [Tiers]
};
// `stream_min_bytes`: NOTE: [Streaming stores]' threshold where not the
// setting's (NOTE: [Row blocks]: a block streams when its whole call would).
ExprKernel select_kernel(const ExprCall& call, const BroadcastPlan& plan,
                         std::optional<std::uint64_t> stream_min_bytes = std::nullopt);

// Runs `call`'s program over its planned call (out first, then `inputs`) on
// `kernel` (NOTE: [Dispatch]); `api` names how the application reached it in
// BCAST_VERBOSE's exec line.
void run_expression(const ExprCall& call, const ExprKernel& kernel, const PlannedCall& planned, const TensorView& out,
                    const std::vector<TensorView>& inputs, report::Api api = report::Api::expr);

// BCAST_VERBOSE's line of an expression's prepare or call (NOTE: [Verbose lines]).
void report_expression(std::string_view event, report::Api api, const ExprCall& call, const ExprKernel& kernel,
                       const BroadcastPlan& plan, const std::vector<TensorView>& inputs, DType out_dtype,
                       const Shape& out_shape, int threads, std::chrono::steady_clock::duration took);

}  // namespace bcast
