// The reference evaluator's recipes (NOTE: [Math recipes]): the templates on
// doubles and floats. Built with -ffp-contract=off (src/CMakeLists.txt): a
// fused multiply-add here would round once where the kernel rounds twice.
#include "math_recipes.h"

#include <utility>

#include "math_library.h"

namespace bcast::math::recipes {
namespace {

template <Recipe R>
float unary(float x) {
  return run(R, x);
}

template <Recipe R>
float binary(float x, float y) {
  return run(R, x, y);
}

// The instance of `unary` (an enumerator before kFirstBinary) or `binary`
// (from it on) for r.
constexpr std::size_t kBinaryFrom = static_cast<std::size_t>(kFirstBinary);
constexpr std::size_t kRecipeCount = static_cast<std::size_t>(Recipe::pow) + 1;
template <std::size_t... I>
UnaryF32 unary_of(Recipe r, std::index_sequence<I...>) {
  UnaryF32 fn = nullptr;
  ((r == static_cast<Recipe>(I) ? (fn = &unary<static_cast<Recipe>(I)>, 0) : 0), ...);
  return fn;
}
template <std::size_t... I>
BinaryF32 binary_of(Recipe r, std::index_sequence<I...>) {
  BinaryF32 fn = nullptr;
  ((r == static_cast<Recipe>(kBinaryFrom + I) ? (fn = &binary<static_cast<Recipe>(kBinaryFrom + I)>, 0) : 0), ...);
  return fn;
}

}  // namespace

std::optional<Recipe> recipe_for(std::string_view math, int arity) {
  return host_has_fma() ? f32_recipe(math, arity) : std::nullopt;
}

UnaryF32 scalar_unary(std::string_view math) {
  const auto r = recipe_for(math, 1);
  return r ? unary_of(*r, std::make_index_sequence<kBinaryFrom>{}) : nullptr;
}

BinaryF32 scalar_binary(std::string_view math) {
  const auto r = recipe_for(math, 2);
  return r ? binary_of(*r, std::make_index_sequence<kRecipeCount - kBinaryFrom>{}) : nullptr;
}

}  // namespace bcast::math::recipes
