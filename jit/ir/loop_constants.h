// Vector constants of a kernel's loops, loaded once (NOTE: [Loop constants]).
#pragma once

#include <llvm/IR/Module.h>

namespace bcast::jit {

// NOTE: [Loop constants] A math recipe's loop uses a dozen or more vector
// constants (its coefficients and split points). On a target with 16 vector
// registers they do not all stay in registers, and the register allocator
// rematerialises each one where it is used, on every iteration: a constant
// pool address (movabsq, the JIT's large code model) and a broadcast load,
// two instructions a constant. In a one-level loop it instead spilled them
// to the stack and read them as the FMAs' memory operands, which cost
// nothing; f32 exp(x) ran 1.3 times as fast as exp(x - m) of a row's m
// (the Zen 3 VM, 2026-12-06). So, on such a target, each floating-point
// vector constant used past a function's entry block becomes a value
// broadcast once in the entry block from a volatile load of a constant
// (which cannot be rematerialised): kept in a register where there is room, else spilled
// once and read from the stack. The bits are the same: the same values,
// loaded. A target with 32 registers (AVX-512) keeps its constants in them
// already and is left alone.
// Returns whether `module` changed.
bool load_loop_constants_once(llvm::Module& module);

}  // namespace bcast::jit
