// The element step of every host kernel: its expression's program in the one
// loop nest (NOTE: [Expression kernels]; a binary op's key is the one-node
// expression op(x0, x1)).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

// Emits `void symbol(const KernelArgs*)` for the host kernel `key`: the loop
// nest of its variant (emit_loop_nest: running offsets over out and every
// input, no index multiplied by a stride), whose element step computes the
// key's program (its spec's: a binary op's is op(x0, x1)) in registers and
// stores out.
llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol);

}  // namespace bcast::jit
