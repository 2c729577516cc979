// Element types bcast computes on, and their properties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bcast {

// f16 and bf16 are stored as 16-bit patterns and computed in f32 (round to nearest even).
// boolean is stored as one byte, 0 or 1. c64 and c128 are complex numbers
// stored as NumPy's complex64 and complex128: the real part, then the
// imaginary part, each an f32 or f64.
enum class DType : std::uint8_t { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean, c64, c128 };

inline constexpr int kNumDTypes = 15;

std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);                    // "f32", "bool", ...
std::optional<DType> parse_dtype(std::string_view name);  // inverse of dtype_name
bool is_floating(DType t);                               // f16, bf16, f32, f64
bool is_integer(DType t);                                // i8 .. i64, u8 .. u64 (not bool)
bool is_unsigned(DType t);                               // u8 .. u64 (not bool)
bool is_complex(DType t);                                // c64, c128
// The real dtype of a complex one's parts (c64: f32, c128: f64); any other dtype is its own.
constexpr DType real_part_dtype(DType t) { return t == DType::c64 ? DType::f32 : t == DType::c128 ? DType::f64 : t; }

// NumPy's np.promote_types (NEP 50): the dtype two arrays compute in when an
// op meets them; u8 with f32 gives f32, i32 with f32 f64, i8 with u8 i16.
DType promote_types(DType a, DType b);

}  // namespace bcast
