// The reference evaluator of expressions: node by node over blocks of a row,
// each node a plain loop of node_ops.h / scalar_ops.h semantics. The
// fallback when the JIT is off or fails, and the JIT's oracle.
#pragma once

#include <cstdint>
#include <vector>

#include "expr_program.h"
#include "kernel_abi.h"

namespace bcast {

// One node over `n` elements of contiguous blocks: out[i] = f(args...[i]).
using BlockStep = void (*)(std::int64_t n, void* out, const void* const* args);

class ExprEvaluator {
 public:
  explicit ExprEvaluator(ExprProgram program);

  // What a kernel's context holds for the evaluator (NOTE: [Kernel ABI]):
  // the evaluator and the call's scalar values, one ScalarSlot each
  // (kernel_abi.h), the value stored in the slot's dtype.
  struct Frame {
    const ExprEvaluator* evaluator;
    const void* scalars;
  };
  // The kernel: runs args->context's evaluator (a Frame).
  static void kernel(const KernelArgs* args);

  const ExprProgram& program() const { return program_; }
  // Instruction i of the program over n elements of contiguous buffers (the
  // Ascend simulator's vector_node).
  void run_node(std::size_t i, std::int64_t n, void* out, const void* const* args) const { steps_[i](n, out, args); }

 private:
  void run(const KernelArgs& args, const void* scalars) const;
  void run_row(std::int64_t n, void* const* row, const std::int64_t* inner_stride, const void* scalars,
               std::vector<std::uint64_t>& buffers) const;

  ExprProgram program_;
  std::vector<BlockStep> steps_;  // one per instruction
};

}  // namespace bcast
