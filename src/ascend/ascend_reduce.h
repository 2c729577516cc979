// Reductions on the Ascend-style simulator: the kernel of NOTE: [Ascend
// reductions] and its launch.
#pragma once

#include <string>
#include <string_view>

#include "ascend_launch.h"
#include "ascend_product.h"
#include "reduce_executor.h"

namespace bcast::ascend {

// NOTE: [Ascend reductions] A sum, mean, max or min of a tensor along its
// last dim runs as Ascend C's own row reductions are written by hand (not a
// JIT kernel of a key): each block takes a share of the result's elements
// (rows of x), and per tile of up to 255 rows, as the Process loop of the
// official samples:
//   CopyIn   DataCopyPad of the rows into the UB, each padded to 32 bytes;
//   Compute  the row folded to one repeat: Add (Max, Min) of its repeats
//            1, 2, ... into repeat 0, one instruction for every row of the
//            tile (a repeat a row); rows longer than the 255-block repeat
//            stride fold row by row in halves instead, with the count form;
//            then WholeReduceSum (Max, Min: ORDER_ONLY_VALUE) of repeat 0,
//            a result a row; a mean's Div by the count;
//   CopyOut  DataCopyPad of the tile's results.
// The instructions go through the simulator's checks and pipes like a JIT
// kernel's. A sum's order is then lane by lane along the row, then
// WholeReduceSum's tree of the lanes: its bits are the product's, not the
// host's, and the same for any block_num (a row is one block's). f32 sums,
// means, max and min, and f16 max and min; every other call runs on the
// host with the reason refuse_reduction gives.

// Why `call` (x its input, a plain view) cannot run on `product` with a UB
// of `ub_bytes`, naming what is missing; empty when it can.
std::string refuse_reduction(std::string_view name, const ReduceCall& call, const Product& product,
                             std::int64_t ub_bytes);

// The kernel's name in the trace: "WholeReduceSum<float>.rows.910b".
std::string reduction_kernel_name(const ReduceCall& call, const Product& product);

// Runs `call` (refuse_reduction empty) on the blocks of `config`; out is
// the result, x the input.
Launch launch_reduction(const ReduceCall& call, const TensorView& x, const TensorView& out, const SimConfig& config);

}  // namespace bcast::ascend
