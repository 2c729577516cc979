// The calling convention of Ascend-style kernels, shared by the emitter (jit/)
// and the launcher (src/): what a kernel reads from its parameters.
#pragma once

#include <cstdint>

#include "broadcast_plan.h"

namespace bcast::ascend {

// Where one block starts: its first tile and how many it runs.
struct BlockStart {
  std::int64_t tiles;                  // tiles this block runs (at most ceil(total / block_num))
  std::int64_t pos;                    // element position of the first tile within its row
  std::int64_t offset[kMaxOperands];   // byte offset of the first tile from each operand's data pointer
  std::int64_t* index;                 // odometer start of the outer levels; the kernel may overwrite it
};

enum Residency : std::int64_t { kPerTile = 0, kResident = 1 };

// NOTE: [Ascend kernel ABI] A kernel is
//   void kernel(i64 block_idx, i64 block_num, ptr gm, ptr params, ptr ctx)
// where gm holds each operand's data pointer, out first (a binary op's: out,
// a, b; an expression's: out, then x0, x1, ...), and runs tiles: pieces of
// `tile` elements of the innermost level (the last piece of a row may be
// shorter), in the order of the loop nest. Offsets are in bytes and move
// additively: a tile adds tile_step; a row's end subtracts row_rewind and
// steps the outer odometer (strides, spans) like a host kernel. An input is
// either copied per tile into its tile buffer, or, when it is repeated across
// tiles and small, loaded whole into the UB once per block (kResident) and
// read from there. An expression's nodes each write a tile buffer of their
// own (ub_values), the last one out's. ctx is the simulator's BlockContext.
struct KernelParams {
  const std::int64_t* extents;                  // outer levels (rank - 1 of them)
  const std::int64_t* strides;                  // [operands][rank - 1], bytes
  const std::int64_t* spans;                    // [operands][rank - 1], bytes
  std::int64_t outer_levels;                    // rank - 1 (0 for rank 0 and 1)
  std::int64_t inner_extent;                    // elements of a row
  std::int64_t tile;                            // elements of a full tile
  std::int64_t inner_stride[kMaxOperands];      // elements between a row's neighbours in GM
  std::int64_t tile_step[kMaxOperands];         // bytes a tile moves each operand on
  std::int64_t row_rewind[kMaxOperands];        // bytes a row's tiles moved it on
  std::int64_t ub_tile[kMaxOperands][2];        // UB addresses of the tile buffers, per slot
  std::int64_t slots;                           // 2 with double buffering, else 1
  std::int64_t residency[kMaxOperands];         // for an input: kPerTile or kResident
  std::int64_t ub_resident[kMaxOperands];       // UB address of a resident operand
  std::int64_t resident_count[kMaxOperands];    // its elements, loaded once per block
  std::int64_t resident_gm_offset[kMaxOperands];  // byte offset of its first element from its data pointer
  const std::int64_t* ub_values;                // an expression's: [nodes][2], each node's tile buffer per slot
  const BlockStart* blocks;                     // [block_num]
};

using KernelFn = void (*)(std::int64_t block_idx, std::int64_t block_num, void* const* gm, const KernelParams* params,
                          void* ctx);

// Queue numbers of the double-buffering discipline: out's, then input k's is k.
enum Queue : std::int32_t { kQueueOut = 0, kQueueA = 1, kQueueB = 2 };

// A vector_node argument that is not in the UB: scalar j of the expression
// is passed as kScalarArgument - j.
inline constexpr std::int64_t kScalarArgument = -1;

// NOTE: [Ascend intrinsics] The C functions kernels call, one prototype each,
// shared by the simulator that defines them (a definition that differs does
// not compile) and the emitter that declares them (their LLVM types are made
// from these). ctx is the block's context; UB addresses are byte offsets into
// the block's UB; GM addresses are pointers into the operands' buffers.
namespace intrinsic {
using CopyIn = void(void* ctx, std::int64_t ub, const char* gm, std::int64_t count, std::int64_t stride,
                    std::int32_t operand);
using CopyOut = void(void* ctx, char* gm, std::int64_t ub, std::int64_t count, std::int64_t stride);
using VectorBinary = void(void* ctx, std::int64_t dst, std::int64_t a, std::int64_t b, std::int64_t count);
// An expression's node `node` over count elements: dst = f(x, y, z), each a UB
// address or a scalar (kScalarArgument - j); unused arguments are 0.
using VectorNode = void(void* ctx, std::int32_t node, std::int64_t dst, std::int64_t x, std::int64_t y,
                        std::int64_t z, std::int64_t count);
// Repeats operand `operand`'s element at src count times from dst.
using Broadcast = void(void* ctx, std::int64_t dst, std::int64_t src, std::int64_t count, std::int32_t operand);
using QueueOp = void(void* ctx, std::int32_t queue, std::int32_t slot);
using TileDone = void(void* ctx);
}  // namespace intrinsic

// X(symbol, prototype) for every intrinsic.
#define BCAST_ASCEND_INTRINSICS(X)                    \
  X(bcast_sim_copy_in, intrinsic::CopyIn)             \
  X(bcast_sim_copy_out, intrinsic::CopyOut)           \
  X(bcast_sim_vector_binary, intrinsic::VectorBinary) \
  X(bcast_sim_vector_node, intrinsic::VectorNode)     \
  X(bcast_sim_broadcast, intrinsic::Broadcast)        \
  X(bcast_sim_enque, intrinsic::QueueOp)              \
  X(bcast_sim_deque, intrinsic::QueueOp)              \
  X(bcast_sim_tile_done, intrinsic::TileDone)

}  // namespace bcast::ascend
