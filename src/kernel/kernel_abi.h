// The calling convention every kernel follows, JIT-compiled or reference: one
// call runs `count` iterations of the plan's outer levels from a given odometer
// position, each a full pass of the innermost level.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bcast {

// NOTE: [Kernel ABI] Offsets and strides are in elements of each operand's own
// dtype. Levels are outermost first; `strides` and `spans` hold three rows of
// `rank` entries (out, a, b). A kernel never multiplies an index by a stride:
// it starts at the pointers given, adds a level's stride on every step and,
// when the level wraps, subtracts its span ((extent - 1) * stride, computed by
// the caller) and carries into the next level out.
struct KernelArgs {
  void* out;                     // element visited first
  const void* a;
  const void* b;
  const std::int64_t* extents;   // [rank]
  const std::int64_t* strides;   // [3 * rank]
  const std::int64_t* spans;     // [3 * rank]; the innermost entries are unused
  std::int64_t* index;           // [rank - 1] odometer start; the kernel may overwrite it
  std::int64_t count;            // outer iterations to run (1 for rank 0 or 1)
  std::int64_t rank;             // levels; JIT kernels know it already from their key
};

using KernelFn = void (*)(const KernelArgs*);

}  // namespace bcast
