// The calling convention every kernel follows, JIT-compiled or reference: one
// call runs `count` iterations of the plan's outer levels from a given odometer
// position, each a full pass of the innermost level.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bcast {

// NOTE: [Kernel ABI] Operands are out first, then each input (a binary op's:
// out, a, b). Offsets and strides are in elements of each operand's own
// dtype. Levels are outermost first; `strides` and `spans` hold one row of
// `rank` entries per operand. A kernel never multiplies an index by a stride:
// it starts at the pointers given, adds a level's stride on every step and,
// when the level wraps, subtracts its span ((extent - 1) * stride, computed by
// the caller) and carries into the next level out.
struct KernelArgs {
  void* const* data;             // [operands]: each operand's element visited first
  const std::int64_t* extents;   // [rank]
  const std::int64_t* strides;   // [operands * rank]
  const std::int64_t* spans;     // [operands * rank]; the innermost entries are unused
  std::int64_t* index;           // [rank - 1] odometer start; the kernel may overwrite it
  std::int64_t count;            // outer iterations to run (1 for rank 0 or 1)
  std::int64_t rank;             // levels; JIT kernels know it already from their key
  const void* context;           // an expression kernel's ScalarSlots (NOTE: [Expression kernels]), or the
                                 // reference evaluator's frame; null for an op
};

using KernelFn = void (*)(const KernelArgs*);

// NOTE: [Reduction kernels] A reduction kernel computes its expression as any
// kernel does, then combines each value, converted to the accumulator's
// dtype, into out (of that dtype) instead of storing it, so that the values
// a reduction reads never reach memory. It follows NOTE: [Kernel ABI] with
// one of three forms, each NOTE: [Reduction order]'s items:
//  - rows: each pass of the innermost level (n elements, every input unit
//    or repeated there) is one run of the reduced loop, or a part of one
//    that starts on an item's boundary (the caller's pointers and extent),
//    cut into items of kReduceItem elements: item c's kReduceLanes lanes are
//    written to out[c * kReduceLanes, ...), out being where the pass's
//    offsets put it (the innermost out stride is unused). Element i of an
//    item goes to lane i mod kReduceLanes, each lane combined in order from
//    the identity; the lanes are vectors in registers, the last item's
//    elements past its whole vectors are combined one at a time.
//  - columns: the generic nest, out combined in place (out = out op value),
//    out's stride 0 along the reduced levels, so that whole rows of out
//    accumulate in order; the caller fills out with the identity first.
//  - narrow columns (a kept row of w <= kNarrowWidth values, the key's
//    reduce_width): whole column items in one call. The last three levels
//    are the items, each item's kNarrowBlocks b reduced indices and the
//    w results (an input's stride along the w any: unit, repeated,
//    reversed or strided); the call runs
//    `count` consecutive items of one run of the items level from the
//    pointers given (the odometer's index is unused), and stores each
//    item's w results at out, item after item: its rows in kNarrowBlocks
//    blocks of b rows (the key's reduce_block: narrow_block_rows), a lane
//    for each row of a block and each of the w, each lane combined block by
//    block from the identity, then the block's rows halved (row r takes row
//    r + b/2, then r + b/4, ... 1), as NOTE: [Reduction order] says.
inline constexpr int kReduceLanes = 32;
inline constexpr std::int64_t kReduceItem = 512;
inline constexpr std::int64_t kColumnItem = 16;
inline constexpr int kNarrowWidth = 16;
inline constexpr std::int64_t kNarrowBlocks = 8;
inline constexpr int kNarrowLanes = 32;  // a narrow block's lanes at most
// The rows of a narrow block, for a kept row of w values and an innermost
// reduced loop of `extent`: the most, a power of two and at least 2, whose
// w values fit kNarrowLanes lanes and of which kNarrowBlocks blocks make
// whole items of the loop (8 for an image's 3 channels, 2 for 16 values or
// an extent of 48); 0 where none do (an extent that is no multiple of 16:
// such a loop takes the columns form, as before blocks).
constexpr std::int64_t narrow_block_rows(std::int64_t w, std::int64_t extent) {
  if (w < 1 || 2 * w > kNarrowLanes || extent % (2 * kNarrowBlocks) != 0) return 0;
  std::int64_t rows = 2;
  while (rows * 2 * w <= kNarrowLanes && extent % (kNarrowBlocks * rows * 2) == 0) rows *= 2;
  return rows;
}

// An expression kernel's scalar j is slot j of KernelArgs::context: its value
// stored in its program dtype at the slot's start. 16 bytes hold every
// dtype's value, c128's two parts included.
struct alignas(16) ScalarSlot {
  unsigned char bytes[16] = {};
};
inline constexpr std::size_t kScalarSlotBytes = sizeof(ScalarSlot);

}  // namespace bcast
