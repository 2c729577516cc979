// The loop nest of an expression kernel (NOTE: [Expression kernels]).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

// Emits `void symbol(const KernelArgs*)` for the expression kernel `key`
// (key.expr != 0): the outer levels as an odometer of running offsets over
// out and every input, the innermost level as one loop that loads each input
// by its InnerStride (unit: indexed; zero: once, before the loop; strided: a
// running offset), computes the program in registers, and stores out. No
// index is multiplied by a stride anywhere in the nest.
llvm::Function* emit_expression_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                       const std::string& symbol);

}  // namespace bcast::jit
