// Which dtypes each op and unary op is defined on, and the dtype of its
// result: the one table every layer asks (the API, the expression lowering,
// the executors and their tests).
#pragma once

#include <cstdint>

#include "bcast/dtype.h"
#include "bcast/expr.h"
#include "bcast/ops.h"

namespace bcast::detail {

enum class OpKind : std::uint8_t { arithmetic, extremum, power, comparison, logical, bitwise };

constexpr OpKind op_kind(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::floor_div: return OpKind::arithmetic;
    case Op::max: case Op::min: return OpKind::extremum;
    case Op::pow: return OpKind::power;
    case Op::eq: case Op::ne: case Op::lt: case Op::le: case Op::gt: case Op::ge: return OpKind::comparison;
    case Op::logical_and: case Op::logical_or: case Op::logical_xor: return OpKind::logical;
    case Op::bit_and: case Op::bit_or: case Op::bit_xor: return OpKind::bitwise;
  }
  return OpKind::arithmetic;
}

constexpr bool is_floating_dtype(DType d) {
  return d == DType::f16 || d == DType::bf16 || d == DType::f32 || d == DType::f64;
}

constexpr bool supports(Op op, DType d) {
  const bool floating = is_floating_dtype(d), boolean = d == DType::boolean;
  switch (op_kind(op)) {
    case OpKind::arithmetic: return !boolean || op == Op::add || op == Op::mul || op == Op::div;
    case OpKind::power: return floating;
    case OpKind::bitwise: return !floating;
    default: return true;
  }
}

constexpr DType result_dtype_of(Op op, DType d) {
  const OpKind kind = op_kind(op);
  if (kind == OpKind::comparison || kind == OpKind::logical) return DType::boolean;
  if (op == Op::div && !is_floating_dtype(d)) return DType::f64;  // true division
  return d;
}

// ---- unary ops ----

enum class UnaryKind : std::uint8_t { sign, float_function, rounding, logical, bitwise };

constexpr UnaryKind unary_kind(UnaryOp op) {
  switch (op) {
    case UnaryOp::neg: case UnaryOp::abs: return UnaryKind::sign;
    case UnaryOp::floor: case UnaryOp::ceil: case UnaryOp::round: return UnaryKind::rounding;
    case UnaryOp::logical_not: return UnaryKind::logical;
    case UnaryOp::bit_not: return UnaryKind::bitwise;
    default: return UnaryKind::float_function;  // sqrt exp log sin cos tanh sigmoid
  }
}

// The dtype a unary op computes in for an input of dtype d: the float
// functions take integers and bool to the smallest float holding them
// (NumPy's loops: bool, i8, u8 -> f16; i16, u16 -> f32; wider -> f64).
constexpr DType unary_compute_dtype(UnaryOp op, DType d) {
  if (unary_kind(op) != UnaryKind::float_function || is_floating_dtype(d)) return d;
  if (d == DType::boolean || d == DType::i8 || d == DType::u8) return DType::f16;
  if (d == DType::i16 || d == DType::u16) return DType::f32;
  return DType::f64;
}

// On the compute dtype: neg is not defined on bool (NumPy refuses it: use
// logical_not), nor floor, ceil and round (the Array API's real dtypes);
// bit_not only on integers and bool.
constexpr bool unary_supports(UnaryOp op, DType d) {
  switch (unary_kind(op)) {
    case UnaryKind::sign: return op == UnaryOp::abs || d != DType::boolean;
    case UnaryKind::rounding: return d != DType::boolean;
    case UnaryKind::bitwise: return !is_floating_dtype(d);
    default: return true;
  }
}

constexpr DType unary_result_dtype(UnaryOp op, DType compute) {
  return unary_kind(op) == UnaryKind::logical ? DType::boolean : compute;
}

}  // namespace bcast::detail
