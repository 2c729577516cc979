// KernelKey: everything a generated kernel depends on, and nothing else.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "broadcast_plan.h"
#include "reduction_table.h"
#include "target.h"

namespace bcast {

// How an operand moves along the innermost level, which the kernel's inner
// loop is specialised for.
enum class InnerStride : std::uint8_t {
  unit,     // stride 1: contiguous, vectorised loads and stores
  zero,     // the operand repeats along the level (an expand code): loaded once
  strided,  // any other stride, a run-time value (0 included, for a broadcast view)
  reversed, // stride -1 (`x[..., ::-1]`; out too, NOTE: [Walking order]): vectors of consecutive elements, lanes reversed
};

// An operand's step from one element of the innermost level to the next for
// a unit, repeated or reversed inner stride: 1, 0 or -1 (strided: a run-time value, 0 here).
inline std::int64_t step_along(InnerStride s) {
  return s == InnerStride::unit ? 1 : s == InnerStride::reversed ? -1 : 0;
}

// NOTE: [Reduction kernels]: how a kernel accumulates, or none.
enum class ReduceForm : std::uint8_t { none, rows, columns, narrow };

struct ExprKernelSpec;
using ExprSpecPin = std::shared_ptr<const ExprKernelSpec>;  // NOTE: [Interned ids]

// Extents and strides are run-time arguments, so one kernel serves every shape
// of its broadcast type. What the kernel computes is its expression's spec
// (expr_kernel.h), named by an id: a binary op's is the one-node expression
// op(x0, x1), so a binary call and an expression of one node share a key.
// A key is small and trivially copyable: the cache hashes and compares it
// without allocating. The fields after `codegen` belong to the loop variants
// (NOTE: [Loop variants] in variant.h): each row of the variant table sets
// and prints its own.
struct KernelKey {
  TargetKind target = TargetKind::host;
  std::uint8_t model = 0;  // the target's model (Target::model(): ascend-sim's product); 0 for the host
  DType dtype = DType::f32;                       // out's: the spec's result
  std::uint8_t rank = 0;                          // levels of the broadcast type
  std::uint8_t operands = kNumOperands;           // out and the inputs: 3 for a binary op
  std::array<InnerStride, kMaxOperands> inner{};  // out, then each input; unit past `operands`
  std::uint32_t codegen = 0;                      // intern_codegen_settings id
  // NOTE: [Fixed rows]: the row length, and each operand's step from one row
  // to the next (0, 1, fixed_row, or -fixed_row stored as its two's
  // complement byte: fixed_row_step reads it); 0 when the variant does not apply.
  std::uint8_t fixed_row = 0;
  std::array<std::uint8_t, kMaxOperands> row_step{};
  // NOTE: [Transposed tiles]: the operand index of the input read in
  // transposed blocks (kA or kB for a binary op, any input of an
  // expression); 0 otherwise.
  std::uint8_t transposed = 0;
  // NOTE: [Streaming stores]: out is written a line at a time, past the caches.
  bool stream = false;
  // NOTE: [Expression kernels]: the interned spec (expr_kernel.h): the
  // structure, the leaves' types and the dim classes. 64 bits: ids are never
  // reused (NOTE: [Interned ids]).
  std::uint64_t expr = 0;
  // NOTE: [Reduction kernels]: the kernel combines its expression's values
  // into out, whose dtype is then `accumulator`, instead of storing them.
  ReduceForm reduce = ReduceForm::none;
  detail::Combine combine = detail::Combine::add;
  DType accumulator = DType::f32;
  std::uint8_t reduce_width = 0;  // narrow: the kept row's width
  std::uint8_t reduce_block = 0;  // narrow: the rows of a block (NOTE: [Reduction order])

  // Stable and readable (key_codec.h); the LLVM module name and the kernel's symbol:
  //   add.f32.[expand_b,same].uuz.host.znver5.O2.1a2b3c4d
  std::string to_string() const;
  // The inner strides of out and each input ("uuz": u unit, z zero, s
  // strided), then each variant's suffix: ".r4-4-4-1", ".ta", ".nt".
  std::string layout_code() const;
  std::uint64_t hash() const;

  friend bool operator==(const KernelKey&, const KernelKey&) = default;
};

struct KernelKeyHash {
  std::size_t operator()(const KernelKey& key) const { return key.hash(); }
};

// A threshold of NOTE: [Streaming stores] that no call reaches.
inline constexpr std::uint64_t kNeverStream = ~std::uint64_t{0};

// How each operand (out first) moves along the plan's innermost level;
// unit past its operands.
std::array<InnerStride, kMaxOperands> inner_strides(const BroadcastPlan& plan);

// The key of a binary op's planned call on `target`: the spec of op(x0, x1)
// on two inputs of `dtype` (binary_spec), then the inner strides and each
// loop variant whose row applies (variant.h). A call that moves at least
// stream_min_bytes gets streaming stores where its layout and the target
// allow them. `pin`, when given, receives the spec's pin (NOTE: [Interned
// ids]).
KernelKey make_kernel_key(const Target& target, Op op, DType dtype, const BroadcastPlan& plan, std::uint32_t codegen,
                          std::uint64_t stream_min_bytes = kNeverStream, ExprSpecPin* pin = nullptr);

// The same from a broadcast type alone, for pre-generation: operands are
// contiguous, so a `same` innermost level streams both inputs.
KernelKey make_kernel_key(const Target& target, Op op, DType dtype, const BroadcastType& type, std::uint32_t codegen);

// Every broadcast type of contiguous operands with `rank` levels: a first
// code, then each next code one of the two others (3 * 2^(rank-1) of them;
// one, [], for rank 0).
std::vector<BroadcastType> types_of_rank(int rank);

// The plan of contiguous operands for `type` with the given extents: each
// operand's stride on a level is the product of the extents inside it that
// the operand spans (0 where it repeats).
BroadcastPlan contiguous_plan(const BroadcastType& type, const std::vector<std::int64_t>& extents);

}  // namespace bcast
