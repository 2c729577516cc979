// The expression oracle of oracle_expr.h: typing by docs/semantics.md's
// promotion rules, then each element node by node.
#include "oracle_expr.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "oracle.h"

namespace bcast::test {
namespace oracle_expr {

namespace {
OracleExpr make(OracleNode n) { return std::make_shared<const OracleNode>(std::move(n)); }
}  // namespace

OracleExpr input(int k) { return make({.kind = OracleNode::Kind::input, .input = k}); }
OracleExpr weak(std::int64_t value) { return make({.kind = OracleNode::Kind::weak_int, .integer = value}); }
OracleExpr weak(double value) { return make({.kind = OracleNode::Kind::weak_float, .number = value}); }
OracleExpr apply(Op op, OracleExpr a, OracleExpr b) {
  return make({.kind = OracleNode::Kind::binary, .op = op, .args = {std::move(a), std::move(b)}});
}
OracleExpr apply(UnaryOp op, OracleExpr x) {
  return make({.kind = OracleNode::Kind::unary, .unary = op, .args = {std::move(x)}});
}
OracleExpr apply(TernaryOp op, OracleExpr a, OracleExpr b, OracleExpr c) {
  return make({.kind = OracleNode::Kind::ternary, .ternary = op, .args = {std::move(a), std::move(b), std::move(c)}});
}
OracleExpr cast(OracleExpr x, DType to) {
  return make({.kind = OracleNode::Kind::cast, .to = to, .args = {std::move(x)}});
}

}  // namespace oracle_expr

namespace {

using Kind = OracleNode::Kind;

// ---- promotion, as docs/semantics.md's table states it ----

// 0: f16 and bf16 (and the integers they hold: bool, i8, u8), 1: f32 (i16,
// u16), 2: f64 (the wider integers).
int float_rank(DType d) {
  if (d == DType::f16 || d == DType::bf16) return 0;
  if (d == DType::f32) return 1;
  if (d == DType::f64) return 2;
  if (d == DType::boolean || dtype_size(d) == 1) return 0;
  return dtype_size(d) == 2 ? 1 : 2;
}

DType float_of_rank(int rank) { return rank == 0 ? DType::f16 : rank == 1 ? DType::f32 : DType::f64; }

// Two floats: the wider; f16 with bf16 meet at f32.
DType wider_float(DType a, DType b) {
  if (a == b) return a;
  if (float_rank(a) == float_rank(b)) return DType::f32;
  return float_rank(a) > float_rank(b) ? a : b;
}

DType signed_int(std::size_t bytes) {
  return bytes == 1 ? DType::i8 : bytes == 2 ? DType::i16 : bytes == 4 ? DType::i32 : DType::i64;
}

// Two integers (not bool): one signedness, the wider; mixed, the narrowest
// signed integer holding both, or f64 for i64 with u64.
DType two_integers(DType a, DType b) {
  if (is_unsigned(a) == is_unsigned(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
  const DType s = is_unsigned(a) ? b : a, u = is_unsigned(a) ? a : b;
  if (dtype_size(s) > dtype_size(u)) return s;
  return dtype_size(u) < 8 ? signed_int(2 * dtype_size(u)) : DType::f64;
}

DType real_result_type(std::span<const DType> dtypes);

// np.result_type of strong dtypes, all at once. With a complex one: the
// complex dtype whose part holds the result type of the parts and the rest
// (c64 with f64 or i32 is c128; with f16, bf16, f32 or i16 stays c64).
DType result_type(std::span<const DType> dtypes) {
  if (std::none_of(dtypes.begin(), dtypes.end(), [](DType d) { return is_complex(d); })) return real_result_type(dtypes);
  std::vector<DType> parts;
  for (const DType d : dtypes) parts.push_back(is_complex(d) ? (d == DType::c64 ? DType::f32 : DType::f64) : d);
  const DType part = real_result_type(parts);
  return float_rank(part) == 2 ? DType::c128 : DType::c64;
}

DType real_result_type(std::span<const DType> dtypes) {
  DType floats = DType::boolean, ints = DType::boolean;
  bool any_float = false, any_int = false;
  for (const DType d : dtypes) {
    if (is_floating(d)) {
      floats = any_float ? wider_float(floats, d) : d;
      any_float = true;
    } else if (d != DType::boolean) {
      ints = !any_int ? d : is_floating(ints) ? ints : two_integers(ints, d);
      any_int = true;
    }
  }
  if (any_int && is_floating(ints)) {  // i64 with u64 gave f64
    floats = any_float ? wider_float(floats, ints) : ints;
    any_float = true;
  }
  if (!any_float) return ints;
  // An integer lifts the float only where the float ranks below the float
  // that holds it (u8 with bf16 stays bf16, as with f16).
  if (any_int && float_rank(ints) > float_rank(floats)) return wider_float(floats, float_of_rank(float_rank(ints)));
  return floats;
}

// ---- typing ----

enum class Weak { no, integer, floating };

struct Typed {
  DType dtype = DType::boolean;  // a weak value's is i64 or f64, as Python holds it
  Weak weak = Weak::no;
  const OracleNode* scalar_leaf = nullptr;  // a weak int scalar as written, for the range check
};

// The dtype several operands compute in (NEP 50): the strong ones' result
// type, then each weak one's effect; weak ones alone stay weak.
Typed common(std::span<const Typed> xs) {
  std::vector<DType> strong;
  bool weak_float = false;
  for (const Typed& x : xs) {
    if (x.weak == Weak::no) strong.push_back(x.dtype);
    weak_float = weak_float || x.weak == Weak::floating;
  }
  if (strong.empty()) return weak_float ? Typed{DType::f64, Weak::floating} : Typed{DType::i64, Weak::integer};
  DType d = result_type(strong);
  for (const Typed& x : xs) {
    if (x.weak == Weak::integer && d == DType::boolean) d = DType::i64;
    if (x.weak == Weak::floating && !is_floating(d) && !is_complex(d)) d = DType::f64;
  }
  return {d, Weak::no};
}

// Which loops NumPy's ufunc has (its `types`, read off NumPy 1.24), and so
// where an operand of another dtype goes: a float function takes integers
// and bool to the smallest float that holds them; an integer function takes
// bool to i8, unless NumPy refuses bool outright.
enum class Loops { all, numbers, numbers_bool_i8, floats, f32_f64, f64, integers, integers_bool_i8, integers_and_bool };

Loops binary_loops(Op op) {
  switch (op) {
    case Op::sub: return Loops::numbers;
    case Op::floor_div: case Op::pow: case Op::remainder: case Op::fmod: return Loops::numbers_bool_i8;
    case Op::arctan2: case Op::hypot: case Op::copysign: case Op::nextafter: case Op::ldexp: case Op::logaddexp:
    case Op::logaddexp2: case Op::heaviside: return Loops::floats;
    case Op::float_power: return Loops::f64;
    case Op::complex: return Loops::f32_f64;
    case Op::gcd: case Op::lcm: return Loops::integers;
    case Op::left_shift: case Op::right_shift: return Loops::integers_bool_i8;
    case Op::bit_and: case Op::bit_or: case Op::bit_xor: return Loops::integers_and_bool;
    default: return Loops::all;
  }
}

Loops unary_loops(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: case UnaryOp::positive: case UnaryOp::sign: case UnaryOp::floor: case UnaryOp::ceil:
    case UnaryOp::round: case UnaryOp::trunc: return Loops::numbers;
    case UnaryOp::square: case UnaryOp::reciprocal: case UnaryOp::conj: return Loops::numbers_bool_i8;
    case UnaryOp::bit_not: return Loops::integers_and_bool;
    case UnaryOp::abs: case UnaryOp::logical_not: case UnaryOp::copy: case UnaryOp::ones_like: case UnaryOp::isnan:
    case UnaryOp::isinf: case UnaryOp::isfinite: case UnaryOp::real: case UnaryOp::imag: return Loops::all;
    default: return Loops::floats;  // sqrt exp ... spacing signbit
  }
}

// NumPy 1.24's ufuncs with complex loops ('F' and 'D' among their types).
bool has_complex_loop(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::pow: case Op::float_power: case Op::eq:
    case Op::ne: case Op::lt: case Op::le: case Op::gt: case Op::ge: case Op::logical_and: case Op::logical_or:
    case Op::logical_xor: case Op::max: case Op::min: case Op::fmax: case Op::fmin:
      return true;
    default: return false;
  }
}

bool has_complex_loop(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: case UnaryOp::positive: case UnaryOp::sign: case UnaryOp::round: case UnaryOp::square:
    case UnaryOp::reciprocal: case UnaryOp::conj: case UnaryOp::abs: case UnaryOp::logical_not: case UnaryOp::copy:
    case UnaryOp::ones_like: case UnaryOp::isnan: case UnaryOp::isinf: case UnaryOp::isfinite: case UnaryOp::real:
    case UnaryOp::imag: case UnaryOp::sqrt: case UnaryOp::exp: case UnaryOp::exp2: case UnaryOp::expm1:
    case UnaryOp::log: case UnaryOp::log2: case UnaryOp::log10: case UnaryOp::log1p: case UnaryOp::sin:
    case UnaryOp::cos: case UnaryOp::tan: case UnaryOp::sinh: case UnaryOp::cosh: case UnaryOp::tanh:
    case UnaryOp::arcsin: case UnaryOp::arccos: case UnaryOp::arctan: case UnaryOp::arcsinh: case UnaryOp::arccosh:
    case UnaryOp::arctanh:
      return true;
    default: return false;
  }
}

// The dtype an operand of dtype d computes in, or nullopt: refused. (A
// complex operand: has_complex_loop decides first.)
std::optional<DType> loop_dtype(Loops loops, DType d) {
  if (is_complex(d)) return loops == Loops::f64 ? DType::c128 : d;
  const bool boolean = d == DType::boolean;
  switch (loops) {
    case Loops::all: return d;
    case Loops::numbers: if (boolean) return std::nullopt; return d;
    case Loops::numbers_bool_i8: return boolean ? DType::i8 : d;
    case Loops::floats: return is_floating(d) ? d : float_of_rank(float_rank(d));
    case Loops::f64: return DType::f64;
    case Loops::f32_f64: return float_rank(d) == 2 ? DType::f64 : DType::f32;
    case Loops::integers: if (boolean || is_floating(d)) return std::nullopt; return d;
    case Loops::integers_bool_i8: if (is_floating(d)) return std::nullopt; return boolean ? DType::i8 : d;
    case Loops::integers_and_bool: if (is_floating(d)) return std::nullopt; return d;
  }
  return std::nullopt;
}

DType binary_result(Op op, DType d) {
  switch (op) {
    case Op::eq: case Op::ne: case Op::lt: case Op::le: case Op::gt: case Op::ge:
    case Op::logical_and: case Op::logical_or: case Op::logical_xor: return DType::boolean;
    case Op::div: return is_floating(d) || is_complex(d) ? d : DType::f64;
    case Op::complex: return d == DType::f64 ? DType::c128 : DType::c64;
    default: return d;
  }
}


bool is_predicate(UnaryOp op) {
  return op == UnaryOp::logical_not || op == UnaryOp::isnan || op == UnaryOp::isinf || op == UnaryOp::isfinite ||
         op == UnaryOp::signbit;
}

// A unary op's result dtype from its loop's: a predicate's bool; abs, real
// and imag of a complex number its part's dtype.
DType unary_result(UnaryOp op, DType d) {
  if (is_predicate(op)) return DType::boolean;
  if (is_complex(d) && (op == UnaryOp::abs || op == UnaryOp::real || op == UnaryOp::imag))
    return d == DType::c64 ? DType::f32 : DType::f64;
  return d;
}

struct Refusal {
  ErrorKind kind;
  std::string why;
};

bool fits(std::int64_t v, DType d) {
  if (d == DType::u64) return v >= 0;
  if (d == DType::i64) return true;
  const int bits = static_cast<int>(8 * dtype_size(d));
  const std::int64_t lowest = is_unsigned(d) ? 0 : -(std::int64_t{1} << (bits - 1));
  const std::int64_t highest = is_unsigned(d) ? (std::int64_t{1} << bits) - 1 : (std::int64_t{1} << (bits - 1)) - 1;
  return v >= lowest && v <= highest;
}

class Typer {
 public:
  explicit Typer(std::span<const DType> inputs) : inputs_(inputs) {}

