// Expression kernels: what one depends on, interned as an id that a
// KernelKey carries (NOTE: [Expression kernels]).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broadcast_plan.h"
#include "expr_program.h"
#include "kernel_key.h"

namespace bcast {

// NOTE: [Expression kernels] A kernel computes each output element through
// the whole expression in registers: one trip through memory for a chain.
// It depends on the expression's structure (scalars are arguments, read from
// KernelArgs::context, never constants), the leaves' types, the N-ary
// broadcast type (NOTE: [Dim classes]) and each operand's inner stride
// class, so one kernel serves every shape and every scalar value. The key
// prints all of it:
//   expr[(x0-x1)/x2].u8,f32,f32.[expand_bc,same].uzzz.host.znver5.O2.1a2b3c4d
// The nest walks every operand with running offsets (additions only), as the
// binary kernels do; the innermost loop is left to LLVM's vectoriser.
struct ExprKernelSpec {
  std::string structure;              // to_text of the graph: x<i>, s<j>
  std::vector<LeafType> inputs, scalars;
  BroadcastType type;                 // a dim class per level
  std::vector<InnerStride> inner;     // out, then each input

  ExprProgram program;                // lowered from the above
  std::string leaf_types() const;     // "u8,f32,f32,~int": the inputs', then the scalars'
  std::string layout() const;         // "uzzz"
};

// The id of `spec` (program ignored: it is lowered here), 1 and up; the same
// for equal specs. Lowering errors are the caller's (it lowered before).
std::uint32_t intern_expr_kernel(const ExprKernelSpec& spec);
const ExprKernelSpec& expr_kernel_spec(std::uint32_t id);

// How each operand moves along the innermost level of an N-ary plan.
std::vector<InnerStride> inner_strides_of(const BroadcastPlan& plan);

// The key of an expression kernel for a planned call on `target`. A call that
// moves at least stream_min_bytes streams its stores (NOTE: [Streaming
// stores]) where the target can, out is contiguous along the rows, no input
// is strided there, and rows are long.
KernelKey make_expr_kernel_key(const Target& target, const std::string& structure, const std::vector<LeafType>& inputs,
                               const std::vector<LeafType>& scalars, const BroadcastPlan& plan, std::uint32_t codegen,
                               std::uint64_t stream_min_bytes = kNeverStream);

// Whether an expression kernel with these inner strides can stream its stores.
bool expr_layout_can_stream(const std::vector<InnerStride>& inner);

// A dim class by its name ("same", "expand_bc"), as to_string(DimCode) prints it.
std::optional<DimCode> parse_dim_class(std::string_view name);

}  // namespace bcast
