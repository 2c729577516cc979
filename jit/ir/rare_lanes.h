// A recipe's rare lanes in a kernel (NOTE: [Rare lanes], src/core/
// math_recipes.h): its main path on every lane, the full recipe on the rare
// ones behind one branch per vector.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string_view>

#include "math_recipes.h"

namespace bcast::jit {

// Recipe `r` (of the function table's `math` function) on x (and y, for a
// recipe of two arguments), a scalar or a vector: run_main's value, passed with x to a call that keeps it on the
// lanes that are not rare and computes the full recipe on the others. The
// loop vectoriser widens the call to a vector variant that
// finish_rare_lanes writes after it.
llvm::Value* emit_with_rare_lanes(llvm::IRBuilder<>& b, math::recipes::Recipe r, std::string_view math, llvm::Value* x,
                                  llvm::Value* y = nullptr);

// main on the lanes of x within `limit` in magnitude, the library's `math`
// (emit_math_call) on the others, NaN among them: a call that tests a
// vector's lanes and calls `math` only when one is beyond (written, as
// emit_with_rare_lanes' fix is, by finish_rare_lanes).
llvm::Value* emit_beyond(llvm::IRBuilder<>& b, std::string_view math, llvm::Value* x, double limit,
                         llvm::Value* main);

// After the pass pipeline: gives a body to each vector variant that a kernel
// of `module` calls (if any of its lanes is rare, the full recipe on the
// vector; else the main path's vector), and marks the variants and the
// scalar fixes always-inline. Returns whether there are any, so that the
// caller runs the inliner.
bool finish_rare_lanes(llvm::Module& module);

}  // namespace bcast::jit
