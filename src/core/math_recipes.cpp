// The reference evaluator's recipes (NOTE: [Math recipes]): the templates on
// doubles and floats. Built with -ffp-contract=off (src/CMakeLists.txt): a
// fused multiply-add here would round once where the kernel rounds twice.
#include "math_recipes.h"

#include <utility>

#include "math_library.h"

namespace bcast::math::recipes {
namespace {

template <Recipe R, class T>
T unary(T x) {
  return run(R, x);
}

template <Recipe R>
float binary(float x, float y) {
  return run(R, x, y);
}

// The instance of `unary` (an enumerator before kFirstBinary, in float or
// double) or `binary` (from it on) for r.
constexpr std::size_t kBinaryFrom = static_cast<std::size_t>(kFirstBinary);
constexpr std::size_t kRecipeCount = static_cast<std::size_t>(Recipe::pow) + 1;
template <class T, std::size_t... I>
auto unary_of(Recipe r, std::index_sequence<I...>) {
  T (*fn)(T) = nullptr;
  ((r == static_cast<Recipe>(I) ? (fn = &unary<static_cast<Recipe>(I), T>, 0) : 0), ...);
  return fn;
}
template <std::size_t... I>
BinaryF32 binary_of(Recipe r, std::index_sequence<I...>) {
  BinaryF32 fn = nullptr;
  ((r == static_cast<Recipe>(kBinaryFrom + I) ? (fn = &binary<static_cast<Recipe>(kBinaryFrom + I)>, 0) : 0), ...);
  return fn;
}

}  // namespace

std::optional<Recipe> recipe_for(std::string_view math, int arity, DType dtype) {
  return host_has_fma() ? recipe_of(math, arity, dtype) : std::nullopt;
}

UnaryF32 scalar_unary(std::string_view math) {
  const auto r = recipe_for(math, 1, DType::f32);
  return r ? unary_of<float>(*r, std::make_index_sequence<kBinaryFrom>{}) : nullptr;
}

BinaryF32 scalar_binary(std::string_view math) {
  const auto r = recipe_for(math, 2, DType::f32);
  return r ? binary_of(*r, std::make_index_sequence<kRecipeCount - kBinaryFrom>{}) : nullptr;
}

UnaryF64 scalar_unary_f64(std::string_view math) {
  const auto r = recipe_for(math, 1, DType::f64);
  return r ? unary_of<double>(*r, std::make_index_sequence<kBinaryFrom>{}) : nullptr;
}

}  // namespace bcast::math::recipes
