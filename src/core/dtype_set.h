// A set of dtypes, one bit per DType: the loops of a function (the function
// table) and the element types of an instruction (the Ascend products).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "bcast/dtype.h"

namespace bcast {

class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> types) {
    for (DType t : types) bits_ |= bit(t);
  }
  constexpr bool contains(DType t) const { return (bits_ & bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet o) const { return from_bits(bits_ | o.bits_); }

 private:
  static constexpr std::uint32_t bit(DType t) { return std::uint32_t{1} << static_cast<unsigned>(t); }
  static constexpr DTypeSet from_bits(std::uint32_t b) {
    DTypeSet s;
    s.bits_ = b;
    return s;
  }
  std::uint32_t bits_ = 0;
};

}  // namespace bcast
