// The calling convention of Ascend-style kernels, shared by the emitter (jit/),
// the Ascend C writer and the launcher (src/ascend/): the tiling data a kernel
// reads and the intrinsics it calls.
#pragma once

#include <cstdint>

#include "ascend_isa.h"
#include "broadcast_plan.h"

namespace bcast::ascend {

// Limits of the tiling data: calls beyond them run on the host (logged).
inline constexpr int kMaxLevels = 8;    // levels of the merged plan
inline constexpr int kMaxSteps = 48;    // vector steps of a lowering
inline constexpr int kMaxScalars = 16;  // an expression's scalar arguments

// NOTE: [Ascend tiling] What a kernel is given, as an Ascend kernel is: each
// operand's GM address (out first, then the inputs), and a flat tiling
// struct of scalars and arrays, no pointers, the same for every block. A
// block finds its tiles from its index alone: it runs tiles
// [share(tiles, block_num, idx), share(tiles, block_num, idx + 1)) of the
// call's tiles in loop-nest order (slabs of the outer levels, then row tiles,
// then column tiles; NOTE: [Ascend lowering]) and works out where the first
// starts with a few divisions; after that every offset moves by additions.
// UB addresses are laid out by the launcher in the order a TPipe's InitBuffer
// calls would give them (ascend_launch.cpp).
struct TilingData {
  // What a kernel reads (the written Ascend C declares these, in this order).
  std::int64_t levels;                                   // of the plan, at least 1
  std::int64_t extents[kMaxLevels];                      // outermost first
  std::int64_t strides[kMaxOperands][kMaxLevels];        // bytes, per operand and level
  std::int64_t base[kMaxOperands];                       // bytes from the GM address to the first element
  std::int64_t rows, cols, pitch;                        // a full tile; pitch: UB elements a row
  std::int64_t row_tiles, col_tiles, tiles;              // tiles across a slab's rows, along a row, in all
  std::int64_t slots;                                    // buffers per queue (BUFFER_NUM)
  std::int64_t column_mode[kMaxOperands];                // a column input's ColumnMode
  std::int64_t row_resident[kMaxOperands];               // 1: a row input is copied once a block, not a tile
  std::uint64_t scalars[kMaxScalars];                    // the expression's scalar arguments, 8-byte slots
  // The UB addresses, for the LLVM kernel (a written kernel takes them from its TPipe, in the same order).
  std::int64_t ub_queue[kMaxOperands][2];                // each operand's queue buffer per slot, by operand (out 0)
  std::int64_t ub_step[kMaxSteps];                       // each step's result (the last one's is out's buffer)
  std::int64_t ub_brcb[kMaxOperands];                    // a column input's spread blocks
  std::int64_t ub_scalar[kMaxOperands];                  // a scalar input's staging block
  std::int64_t ub_gathered[kMaxOperands];                // a gather input's packed row
  std::int64_t ub_resident[kMaxOperands];                // a row input's row, when it is resident
  std::int64_t ub_offsets;                               // Gather's byte offsets: 0, 32, 64, ...
};

// How a column input's values for a tile's rows come in (NOTE: [Ascend lowering]).
enum ColumnMode : std::int64_t {
  kOneValue = 0,    // its stride along the rows is 0: one value, spread by Brcb, serves every row
  kContiguous = 1,  // stride 1: one copy of the rows' values, spread by Brcb, a block a row
  kStrided = 2,     // any other stride: DataCopyPad moves each value into a block of its own,
                    // which its padding fills with the value (no Brcb)
};

using KernelFn = void (*)(std::int64_t block_idx, std::int64_t block_num, void* const* gm, const TilingData* tiling,
                          void* ctx);

// Queue numbers: out's VECOUT queue is 0; the inputs that have a VECIN queue
// (all but scalars) are 1, 2, ... in input order, as a TPipe numbers queues
// in the order its InitBuffer calls meet them.
inline constexpr std::int32_t kQueueOut = 0;
enum class QueueOp : std::int32_t { alloc, enque, deque, free };

// NOTE: [Ascend intrinsics] The C functions kernels call, one prototype each,
// shared by the simulator that defines them (a definition that differs does
// not compile) and the emitter that declares them (their LLVM types are made
// from these). ctx is the block's context; the calls take the instruction
// structures of ascend_isa.h by pointer.
namespace intrinsic {
using Copy = void(void* ctx, const CopyCall* call);
using Vector = void(void* ctx, const VectorCall* call);
using Queue = void(void* ctx, std::int32_t op, std::int32_t queue, std::int32_t slot);
// SetFlag (set = 1) or WaitFlag (set = 0) between two pipes (Pipe's numbers).
using Flag = void(void* ctx, std::int32_t set, std::int32_t from, std::int32_t to, std::int32_t event);
// The scalar unit reads `bytes` bytes at UB address `ub`: the value's bits.
using GetValue = std::uint64_t(void* ctx, std::int64_t ub, std::int32_t bytes);
using TileDone = void(void* ctx);
}  // namespace intrinsic

// X(symbol, prototype) for every intrinsic.
#define BCAST_ASCEND_INTRINSICS(X)               \
  X(bcast_sim_copy, intrinsic::Copy)             \
  X(bcast_sim_vector, intrinsic::Vector)         \
  X(bcast_sim_queue, intrinsic::Queue)           \
  X(bcast_sim_flag, intrinsic::Flag)             \
  X(bcast_sim_get_value, intrinsic::GetValue)    \
  X(bcast_sim_tile_done, intrinsic::TileDone)

}  // namespace bcast::ascend
