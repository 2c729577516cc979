// The Ascend-style kernel of a key: tiles of the loop nest staged through the
// unified buffer by simulator intrinsics (NOTE: [Ascend kernel ABI]).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <string>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

llvm::Function* emit_ascend_kernel(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                                   const std::string& symbol);

}  // namespace bcast::jit
