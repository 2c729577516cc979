// The Ascend-style lowering (NOTE: [Ascend lowering]).
#include "ascend_lowering.h"
#include "function_table.h"

#include <fmt/format.h>

#include "expr_kernel.h"

namespace bcast::ascend {
namespace {

// The vector instruction of an op, and its scalar form where there is one.
struct OpInstr {
  Op op;
  Instr tensor, scalar;
  bool has_scalar_form;
};
constexpr OpInstr kOpInstrs[] = {
    {Op::add, Instr::Add, Instr::Adds, true},  {Op::sub, Instr::Sub, Instr::Adds, true},
    {Op::mul, Instr::Mul, Instr::Muls, true},  {Op::div, Instr::Div, Instr::Div, false},
    {Op::max, Instr::Max, Instr::Maxs, true},  {Op::min, Instr::Min, Instr::Mins, true},
    {Op::bit_and, Instr::And, Instr::And, false}, {Op::bit_or, Instr::Or, Instr::Or, false},
};

const OpInstr* instr_of(Op op) {
  for (const OpInstr& i : kOpInstrs)
    if (i.op == op) return &i;
  return nullptr;
}

std::string type_name(DType t) { return std::string(ascend_type_name(t).value_or(dtype_name(t))); }

// Whether every value of `from` is a value of `to`: a Cast through `to` loses nothing.
bool holds_exactly(DType to, DType from) {
  switch (to) {
    case DType::f16: return from == DType::u8 || from == DType::i8 || from == DType::boolean;
    case DType::f32:
      return from == DType::u8 || from == DType::i8 || from == DType::u16 || from == DType::i16 ||
             from == DType::f16 || from == DType::bf16 || from == DType::boolean;
    default: return false;
  }
}

// Which input classes a key's inputs fall in (NOTE: [Ascend lowering]).
struct Shape {
  int rank = 0;
  std::vector<InnerStride> inner;  // out, then each input
  BroadcastType type;
};

class Lowerer {
 public:
  Lowerer(const Product& product, const ExprProgram& program, const Shape& shape)
      : product_(product), program_(program), shape_(shape) {}

  Lowering run() {
    out_.inputs = program_.inputs;
    out_.scalars = program_.scalars;
    out_.out = program_.out_dtype;
    if (shape_.rank > 0 && shape_.inner[0] != InnerStride::unit)
      return refuse("out's innermost stride is not 1 (a strided output needs a scatter step, not modelled)");
    // A dtype the AI core has (bool as uint8_t) but the product does not
    // (310P: bfloat16_t) cannot even be copied; the others fail later, at
    // the instruction that would compute on them.
    const Instr copy = product_.has_data_copy_pad ? Instr::DataCopyPad : Instr::DataCopy;
    auto copyable = [&](DType t) { return !ascend_type_name(t) || product_.has(copy, t); };
    if (!copyable(out_.out)) return refuse(fmt::format("{} has no {} (out)", instr_name(copy), type_name(out_.out)));
    for (std::size_t k = 0; k < program_.inputs.size(); ++k) {
      if (!copyable(program_.inputs[k]))
        return refuse(fmt::format("{} has no {} (x{})", instr_name(copy), type_name(program_.inputs[k]), k));
      if (!classify(static_cast<int>(k))) return out_;
    }
    for (std::size_t j = 0; j < program_.scalars.size(); ++j) values_.push_back(Ref{Ref::scalar_arg, static_cast<int>(j)});
    for (const ExprInstr& instr : program_.code)
      if (!lower(instr)) return out_;
    if (values_.back().is_register())  // a program of scalars alone: spread the result
      if (!duplicate(values_.back(), program_.out_dtype)) return out_;
    if (out_.steps.empty() || out_.steps.back().scalar_unit)
      return refuse("the expression computes nothing on the vector unit");
    return out_;
  }

