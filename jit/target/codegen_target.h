// The code generator's half of a target (src/kernel/target.h is the other):
// the IR and settings that differ by the architecture kernels are built for.
// Only this file's implementation names an architecture's intrinsics.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/TargetParser/Triple.h>

#include <string>
#include <string_view>
#include <vector>

#include "codegen_settings.h"
#include "kernel_key.h"

namespace bcast::jit {

// A build of the GNU vector-function ABI's math functions that code for a
// target may call (NOTE: [Vector math]): its ISA letter in the mangled name
// (_ZGV<letter>N16v_expf), its vector width, and whether it computes with FMA.
struct VectorAbiIsa {
  char letter;
  int bits;
  bool fma;
};

class CodegenTarget {
 public:
  virtual ~CodegenTarget() = default;
  // Orders a kernel's non-temporal stores before its return (NOTE:
  // [Streaming stores]).
  virtual void emit_store_fence(llvm::IRBuilder<>& b) const = 0;
  // The settings `key`'s kernel is built with, from the interned ones.
  virtual CodegenSettings settings_for(const KernelKey& /*key*/, CodegenSettings settings) const { return settings; }
  // `features` with every vector extension above `max_isa` (kIsaLevels)
  // turned off.
  virtual std::string cap_features(const std::string& features, std::string_view /*max_isa*/) const {
    return features;
  }
  // The vector-ABI builds code with `features` ("+avx2,+fma,...") can call,
  // widest first; none on a target without a vector ABI.
  virtual std::vector<VectorAbiIsa> vector_abi_isas(std::string_view /*features*/) const { return {}; }
};

// The code generator target of an LLVM triple: x86-64, or the generic one.
const CodegenTarget& codegen_target(const llvm::Triple& triple);

}  // namespace bcast::jit
