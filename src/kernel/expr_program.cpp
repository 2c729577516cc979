// Lowering an expression graph to a typed program (NOTE: [Promotion]).
#include "expr_program.h"

#include <algorithm>

#include "bcast/errors.h"
#include "error_messages.h"
#include "function_table.h"

namespace bcast {
namespace {

// A lowered node: its value, dtype, and whether it is still a weak scalar
// (a weak leaf, or an op on weak values alone, as Python computes it).
struct Lowered {
  int value = 0;
  DType dtype = DType::f32;
  ScalarKind kind = ScalarKind::strong;
  int scalar_leaf = -1;  // the scalar this value is, directly
};

class Lowering {
 public:
  Lowering(const ExprGraph& g, std::span<const LeafType> inputs, std::span<const LeafType> scalars,
           const LeafNamer& namer, std::string_view call)
      : g_(g), namer_(namer), call_(call) {
    for (const LeafType& t : inputs) program_.inputs.push_back(t.dtype);
    for (const LeafType& t : scalars) {
      program_.scalars.push_back(t.kind == ScalarKind::strong ? t.dtype : weak_default(t.kind));
      scalar_kinds_.push_back(t.kind);
    }
  }

  ExprProgram run() {
    if (g_.inputs() == 0 || static_cast<std::size_t>(g_.inputs()) > program_.inputs.size() ||
        static_cast<std::size_t>(g_.scalars()) > program_.scalars.size())
      detail::fail(ErrorKind::value, "expression {}: needs at least one tensor operand, and a type for every leaf",
                   text(g_.root));
    std::vector<Lowered> lowered;
    for (int i = 0; i < static_cast<int>(g_.nodes().size()); ++i) lowered.push_back(lower(i, lowered));
    const Lowered& root = lowered[static_cast<std::size_t>(g_.root)];
    program_.result = root.value;
    for (const Lowered& n : lowered) program_.node_values.push_back(n.value);
    program_.out_dtype = root.dtype;
    return std::move(program_);
  }

 private:
  std::string text(int node) const { return "'" + to_text(g_, node, namer_) + "'"; }

  // "expression 'x**2': pow is" for a node, "pow:" for the root of a call by
  // name (the binary op's own words).
  std::string not_defined(int node, std::string_view op) const {
    if (node == g_.root && !call_.empty()) return std::string(call_) + ": not defined";
    return fmt::format("expression {}: {} is not defined", text(node), op);
  }

  // An operand as the caller knows it: a strong value's dtype, or a weak
  // scalar as what it is (NEP 50: a Python int or float, whose i64 or f64
  // is no dtype of the caller's), by name when it is a leaf.
  std::string operand(const ExprGraphNode& n, int k, const Lowered& x) const {
    if (x.kind == ScalarKind::strong) return std::string(dtype_name(x.dtype));
    const std::string_view what = x.kind == ScalarKind::weak_int     ? "Python int"
                                  : x.kind == ScalarKind::weak_float ? "Python float"
                                                                     : "Python complex";
    if (x.scalar_leaf < 0) return fmt::format("a {}", what);
    const std::string name = namer_ ? namer_(NodeKind::scalar, x.scalar_leaf) : to_text(g_, n.args[k]);
    return fmt::format("the {} {}", what, name);
  }

  Lowered lower(int i, const std::vector<Lowered>& done) {
    const ExprGraphNode& n = g_[i];
    auto arg = [&](int k) { return done[static_cast<std::size_t>(n.args[k])]; };
    switch (n.kind) {
      case NodeKind::input: return {n.leaf, program_.inputs[n.leaf]};
      case NodeKind::scalar: {
        const int value = program_.first_scalar() + n.leaf;
        return {value, program_.scalars[n.leaf], scalar_kinds_[n.leaf], n.leaf};
      }
      case NodeKind::cast: {
        const auto dtype = static_cast<DType>(n.code);
        return {convert(arg(0), dtype, false), dtype};
      }
      case NodeKind::unary: return unary(i, static_cast<UnaryOp>(n.code), arg(0));
      case NodeKind::binary: return binary(i, static_cast<Op>(n.code), arg(0), arg(1));
      case NodeKind::ternary: return ternary(i, static_cast<TernaryOp>(n.code), arg(0), arg(1), arg(2));
      case NodeKind::reduce:  // NOTE: [Expression passes] runs reductions before any program (a key's text may hold
                              // one)
        detail::fail(ErrorKind::value, "expression: {} is a reduction, which no elementwise program computes",
                     reduce_name(static_cast<ReduceOp>(n.code)));
    }
    return {};
  }

