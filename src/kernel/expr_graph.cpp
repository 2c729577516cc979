// Expression graphs: building with shared subexpressions, printing, parsing.
#include "expr_graph.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "bcast/errors.h"
#include "error_messages.h"

namespace bcast {
namespace {

// ---- operators and their precedence (Python's) ----

enum Precedence : int { kCompare = 1, kBitOr, kBitXor, kBitAnd, kSum, kProduct, kUnary, kPower, kAtom };

struct BinaryOperator {
  std::string_view symbol;
  Op op;
  int precedence;
};
// Longer symbols first, so that "//" is not read as "/" and "<=" not as "<".
constexpr BinaryOperator kBinaryOperators[] = {
    {"**", Op::pow, kPower},       {"//", Op::floor_div, kProduct}, {"==", Op::eq, kCompare},
    {"!=", Op::ne, kCompare},      {"<=", Op::le, kCompare},        {">=", Op::ge, kCompare},
    {"<", Op::lt, kCompare},       {">", Op::gt, kCompare},         {"+", Op::add, kSum},
    {"-", Op::sub, kSum},          {"*", Op::mul, kProduct},        {"/", Op::div, kProduct},
    {"&", Op::bit_and, kBitAnd},   {"|", Op::bit_or, kBitOr},       {"^", Op::bit_xor, kBitXor},
};

const BinaryOperator* operator_of(Op op) {
  for (const BinaryOperator& o : kBinaryOperators)
    if (o.op == op) return &o;
  return nullptr;  // printed as a call: max(a,b)
}

int precedence_of(const ExprGraphNode& n) {
  if (n.kind == NodeKind::binary) {
    const BinaryOperator* o = operator_of(static_cast<Op>(n.code));
    return o ? o->precedence : kAtom;
  }
  if (n.kind == NodeKind::unary) {
    const auto op = static_cast<UnaryOp>(n.code);
    return op == UnaryOp::neg || op == UnaryOp::bit_not ? kUnary : kAtom;
  }
  return kAtom;
}

// ---- printing ----

// A node shared by many others prints once per use: x = x * x, forty times
// over, is one node per step but 2^40 characters of text. The text names
// kernels, so it is capped (a linear graph never comes near).
constexpr std::size_t kMaxTextBytes = 1 << 16;

class Printer {
 public:
  Printer(const ExprGraph& g, const LeafNamer& namer) : g_(g), namer_(namer) {}

  std::string print(int i) {
    std::string text = print_node(i);
    if (text.size() > kMaxTextBytes)
      detail::fail(ErrorKind::value,
                   "expression: its text exceeds {} characters (a subexpression used many times over, nested; "
                   "evaluate the inner part first)",
                   kMaxTextBytes);
    return text;
  }

 private:
  std::string print_node(int i) {
    const ExprGraphNode& n = g_[i];
    switch (n.kind) {
      case NodeKind::input:
      case NodeKind::scalar: return leaf(n);
      case NodeKind::cast: return std::string(dtype_name(static_cast<DType>(n.code))) + "(" + print(n.args[0]) + ")";
      case NodeKind::ternary:
        return call(ternary_name(static_cast<TernaryOp>(n.code)), {n.args[0], n.args[1], n.args[2]});
      case NodeKind::unary: return unary(n);
      case NodeKind::binary: return binary(n);
    }
    return "";
  }

  std::string leaf(const ExprGraphNode& n) {
    if (namer_) return namer_(n.kind, n.leaf);
    return (n.kind == NodeKind::input ? "x" : "s") + std::to_string(n.leaf);
  }

  std::string call(std::string_view name, std::initializer_list<int> args) {
    std::string s = std::string(name) + "(";
    bool first = true;
    for (int a : args) {
      s += (first ? "" : ",") + print(a);
      first = false;
    }
    return s + ")";
  }

  std::string wrapped(int i, bool parens) { return parens ? "(" + print(i) + ")" : print(i); }

