// Element types bcast computes on, and their properties.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bcast {

// f16 and bf16 are stored as 16-bit patterns and computed in f32 (round to nearest even).
// boolean is stored as one byte, 0 or 1.
enum class DType : std::uint8_t { f16, bf16, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

inline constexpr int kNumDTypes = 13;

std::size_t dtype_size(DType t);
std::string_view dtype_name(DType t);                    // "f32", "bool", ...
std::optional<DType> parse_dtype(std::string_view name);  // inverse of dtype_name
bool is_floating(DType t);                               // f16, bf16, f32, f64
bool is_integer(DType t);                                // i8 .. i64, u8 .. u64 (not bool)
bool is_unsigned(DType t);                               // u8 .. u64 (not bool)

// NumPy's np.promote_types (NEP 50): the dtype two arrays compute in when an
// op meets them; u8 with f32 gives f32, i32 with f32 f64, i8 with u8 i16.
DType promote_types(DType a, DType b);

}  // namespace bcast
