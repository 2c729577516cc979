// The recipes in IR (math_recipes_ir.h, NOTE: [Math recipes]), on
// recipe_lanes.h's lanes.
#include "ir/math_recipes_ir.h"

#include "ir/recipe_lanes.h"
#include "math_recipes.h"

namespace bcast::jit {

using llvm::Value;

namespace {

// The recipe of `name` with `arity` arguments in the precision of x's lanes.
std::optional<math::recipes::Recipe> recipe_of_lanes(std::string_view name, int arity, Value* x) {
  llvm::Type* scalar = x->getType()->getScalarType();
  if (!scalar->isFloatTy() && !scalar->isDoubleTy()) return std::nullopt;
  return math::recipes::recipe_for(name, arity, scalar->isFloatTy() ? DType::f32 : DType::f64);
}

}  // namespace

Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, Value* x, Value* y) {
  const auto recipe = recipe_of_lanes(name, y ? 2 : 1, x);
  if (!recipe) return nullptr;
  const Lanes lx{x, &b};
  return (y ? math::recipes::run(*recipe, lx, Lanes{y, &b}) : math::recipes::run(*recipe, lx)).v;
}

std::optional<math::recipes::Recipe> recipe_with_main_path(std::string_view name, int arity, Value* x) {
  const auto recipe = recipe_of_lanes(name, arity, x);
  if (!recipe || !math::recipes::has_main_path(*recipe)) return std::nullopt;
  return recipe;
}

}  // namespace bcast::jit
