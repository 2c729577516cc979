// Calls to the function table's `math` functions (exp, tan, atan2...) in a
// kernel, made so that LLVM's loop vectoriser calls SLEEF's vector functions
// (NOTE: [Vector math]).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <string_view>

namespace bcast::jit {

// The function `name` ("tan": tanf or tan, by x's precision) of x (and y, for
// a function of two arguments), lane by lane when x is a vector. The scalar
// call is SLEEF's scalar function and carries the vector variants the
// kernel's target can call: "tan" on f32 with AVX-512 becomes a call of
// Sleef_tanf1_u10purecfma marked "_ZGV_LLVM_N16v_Sleef_tanf1_u10purecfma(_ZGVeN16v_tanf),...",
// which the vectoriser widens. Without SLEEF: the C library's tanf, scalar.
llvm::Value* emit_math_call(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x, llvm::Value* y = nullptr);

// math::one_nan on r = f(x, y) (x, x for a function of one argument): a NaN
// result is a NaN operand's, quieted (x + y), else +NaN.
llvm::Value* emit_one_nan(llvm::IRBuilder<>& b, llvm::Value* r, llvm::Value* x, llvm::Value* y);

// `name` of x and y as every lane needs it: the recipe whole (or the
// library's call) with NOTE: [Math guards]' steps and the NaN rule; what a
// recipe's rare lanes take (NOTE: [Rare lanes]).
llvm::Value* emit_binary_math(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x, llvm::Value* y);

// The library's function `name` of x with NOTE: [Math guards]' steps and no
// recipe: the lanes a recipe leaves to the library (NOTE: [Rare lanes]).
llvm::Value* emit_library_function(llvm::IRBuilder<>& b, std::string_view name, llvm::Value* x);

}  // namespace bcast::jit
