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

float binary_pow(float x, float y) { return pow_f32(x, y); }

// The instance of `unary` for r: one per enumerator before pow, the only
// recipe of two arguments (the last).
template <std::size_t... I>
UnaryF32 unary_of(Recipe r, std::index_sequence<I...>) {
  UnaryF32 fn = nullptr;
  ((r == static_cast<Recipe>(I) ? (fn = &unary<static_cast<Recipe>(I)>, 0) : 0), ...);
  return fn;
}

}  // namespace

std::optional<Recipe> recipe_for(std::string_view math, int arity) {
  return host_has_fma() ? f32_recipe(math, arity) : std::nullopt;
}

UnaryF32 scalar_unary(std::string_view math) {
  const auto r = recipe_for(math, 1);
  return r ? unary_of(*r, std::make_index_sequence<static_cast<std::size_t>(Recipe::pow)>{}) : nullptr;
}

BinaryF32 scalar_binary(std::string_view math) { return recipe_for(math, 2) ? &binary_pow : nullptr; }

}  // namespace bcast::math::recipes
