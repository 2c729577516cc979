// Which target a kernel runs on, by name: the list the settings store, the
// kernel key and the tools share (the target objects are src/kernel/target.h's).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace bcast {

enum class TargetKind : std::uint8_t { host, ascend_sim };
inline constexpr int kNumTargetKinds = 2;
inline constexpr std::array<std::string_view, kNumTargetKinds> kTargetNames{"host", "ascend-sim"};  // by TargetKind

inline std::string_view target_name(TargetKind kind) { return kTargetNames[static_cast<std::size_t>(kind)]; }

inline std::optional<TargetKind> parse_target(std::string_view name) {
  for (std::size_t i = 0; i < kTargetNames.size(); ++i)
    if (kTargetNames[i] == name) return static_cast<TargetKind>(i);
  return std::nullopt;
}

}  // namespace bcast
