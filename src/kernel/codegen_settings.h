// The code generator settings that change generated code, interned so that a
// kernel key carries them as one small integer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace bcast {

struct CodegenSettings {
  int opt_level = 2;           // 0..3, LLVM's O0..O3
  std::string cpu;             // LLVM CPU name, e.g. "znver5"
  std::string features;        // "+avx2,+fma,..." as LLVM spells them
  int vector_width_bits = 0;   // preferred vector width; 0 leaves it to the target
  // NOTE: [Tiers] The first tier: the same pass pipeline, then LLVM's fast
  // instruction selector and register allocator (codegen at O0). About a
  // third of a full compile, at about 0.6 of its speed; the full compile
  // replaces it. Never written to the disk cache. "O2q" in a key.
  bool quick = false;

  friend bool operator==(const CodegenSettings&, const CodegenSettings&) = default;
};

// Whether a feature list ("+avx2,-avx512f,...", CodegenSettings::features)
// turns `name` on.
bool has_feature(std::string_view features, std::string_view name);

// The width of a vector register, in bits, of code for `triple` with
// `features`: 512 with AVX-512, 256 with AVX, else 128 (SSE2, and the
// targets that are not x86-64).
int vector_register_bits(std::string_view triple, std::string_view features);

// NOTE: [Interned ids]: settings stay registered while something pins them
// (a cache slot or queued compile of a key naming them, the provider's
// current settings and their first tier), and the kSpareCodegenSettings most
// recently used unpinned ones stay too; ids are never reused.
using CodegenPin = std::shared_ptr<const CodegenSettings>;
inline constexpr std::size_t kSpareCodegenSettings = 16;

// The id of `settings`, registering them on first sight; equal settings get
// equal ids while they are registered. `pin`, when given, receives their pin.
std::uint32_t intern_codegen_settings(const CodegenSettings& settings, CodegenPin* pin = nullptr);
// The settings of `id`, pinned; null when they were freed (or never interned).
CodegenPin pin_codegen_settings(std::uint32_t id);
// The settings behind an id from intern_codegen_settings; an id that was
// freed is an internal error (std::logic_error), never other settings.
CodegenSettings codegen_settings(std::uint32_t id);
// How many settings are registered now (pinned or spare).
std::size_t registered_codegen_settings();

}  // namespace bcast
