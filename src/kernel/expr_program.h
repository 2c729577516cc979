// An expression lowered for one set of leaf types: every node's dtype worked
// out by NumPy 2's promotion (NOTE: [Promotion]), with explicit casts, so that
// each op meets operands of one dtype. The program is what kernels compute,
// the reference evaluator and the JIT alike (NOTE: [Expression kernels]).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "expr_graph.h"
#include "promotion.h"

namespace bcast {

namespace detail {
struct FunctionRow;  // function_table.h
}

// How a leaf enters the lowering: an input is a strong value of its dtype; a
// scalar is a weak int, float or complex, or a strong value of a dtype.
struct LeafType {
  ScalarKind kind = ScalarKind::strong;
  DType dtype = DType::f32;  // for strong leaves
  friend bool operator==(const LeafType&, const LeafType&) = default;
};
std::string leaf_type_name(const LeafType& t);  // "f32", "~int", "~float", "~complex"
std::optional<LeafType> parse_leaf_type(std::string_view name);

enum class InstrKind : std::uint8_t { unary, binary, ternary, cast };

// One step: the operands are values of dtype `in` (a cast's source; where's
// condition is bool), the result a value of dtype `out`.
struct ExprInstr {
  InstrKind kind = InstrKind::cast;
  std::uint8_t code = 0;  // UnaryOp, Op or TernaryOp; unused by a cast
  DType in = DType::f32, out = DType::f32;
  std::array<std::int32_t, 3> args{-1, -1, -1};
  int arity() const { return kind == InstrKind::binary ? 2 : kind == InstrKind::ternary ? 3 : 1; }
};

// Values are numbered: the inputs first, then the scalars, then one per
// instruction, in order.
struct ExprProgram {
  std::vector<DType> inputs;   // each input's dtype
  std::vector<DType> scalars;  // each scalar's dtype in the kernel: i64 or f64 for a weak one
  std::vector<ExprInstr> code;
  std::int32_t result = 0;     // the value stored to out
  std::vector<std::int32_t> node_values;  // each graph node's value, by the node's index
  DType out_dtype = DType::f32;
  // NEP 50: a weak int that meets an integer dtype must fit it (u8 + 300 is
  // an error); these scalars are checked, by value, before a call runs.
  struct RangeCheck {
    int scalar;
    DType dtype;
    friend bool operator==(const RangeCheck&, const RangeCheck&) = default;
  };
  std::vector<RangeCheck> range_checks;

  int first_scalar() const { return static_cast<int>(inputs.size()); }
  int first_instr() const { return static_cast<int>(inputs.size() + scalars.size()); }
  DType dtype_of(int value) const;
};

// The function-table row of a unary or binary step; null for a ternary
// step or a cast.
const detail::FunctionRow* row_of(const ExprInstr& step);

// Whether the program computes a math function on real or complex values
// (an op whose function-table row names one: exp, tan, pow, hypot, ...; or
// an inexact one: sigmoid, logaddexp): its kernel is bound by arithmetic,
// not memory (NOTE: [Math vector width]).
bool calls_math_function(const ExprProgram& program);

// Whether the program divides or takes a square root of real or complex
// values (div, floor_div, remainder, fmod, sqrt, reciprocal, a complex abs):
// the divider's throughput bounds its kernel before memory does (NOTE:
// [Memory-bound vector width]).
bool divides(const ExprProgram& program);

// Lowers `graph` for leaves of these types. An op that its promoted dtype
// does not support is an Error(dtype) naming the op, the operands (a weak
// scalar as one: "the Python int 2", not its i64) and the subexpression
// (its leaves named by `leaf_name`), or, when `call` names the op the caller
// called by name (ExprNode::named_call), starting "pow:" for the root as a
// binary op's message does. `graph` must have an input.
ExprProgram lower_expression(const ExprGraph& graph, std::span<const LeafType> inputs,
                             std::span<const LeafType> scalars, const LeafNamer& leaf_name = {},
                             std::string_view call = {});

}  // namespace bcast
