// A binary op's kernel: the one loop nest (loop_nest_emitter.h) with the
// op's element step.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

// Emits `void symbol(const KernelArgs*)` for the binary op's key (key.expr
// == 0): out = op(a, b) per element, in the nest of the key's variant.
llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol);

}  // namespace bcast::jit
