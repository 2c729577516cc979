// bcast's own math functions (NOTE: [Math recipes], src/core/math_recipes.h)
// emitted into a kernel: the recipes' lanes as LLVM values.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <optional>
#include <string_view>

#include "math_recipes.h"

namespace bcast::jit {

// The recipe of the function table's `math` function `name` on f32 or f64
// lanes x (and y), a scalar or a vector; null where bcast has none (then
// the caller calls the library). A recipe of one argument with a main path
// comes with its rare lanes (NOTE: [Rare lanes]); one of two comes whole
// (emit_math_call puts the rare-lane branch around its guards too).
llvm::Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x, llvm::Value* y = nullptr);

// The recipe of two arguments of `name` in x's precision, if it has a main
// path.
std::optional<math::recipes::Recipe> binary_recipe_with_main_path(std::string_view name, llvm::Value* x);

}  // namespace bcast::jit
