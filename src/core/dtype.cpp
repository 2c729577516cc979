// DType properties, driven by one table.
#include "bcast/dtype.h"

#include <array>

namespace bcast {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool floating;
  bool integer;
  bool complex = false;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypes{{
    {DType::f16, "f16", 2, true, false},
    {DType::bf16, "bf16", 2, true, false},
    {DType::f32, "f32", 4, true, false},
    {DType::f64, "f64", 8, true, false},
    {DType::i8, "i8", 1, false, true},
    {DType::i16, "i16", 2, false, true},
    {DType::i32, "i32", 4, false, true},
    {DType::i64, "i64", 8, false, true},
    {DType::u8, "u8", 1, false, true},
    {DType::u16, "u16", 2, false, true},
    {DType::u32, "u32", 4, false, true},
    {DType::u64, "u64", 8, false, true},
    {DType::boolean, "bool", 1, false, false},
    {DType::c64, "c64", 8, false, false, true},
    {DType::c128, "c128", 16, false, false, true},
}};

const DTypeInfo& info(DType t) { return kDTypes[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t dtype_size(DType t) { return info(t).size; }
std::string_view dtype_name(DType t) { return info(t).name; }
bool is_floating(DType t) { return info(t).floating; }
bool is_integer(DType t) { return info(t).integer; }
bool is_unsigned(DType t) { return t == DType::u8 || t == DType::u16 || t == DType::u32 || t == DType::u64; }
bool is_complex(DType t) { return info(t).complex; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const DTypeInfo& d : kDTypes)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

}  // namespace bcast