  Typed type(const OracleNode& n) const {
    std::vector<Typed> a;
    for (const OracleExpr& x : n.args) a.push_back(type(*x));
    return of(n, a);
  }

  // A node's type from its operands' types.
  Typed of(const OracleNode& n, std::span<const Typed> a) const {
    switch (n.kind) {
      case Kind::input: return {inputs_[static_cast<std::size_t>(n.input)]};
      case Kind::weak_int: return {DType::i64, Weak::integer, &n};
      case Kind::weak_float: return {DType::f64, Weak::floating};
      case Kind::cast: return {n.to};
      case Kind::unary: return unary(n.unary, a[0]);
      case Kind::binary: return binary(n.op, a);
      case Kind::ternary: return ternary(n.ternary, a);
    }
    return {};
  }

 private:
  [[noreturn]] static void refuse(ErrorKind kind, std::string why) { throw Refusal{kind, std::move(why)}; }

  // A weak int scalar as written meets an integer dtype: it must fit.
  static void check_range(std::span<const Typed> xs, DType d) {
    for (const Typed& x : xs)
      if (x.scalar_leaf && is_integer(d) && !fits(x.scalar_leaf->integer, d))
        refuse(ErrorKind::value, std::to_string(x.scalar_leaf->integer) + " does not fit " + std::string(dtype_name(d)));
  }

