// Expression graphs: building with shared subexpressions, printing, parsing.
#include "expr_graph.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "bcast/errors.h"
#include "error_messages.h"
#include "function_table.h"

namespace bcast {
namespace {

// ---- operators and their precedence (Python's) ----

enum Precedence : int { kCompare = 1, kBitOr, kBitXor, kBitAnd, kShift, kSum, kProduct, kUnary, kPower, kAtom };

struct BinaryOperator {
  std::string_view symbol;
  Op op;
  int precedence;
};
// Longer symbols first, so that "//" is not read as "/" and "<=" not as "<".
constexpr BinaryOperator kBinaryOperators[] = {
    {"**", Op::pow, kPower},          {"//", Op::floor_div, kProduct},   {"==", Op::eq, kCompare},
    {"!=", Op::ne, kCompare},         {"<=", Op::le, kCompare},          {">=", Op::ge, kCompare},
    {"<<", Op::left_shift, kShift},   {">>", Op::right_shift, kShift},   {"<", Op::lt, kCompare},
    {">", Op::gt, kCompare},          {"+", Op::add, kSum},              {"-", Op::sub, kSum},
    {"*", Op::mul, kProduct},         {"/", Op::div, kProduct},          {"%", Op::remainder, kProduct},
    {"&", Op::bit_and, kBitAnd},      {"|", Op::bit_or, kBitOr},         {"^", Op::bit_xor, kBitXor},
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
      case NodeKind::reduce:
        return reduction(n);
    }
    return "";
  }

  // sum(x0*x1,axis=(0,2),keepdims=True,dtype=f64): NumPy's keywords, each
  // only where it is not the default.
  [[gnu::noinline]] std::string reduction(const ExprGraphNode& n) {  // out of print_node's recursive frame
    const ReduceParams& p = g_.params(n);
    std::string s = std::string(reduce_name(static_cast<ReduceOp>(n.code))) + "(" + print(n.args[0]);
    if (!p.axes.every()) {
      const std::vector<int>& a = p.axes.list();
      s += ",axis=";
      if (a.size() == 1) {
        s += std::to_string(a[0]);
      } else {
        s += "(";
        for (std::size_t i = 0; i < a.size(); ++i) s += (i ? "," : "") + std::to_string(a[i]);
        s += ")";
      }
    }
    if (p.keepdims) s += ",keepdims=True";
    if (p.ddof != 0) s += fmt::format(",ddof={}", p.ddof);
    if (p.dtype) s += ",dtype=" + std::string(dtype_name(*p.dtype));
    return s + ")";
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

// ---- parsing: recursive descent with precedence climbing ----

// The length of the UTF-8 sequence at `text` and its code point; 0 when the
// bytes there are not one (a stray continuation byte, a truncated or overlong
// sequence, a surrogate, a value past U+10FFFF).
std::size_t utf8_sequence(std::string_view text, char32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  const std::size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
  if (n == 0 || lead >= 0xF8 || text.size() < n) return 0;
  code = lead & (0x7F >> n);
  for (std::size_t i = 1; i < n; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3F);
  }
  constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[n] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return n;
}

class Parser {
 public:
  Parser(std::string_view text, ExprGraph& g, const ExprParseHooks& hooks) : text_(text), g_(g), hooks_(hooks) {}

  int parse() {
    check_characters();
    const int root = expression();
    skip_space();
    if (pos_ < text_.size()) fail_at_byte(pos_, "unexpected");
    return root;
  }

