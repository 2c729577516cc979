// bcast's own math functions (NOTE: [Math recipes], src/core/math_recipes.h)
// emitted into a kernel: the recipes' lanes as LLVM values.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <optional>
#include <string_view>

#include "math_recipes.h"

namespace bcast::jit {

// The recipe of the function table's `math` function `name` on f32 or f64
// lanes x (and y), a scalar or a vector, whole; null where bcast has none
// (then the caller calls the library). emit_math_call puts the rare-lane
// branch (NOTE: [Rare lanes]) around a recipe with a main path.
llvm::Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x, llvm::Value* y = nullptr);

// The recipe of `arity` arguments of `name` in x's precision, if it has a
// main path.
std::optional<math::recipes::Recipe> recipe_with_main_path(std::string_view name, int arity, llvm::Value* x);

}  // namespace bcast::jit