  static Typed binary(Op op, std::span<const Typed> a) {
    if (op == Op::ldexp) {  // a float (or an integer that becomes one) times 2 to an integer
      if (is_floating(a[1].dtype)) refuse(ErrorKind::dtype, "ldexp with a float exponent");
      return {*loop_dtype(Loops::floats, common(a.subspan(0, 1)).dtype)};
    }
    const Typed c = common(a);
    if (is_complex(c.dtype) && !has_complex_loop(op))
      refuse(ErrorKind::dtype, std::string(op_name(op)) + " on " + std::string(dtype_name(c.dtype)));
    const std::optional<DType> loop = loop_dtype(binary_loops(op), c.dtype);
    if (!loop) refuse(ErrorKind::dtype, std::string(op_name(op)) + " on " + std::string(dtype_name(c.dtype)));
    check_range(a, *loop);
    const DType out = binary_result(op, *loop);
    // Python computes on weak values alone, and the result stays weak (a
    // comparison's bool is strong).
    if (c.weak == Weak::no || out == DType::boolean) return {out};
    return {out, is_floating(out) ? Weak::floating : Weak::integer};
  }

  static Typed unary(UnaryOp op, const Typed& x) {
    const std::optional<DType> loop =
        is_complex(x.dtype) && !has_complex_loop(op) ? std::nullopt : loop_dtype(unary_loops(op), x.dtype);
    if (!loop) refuse(ErrorKind::dtype, std::string(unary_name(op)) + " on " + std::string(dtype_name(x.dtype)));
    const DType d = *loop;
    const DType out = unary_result(op, d);
    // Python's -x, +x and abs(x) keep a weak scalar weak; NumPy's functions make it strong.
    const bool stays_weak = op == UnaryOp::neg || op == UnaryOp::abs || op == UnaryOp::positive;
    return {out, stays_weak ? x.weak : Weak::no};
  }

