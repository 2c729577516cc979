// Which complex instructions the JIT has IR for (NOTE: [Complex in IR]);
// LLVM-free, for provider::emits.
#pragma once

#include "expr_program.h"

namespace bcast::jit {

// Whether the instruction, which reads or makes a complex value, has IR.
bool has_complex_ir(const ExprInstr& s);

}  // namespace bcast::jit
