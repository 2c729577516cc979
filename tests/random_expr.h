// Random expressions over random views, for the differential tests and the
// end-to-end test against NumPy: depth up to 4, up to 6 tensor inputs of
// mixed dtypes, weak scalars, views that are sliced, reversed, permuted or
// broadcast (stride 0), and broadcasting on every side.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "oracle_expr.h"
#include "test_support.h"

namespace bcast::test {

struct ExprCase {
  std::vector<RandomView> inputs;  // own the memory
  Expr expr;
  std::string text;  // in bcast-run -e's grammar, inputs named x0, x1, ...
  OracleExpr oracle;  // the same expression for the independent oracle (oracle_expr.h)
  std::vector<TensorView> views() const;  // of the inputs, x0, x1, ...
};

struct ExprCaseOptions {
  std::vector<DType> dtypes;  // the inputs' dtypes are drawn from these
  bool transcendental = true; // exp, log, sin, cos, tanh, sigmoid, sqrt, pow
  bool fma = true;
  bool float_to_unsigned = true;  // casts NumPy leaves undefined for negative values
  bool unary = true, ternary = true, casts = true;
  bool comparisons = true;   // eq lt ge, logical_and logical_xor
  bool strange_views = true;  // sliced, reversed, permuted inputs (else dense, or broadcast to stride 0)
  bool complex_ops = false;   // only the ops NumPy defines on complex numbers (+ - * / ** comparisons ...)
  int max_depth = 4, max_inputs = 6;
};

// A random case whose expression lowers (dtype errors are drawn again). The
// oracle's typing must agree (oracle_type): the same refusals, the same
// result dtype; a disagreement is a test failure (ADD_FAILURE) and the case
// is drawn again.
ExprCase random_expr_case(std::mt19937_64& rng, const ExprCaseOptions& options);

}  // namespace bcast::test