  std::string unary(const ExprGraphNode& n) {
    const auto op = static_cast<UnaryOp>(n.code);
    if (op != UnaryOp::neg && op != UnaryOp::bit_not) return call(unary_name(op), {n.args[0]});
    return (op == UnaryOp::neg ? "-" : "~") + wrapped(n.args[0], precedence_of(g_[n.args[0]]) < kUnary);
  }

  std::string binary(const ExprGraphNode& n) {
    const auto op = static_cast<Op>(n.code);
    const BinaryOperator* o = operator_of(op);
    if (!o) return call(op_name(op), {n.args[0], n.args[1]});
    const int p = o->precedence, left = precedence_of(g_[n.args[0]]), right = precedence_of(g_[n.args[1]]);
    bool left_parens = left < p, right_parens = right <= p;
    if (p == kPower) {  // right-associative, and a unary minus on its left binds looser
      left_parens = left <= kPower;
      right_parens = right < kUnary;
    }
    if (p == kCompare) left_parens = right_parens = true;  // comparisons do not chain
    if (p == kCompare && left == kAtom) left_parens = false;
    if (p == kCompare && right == kAtom) right_parens = false;
    return wrapped(n.args[0], left_parens) + std::string(o->symbol) + wrapped(n.args[1], right_parens);
  }

  const ExprGraph& g_;
  const LeafNamer& namer_;
};

// ---- parsing: recursive descent, one function per precedence level ----

class Parser {
 public:
  Parser(std::string_view text, ExprGraph& g, const ExprParseHooks& hooks) : text_(text), g_(g), hooks_(hooks) {}

  int parse() {
    const int root = comparison();
    skip_space();
    if (pos_ < text_.size()) fail(pos_, "unexpected '" + std::string(1, text_[pos_]) + "'");
    return root;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    detail::fail(ErrorKind::value, "expression \"{}\": at position {}: {}", text_, at, what);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  // The binary operator at the cursor when it has precedence p, consumed.
  std::optional<Op> take_operator(int p) {
    skip_space();
    for (const BinaryOperator& o : kBinaryOperators) {
      if (text_.substr(pos_, o.symbol.size()) != o.symbol) continue;
      if (o.precedence != p) return std::nullopt;  // the longest symbol here belongs to another level
      pos_ += o.symbol.size();
      return o.op;
    }
    return std::nullopt;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(pos_, at_end() ? std::string("expected '") + c + "', found the end" : std::string("expected '") + c + "'");
  }

  int comparison() {
    const int left = level(kBitOr);
    if (const std::optional<Op> op = take_operator(kCompare)) {
      const int right = level(kBitOr);
      skip_space();
      if (take_operator(kCompare)) fail(pos_, "comparisons do not chain; use parentheses");
      return g_.binary(*op, left, right);
    }
    return left;
  }

  // Left-associative levels from | down to * / //.
  int level(int p) {
    if (p == kUnary) return unary();
    int left = level(p + 1);
    while (const std::optional<Op> op = take_operator(p)) left = g_.binary(*op, left, level(p + 1));
    return left;
  }

  int unary() {
    skip_space();
    const std::size_t at = pos_;
    if (take('-')) {
      skip_space();
      if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.') &&
          !number_is_a_base()) {
        pos_ = at;  // a negative number
        return power();
      }
      return g_.unary(UnaryOp::neg, unary());
    }
    if (take('~')) return g_.unary(UnaryOp::bit_not, unary());
    if (take('+')) return unary();
    return power();
  }

  // Whether the number at the cursor is the base of a power: -3**2 is
  // -(3**2), as in Python.
  bool number_is_a_base() {
    const std::size_t at = pos_;
    number_end();
    skip_space();
    const bool base = text_.substr(pos_, 2) == "**";
    pos_ = at;
    return base;
  }

  void number_end() {
    const std::size_t at = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool exponent_sign = (c == '+' || c == '-') && pos_ > at && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && !exponent_sign) break;
      ++pos_;
    }
  }

  int power() {
    const int base = atom();
    if (take_operator(kPower)) return g_.binary(Op::pow, base, unary());  // right-associative
    return base;
  }

