// The code generator settings that change generated code, interned so that a
// kernel key carries them as one small integer.
#pragma once

#include <cstdint>
#include <string>

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

// The id of `settings`, registering them on first sight. Ids are stable for the
// life of the process; equal settings get equal ids.
std::uint32_t intern_codegen_settings(const CodegenSettings& settings);
// The settings behind an id from intern_codegen_settings.
CodegenSettings codegen_settings(std::uint32_t id);

}  // namespace bcast
