// NumPy 2's type promotion (NOTE: [Promotion]).
#include "promotion.h"

#include <algorithm>
#include <optional>

namespace bcast {
namespace {

// Integers by signedness and width in bytes.
struct IntShape {
  bool is_signed;
  std::size_t bytes;
};
IntShape int_shape(DType d) { return {!is_unsigned(d), dtype_size(d)}; }

DType signed_of(std::size_t bytes) {
  switch (bytes) {
    case 1: return DType::i8;
    case 2: return DType::i16;
    case 4: return DType::i32;
    default: return DType::i64;
  }
}
DType unsigned_of(std::size_t bytes) {
  switch (bytes) {
    case 1: return DType::u8;
    case 2: return DType::u16;
    case 4: return DType::u32;
    default: return DType::u64;
  }
}

DType promote_ints(DType a, DType b) {
  const IntShape x = int_shape(a), y = int_shape(b);
  if (x.is_signed == y.is_signed) {
    const std::size_t bytes = std::max(x.bytes, y.bytes);
    return x.is_signed ? signed_of(bytes) : unsigned_of(bytes);
  }
  const IntShape s = x.is_signed ? x : y, u = x.is_signed ? y : x;
  if (s.bytes > u.bytes) return signed_of(s.bytes);
  if (u.bytes < 8) return signed_of(2 * u.bytes);
  return DType::f64;  // no integer holds both i64 and u64
}

// Floats ordered by what they hold: f16 and bf16 rank alike, and meet at f32.
int float_rank(DType d) {
  switch (d) {
    case DType::f16: case DType::bf16: return 0;
    case DType::f32: return 1;
    default: return 2;  // f64
  }
}

DType smallest_float_for_rank(int rank) { return rank == 0 ? DType::f16 : rank == 1 ? DType::f32 : DType::f64; }

DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  const int ra = float_rank(a), rb = float_rank(b);
  if (ra == rb) return DType::f32;  // f16 and bf16
  return ra > rb ? a : b;
}

}  // namespace

DType smallest_float_for(DType d) {
  if (is_floating(d) || is_complex(d)) return d;
  if (d == DType::boolean) return DType::f16;
  switch (dtype_size(d)) {
    case 1: return DType::f16;
    case 2: return DType::f32;
    default: return DType::f64;
  }
}

DType promote_types(DType a, DType b) {
  const DType both[] = {a, b};
  return promote_types(both);
}

DType promote_types(std::span<const DType> dtypes) {
  const bool any_complex = std::any_of(dtypes.begin(), dtypes.end(), [](DType d) { return is_complex(d); });
  const bool any_float = std::any_of(dtypes.begin(), dtypes.end(), [](DType d) { return is_floating(d); });
  if (any_complex) {
    // The complex dtype whose parts hold every operand's values: c64 up to
    // f32's rank, c128 beyond (c64 with f64 or i32 gives c128).
    int needed = 0;
    for (DType d : dtypes) needed = std::max(needed, float_rank(smallest_float_for(real_part_dtype(d))));
    return needed <= float_rank(DType::f32) ? DType::c64 : DType::c128;
  }
  DType result = dtypes.empty() ? DType::boolean : dtypes.front();
  if (any_float) {
    // The floats promote among themselves; the integers need a float of a
    // rank, and lift the result only where it ranks lower (bf16 with u8 stays
    // bf16, as f16 with u8 stays f16).
    std::optional<DType> floats;
    int needed = 0;
    for (DType d : dtypes) {
      if (is_floating(d)) floats = floats ? promote_floats(*floats, d) : d;
      else needed = std::max(needed, float_rank(smallest_float_for(d)));
    }
    return needed > float_rank(*floats) ? promote_floats(*floats, smallest_float_for_rank(needed)) : *floats;
  }
  for (DType d : dtypes) {
    if (d == DType::boolean) continue;
    result = result == DType::boolean ? d : promote_ints(result, d);
    if (is_floating(result)) return result;  // i64 with u64
  }
  return result;
}

DType promote_weak(DType d, ScalarKind kind) {
  switch (kind) {
    case ScalarKind::weak_int: return d == DType::boolean ? DType::i64 : d;
    case ScalarKind::weak_float: return is_floating(d) || is_complex(d) ? d : DType::f64;
    case ScalarKind::weak_complex:
      if (is_complex(d)) return d;
      return is_floating(d) && float_rank(d) <= float_rank(DType::f32) ? DType::c64 : DType::c128;
    case ScalarKind::strong: break;
  }
  return d;
}

DType weak_default(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::weak_float: return DType::f64;
    case ScalarKind::weak_complex: return DType::c128;
    default: return DType::i64;
  }
}

}  // namespace bcast