  int atom() {
    skip_space();
    const std::size_t at = pos_;
    if (at >= text_.size()) fail(at, "expected an operand, found the end");
    const char c = text_[at];
    if (take('(')) {
      const int inner = comparison();
      expect(')');
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      const std::string_view name = text_.substr(at, pos_ - at);
      if (take('(')) return call(name, at);
      return hooks_.name(g_, name, at);
    }
    fail(at, "expected an operand, found '" + std::string(1, c) + "'");
  }

  int number() {
    const std::size_t at = pos_;
    number_end();
    if (!hooks_.number) fail(at, "numbers are not allowed here");
    return hooks_.number(g_, text_.substr(at, pos_ - at), at);
  }

  std::vector<int> arguments(std::string_view name, std::size_t at, std::size_t count) {
    std::vector<int> args;
    if (!take(')')) {
      do {
        args.push_back(comparison());
      } while (take(','));
      expect(')');
    }
    if (args.size() != count)
      fail(at, std::string(name) + " takes " + std::to_string(count) + " argument" + (count == 1 ? "" : "s") + ", not " +
                   std::to_string(args.size()));
    return args;
  }

  int call(std::string_view name, std::size_t at) {
    if (const std::optional<Op> op = parse_op(name)) {
      const std::vector<int> a = arguments(name, at, 2);
      return g_.binary(*op, a[0], a[1]);
    }
    if (const std::optional<UnaryOp> op = parse_unary(name)) return g_.unary(*op, arguments(name, at, 1)[0]);
    if (const std::optional<TernaryOp> op = parse_ternary(name)) {
      const std::vector<int> a = arguments(name, at, 3);
      return g_.ternary(*op, a[0], a[1], a[2]);
    }
    if (const std::optional<DType> dtype = parse_dtype(name)) return g_.cast(*dtype, arguments(name, at, 1)[0]);
    fail(at, "unknown function '" + std::string(name) + "'");
  }

  std::string_view text_;
  ExprGraph& g_;
  const ExprParseHooks& hooks_;
  std::size_t pos_ = 0;
};

}  // namespace

int ExprGraphNode::arity() const {
  switch (kind) {
    case NodeKind::input: case NodeKind::scalar: return 0;
    case NodeKind::binary: return 2;
    case NodeKind::ternary: return 3;
    default: return 1;
  }
}

int ExprGraph::add(const ExprGraphNode& node) {
  const auto found = std::find(nodes_.begin(), nodes_.end(), node);
  if (found != nodes_.end()) return static_cast<int>(found - nodes_.begin());
  if (node.kind == NodeKind::input) inputs_ = std::max(inputs_, node.leaf + 1);
  if (node.kind == NodeKind::scalar) scalars_ = std::max(scalars_, node.leaf + 1);
  nodes_.push_back(node);
  return static_cast<int>(nodes_.size()) - 1;
}

std::string to_text(const ExprGraph& graph, int node, const LeafNamer& leaf_name) {
  return Printer(graph, leaf_name).print(node);
}

int parse_expression_text(std::string_view text, ExprGraph& graph, const ExprParseHooks& hooks) {
  const int root = Parser(text, graph, hooks).parse();
  graph.root = root;
  return root;
}

ExprGraph parse_structure(std::string_view text) {
  ExprGraph graph;
  const ExprParseHooks hooks{
      .name = [&](ExprGraph& g, std::string_view name, std::size_t at) -> int {
        int index = -1;
        if (name.size() >= 2 && (name[0] == 'x' || name[0] == 's') &&
            std::all_of(name.begin() + 1, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
          index = std::stoi(std::string(name.substr(1)));
        if (index < 0)
          detail::fail(ErrorKind::value, "expression \"{}\": at position {}: '{}' is not a leaf x<i> or s<j>", text, at,
                       name);
        return name[0] == 'x' ? g.input(index) : g.scalar(index);
      },
      .number = {}};
  parse_expression_text(text, graph, hooks);
  return graph;
}

}  // namespace bcast
