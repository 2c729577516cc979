// The additive-offset loop nest of a kernel, emitted with IRBuilder.
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

// Emits `void symbol(const KernelArgs*)` for `key` into `module`, following
// NOTE: [Kernel ABI]: outer levels as an odometer of running offsets, the
// innermost level as a loop specialised on each operand's InnerStride (unit:
// indexed, vectorisable; zero: loaded once before the loop; strided: a running
// offset). No index is multiplied by a stride anywhere in the nest.
llvm::Function* emit_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                            const std::string& symbol);

}  // namespace bcast::jit
