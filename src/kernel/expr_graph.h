// The structure of an expression: its nodes and how they connect, with no
// data, dtypes or scalar values. Kernels are keyed on it (NOTE: [Expression
// kernels]); its text is the key's first field and the CLI's grammar.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bcast/dtype.h"
#include "bcast/expr.h"
#include "bcast/ops.h"
#include "bcast/reduce.h"

namespace bcast {

// A reduce node is the expressions' reduction (NOTE: [Expression passes]);
// it never reaches a kernel, whose programs are elementwise.
enum class NodeKind : std::uint8_t { input, scalar, unary, binary, ternary, cast, reduce };

// A reduce node's arguments beside its input: NumPy's axis, keepdims and dtype.
struct ReduceParams {
  Axes axes;
  bool keepdims = false;
  std::optional<DType> dtype;
  double ddof = 0;  // var's and std's
  friend bool operator==(const ReduceParams& a, const ReduceParams& b) {
    return a.axes.every() == b.axes.every() && a.axes.list() == b.axes.list() && a.keepdims == b.keepdims &&
           a.dtype == b.dtype && a.ddof == b.ddof;
  }
};

struct ExprGraphNode {
  NodeKind kind = NodeKind::input;
  std::uint8_t code = 0;                         // the Op, UnaryOp, TernaryOp or ReduceOp; a cast's DType
  std::int32_t leaf = 0;                         // input or scalar number: x<leaf>, s<leaf>; a reduce node's params
  std::array<std::int32_t, 3> args{-1, -1, -1};  // earlier nodes

  int arity() const;
  friend bool operator==(const ExprGraphNode&, const ExprGraphNode&) = default;
};

// NOTE: [Expression graph] Nodes in topological order (arguments before
// their users), each node once: add() returns an equal node's index instead
// of adding it again, so a subexpression that appears twice is evaluated once.
// Small graphs find the equal node by a scan; past kIndexedFrom nodes a hash
// index takes over, so building is linear in the nodes. add() holds NOTE:
// [Expression limits]: a node deeper than kMaxExpressionDepth, or one more
// than kMaxExpressionNodes, is an Error(value).
class ExprGraph {
 public:
  int add(const ExprGraphNode& node);
  int input(int i) { return add({.kind = NodeKind::input, .leaf = i}); }
  int scalar(int j) { return add({.kind = NodeKind::scalar, .leaf = j}); }
  int unary(UnaryOp op, int x) { return add({NodeKind::unary, static_cast<std::uint8_t>(op), 0, {x, -1, -1}}); }
  int binary(Op op, int a, int b) { return add({NodeKind::binary, static_cast<std::uint8_t>(op), 0, {a, b, -1}}); }
  int ternary(TernaryOp op, int a, int b, int c) {
    return add({NodeKind::ternary, static_cast<std::uint8_t>(op), 0, {a, b, c}});
  }
  int cast(DType dtype, int x) { return add({NodeKind::cast, static_cast<std::uint8_t>(dtype), 0, {x, -1, -1}}); }
  int reduction(ReduceOp op, int x, const ReduceParams& params);
  const ReduceParams& params(const ExprGraphNode& reduce_node) const {
    return reductions_[static_cast<std::size_t>(reduce_node.leaf)];
  }

  const std::vector<ExprGraphNode>& nodes() const { return nodes_; }
  const ExprGraphNode& operator[](int i) const { return nodes_[static_cast<std::size_t>(i)]; }
  int inputs() const { return inputs_; }    // x0 .. x<inputs-1>
  int scalars() const { return scalars_; }  // s0 .. s<scalars-1>
  int root = -1;

  int depth(int i) const { return depths_[static_cast<std::size_t>(i)]; }  // a leaf's is 1

  friend bool operator==(const ExprGraph& a, const ExprGraph& b) {
    return a.nodes_ == b.nodes_ && a.inputs_ == b.inputs_ && a.scalars_ == b.scalars_ && a.root == b.root &&
           a.reductions_ == b.reductions_;
  }

 private:
  struct NodeHash {
    std::size_t operator()(const ExprGraphNode& n) const;
  };
  static constexpr std::size_t kIndexedFrom = 32;
  std::vector<ExprGraphNode> nodes_;
  std::vector<std::int16_t> depths_;
  std::unordered_map<ExprGraphNode, int, NodeHash> index_;  // empty below kIndexedFrom nodes
  std::vector<ReduceParams> reductions_;                    // each distinct one once
  int inputs_ = 0, scalars_ = 0;
};

// The text of node `node` with Python's precedence and as few parentheses as
// it needs; leaves print as `leaf_name` says (the key's x0.., s0.. by
// default). No spaces: "(x0-x1)/x2", "max(x0+x1+x2,s0)", "f32(x0)".
using LeafNamer = std::function<std::string(NodeKind kind, int leaf)>;
std::string to_text(const ExprGraph& graph, int node, const LeafNamer& leaf_name = {});
inline std::string to_text(const ExprGraph& graph) { return to_text(graph, graph.root); }

// NOTE: [Expression grammar] bcast-run -e's: names, numbers, the operators
// + - * / // ** == != < <= > >= & | ^ ~ and unary - with Python's precedence
// (** binds tighter than a unary minus on its left and is right-associative;
// comparisons do not chain), calls of every op, unary op and ternary op by
// name, and a dtype name as a cast: f32(x). The reductions (bcast/reduce.h's
// names, amax and amin) take NumPy's keywords: sum(x*y, axis=(0, 2),
// keepdims=True, dtype=f64), the axis also second and positional; max and
// min with two operands are the elementwise ops, with one or keywords the
// reductions. A minus sign directly before a
// number is part of the number. The hooks make leaves of names and numbers;
// a syntax error is an Error(value) naming the position.
struct ExprParseHooks {
  std::function<int(ExprGraph&, std::string_view name, std::size_t position)> name;
  std::function<int(ExprGraph&, std::string_view number, std::size_t position)> number;
};
int parse_expression_text(std::string_view text, ExprGraph& graph, const ExprParseHooks& hooks);

// Text as messages quote it: escaped (bytes outside printable ASCII as
// \xNN) and, past 120 bytes, its start and its length.
std::string quoted_expression(std::string_view text);

// The graph a key's structure text names, with leaves x<i> and s<j>.
ExprGraph parse_structure(std::string_view text);

// The structure text of the one-node expression op(x0, x1), a binary op's
// kernel: "x0+x1", "max(x0,x1)".
const std::string& binary_structure(Op op);

}  // namespace bcast