 private:
  Lowering& refuse(std::string why) {
    if (out_.refused.empty()) out_.refused = fmt::format("{}: {}", product_.name, why);
    return out_;
  }

  bool classify(int k) {
    const DType t = program_.inputs[static_cast<std::size_t>(k)];
    const std::string name = fmt::format("x{}", k);
    Fetch f = Fetch::stream;
    if (shape_.rank > 0) {
      const InnerStride inner = shape_.inner[static_cast<std::size_t>(k) + 1];
      bool everywhere = true;
      for (DimCode c : shape_.type) everywhere = everywhere && repeats(c, k);
      const bool along_rows = shape_.rank >= 2 && repeats(shape_.type[shape_.type.size() - 2], k);
      if (everywhere) f = Fetch::scalar;
      else if (inner == InnerStride::zero) f = Fetch::column;
      else if (inner == InnerStride::strided || inner == InnerStride::reversed) f = Fetch::gather;
      else if (along_rows) f = Fetch::row;
    }
    if (f == Fetch::column && !product_.has(Instr::Brcb, t))
      return refuse(fmt::format("{} is a column, and Brcb has no {}", name, type_name(t))), false;
    if (f == Fetch::gather && !product_.has_data_copy_pad)
      return refuse(fmt::format("{}'s innermost stride is not 1, and without DataCopyPad no copy spreads its elements "
                                "for Gather", name)), false;
    if (f == Fetch::gather && !product_.has(Instr::Gather, t))
      return refuse(fmt::format("{}'s innermost stride is not 1, and Gather has no {}", name, type_name(t))), false;
    if (f == Fetch::gather) out_.gathers = true;
    if (f == Fetch::row || f == Fetch::column) out_.per_row = true;
    out_.fetch.push_back(f);
    values_.push_back(Ref{f == Fetch::scalar ? Ref::scalar_input : Ref::input, k});
    return true;
  }

