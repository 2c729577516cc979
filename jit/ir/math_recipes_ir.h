// bcast's own math functions (NOTE: [Math recipes], src/core/math_recipes.h)
// emitted into a kernel: the recipes' lanes as LLVM values.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string_view>

namespace bcast::jit {

// The recipe of the function table's `math` function `name` on f32 lanes x
// (and y), a scalar or a vector; null where bcast has none (then the caller
// calls the library).
llvm::Value* emit_math_recipe(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x, llvm::Value* y = nullptr);

}  // namespace bcast::jit
