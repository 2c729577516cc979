// bcast's own math functions: which exist, and how each tier runs them
// (NOTE: [Math recipes]). LLVM-free.
#pragma once

#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>

#include "bcast/dtype.h"

#include "f32_math.h"
#include "f64_math.h"
#include "f64_pow.h"
#include "f64_trig.h"
#include "inverse_trig.h"
#include "widened_math.h"

namespace bcast::math::recipes {

// NOTE: [Math recipes] A function SLEEF computes slower than NumPy (NOTE:
// [Vector math]) may have a recipe of bcast's own: NOTE: [Widened math]'s
// (f32 computed in f64), NOTE: [F32 math]'s (f32 in f32) or NOTE: [F64
// math]'s (f64 in f64), one row below per function and precision.
//  - One source of truth. A recipe is a template over its lanes: double,
//    float and bool for the reference evaluator (math_lanes.h;
//    math_recipes.cpp, built with -ffp-contract=off), llvm::Value wrappers
//    for the JIT (jit/ir/math_recipes_ir.cpp), which emits the same IEEE
//    operations in the same order with no fast-math flags. So both tiers
//    give the same bits by construction, and the tests check it too.
//  - Only + - * /, FMA, sqrt, comparisons, selects, exact integer steps on
//    the bits (2**n, the split of a float into mantissa and exponent, the
//    cube roots' seeds) and conversions: nothing a vectoriser cannot widen,
//    and no table.
//  - A loop that runs one interleaves up to four vectors (NOTE: [Recipe
//    interleave]): a recipe is a long chain of dependent steps.
//  - Every branch is a select: all lanes run every step.
//  - On a host with FMA only (recipe_for): elsewhere an FMA is a library
//    call per lane, and SLEEF's builds without FMA are faster.
//  - A NaN result then takes NOTE: [Math guards]'s NaN rule, as the
//    library's functions do; SLEEF's guards do not apply.
//  - f16 and bf16 compute in f32 and inherit the f32 recipe.
// Which one a function gets is measured (docs/architecture.md, "Vector
// math"); its `bound` row is what tests/test_math_recipes.cpp holds it to.

// The recipes of one argument, then (from atan2 on) those of two.
// clang-format off
enum class Recipe {
  expm1, log1p, tanh, sinh, cosh, exp, exp2, log, log2, log10, tan, sin, cos, atan, asin, acos, cbrt, asinh, acosh, atanh,
  cbrt_f64, exp_f64, log_f64, log2_f64, log10_f64, expm1_f64, sinh_f64, cosh_f64, tanh_f64,
  log1p_f64, asinh_f64, acosh_f64, atanh_f64, atan_f64, asin_f64, acos_f64, sin_f64, cos_f64, tan_f64, exp2_f64,
  atan2, atan2_f64, pow, pow_f64
};
// clang-format on
inline constexpr Recipe kFirstBinary = Recipe::atan2;

struct RecipeRow {
  std::string_view math;  // the function table's `math` name
  Recipe recipe;
  int arity;
  DType dtype;            // f32 or f64: the precision it computes
  double bound;           // in ULPs of the true value, for every argument
  bool main_path = false;  // NOTE: [Rare lanes]: run_main and rare_of know it
  unsigned interleave = 4;  // NOTE: [Recipe interleave]: vectors a loop iteration takes
};

// NOTE: [Recipe interleave] A recipe is a long chain of dependent steps, so
// a loop that runs one interleaves four vectors an iteration by default
// (measured on the Zen 5 VM, 4 Mi elements: f32 log2 0.69x -> 0.87x NumPy,
// arctan 0.98x -> 1.2x). Where a recipe's steps and its rare-lane branch
// fill the registers, four spill: a row says how many it takes. Measured on
// the 2-core Intel Xeon VM (2026-12-05, one thread, 256 Ki elements, two
// rounds of 4, 1 and 2 alternated, elements per ns): f32 exp 2.37/2.70 ->
// 3.13/3.16 at 1, cos 1.29/1.40 -> 1.91/1.88 at 1, tan 1.18/1.34 ->
// 1.37/1.40 at 1; f64 arcsin 0.51/0.52 -> 0.61/0.67 at 2, arccos 0.57/0.56
// -> 0.65/0.69 at 2, arccosh 0.31/0.31 -> 0.34/0.35 at 1; f32 sin, whose
// steps are cos's, 1.68/2.00 -> 1.88/1.97 at 1 (and 1.91/2.05 at 2). Every
// other row measured the same or slower below four (f32 log1p 2.25 -> 1.42
// at 1). A program with several recipes takes the fewest of its rows'
// (jit/emit/expression_emitter.cpp, interleave_for): exp(x) * log2(|x| +
// 1) ran 1.61/1.64 with the fewest and 1.36/1.36 with the most, sin(x) +
// cos(x) 1.08/1.09 against 0.79/0.83, exp(x) + tanh(x) 1.37/1.39 against
// 1.28/1.38, softplus the same.

inline constexpr double kWidened = 0.5 + 0x1p-10;  // NOTE: [Widened math]'s, with a margin

// One row per function and precision. The f32-arithmetic rows (NOTE: [F32
// math]) have the bound, 2 ULP (tanh: 1.5); the comment is the most
// any f32 argument gave on 2026-12-03 (BCAST_RECIPE_SWEEP_STRIDE=1).
inline constexpr RecipeRow kRecipes[] = {
    {"expm1", Recipe::expm1, 1, DType::f32, 2.0, true},         // f32: 1.627
    {"log1p", Recipe::log1p, 1, DType::f32, 2.0, true},         // f32: 1.633
    {"tanh", Recipe::tanh, 1, DType::f32, 1.5},                 // f32: 1.145
    {"sinh", Recipe::sinh, 1, DType::f32, 2.0},                 // f32: 1.527
    {"cosh", Recipe::cosh, 1, DType::f32, 2.0},                 // f32: 1.542
    {"exp", Recipe::exp, 1, DType::f32, 1.0, true, 1},          // f32: 0.954 on every f32 input
    {"exp2", Recipe::exp2, 1, DType::f32, 2.0, true},           // f32: 1.070
    {"log", Recipe::log, 1, DType::f32, 1.0, true},             // f32: 0.951
    {"log2", Recipe::log2, 1, DType::f32, 2.0, true},           // f32: 1.416 (Horner: 1.176)
    {"log10", Recipe::log10, 1, DType::f32, 2.0, true},         // f32: 1.190 (Horner: 0.986)
    {"tan", Recipe::tan, 1, DType::f32, 2.0, true, 1},          // f32: 1.299 below 2**20 (2026-12-07), SLEEF above
    {"sin", Recipe::sin, 1, DType::f32, 1.0, true, 1},          // NOTE: [Widened math]; 0.881 (SLEEF's, beyond 2**30)
    {"cos", Recipe::cos, 1, DType::f32, 1.0, true, 1},          // f32: 0.881 (SLEEF's, beyond 2**30)
    {"atan", Recipe::atan, 1, DType::f32, 2.0, true},           // f32: 1.380 (Horner: 1.184)
    {"asin", Recipe::asin, 1, DType::f32, 2.0},                 // f32: 0.624
    {"acos", Recipe::acos, 1, DType::f32, 2.0},                 // f32: 0.896
    {"cbrt", Recipe::cbrt, 1, DType::f32, 2.0, true},           // f32: 0.817
    {"asinh", Recipe::asinh, 1, DType::f32, 2.0},               // f32: 1.141
    {"acosh", Recipe::acosh, 1, DType::f32, 2.0},               // f32: 1.757
    {"atanh", Recipe::atanh, 1, DType::f32, 2.0},               // f32: 1.007
    {"cbrt", Recipe::cbrt_f64, 1, DType::f64, 1.0, true},       // NOTE: [F64 math]; 0.736 on 2 * 10**7 random doubles
    {"exp", Recipe::exp_f64, 1, DType::f64, 1.0, true},         // f64: 0.729
    {"log", Recipe::log_f64, 1, DType::f64, 1.0, true},         // f64: 0.774
    {"log2", Recipe::log2_f64, 1, DType::f64, 2.0, true},       // f64: 0.965
    {"log10", Recipe::log10_f64, 1, DType::f64, 2.0, true},     // f64: 1.017
    {"expm1", Recipe::expm1_f64, 1, DType::f64, 2.0, true},     // f64: 0.997
    {"sinh", Recipe::sinh_f64, 1, DType::f64, 2.0, true},       // f64: 1.514
    {"cosh", Recipe::cosh_f64, 1, DType::f64, 2.0, true},       // f64: 1.074
    {"tanh", Recipe::tanh_f64, 1, DType::f64, 2.0},             // f64: 0.856
    {"log1p", Recipe::log1p_f64, 1, DType::f64, 2.0, true},     // f64: 1.188
    {"asinh", Recipe::asinh_f64, 1, DType::f64, 2.0, true},     // f64: 1.000 (2026-12-07)
    {"acosh", Recipe::acosh_f64, 1, DType::f64, 2.0, true, 1},  // f64: 0.776 (2026-12-07)
    {"atanh", Recipe::atanh_f64, 1, DType::f64, 2.0, true},     // f64: 1.116
    {"atan", Recipe::atan_f64, 1, DType::f64, 2.0, true},
    {"asin", Recipe::asin_f64, 1, DType::f64, 2.0, false, 2},
    {"acos", Recipe::acos_f64, 1, DType::f64, 2.0, false, 2},
    {"sin", Recipe::sin_f64, 1, DType::f64, 1.0, true},  // NOTE: [F64 trig]
    {"cos", Recipe::cos_f64, 1, DType::f64, 1.0, true},
    {"tan", Recipe::tan_f64, 1, DType::f64, 2.0, true},  // f64: 1.143 (2026-12-07)
    {"exp2", Recipe::exp2_f64, 1, DType::f64, 2.0, true},
    {"atan2", Recipe::atan2, 2, DType::f32, 2.0, true},  // special and random pairs (MathRecipes.Atan2...)
    {"atan2", Recipe::atan2_f64, 2, DType::f64, 2.0, true},
    {"pow", Recipe::pow, 2, DType::f32, kWidened, true},
    {"pow", Recipe::pow_f64, 2, DType::f64, 1.0, true},  // NOTE: [F64 pow]; 0.836 on MathRecipes' pairs
};

// Recipe `r`'s row (every enumerator has one).
constexpr const RecipeRow& row_of(Recipe r) {
  for (const RecipeRow& row : kRecipes)
    if (row.recipe == r) return row;
  throw std::logic_error("a recipe without a row in kRecipes");  // a compile error where constant-evaluated
}

// The vectors an iteration of a loop that runs recipe `r` takes (NOTE:
// [Recipe interleave]).
constexpr unsigned interleave_of(Recipe r) { return row_of(r).interleave; }

// Whether recipe `r` has a main path (NOTE: [Rare lanes]).
constexpr bool has_main_path(Recipe r) { return row_of(r).main_path; }

// The recipe of `math` with `arity` arguments in `dtype`, if bcast has one.
constexpr std::optional<Recipe> recipe_of(std::string_view math, int arity, DType dtype) {
  for (const RecipeRow& row : kRecipes)
    if (row.math == math && row.arity == arity && row.dtype == dtype) return row.recipe;
  return std::nullopt;
}

// The precision recipe `r` computes in: its row's.
constexpr DType precision_of(Recipe r) { return row_of(r).dtype; }

// Runs f32 recipe `r` on lanes of type F (float, or the JIT's).
template <class F>
F run_f32(Recipe r, F x) {
  switch (r) {
    case Recipe::expm1: return expm1_f32(x);
    case Recipe::log1p: return log1p_f32(x);
    case Recipe::tanh: return tanh_f32(x);
    case Recipe::sinh: return sinh_f32(x);
    case Recipe::cosh: return cosh_f32(x);
    case Recipe::exp: return exp_f32(x);
    case Recipe::exp2: return exp2_f32(x);
    case Recipe::log: return log_f32(x);
    case Recipe::log2: return log2_f32(x);
    case Recipe::log10: return log10_f32(x);
    case Recipe::tan: return tan_f32(x);
    case Recipe::sin: return sin_f32(x);
    case Recipe::cos: return cos_f32(x);
    case Recipe::atan: return atan_of<Trig32>(x);
    case Recipe::asin: return asin_of<Trig32>(x);
    case Recipe::acos: return acos_of<Trig32>(x);
    case Recipe::cbrt: return cbrt_f32(x);
    case Recipe::asinh: return asinh_f32(x);
    case Recipe::acosh: return acosh_f32(x);
    case Recipe::atanh: return atanh_f32(x);
    default: return x;  // not an f32 recipe of one argument
  }
}

// Runs f64 recipe `r` on lanes of type F (double, or the JIT's).
template <class F>
F run_f64(Recipe r, F x) {
  switch (r) {
    case Recipe::cbrt_f64: return cbrt_f64(x);
    case Recipe::exp_f64: return exp_f64(x);
    case Recipe::log_f64: return log_f64(x);
    case Recipe::log2_f64: return log2_f64(x);
    case Recipe::log10_f64: return log10_f64(x);
    case Recipe::expm1_f64: return expm1_f64(x);
    case Recipe::sinh_f64: return sinh_f64(x);
    case Recipe::cosh_f64: return cosh_f64(x);
    case Recipe::tanh_f64: return tanh_f64(x);
    case Recipe::log1p_f64: return log1p_f64(x);
    case Recipe::asinh_f64: return asinh_f64(x);
    case Recipe::acosh_f64: return acosh_f64(x);
    case Recipe::atanh_f64: return atanh_f64(x);
    case Recipe::atan_f64: return atan_of<Trig64>(x);
    case Recipe::asin_f64: return asin_of<Trig64>(x);
    case Recipe::acos_f64: return acos_of<Trig64>(x);
    case Recipe::sin_f64: return sin_f64(x);
    case Recipe::cos_f64: return cos_f64(x);
    case Recipe::tan_f64: return tan_f64(x);
    case Recipe::exp2_f64: return exp2_f64(x);
    default: return x;  // not an f64 recipe of one argument
  }
}

// Runs recipe `r` on lanes of type F (float, double, or the JIT's): each
// precision's recipes are instantiated on its own lanes only (their steps
// on bits are the format's).
template <class F>
F run(Recipe r, F x) {
  if (precision_of(r) == DType::f64) {
    if constexpr (!std::is_same_v<F, float>) return run_f64(r, x);
  } else {
    if constexpr (!std::is_same_v<F, double>) return run_f32(r, x);
  }
  return x;  // not reached: recipe_of gives each precision its own
}

// NOTE: [Rare lanes] A recipe's selects make every lane pay for its rare
// arguments: subnormals, 0, inf and NaN, out-of-range values. A recipe
// whose row has a main path splits in two: rare_of(r, x) (or rare_of(r, x,
// y), f32 pow's) names the rare lanes, and run_main computes the others
// with none of those steps, giving run's bits on every lane that is not
// rare (tests/test_math_recipes.cpp checks it). A kernel computes run_main on every
// vector and run only on a vector with a rare lane, behind one branch per
// vector (jit/ir/rare_lanes.cpp); the reference evaluator runs run itself.
// So both tiers still give the same bits. On the 2-core Intel Xeon VM
// (2026-12-04, one thread, 256 Ki elements in L2, three alternated runs)
// it took f32 log 2.04 -> 2.89 elements per ns, log2 2.22 -> 2.88, log10
// 2.03 -> 2.77, f64 exp 0.99 -> 1.23, log 0.94 -> 1.17, log2 0.86 -> 1.03,
// log10 0.84 -> 1.00; f32 pow (two arguments) 0.48 -> 0.58 (two runs); a
// vector of rare lanes costs the main path more. A recipe of two arguments
// keeps its guard steps and the NaN rule on the rare lanes' side too
// (jit/ir/math_calls.cpp's emit_binary_math): none changes a main lane.
template <class F>
F run_main(Recipe r, F x) {
  if constexpr (!std::is_same_v<F, float>) {
    switch (r) {
      case Recipe::exp_f64: return exp_f64_main(x);
      case Recipe::cbrt_f64: return cbrt_f64_main(x);
      case Recipe::expm1_f64: return expm1_f64_main(x);
      case Recipe::log_f64: return log_f64_main(x);
      case Recipe::log2_f64: return log2_f64_main(x);
      case Recipe::log10_f64: return log10_f64_main(x);
      case Recipe::sin_f64: return sin_f64_main(x);
      case Recipe::cos_f64: return cos_f64_main(x);
      case Recipe::tan_f64: return tan_f64_main(x);
      case Recipe::exp2_f64: return exp2_f64_main(x);
      case Recipe::sinh_f64: return sinh_f64_main(x);
      case Recipe::cosh_f64: return cosh_f64_main(x);
      case Recipe::log1p_f64: return log1p_f64_main(x);
      case Recipe::asinh_f64:
        return asinh_f64_main(x);
      case Recipe::acosh_f64:
        return acosh_f64_main(x);
      case Recipe::atanh_f64:
        return atanh_f64_main(x);
      case Recipe::atan_f64:
        return atan_main_of<Trig64>(x);
      default: break;
    }
  }
  if constexpr (!std::is_same_v<F, double>) {
    switch (r) {
      case Recipe::log: return log_f32_main(x);
      case Recipe::log1p: return log1p_f32_main(x);
      case Recipe::exp2: return exp2_f32_main(x);
      case Recipe::cbrt: return cbrt_f32_main(x);
      case Recipe::tan: return tan_f32_main(x);
      case Recipe::sin: return sin_f32_main(x);
      case Recipe::cos: return cos_f32_main(x);
      case Recipe::exp: return exp_f32_main(x);
      case Recipe::expm1: return expm1_f32_main(x);
      case Recipe::log2: return log2_f32_main(x);
      case Recipe::log10: return log10_f32_main(x);
      case Recipe::atan:
        return atan_main_of<Trig32>(x);
      default: break;
    }
  }
  return run(r, x);  // no main path: every lane is the recipe's
}

// The lanes of x that run_main(r, x) does not compute: none where `r` has
// no main path.
template <class F>
auto rare_of(Recipe r, F x) {
  if constexpr (!std::is_same_v<F, float>) {
    if (r == Recipe::exp_f64 || r == Recipe::sinh_f64 || r == Recipe::cosh_f64) return exp_f64_rare(x);
    if (r == Recipe::cbrt_f64) return cbrt_f64_rare(x);
    if (r == Recipe::expm1_f64) return expm1_f64_rare(x);
    if (r == Recipe::sin_f64) return sin_f64_rare(x);
    if (r == Recipe::cos_f64) return cos_f64_rare(x);
    if (r == Recipe::tan_f64) return tan_f64_rare(x);
    if (r == Recipe::log1p_f64) return log1p_f64_rare(x);
    if (r == Recipe::asinh_f64) return asinh_f64_rare(x);
    if (r == Recipe::acosh_f64) return acosh_f64_rare(x);
    if (r == Recipe::atanh_f64) return atanh_f64_rare(x);
    if (r == Recipe::atan_f64) return atan_rare(x);
    if (r == Recipe::exp2_f64) return exp2_f64_rare(x);
    if (r == Recipe::log_f64 || r == Recipe::log2_f64 || r == Recipe::log10_f64)
      return not_positive_normal(x, 0x1p-1022);
  }
  if constexpr (!std::is_same_v<F, double>) {
    if (r == Recipe::log || r == Recipe::log2 || r == Recipe::log10) return not_positive_normal(x, 0x1p-126);
    if (r == Recipe::log1p) return log1p_f32_rare(x);
    if (r == Recipe::exp2) return exp2_f32_rare(x);
    if (r == Recipe::cbrt) return cbrt_f32_rare(x);
    if (r == Recipe::tan) return tan_f32_rare(x);
    if (r == Recipe::sin || r == Recipe::cos) return sin_cos_f32_rare(x);
    if (r == Recipe::exp) return exp_f32_rare(x);
    if (r == Recipe::expm1) return expm1_f32_rare(x);
    if (r == Recipe::atan) return atan_rare(x);
  }
  return x != x && x == x;  // no lane (a mask of x's type, whatever x holds)
}

template <class F>
F run(Recipe r, F x, F y) {
  if (r == Recipe::pow_f64) {
    if constexpr (!std::is_same_v<F, float>) return pow_f64(x, y);
  } else if (r == Recipe::atan2_f64) {
    if constexpr (!std::is_same_v<F, float>) return atan2_of<Trig64>(x, y);
  } else if constexpr (!std::is_same_v<F, double>) {
    return r == Recipe::pow ? pow_f32(x, y) : atan2_of<Trig32>(x, y);
  }
  return x;
}

// run_main and rare_of for the recipes of two arguments (NOTE: [Rare lanes]).
template <class F>
F run_main(Recipe r, F x, F y) {
  if constexpr (!std::is_same_v<F, double>) {
    if (r == Recipe::pow) return pow_f32_main(x, y);
    if (r == Recipe::atan2) return atan2_main_of<Trig32>(x, y);
  }
  if constexpr (!std::is_same_v<F, float>) {
    if (r == Recipe::atan2_f64) return atan2_main_of<Trig64>(x, y);
    if (r == Recipe::pow_f64) return pow_f64_main(x, y);
  }
  return run(r, x, y);
}
template <class F>
auto rare_of(Recipe r, F x, F y) {
  if constexpr (!std::is_same_v<F, double>) {
    if (r == Recipe::pow) return pow_rare(x, y);
    if (r == Recipe::atan2) return atan2_rare<Trig32>(x, y);
  }
  if constexpr (!std::is_same_v<F, float>) {
    if (r == Recipe::atan2_f64) return atan2_rare<Trig64>(x, y);
    if (r == Recipe::pow_f64) return pow_rare(x, y);
  }
  return x != x && x == x;  // no lane
}

// The recipe both tiers use for `math` in `dtype`: recipe_of's, on a host
// with FMA (math_library.h); none elsewhere.
std::optional<Recipe> recipe_for(std::string_view math, int arity, DType dtype);

// The reference evaluator's recipes (math_recipes.cpp): the f32 or f64
// function of `math`, or null where bcast has no recipe.
template <class T>
using Unary = T (*)(T);
template <class T>
using Binary = T (*)(T, T);
template <class T>  // float or double
Unary<T> scalar_unary(std::string_view math);
template <class T>
Binary<T> scalar_binary(std::string_view math);

}  // namespace bcast::math::recipes