  int emit(InstrKind kind, std::uint8_t code, DType in, DType out, std::array<std::int32_t, 3> args) {
    program_.code.push_back({kind, code, in, out, args});
    return program_.first_instr() + static_cast<int>(program_.code.size()) - 1;
  }

  // x as a value of `dtype`. A weak int scalar meeting an integer dtype by
  // promotion is range-checked (an explicit cast wraps, as astype does).
  int convert(const Lowered& x, DType dtype, bool promoted) {
    if (promoted && x.kind == ScalarKind::weak_int && x.scalar_leaf >= 0 && is_integer(dtype)) {
      const ExprProgram::RangeCheck check{x.scalar_leaf, dtype};
      if (std::find(program_.range_checks.begin(), program_.range_checks.end(), check) == program_.range_checks.end())
        program_.range_checks.push_back(check);
    }
    if (x.dtype == dtype) return x.value;
    return emit(InstrKind::cast, 0, x.dtype, dtype, {x.value, -1, -1});
  }

  // NEP 50 over several operands: the strong ones by np.result_type, then
  // each weak one's effect; weak ones alone compute as Python would (a float
  // among them makes f64, else i64) and stay weak.
  struct Common {
    DType dtype;
    ScalarKind kind;
  };
  static Common common_of(std::initializer_list<Lowered> xs) {
    std::vector<DType> strong;
    bool weak_float = false, weak_complex = false;
    for (const Lowered& x : xs) {
      if (x.kind == ScalarKind::strong) strong.push_back(x.dtype);
      weak_float |= x.kind == ScalarKind::weak_float;
      weak_complex |= x.kind == ScalarKind::weak_complex;
    }
    if (strong.empty()) {
      const ScalarKind kind = weak_complex ? ScalarKind::weak_complex
                              : weak_float ? ScalarKind::weak_float
                                           : ScalarKind::weak_int;
      return {weak_default(kind), kind};
    }
    DType d = promote_types(strong);
    for (const Lowered& x : xs)
      if (x.kind != ScalarKind::strong) d = promote_weak(d, x.kind);
    return {d, ScalarKind::strong};
  }

  static ScalarKind weak_kind_of(DType d) {
    return is_complex(d) ? ScalarKind::weak_complex : is_floating(d) ? ScalarKind::weak_float : ScalarKind::weak_int;
  }

  Lowered binary(int node, Op op, const Lowered& a, const Lowered& b) {
    const detail::FunctionRow& row = detail::row(op);
    if (row.int_exponent) return exponent_op(node, op, a, b);
    const Common c = common_of({a, b});
    const std::optional<DType> loop = detail::loop_for(row, c.dtype);
    if (!loop)
      detail::fail(ErrorKind::dtype, "{} for dtype {} (operands {} and {})", not_defined(node, op_name(op)),
                   dtype_name(c.dtype), operand(g_[node], 0, a), operand(g_[node], 1, b));
    const int x = convert(a, *loop, true), y = convert(b, *loop, true);
    const DType out = detail::result_dtype_of(op, *loop);
    const ScalarKind kind = c.kind == ScalarKind::strong || out == DType::boolean ? ScalarKind::strong : weak_kind_of(out);
    return {emit(InstrKind::binary, static_cast<std::uint8_t>(op), *loop, out, {x, y, -1}), out, kind};
  }

  // ldexp(a, b): a in its float loop, b an integer (or bool) exponent as i64.
  Lowered exponent_op(int node, Op op, const Lowered& a, const Lowered& b) {
    const Common c = common_of({a});
    const std::optional<DType> loop = detail::loop_for(detail::row(op), c.dtype);
    if (!loop || is_floating(b.dtype))
      detail::fail(ErrorKind::dtype, "{} for operands {} and {} (a float, or an integer that becomes one, and an "
                                     "integer exponent)",
                   not_defined(node, op_name(op)), operand(g_[node], 0, a), operand(g_[node], 1, b));
    const int x = convert(a, *loop, true), y = convert(b, DType::i64, false);
    return {emit(InstrKind::binary, static_cast<std::uint8_t>(op), *loop, *loop, {x, y, -1}), *loop,
            c.kind == ScalarKind::strong ? ScalarKind::strong : ScalarKind::weak_float};
  }

