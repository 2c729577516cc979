// The vector ISA levels BCAST_MAX_ISA accepts, narrowest first: the one list
// that the settings store, the host target, the code generator's caps and the
// tools read.
#pragma once

#include <array>
#include <string_view>

namespace bcast {

inline constexpr std::array<std::string_view, 5> kIsaLevels{"sse4.2", "avx", "avx2", "avx512", "all"};

inline bool is_isa_level(std::string_view name) {
  for (std::string_view level : kIsaLevels)
    if (level == name) return true;
  return false;
}

}  // namespace bcast