  static Typed ternary(TernaryOp op, std::span<const Typed> a) {
    const std::span<const Typed> values = op == TernaryOp::where ? a.subspan(1) : a;
    const Typed c = common(values);
    if (op != TernaryOp::where && (c.dtype == DType::boolean || is_complex(c.dtype)))
      refuse(ErrorKind::dtype, std::string(ternary_name(op)) + " on " + std::string(dtype_name(c.dtype)));
    check_range(values, c.dtype);
    return {c.dtype};  // NumPy's where, clip and fma return arrays: strong
  }

  std::span<const DType> inputs_;
};

// ---- values ----

class Evaluator {
 public:
  Evaluator(std::span<const TensorView> inputs, std::span<const DType> dtypes, const std::vector<std::int64_t>& index)
      : inputs_(inputs), typer_(dtypes), index_(index) {}

  struct Value {
    Expected x;
    Typed t;
  };

  // A node's value; approximate when an operand came from an inexact
  // function (Expected::approximate).
  Value value(const OracleNode& n) {
    Value v = exact_value(n);
    for (const OracleExpr& x : n.args)
      if (const Expected& arg = last_[x.get()]; arg.ulps > 0 || arg.approximate) v.x.approximate = true;
    last_[&n] = v.x;
    return v;
  }

  Value exact_value(const OracleNode& n) {
    std::vector<Value> a;
    for (const OracleExpr& x : n.args) a.push_back(value(*x));
    std::vector<Typed> types;
    for (const Value& v : a) types.push_back(v.t);
    const Typed t = typer_.of(n, types);
    switch (n.kind) {
      case Kind::input: {
        const TensorView& view = inputs_[static_cast<std::size_t>(n.input)];
        return {element_read_at(view, index_), t};
      }
      case Kind::weak_int: return {oracle_values::of_integer(n.integer, DType::i64), t};
      case Kind::weak_float: return {oracle_values::of_double(n.number, DType::f64), t};
      case Kind::cast: return {oracle_values::convert(a[0].x, a[0].t.dtype, n.to), t};
      case Kind::unary: {
        const DType d = *loop_dtype(unary_loops(n.unary), a[0].t.dtype);
        return {oracle_values::unary(n.unary, d, oracle_values::convert(a[0].x, a[0].t.dtype, d)), t};
      }
      case Kind::binary: {
        if (n.op == Op::ldexp) {  // an integer exponent, as i64
          const DType d = *loop_dtype(Loops::floats, types[0].dtype);
          return {oracle_values::binary(n.op, d, as(a[0], d), as(a[1], DType::i64)), t};
        }
        const DType d = *loop_dtype(binary_loops(n.op), common(types).dtype);
        return {oracle_values::binary(n.op, d, as(a[0], d), as(a[1], d)), t};
      }
      case Kind::ternary: break;
    }
    const DType d = t.dtype;
    if (n.ternary == TernaryOp::where) {
      const Expected condition = oracle_values::convert(a[0].x, a[0].t.dtype, DType::boolean);
      return {oracle_values::ternary(n.ternary, d, condition, as(a[1], d), as(a[2], d)), t};
    }
    return {oracle_values::ternary(n.ternary, d, as(a[0], d), as(a[1], d), as(a[2], d)), t};
  }

