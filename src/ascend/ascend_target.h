// The Ascend-style accelerator as a target (NOTE: [Ascend model]): kernels
// stage tiles through the unified buffer and call the simulator's intrinsics,
// which this target registers with the JIT.
#pragma once

#include "ascend_sim.h"
#include "target.h"

namespace bcast::ascend {

class AscendTarget final : public Target {
 public:
  TargetKind kind() const override { return TargetKind::ascend_sim; }
  std::int64_t line_bytes() const override { return kAlign; }          // the UB's alignment unit
  int vector_bits() const override { return 8 * kRepeatBytes; }        // one repeat of a vector instruction
  std::uint64_t last_level_cache_bytes() const override { return 0; }  // no cache: tiles go through the UB
  bool can_stream_stores() const override { return false; }
  bool has_loop_variants() const override { return false; }
  std::string features() const override { return ""; }
  std::vector<JitSymbol> jit_symbols() const override { return intrinsics(); }
};

}  // namespace bcast::ascend
