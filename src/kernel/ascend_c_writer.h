// A kernel key's Ascend-style kernel as Ascend C source, the way a kernel
// engineer writes it: GlobalTensor, TPipe, TQue with BUFFER_NUM, AllocTensor,
// DataCopy / DataCopyPad, the vector calls of the lowering (NOTE: [Ascend
// lowering]), EnQue / DeQue / FreeTensor, and the tiling struct. It issues
// the same calls, in the same order, with the same UB addresses as the LLVM
// kernel of the key (tests/test_ascend_c.cpp compiles it against a stub
// kernel_operator.h and compares the two call by call).
#pragma once

#include <optional>
#include <string>

#include "ascend_product.h"
#include "kernel_key.h"

namespace bcast::ascend {

// The source of `key`'s kernel on `product`, whose entry point is
//   extern "C" void bcast_kernel(GM_ADDR gm_out, GM_ADDR x0, ..., GM_ADDR tiling)
// or nullopt with `why` (the lowering's refusal, or a step the writer does
// not spell yet).
std::optional<std::string> write_ascend_c(const KernelKey& key, const Product& product, std::string& why);

}  // namespace bcast::ascend
