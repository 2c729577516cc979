// The tests' independent oracle of expressions: a tree the test builds
// beside its bcast::Expr, typed by docs/semantics.md's promotion rules (NEP
// 50, weak scalars) and computed one output element at a time, node by node,
// with oracle_values.h's arithmetic.
//
// It shares no code with bcast: not the expression graph, its lowering, the
// promotion table or the reference evaluator. It reads the inputs' bits at
// plain broadcast indices (oracle.h's bits_read_at).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "oracle_values.h"

namespace bcast::test {

struct OracleNode;
using OracleExpr = std::shared_ptr<const OracleNode>;

struct OracleNode {
  enum class Kind { input, weak_int, weak_float, binary, unary, ternary, cast };
  Kind kind = Kind::input;
  int input = -1;            // Kind::input: the index into the inputs
  std::int64_t integer = 0;  // Kind::weak_int
  double number = 0;         // Kind::weak_float
  Op op{};
  UnaryOp unary{};
  TernaryOp ternary{};
  DType to{};  // Kind::cast
  std::vector<OracleExpr> args;
};

namespace oracle_expr {
OracleExpr input(int k);
OracleExpr weak(std::int64_t value);
OracleExpr weak(double value);
OracleExpr apply(Op op, OracleExpr a, OracleExpr b);
OracleExpr apply(UnaryOp op, OracleExpr x);
OracleExpr apply(TernaryOp op, OracleExpr a, OracleExpr b, OracleExpr c);
OracleExpr cast(OracleExpr x, DType to);
}  // namespace oracle_expr

// What the oracle makes of an expression over inputs of these dtypes: its
// result dtype, or why bcast must refuse it (an op not defined for the
// promoted dtype: ErrorKind::dtype; a weak int scalar that does not fit the
// integer dtype it meets: ErrorKind::value).
struct OracleTyping {
  DType dtype = DType::boolean;
  bool refused = false;
  ErrorKind refusal = ErrorKind::dtype;
  std::string why;
};
OracleTyping oracle_type(const OracleExpr& e, std::span<const DType> inputs);

// The dtype op computes in on two operands of dtype d, as NumPy's loops
// pick it (arctan2 on i8: f16), or nullopt where NumPy refuses d.
std::optional<DType> oracle_loop(Op op, DType d);
// The dtype of op's result computed in `loop`.
DType oracle_result(Op op, DType loop);

// The expected elements of e over `inputs`, broadcast to out_shape, in C
// order. e must be one that oracle_type accepts.
std::vector<Expected> oracle(const OracleExpr& e, std::span<const TensorView> inputs, const Shape& out_shape);

// "" when got has the oracle's dtype and every element is what it expects
// (a NaN only ever equals a quiet NaN); otherwise the first bad index, the
// inputs' bits there and both values.
std::string oracle_mismatch(const OracleExpr& e, std::span<const TensorView> inputs, const TensorView& got);

}  // namespace bcast::test
