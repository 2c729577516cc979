// The reference evaluator's recipes (NOTE: [Math recipes]): the templates on
// doubles and floats. Built with -ffp-contract=off (src/CMakeLists.txt): a
// fused multiply-add here would round once where the kernel rounds twice.
#include "math_recipes.h"

#include <array>
#include <iterator>
#include <utility>

#include "math_guards.h"
#include "math_library.h"

namespace bcast::math::recipes {
namespace {

// Each precision's recipes on its own lanes, chosen when compiled (run()'s
// look-up of the row's precision stays off the per-element path).
// NOTE: [Rare lanes], as a kernel takes them: the main path where it
// applies (the full recipe's bits there), the full recipe on a rare
// argument only, so that the full recipe's special steps, and a call of the
// library where it takes the rare lanes (f32 exp, tan), are not paid on
// every element.
template <Recipe R, class T>
T unary(T x) {
  constexpr DType precision = std::is_same_v<T, double> ? DType::f64 : DType::f32;
  if constexpr (has_main_path(R) && precision_of(R) == precision) {
    if (!rare_of(R, x)) return run_main(R, x);
  }
  if constexpr (std::is_same_v<T, double>) return run_f64(R, x);
  else return run_f32(R, x);
}

template <Recipe R, class T>
T binary(T x, T y) {
  constexpr DType precision = std::is_same_v<T, double> ? DType::f64 : DType::f32;
  if constexpr (has_main_path(R) && precision_of(R) == precision) {
    if (!rare_of(R, x, y)) return run_main(R, x, y);
  }
  return run(R, x, y);
}

// The instance of `unary` (an enumerator before kFirstBinary) or `binary`
// (from it on) for r, in T.
constexpr std::size_t kBinaryFrom = static_cast<std::size_t>(kFirstBinary);
constexpr std::size_t kRecipeCount = static_cast<std::size_t>(Recipe::pow_f64) + 1;
template <class T, std::size_t... I>
Unary<T> unary_of(Recipe r, std::index_sequence<I...>) {
  Unary<T> fn = nullptr;
  ((r == static_cast<Recipe>(I) ? (fn = &unary<static_cast<Recipe>(I), T>, 0) : 0), ...);
  return fn;
}
template <class T, std::size_t... I>
Binary<T> binary_of(Recipe r, std::index_sequence<I...>) {
  Binary<T> fn = nullptr;
  ((r == static_cast<Recipe>(kBinaryFrom + I) ? (fn = &binary<static_cast<Recipe>(kBinaryFrom + I), T>, 0) : 0), ...);
  return fn;
}

constexpr DType precision_of_type(float) { return DType::f32; }
constexpr DType precision_of_type(double) { return DType::f64; }

// The library functions that recipes call on their rare lanes, looked up
// once per process and precision.
constexpr std::string_view kLibraryFunctions[] = {"exp", "tan", "sin", "cos"};

template <class T>
math::Unary<T> library_unary(std::string_view name) {
  static const auto known = [] {
    std::array<math::Unary<T>, std::size(kLibraryFunctions)> fns{};
    for (std::size_t i = 0; i < fns.size(); ++i) fns[i] = math::unary<T>(kLibraryFunctions[i]);
    return fns;
  }();
  for (std::size_t i = 0; i < known.size(); ++i)
    if (kLibraryFunctions[i] == name) return known[i];
  return math::unary<T>(name);  // a function no recipe calls yet: looked up each time
}

template <class T>
T library_function_of(std::string_view name, T x) {
  return math::guarded_steps(name, library_unary<T>(name), x);
}

}  // namespace

float library_function(std::string_view name, float x) { return library_function_of(name, x); }
double library_function(std::string_view name, double x) { return library_function_of(name, x); }

std::optional<Recipe> recipe_for(std::string_view math, int arity, DType dtype) {
  return host_has_fma() ? recipe_of(math, arity, dtype) : std::nullopt;
}

template <class T>
Unary<T> scalar_unary(std::string_view math) {
  const auto r = recipe_for(math, 1, precision_of_type(T{}));
  return r ? unary_of<T>(*r, std::make_index_sequence<kBinaryFrom>{}) : nullptr;
}

template <class T>
Binary<T> scalar_binary(std::string_view math) {
  const auto r = recipe_for(math, 2, precision_of_type(T{}));
  return r ? binary_of<T>(*r, std::make_index_sequence<kRecipeCount - kBinaryFrom>{}) : nullptr;
}

template Unary<float> scalar_unary<float>(std::string_view);
template Unary<double> scalar_unary<double>(std::string_view);
template Binary<float> scalar_binary<float>(std::string_view);
template Binary<double> scalar_binary<double>(std::string_view);

}  // namespace bcast::math::recipes