  // A tensor of `t` holding register r's value.
  bool duplicate(Ref& r, DType t) {
    if (!product_.has(Instr::Duplicate, t))
      return refuse(fmt::format("Duplicate has no {}, to spread a scalar", type_name(t))), false;
    out_.steps.push_back(Step{.instr = Instr::Duplicate, .dtype = t, .args = {r}});
    r = Ref{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    return true;
  }

  bool scalar_unit(const ExprInstr& instr, const std::vector<Ref>& args) {
    Step s{.dtype = instr.out, .src_dtype = instr.in, .scalar_unit = true, .node = instr};
    for (std::size_t a = 0; a < args.size(); ++a) s.args[a] = args[a];
    out_.steps.push_back(s);
    values_.push_back(Ref{Ref::scalar_step, static_cast<int>(out_.steps.size()) - 1});
    return true;
  }

  bool lower(const ExprInstr& instr) {
    std::vector<Ref> args;
    bool all_registers = true;
    for (int a = 0; a < instr.arity(); ++a) {
      args.push_back(values_[static_cast<std::size_t>(instr.args[a])]);
      all_registers = all_registers && args.back().is_register();
    }
    if (all_registers) return scalar_unit(instr, args);  // the scalar unit computes it, as C++ would
    switch (instr.kind) {
      case InstrKind::cast: return cast(args[0], instr.in, instr.out);
      case InstrKind::binary: return binary(static_cast<Op>(instr.code), instr.in, args[0], args[1]);
      case InstrKind::unary:
        return refuse(fmt::format("{} has no modelled vector instruction", unary_name(static_cast<UnaryOp>(instr.code)))),
               false;
      case InstrKind::ternary: return refuse("where, clamp and fma have no modelled vector instructions"), false;
    }
    return false;
  }

  bool cast(Ref x, DType from, DType to) {
    if (x.is_register() && !duplicate(x, from)) return false;
    const int none = static_cast<int>(RoundMode::none), trunc = static_cast<int>(RoundMode::trunc);
    // bcast's casts: floats to integers truncate and saturate; the rest round to nearest even.
    const bool to_int = is_floating(from) && !is_floating(to);
    const RoundMode mode = to_int ? RoundMode::trunc : RoundMode::none;
    auto can = [&](DType f, DType t) {
      return product_.can_cast(f, t, to_int && !is_floating(t) ? trunc : none) ||
             (!to_int && product_.can_cast(f, t, static_cast<int>(RoundMode::rint)));
    };
    auto step = [&](DType f, DType t) {
      const RoundMode m = product_.can_cast(f, t, static_cast<int>(mode)) ? mode : RoundMode::rint;
      out_.steps.push_back(Step{.instr = Instr::Cast, .dtype = t, .src_dtype = f, .args = {x}, .round = m});
      x = Ref{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    };
    if (can(from, to)) {
      step(from, to);
    } else {
      bool done = false;
      for (DType mid : {DType::f16, DType::f32})
        if (!done && holds_exactly(mid, from) && can(from, mid) && can(mid, to)) {
          step(from, mid);
          step(mid, to);
          done = true;
        }
      if (!done) return refuse(fmt::format("Cast has no {} to {}, directly or exactly through half or float",
                                           type_name(from), type_name(to))),
                    false;
    }
    values_.push_back(x);
    return true;
  }

  // NOTE: [Ascend lowering]'s comparisons: Compare, Select, Cast.
  bool compare(Op op, DType t, Ref a, Ref b) {
    constexpr Op kOps[] = {Op::lt, Op::gt, Op::eq, Op::le, Op::ge, Op::ne};  // CMPMODE's order
    CmpMode mode = CmpMode::lt;
    for (int m = 0; m < 6; ++m)
      if (kOps[m] == op) mode = static_cast<CmpMode>(m);
    // int32_t compares for EQ only: NE is EQ with 0 and 1 swapped.
    const bool swapped = t == DType::i32 && mode == CmpMode::ne;
    if (swapped) mode = CmpMode::eq;
    if (!product_.has(Instr::Compare, t) || (t == DType::i32 && mode != CmpMode::eq))
      return refuse(fmt::format("Compare has no {} for {}", type_name(t), cmp_mode_name(mode))), false;
    if (out_.per_row) return refuse("a comparison with a row or column input needs a bit array a row (not modelled)"), false;
    if (a.is_register() && !duplicate(a, t)) return false;
    if (b.is_register() && !duplicate(b, t)) return false;
    out_.steps.push_back(Step{.instr = Instr::Compare, .dtype = t, .args = {a, b, Ref{}},
                              .mode = static_cast<std::uint8_t>(mode)});
    // Documented: Compare's count form computes whole 256-byte repeats, so
    // the launcher makes every tile's count a multiple of them.
    out_.count_granule =
        std::max<std::int64_t>(out_.count_granule, kRepeatBytes / static_cast<std::int64_t>(dtype_size(t)));
    const Ref bits{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    constexpr int kHalfOne = 0x3c00, kHalfZero = 0;
    Ref picked{Ref::constant, swapped ? kHalfZero : kHalfOne};
    if (!duplicate(picked, DType::f16)) return false;
    out_.steps.push_back(Step{.instr = Instr::Select, .dtype = DType::f16,
                              .args = {picked, Ref{Ref::constant, swapped ? kHalfOne : kHalfZero}, bits},
                              .mode = static_cast<std::uint8_t>(SelMode::tensor_scalar)});
    Ref r{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    out_.steps.push_back(Step{.instr = Instr::Cast, .dtype = DType::u8, .src_dtype = DType::f16, .args = {r}});
    values_.push_back(Ref{Ref::step, static_cast<int>(out_.steps.size()) - 1});
    return true;
  }

  bool binary(Op op, DType t, Ref a, Ref b) {
    if (op == Op::eq || op == Op::ne || op == Op::lt || op == Op::le || op == Op::gt || op == Op::ge)
      return compare(op, t, a, b);
    const OpInstr* oi = instr_of(op);
    if (oi == nullptr) return refuse(fmt::format("{} has no modelled vector instruction", op_name(op))), false;
    // bf16 arithmetic runs in float and rounds back (NumPy's bf16 rounds so);
    // not max and min, which hand back an input's bits (a NaN's payload too).
    const bool through_f32 = !product_.has(oi->tensor, t) && t == DType::bf16 && op != Op::max && op != Op::min &&
                             product_.has(oi->tensor, DType::f32) &&
                             product_.can_cast(DType::bf16, DType::f32, 0) &&
                             product_.can_cast(DType::f32, DType::bf16, static_cast<int>(RoundMode::rint));
    if (!product_.has(oi->tensor, t) && !through_f32)
      return refuse(fmt::format("{} has no {}", instr_name(oi->tensor), type_name(t))), false;
    const DType c = through_f32 ? DType::f32 : t;
    auto widen = [&](Ref& r) {
      if (!through_f32) return;
      if (r.is_register()) {  // the scalar unit converts a register
        const ExprInstr cast{.kind = InstrKind::cast, .in = t, .out = c, .args = {0, -1, -1}};
        out_.steps.push_back(Step{.dtype = c, .src_dtype = t, .args = {r}, .scalar_unit = true, .node = cast});
        r = Ref{Ref::scalar_step, static_cast<int>(out_.steps.size()) - 1};
        return;
      }
      out_.steps.push_back(Step{.instr = Instr::Cast, .dtype = c, .src_dtype = t, .args = {r}});
      r = Ref{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    };
    widen(a);
    widen(b);
    // A register operand: the scalar form (x - s as x + (-s), exact), else Duplicate.
    if (a.is_register() && oi->has_scalar_form && op != Op::sub) std::swap(a, b);
    Step s{.instr = oi->tensor, .dtype = c, .args = {a, b, Ref{}}};
    if (b.is_register() && oi->has_scalar_form && product_.has(oi->scalar, c)) {
      s.instr = oi->scalar;
      s.negate_scalar = op == Op::sub;
    } else {
      if (a.is_register() && !duplicate(a, c)) return false;
      if (b.is_register() && !duplicate(b, c)) return false;
      s.args = {a, b, Ref{}};
    }
    out_.steps.push_back(s);
    Ref r{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    if (through_f32) {
      out_.steps.push_back(
          Step{.instr = Instr::Cast, .dtype = t, .src_dtype = c, .args = {r}, .round = RoundMode::rint});
      r = Ref{Ref::step, static_cast<int>(out_.steps.size()) - 1};
    }
    values_.push_back(r);
    return true;
  }

  const Product& product_;
  const ExprProgram& program_;
  const Shape& shape_;
  Lowering out_;
  std::vector<Ref> values_;  // each program value's
};

}  // namespace

std::string_view fetch_name(Fetch f) {
  constexpr std::string_view names[] = {"stream", "row", "column", "scalar", "gather"};
  return names[static_cast<std::size_t>(f)];
}


Lowering lower_for_ascend(const KernelKey& key, const Product& product) {
  const std::vector<InnerStride> inner(key.inner.begin(), key.inner.begin() + key.operands);
  const ExprKernelSpec& spec = spec_of(key);
  const Shape shape{key.rank, inner, spec.type};
  return Lowerer(product, spec.program, shape).run();
}

std::int64_t row_repeat_cols(const Lowering& lw) {
  std::size_t widest = dtype_size(lw.out);
  for (const Step& st : lw.steps) {
    if (st.scalar_unit) continue;
    widest = std::max({widest, dtype_size(st.dtype), st.instr == Instr::Cast ? dtype_size(st.src_dtype) : 0});
  }
  for (DType t : lw.inputs) widest = std::max(widest, dtype_size(t));
  return kRepeatBytes / static_cast<std::int64_t>(widest);
}

}  // namespace bcast::ascend