 private:
  static Expected as(const Value& v, DType d) { return oracle_values::convert(v.x, v.t.dtype, d); }

  std::span<const TensorView> inputs_;
  Typer typer_;
  const std::vector<std::int64_t>& index_;
  std::unordered_map<const OracleNode*, Expected> last_;  // each node's value at this index
};

std::string hex(std::uint64_t bits) {
  std::ostringstream s;
  s << "0x" << std::hex << bits;
  return s.str();
}

}  // namespace

std::optional<DType> oracle_loop(Op op, DType d) {
  if (is_complex(d) && !has_complex_loop(op)) return std::nullopt;
  return loop_dtype(binary_loops(op), d);
}
DType oracle_result(Op op, DType loop) { return binary_result(op, loop); }

OracleTyping oracle_type(const OracleExpr& e, std::span<const DType> inputs) {
  try {
    return {.dtype = Typer(inputs).type(*e).dtype};
  } catch (const Refusal& r) {
    return {.refused = true, .refusal = r.kind, .why = r.why};
  }
}

std::vector<Expected> oracle(const OracleExpr& e, std::span<const TensorView> inputs, const Shape& out_shape) {
  std::int64_t count = 1;
  for (const std::int64_t extent : out_shape) count *= extent;
  std::vector<Expected> want;
  want.reserve(static_cast<std::size_t>(count));
  std::vector<DType> dtypes;
  for (const TensorView& v : inputs) dtypes.push_back(v.dtype());
  std::vector<std::int64_t> index(out_shape.size(), 0);
  for (std::int64_t i = 0; i < count; ++i, next_index(index, out_shape))
    want.push_back(Evaluator(inputs, dtypes, index).value(*e).x);
  return want;
}

std::string oracle_mismatch(const OracleExpr& e, std::span<const TensorView> inputs, const TensorView& got) {
  std::vector<DType> dtypes;
  for (const TensorView& v : inputs) dtypes.push_back(v.dtype());
  const OracleTyping typing = oracle_type(e, dtypes);
  if (typing.refused) return "the oracle refuses the expression: " + typing.why;
  if (typing.dtype != got.dtype())
    return "the result is " + std::string(dtype_name(got.dtype())) + ", the oracle's " +
           std::string(dtype_name(typing.dtype));
  const std::vector<Expected> want = oracle(e, inputs, got.shape());
  const std::string bad = oracle_mismatch(want, got);
  if (bad.empty() || !bad.starts_with("element ")) return bad;
  // The inputs at the first bad element, for the report.
  const std::int64_t position = std::stoll(bad.substr(bad.find(' ') + 1));
  std::vector<std::int64_t> index(got.shape().size(), 0);
  for (std::int64_t i = 0; i < position; ++i) next_index(index, got.shape());
  std::string where = bad + " (inputs";
  for (const TensorView& v : inputs)
    where += " " + std::string(dtype_name(v.dtype())) + ":" + describe_element(element_read_at(v, index), v.dtype());
  return where + ")";
}

}  // namespace bcast::test