 private:
  // The failures are cold and out of line, so that the recursive functions'
  // frames hold no strings (NOTE: [Expression limits]: the deepest text must
  // fit a small stack).
  [[noreturn, gnu::cold, gnu::noinline]] void fail(std::size_t at, std::string_view what) const {
    detail::fail(ErrorKind::value, "expression \"{}\": at position {}: {}", quoted_expression(text_), at, what);
  }
  // "<what> '<the byte at `at`>'".
  [[noreturn, gnu::cold, gnu::noinline]] void fail_at_byte(std::size_t at, std::string_view what) const {
    fail(at, fmt::format("{} '{}'", what, text_[at]));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_expected(char c) {
    fail(pos_, at_end() ? fmt::format("expected '{}', found the end", c) : fmt::format("expected '{}'", c));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_arity(std::string_view name, std::size_t at, std::size_t count,
                                                         std::size_t given) const {
    fail(at, fmt::format("{} takes {} argument{}, not {}", name, count, count == 1 ? "" : "s", given));
  }

  // NOTE: [Expression limits]: the length, and every byte: the grammar is
  // printable ASCII and white space.
  void check_characters() const {
    if (text_.size() > kMaxExpressionTextBytes)
      detail::fail(ErrorKind::value, "expression \"{}\": longer than {} bytes (NOTE: [Expression limits])",
                   quoted_expression(text_), kMaxExpressionTextBytes);
    for (std::size_t at = 0; at < text_.size(); ++at) {
      const auto c = static_cast<unsigned char>(text_[at]);
      if (c >= 0x80) {
        char32_t code = 0;
        if (utf8_sequence(text_.substr(at), code) == 0)
          fail(at, fmt::format("byte 0x{:02x} is not valid UTF-8", c));
        fail(at, fmt::format("character U+{:04X} is not part of the grammar (names, numbers and operators are ASCII)",
                             static_cast<std::uint32_t>(code)));
      }
      if ((c < 0x20 || c == 0x7F) && !std::isspace(c))
        fail(at, fmt::format("control byte \\x{:02x} is not part of the grammar", c));
    }
  }

  // NOTE: [Expression limits]: each nesting of the text (a parenthesis, a
  // call, a unary operator, a power's exponent) passes through unary() once.
  class Nesting {
   public:
    explicit Nesting(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxExpressionDepth)
        p_.fail_too_deep();
    }
    ~Nesting() { --p_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& p_;
  };

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  // The binary operator at the cursor (the longest symbol there), not consumed.
  const BinaryOperator* operator_here() {
    skip_space();
    for (const BinaryOperator& o : kBinaryOperators)
      if (text_.substr(pos_, o.symbol.size()) == o.symbol) return &o;
    return nullptr;
  }
  // The operator at the cursor when it has precedence p, consumed.
  std::optional<Op> take_operator(int p) {
    const BinaryOperator* o = operator_here();
    if (o == nullptr || o->precedence != p) return std::nullopt;
    pos_ += o->symbol.size();
    return o->op;
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
    if (!take(c)) fail_expected(c);
  }

  int expression() {
    const int left = binary(kBitOr);
    if (const std::optional<Op> op = take_operator(kCompare)) {
      const int right = binary(kBitOr);
      skip_space();
      if (take_operator(kCompare)) fail(pos_, "comparisons do not chain; use parentheses");
      return g_.binary(*op, left, right);
    }
    return left;
  }

  // The left-associative levels from | down to * / //, by precedence
  // climbing: an operand nested in parentheses costs one call of this, not
  // one per level.
  int binary(int lowest) {
    int left = unary();
    for (const BinaryOperator* o = operator_here(); o != nullptr && o->precedence >= lowest &&
                                                    o->precedence <= kProduct;
         o = operator_here()) {
      pos_ += o->symbol.size();
      left = g_.binary(o->op, left, binary(o->precedence + 1));
    }
    return left;
  }

  int unary() {
    const Nesting nesting(*this);
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
    const int base = attributes(atom());
    if (take_operator(kPower)) return g_.binary(Op::pow, base, unary());  // right-associative
    return base;
  }

  // NumPy's attributes of an operand, as numexpr takes them: x.real, x.imag
  // and x.conj(), in any number (z.conj().real).
  int attributes(int x) {
    while (take('.')) {
      skip_space();
      const std::size_t at = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      const std::string_view name = text_.substr(at, pos_ - at);
      if (name == "real") {
        x = g_.unary(UnaryOp::real, x);
      } else if (name == "imag") {
        x = g_.unary(UnaryOp::imag, x);
      } else if (name == "conj") {
        expect('(');
        expect(')');
        x = g_.unary(UnaryOp::conj, x);
      } else {
        fail(at, "after '.' an operand takes real, imag or conj()");
      }
    }
    return x;
  }

  int atom() {
    skip_space();
    const std::size_t at = pos_;
    if (at >= text_.size()) fail(at, "expected an operand, found the end");
    const char c = text_[at];
    if (take('(')) {
      const int inner = expression();
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
    fail_at_byte(at, "expected an operand, found");
  }

  int number() {
    const std::size_t at = pos_;
    number_end();
    if (!hooks_.number) fail(at, "numbers are not allowed here");
    return hooks_.number(g_, text_.substr(at, pos_ - at), at);
  }

  // A call's `count` arguments (1 to 3).
  std::array<int, 3> arguments(std::string_view name, std::size_t at, std::size_t count) {
    std::array<int, 3> args{-1, -1, -1};
    std::size_t given = 0;
    if (!take(')')) {
      do {
        const int arg = expression();
        if (given < args.size()) args[given] = arg;
        ++given;
      } while (take(','));
      expect(')');
    }
    if (given != count) fail_arity(name, at, count, given);
    return args;
  }

  int call(std::string_view name, std::size_t at) {
    if (const std::optional<ReduceOp> op = parse_reduce(name)) return reduction(*op, name);
    if (const std::optional<Op> op = parse_op(name)) {
      const std::array<int, 3> a = arguments(name, at, 2);
      return g_.binary(*op, a[0], a[1]);
    }
    if (const std::optional<UnaryOp> op = parse_unary(name)) return g_.unary(*op, arguments(name, at, 1)[0]);
    if (const std::optional<TernaryOp> op = parse_ternary(name)) {
      const std::array<int, 3> a = arguments(name, at, 3);
      return g_.ternary(*op, a[0], a[1], a[2]);
    }
    if (const std::optional<DType> dtype = parse_dtype(name)) return g_.cast(*dtype, arguments(name, at, 1)[0]);
    fail_unknown_function(name, at);
  }

  // ---- reductions ----

  // name(x[, axis][, axis=..., keepdims=..., dtype=...]). max and min (not
  // amax and amin) with a second operand that is not a keyword are the
  // elementwise ops.
  // Out of line, as the failures are: the recursive functions' frames stay
  // small (NOTE: [Expression limits]).
  [[gnu::noinline]] int reduction(ReduceOp op, std::string_view name) {
    const int x = expression();
    ReduceParams p;
    bool positional_axis = false, seen_axis = false, seen_keepdims = false, seen_dtype = false, seen_ddof = false;
    while (take(',')) {
      skip_space();
      const std::size_t key_at = pos_;
      const std::string_view key = keyword();
      const bool again = (key == "keepdims" && seen_keepdims) || (key == "dtype" && seen_dtype) ||
                         ((key == "ddof" || key == "correction") && seen_ddof);
      if (again) fail(key_at, fmt::format("{}: {} is given twice (ddof and correction are one argument)", name, key));
      if (key.empty()) {  // a positional argument: the axis, or max's and min's second operand
        if ((name == "max" || name == "min") && !positional_axis && !seen_axis && !seen_keepdims && !seen_dtype) {
          const int b = expression();
          expect(')');
          return g_.binary(op == ReduceOp::max ? Op::max : Op::min, x, b);
        }
        if (positional_axis || seen_axis || seen_keepdims || seen_dtype)
          fail(key_at, fmt::format("{}: after its first two arguments {} takes keywords (axis=, keepdims=, dtype=)",
                                   name, name));
        p.axes = axis_literal(name);
        positional_axis = true;
      } else if (key == "axis") {
        if (positional_axis || seen_axis) fail(key_at, fmt::format("{}: the axis is given twice", name));
        p.axes = axis_literal(name);
        seen_axis = true;
      } else if (key == "keepdims") {
        p.keepdims = truth_literal(name);
        seen_keepdims = true;
      } else if (key == "dtype") {
        skip_space();
        const std::size_t d_at = pos_;
        const std::string_view d = identifier();
        const std::optional<DType> dtype = parse_dtype(d);
        if (!dtype)
          fail(d_at, fmt::format("{}: dtype={} is not a dtype (f32, f64, i64, ...)", name, d.empty() ? "?" : d));
        p.dtype = dtype;
        seen_dtype = true;
      } else if ((key == "ddof" || key == "correction") && (op == ReduceOp::var || op == ReduceOp::std)) {
        p.ddof = number_literal(name, key);
        seen_ddof = true;
      } else {
        fail(key_at, fmt::format("{}: unknown keyword '{}' (it takes axis=, keepdims= and dtype={})", name, key,
                                 op == ReduceOp::var || op == ReduceOp::std ? ", and ddof= or correction=" : ""));
      }
    }
    expect(')');
    return g_.reduction(op, x, p);
  }

  // An identifier followed by '=' (consumed), or empty with nothing consumed.
  std::string_view keyword() {
    const std::size_t start = pos_;
    const std::string_view id = identifier();
    skip_space();
    if (!id.empty() && pos_ < text_.size() && text_[pos_] == '=' && text_.substr(pos_, 2) != "==") {
      ++pos_;
      return id;
    }
    pos_ = start;
    return {};
  }
  std::string_view identifier() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
        ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // None, an integer, or a parenthesised tuple of integers: (0, 2), (1,), ().
  Axes axis_literal(std::string_view name) {
    skip_space();
    if (text_.substr(pos_, 4) == "None") {
      pos_ += 4;
      return Axes();
    }
    if (!take('(')) return Axes(integer_literal(name));
    std::vector<int> axes;
    while (!take(')')) {
      axes.push_back(integer_literal(name));
      if (!take(',')) {
        expect(')');
        break;
      }
    }
    return Axes(std::move(axes));
  }
  int integer_literal(std::string_view name) {
    skip_space();
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    int v = 0;
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (ec != std::errc() || end != text_.data() + pos_ || pos_ == start)
      fail(start, fmt::format("{}: an axis is an integer, a tuple of integers or None", name));
    return v;
  }
  // ddof=1, correction=0.5: a number, not an expression.
  double number_literal(std::string_view name, std::string_view key) {
    skip_space();
    const std::size_t start = pos_;
    number_end();
    double v = 0;
    const auto [end, ec] = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (ec != std::errc() || end != text_.data() + pos_ || pos_ == start)
      fail(start, fmt::format("{}: {} is a number", name, key));
    return v;
  }
  bool truth_literal(std::string_view name) {
    skip_space();
    const std::size_t start = pos_;
    const std::string_view v = identifier();
    if (v == "True") return true;
    if (v == "False") return false;
    fail(start, fmt::format("{}: keepdims is True or False", name));
  }

  // Names the nearest functions there are, and where they are all listed.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_unknown_function(std::string_view name, std::size_t at) const {
    std::vector<std::string_view> functions;
    for (const detail::FunctionRow& r : detail::all_functions())
      for (std::string_view n : detail::names_of(r)) functions.push_back(n);
    for (int i = 0; i < kNumDTypes; ++i) functions.push_back(dtype_name(static_cast<DType>(i)));
    for (int i = 0; i < kNumReduceOps; ++i) functions.push_back(reduce_name(static_cast<ReduceOp>(i)));
    fail(at, fmt::format("unknown function '{}'{}; every function is in {}", name,
                         detail::did_you_mean(detail::nearest_names(name, functions)), detail::kFunctionsDoc));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_too_deep() const {
    fail(pos_, fmt::format("nests deeper than {} levels (NOTE: [Expression limits])", kMaxExpressionDepth));
  }

  std::string_view text_;
  ExprGraph& g_;
  const ExprParseHooks& hooks_;
  std::size_t pos_ = 0;
  int depth_ = 0;  // NOTE: [Expression limits]: the text's nesting at the cursor
};

}  // namespace

std::string quoted_expression(std::string_view text) {
  constexpr std::size_t kShown = 120;
  if (text.size() <= kShown) return detail::printable(text);
  return detail::printable(text.substr(0, kShown)) + "... (" + std::to_string(text.size()) + " bytes)";
}

int ExprGraph::reduction(ReduceOp op, int x, const ReduceParams& params) {
  auto found = std::find(reductions_.begin(), reductions_.end(), params);
  const auto index = static_cast<std::int32_t>(found - reductions_.begin());
  if (found == reductions_.end()) reductions_.push_back(params);
  return add({NodeKind::reduce, static_cast<std::uint8_t>(op), index, {x, -1, -1}});
}

int ExprGraphNode::arity() const {
  switch (kind) {
    case NodeKind::input: case NodeKind::scalar: return 0;
    case NodeKind::binary: return 2;
    case NodeKind::ternary: return 3;
    default: return 1;
  }
}

std::size_t ExprGraph::NodeHash::operator()(const ExprGraphNode& n) const {
  std::uint64_t h = (std::uint64_t{static_cast<std::uint8_t>(n.kind)} << 40) ^ (std::uint64_t{n.code} << 32) ^
                    static_cast<std::uint32_t>(n.leaf);
  for (const std::int32_t a : n.args) h = h * 0x9E3779B97F4A7C15ull + static_cast<std::uint32_t>(a);
  return static_cast<std::size_t>(h ^ (h >> 29));
}

int ExprGraph::add(const ExprGraphNode& node) {
  if (index_.empty()) {
    const auto found = std::find(nodes_.begin(), nodes_.end(), node);
    if (found != nodes_.end()) return static_cast<int>(found - nodes_.begin());
  } else if (const auto found = index_.find(node); found != index_.end()) {
    return found->second;
  }
  int depth = 1;
  for (int k = 0; k < node.arity(); ++k) depth = std::max(depth, depths_[static_cast<std::size_t>(node.args[k])] + 1);
  if (depth > kMaxExpressionDepth)
    detail::fail_expression_too_deep(kMaxExpressionDepth);
  if (nodes_.size() >= static_cast<std::size_t>(kMaxExpressionNodes))
    detail::fail(ErrorKind::value, "expression: more than {} distinct operations and operands (NOTE: [Expression "
                                   "limits]); evaluate a part first",
                 kMaxExpressionNodes);
  if (node.kind == NodeKind::input) inputs_ = std::max(inputs_, node.leaf + 1);
  if (node.kind == NodeKind::scalar) scalars_ = std::max(scalars_, node.leaf + 1);
  nodes_.push_back(node);
  depths_.push_back(static_cast<std::int16_t>(depth));
  const int id = static_cast<int>(nodes_.size()) - 1;
  if (nodes_.size() == kIndexedFrom)
    for (std::size_t i = 0; i < nodes_.size(); ++i) index_.emplace(nodes_[i], static_cast<int>(i));
  else if (!index_.empty())
    index_.emplace(node, id);
  return id;
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
        if (name.size() >= 2 && name.size() <= 6 && (name[0] == 'x' || name[0] == 's') &&
            std::all_of(name.begin() + 1, name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
          index = std::stoi(std::string(name.substr(1)));
        if (index < 0)
          detail::fail(ErrorKind::value, "expression \"{}\": at position {}: '{}' is not a leaf x<i> or s<j>",
                       quoted_expression(text), at, quoted_expression(name));
        return name[0] == 'x' ? g.input(index) : g.scalar(index);
      },
      .number = {}};
  parse_expression_text(text, graph, hooks);
  return graph;
}

const std::string& binary_structure(Op op) {
  static const std::array<std::string, kNumOps> texts = [] {
    std::array<std::string, kNumOps> t;
    for (int i = 0; i < kNumOps; ++i) {
      ExprGraph graph;
      graph.root = graph.binary(static_cast<Op>(i), graph.input(0), graph.input(1));
      t[static_cast<std::size_t>(i)] = to_text(graph);
    }
    return t;
  }();
  return texts[static_cast<std::size_t>(op)];
}

}  // namespace bcast
