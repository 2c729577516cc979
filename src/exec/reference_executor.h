// The reference executor: kernels in plain C++ for every op and dtype, with the
// additive-offset loop nest and the same calling convention as JIT kernels
// (NOTE: [Kernel ABI]). The oracle for the JIT's tests and its fallback.
#pragma once

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "kernel_abi.h"

namespace bcast {

// The reference kernel for (op, dtype); the pair must have a binary kernel (detail::supports).
KernelFn reference_kernel(Op op, DType dtype);

}  // namespace bcast
