// Reading and writing NumPy .npy files (format versions 1, 2 and 3).
#pragma once

#include <string>

#include "bcast/tensor.h"

namespace bcast {

// Loads an f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 array of either byte order; a
// big-endian one is converted on load. A Fortran-order file becomes a
// column-major tensor (no copy). Throws Error(io) naming the file and
// the problem for anything truncated, corrupt or unsupported.
Tensor load_npy(const std::string& path);

// Writes x as a C-order .npy (version 1.0). bf16 has no .npy type: Error(dtype).
// The file appears atomically (written aside, then renamed): on failure no file
// is left behind.
void save_npy(const std::string& path, const TensorView& x);

}  // namespace bcast
