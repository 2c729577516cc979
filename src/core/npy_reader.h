// The .npy reader on any stream: load_npy's engine, and what the .npy fuzz
// target feeds with bytes from memory.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "bcast/tensor.h"

namespace bcast::detail {

// Reads one .npy array of `size` bytes from `in`; `name` is the file name that
// error messages give. Throws Error(io) as load_npy does.
Tensor read_npy(std::istream& in, std::uint64_t size, const std::string& name);

}  // namespace bcast::detail
