// NOTE: [Complex in IR] A complex value in a kernel is its two parts: two
// compute values of its part's type (f32 for c64, f64 for c128), scalars or
// vectors alike. Memory holds [2 x part]; an element loop loads and stores
// the parts one by one, which LLVM's loop vectoriser sees as one stride-2
// group (an interleave group) and turns into whole-vector loads and stores
// with shuffles; the streaming line loop does those shuffles itself. The ops
// are complex_ops.h's (NOTE: [Complex arithmetic]) step for step, branches
// made selects, so a kernel gives the reference executor's bits; abs and
// sign compute |z| as the evaluator does (complex_ops::magnitude). The complex
// functions (exp, log, sin, pow, ...) have no IR yet: a program holding one
// runs on the reference executor (has_complex_ir, provider::emits).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "bcast/dtype.h"
#include "expr_program.h"
#include "ir/complex_coverage.h"

namespace bcast::jit {

// A value of the expression: `re` alone for a real dtype, both for a complex one.
struct Parts {
  llvm::Value* re = nullptr;
  llvm::Value* im = nullptr;
};

// A value repeated in every one of `lanes` lanes, part by part.
Parts splat_parts(llvm::IRBuilder<>& b, unsigned lanes, Parts x);

// The instruction on its arguments' values (has_complex_ir(s) must hold).
Parts emit_complex_instr(llvm::IRBuilder<>& b, const ExprInstr& s, const Parts* args);

// An element of complex `dtype` at `address` (a [2 x part]*), and its store.
Parts load_complex(llvm::IRBuilder<>& b, DType dtype, llvm::Value* address);
void store_complex(llvm::IRBuilder<>& b, DType dtype, Parts value, llvm::Value* address);

// `lanes` consecutive elements from `address` as two vectors of parts (one
// load, two shuffles), and their store (two shuffles, one store, returned so
// that the caller can mark it).
Parts load_complex_vector(llvm::IRBuilder<>& b, DType dtype, llvm::Value* address, unsigned lanes);
llvm::StoreInst* store_complex_vector(llvm::IRBuilder<>& b, DType dtype, Parts value, llvm::Value* address);

}  // namespace bcast::jit