  Lowered unary(int node, UnaryOp op, const Lowered& x) {
    // A weak scalar stays weak through a sign change (Python computes -x);
    // any other function makes NumPy's default dtype of it first.
    const bool stays_weak = x.kind != ScalarKind::strong && detail::row(op).keeps_weak;
    const std::optional<DType> loop = detail::loop_for(detail::row(op), x.dtype);
    if (!loop)
      detail::fail(ErrorKind::dtype, "expression {}: {} is not defined for dtype {}", text(node), unary_name(op),
                   dtype_name(x.dtype));
    const DType compute = *loop;
    const int v = convert(x, compute, false);
    const DType out = detail::unary_result_dtype(op, compute);
    return {emit(InstrKind::unary, static_cast<std::uint8_t>(op), compute, out, {v, -1, -1}), out,
            stays_weak ? weak_kind_of(out) : ScalarKind::strong};  // abs(1j) is a Python float
  }

  Lowered ternary(int node, TernaryOp op, const Lowered& a, const Lowered& b, const Lowered& c) {
    if (op == TernaryOp::where) {
      const int condition = convert(a, DType::boolean, false);  // its truth
      const Common common = common_of({b, c});
      const int x = convert(b, common.dtype, true), y = convert(c, common.dtype, true);
      // NumPy's where, clip and the like return arrays: strong, even of weak scalars.
      return {emit(InstrKind::ternary, static_cast<std::uint8_t>(op), common.dtype, common.dtype, {condition, x, y}),
              common.dtype, ScalarKind::strong};
    }
    const Common common = common_of({a, b, c});
    if (!detail::has_loop(detail::row(op), common.dtype))  // bool; complex (no order for clamp, no fma)
      detail::fail(ErrorKind::dtype, "expression {}: {} is not defined for dtype {}", text(node), ternary_name(op),
                   dtype_name(common.dtype));
    const int x = convert(a, common.dtype, true), y = convert(b, common.dtype, true), z = convert(c, common.dtype, true);
    return {emit(InstrKind::ternary, static_cast<std::uint8_t>(op), common.dtype, common.dtype, {x, y, z}),
            common.dtype, ScalarKind::strong};
  }

  const ExprGraph& g_;
  const LeafNamer& namer_;
  std::string_view call_;
  ExprProgram program_;
  std::vector<ScalarKind> scalar_kinds_;
};

}  // namespace

std::string leaf_type_name(const LeafType& t) {
  switch (t.kind) {
    case ScalarKind::weak_int: return "~int";
    case ScalarKind::weak_float: return "~float";
    case ScalarKind::weak_complex: return "~complex";
    case ScalarKind::strong: break;
  }
  return std::string(dtype_name(t.dtype));
}

std::optional<LeafType> parse_leaf_type(std::string_view name) {
  if (name == "~int") return LeafType{ScalarKind::weak_int, DType::i64};
  if (name == "~float") return LeafType{ScalarKind::weak_float, DType::f64};
  if (name == "~complex") return LeafType{ScalarKind::weak_complex, DType::c128};
  if (const std::optional<DType> d = parse_dtype(name)) return LeafType{ScalarKind::strong, *d};
  return std::nullopt;
}

DType ExprProgram::dtype_of(int value) const {
  if (value < first_scalar()) return inputs[static_cast<std::size_t>(value)];
  if (value < first_instr()) return scalars[static_cast<std::size_t>(value - first_scalar())];
  return code[static_cast<std::size_t>(value - first_instr())].out;
}

ExprProgram lower_expression(const ExprGraph& graph, std::span<const LeafType> inputs,
                             std::span<const LeafType> scalars, const LeafNamer& leaf_name, std::string_view call) {
  return Lowering(graph, inputs, scalars, leaf_name, call).run();
}

const detail::FunctionRow* row_of(const ExprInstr& step) {
  if (step.kind == InstrKind::unary) return &detail::row(static_cast<UnaryOp>(step.code));
  if (step.kind == InstrKind::binary) return &detail::row(static_cast<Op>(step.code));
  return nullptr;
}

bool calls_math_function(const ExprProgram& program) {
  return std::any_of(program.code.begin(), program.code.end(), [](const ExprInstr& s) {
    const detail::FunctionRow* row = row_of(s);
    return row && (is_floating(s.in) || is_complex(s.in)) && (!row->math.empty() || !row->accuracy.exact());
  });
}

bool divides(const ExprProgram& program) {
  return std::any_of(program.code.begin(), program.code.end(), [](const ExprInstr& s) {
    if (!is_floating(s.in) && !is_complex(s.in)) return false;
    if (s.kind == InstrKind::binary) {
      const auto op = static_cast<Op>(s.code);
      return op == Op::div || op == Op::floor_div || op == Op::remainder || op == Op::fmod;
    }
    if (s.kind == InstrKind::unary) {
      const auto op = static_cast<UnaryOp>(s.code);
      return op == UnaryOp::sqrt || op == UnaryOp::reciprocal || (op == UnaryOp::abs && is_complex(s.in));
    }
    return false;
  });
}

}  // namespace bcast
