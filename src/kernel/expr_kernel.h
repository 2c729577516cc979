// Expression kernels: what one depends on, interned as an id that a
// KernelKey carries (NOTE: [Expression kernels]).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broadcast_plan.h"
#include "expr_program.h"
#include "kernel_key.h"

namespace bcast {

// NOTE: [Expression kernels] Every kernel computes each output element
// through an expression in registers: one trip through memory for a chain;
// a binary op's kernel is the one-node expression op(x0, x1), so a binary
// call and an expression of that one node share a key and a kernel. A
// kernel depends on the expression's structure (scalars are arguments, read
// from KernelArgs::context, never constants), the leaves' types and the
// N-ary broadcast type (NOTE: [Dim classes]), which the spec holds, and on
// each operand's inner stride class and loop variants, which the key holds
// (NOTE: [Loop variants]), so one kernel serves every shape and every
// scalar value. The key prints all of it, a binary op's spec as the op:
//   expr[(x0-x1)/x2].u8,f32,f32.[expand_bc,same].uzzz.host.znver5.O2.1a2b3c4d
//   add.f32.[expand_b,same].uuz.host.znver5.O2.1a2b3c4d
// The nest is one for all (jit/emit/loop_nest_emitter.h): every operand
// walked with running offsets (additions only), the innermost loop left to
// LLVM's vectoriser, or a variant's own loops (fixed rows, transposed tiles,
// streaming stores: the key's suffixes, ".ta.nt").
struct ExprKernelSpec {
  std::string structure;              // to_text of the graph: x<i>, s<j>
  std::vector<LeafType> inputs, scalars;
  BroadcastType type;                 // a dim class per level

  ExprProgram program;                // lowered from the above
  std::string leaf_types() const;     // "u8,f32,f32,~int": the inputs', then the scalars'
};

// The spec of a binary op's kernel: the one-node expression op(x0, x1) on
// two inputs of `dtype`, no scalars.
ExprKernelSpec binary_spec(Op op, DType dtype, const BroadcastType& type);
// The op of a binary op's spec (as binary_spec makes it); nullopt for every
// other spec.
std::optional<Op> binary_op_of(const ExprKernelSpec& spec);

// NOTE: [Interned ids]: the registry of specs is bounded. A spec stays while
// something pins it (holds an ExprSpecPin: a cache slot or queued compile of
// a key naming it, the call that made the key), and the kSpareExprSpecs most
// recently used unpinned ones stay too; ids are never reused.
inline constexpr std::size_t kSpareExprSpecs = 1024;

// The id of `spec` (program ignored: it is lowered here), 1 and up; the same
// for equal specs while it is registered. Lowering errors are the caller's
// (it lowered before). `pin`, when given, receives the spec's pin.
std::uint64_t intern_expr_kernel(const ExprKernelSpec& spec, ExprSpecPin* pin = nullptr);
// The spec of `id`, pinned; null when it was freed (or never interned).
ExprSpecPin pin_expr_kernel(std::uint64_t id);
// The spec of `id`, for a caller that holds a pin on it (directly or through
// the cache slot or compile of its key). An id that was freed is an internal
// error (std::logic_error), never another spec.
const ExprKernelSpec& expr_kernel_spec(std::uint64_t id);
// How many specs are registered now (pinned or spare).
std::size_t registered_expr_kernels();

// The key of an expression kernel for a planned call on `target`: its spec,
// then the layout and loop variants as a binary op's key (select_variants
// in variant.h; a call that moves at least stream_min_bytes may stream its
// stores). `pin`, when given, receives the spec's pin: a caller that keeps
// it until its call has run need not count on the spare specs (NOTE:
// [Interned ids]).
KernelKey make_expr_kernel_key(const Target& target, const std::string& structure, const std::vector<LeafType>& inputs,
                               const std::vector<LeafType>& scalars, const BroadcastPlan& plan, std::uint32_t codegen,
                               std::uint64_t stream_min_bytes = kNeverStream, ExprSpecPin* pin = nullptr);
// The key for the interned spec `id` (`spec` is it, pinned by the caller):
// the layout and loop variants of `plan` on `target`, as make_kernel_key's.
KernelKey key_for_spec(const Target& target, std::uint64_t id, const ExprKernelSpec& spec, const BroadcastPlan& plan,
                       std::uint32_t codegen, std::uint64_t stream_min_bytes);

// NOTE: [Reduction kernels]: the key of a reduction kernel over `plan`'s
// levels (out the accumulator, its strides 0 where it repeats): the spec of
// its expression, each operand's inner stride, and how it accumulates; no
// other variant.
struct ReductionKernel {
  ReduceForm form = ReduceForm::rows;
  detail::Combine combine = detail::Combine::add;
  DType accumulator = DType::f32;
  int width = 0;  // narrow: the kept row's width
  int block = 0;  // narrow: the rows of a block (narrow_block_rows)
};
KernelKey make_reduction_kernel_key(const Target& target, const std::string& structure,
                                    const std::vector<LeafType>& inputs, const std::vector<LeafType>& scalars,
                                    const BroadcastPlan& plan, std::uint32_t codegen, const ReductionKernel& reduction,
                                    ExprSpecPin* pin = nullptr);

// NOTE: [Binary spec memo] The id of binary_spec(op, dtype, type), interned,
// its pin in `pin`. A binary call that misses the call memo makes its key
// again, and interning its spec (the identity's text, the registry's lock)
// cost a quarter of such a call (bcast-jit-bench alternating_calls: two ops
// in turn on [16], 780 -> 990 ns a call): each thread keeps the pins of its
// last kBinarySpecMemo binary specs and finds them again without either.
inline constexpr std::size_t kBinarySpecMemo = 8;
std::uint64_t intern_binary_spec(Op op, DType dtype, const BroadcastType& type, ExprSpecPin* pin);

// The spec `key` names, for a caller that holds a pin on it (the call that
// made the key, a cache slot or compile of it).
inline const ExprKernelSpec& spec_of(const KernelKey& key) { return expr_kernel_spec(key.expr); }

// A dim class by its name ("same", "expand_bc"), as to_string(DimCode) prints it.
std::optional<DimCode> parse_dim_class(std::string_view name);

}  // namespace bcast
