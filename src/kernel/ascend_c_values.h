// C's spelling of an Ascend C kernel's values: their types and their
// constants, as src/kernel/ascend_c_writer.cpp writes them.
#pragma once

#include <cstdint>
#include <string>

#include "bcast/dtype.h"

namespace bcast::ascend {

// C's name of a value of `t`: Ascend C's element type (half, float,
// uint8_t for bool, ...), or the kernel dtype of an expression's scalar
// (double, int64_t).
std::string ascend_c_type(DType t);

// A constant of `t` whose bits are `bits`, as C source that gives exactly
// those bits with no C library call: a hexadecimal float literal (every f16
// and bf16 value is a float, so its conversion is exact), a NaN's bits
// through __builtin_bit_cast, or a decimal integer.
std::string ascend_c_literal(DType t, std::uint64_t bits);

}  // namespace bcast::ascend
