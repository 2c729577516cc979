// The loop nest of every host kernel (NOTE: [Loop variants]), emitted with
// IRBuilder over out and N inputs; what each element (or vector of elements)
// computes is a NestBody's: a kernel's program (expression_emitter.cpp).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

#include "codegen_settings.h"
#include "ir/ir_complex.h"
#include "kernel_key.h"

namespace bcast::jit {

// What a nest computes. Operand 0 is out, 1 to N the inputs; `lanes` is 1
// for one element, more for a vector of consecutive ones.
class NestBody {
 public:
  virtual ~NestBody() = default;
  // Once, in the kernel's entry block, before the nest (an expression loads
  // its scalars from `args` here).
  virtual void enter(llvm::IRBuilder<>& /*b*/, llvm::Value* /*args*/) {}
  // The result of the inputs (input 1 first) stored at `out`, aligned to
  // one element; the store, which NOTE: [Streaming stores] may mark. A
  // real input comes as stored (its storage type, in `re`: an op may need
  // its bits), a complex one as its compute parts (NOTE: [Complex in IR]).
  virtual llvm::StoreInst* compute_and_store(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, llvm::Value* out,
                                             unsigned lanes) = 0;
  // NOTE: [Reduction kernels]: a reduction's body combines instead of
  // storing (compute_and_store loads out, combines, stores); `accumulate`
  // returns acc (the accumulator's compute form, `lanes` of it) combined
  // with the result of the inputs, and `identity` the combine's identity.
  virtual llvm::Value* accumulate(llvm::IRBuilder<>& b, const std::vector<Parts>& inputs, llvm::Value* acc,
                                  unsigned lanes);
  virtual llvm::Value* identity(llvm::IRBuilder<>& b, unsigned lanes);
  // Two accumulators' lanes combined (a then c, as the executor's combine
  // takes them): a narrow item's halving (NOTE: [Reduction order]).
  virtual llvm::Value* combine(llvm::IRBuilder<>& b, llvm::Value* a, llvm::Value* c);
  // NOTE: [Math recipes]: vectors an iteration of the vectorised inner loop
  // (0: the vectoriser's choice), and lines a step of a streaming row.
  virtual unsigned interleave() const { return 0; }
  // NOTE: [Partial vectors]: whether a streaming row's first and last
  // elements run as masked vectors (a body dear an element: a math function
  // or a division) or an element at a time (cheap arithmetic).
  virtual bool partial_vectors() const { return false; }
};

// Emits `void symbol(const KernelArgs*)` for `key` into `module`, following
// NOTE: [Kernel ABI] with the nest of the key's variant: outer levels as an
// odometer of running offsets, the innermost level as a loop specialised on
// each operand's InnerStride (the key's, out first: unit indexed and
// vectorisable; zero loaded once before the loop; strided a running offset),
// or the variant's own loops. No index is multiplied by a stride anywhere in
// the nest. `dtypes` are the operands' (out first).
llvm::Function* emit_loop_nest(llvm::Module& module, const KernelKey& key, const CodegenSettings& settings,
                               const std::string& symbol, const std::vector<DType>& dtypes, NestBody& body);

}  // namespace bcast::jit
