// The target interface: everything the rest of bcast asks about where kernels
// run. A target is an object made by one factory from the settings
// (dispatch/targets.h); outside a target's own files no code asks what
// machine it is on. The code generator's half of a target, which needs LLVM,
// is jit/target/codegen_target.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "target_kind.h"

namespace bcast {

// A C symbol that a target's kernels call and the JIT must resolve.
struct JitSymbol {
  std::string name;
  void* address = nullptr;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual TargetKind kind() const = 0;
  std::string_view name() const { return target_name(kind()); }

  // Bytes of a cache line (what one streaming store writes), or of the
  // alignment unit of an on-chip buffer.
  virtual std::int64_t line_bytes() const = 0;
  // The widest vector the kernels may use, in bits.
  virtual int vector_bits() const = 0;
  // BCAST_STREAM_MIN_BYTES=auto: the bytes from which a call on `threads`
  // threads cannot keep its output in cache (NOTE: [Streaming threshold]),
  // and how that was decided, with its inputs.
  virtual std::uint64_t auto_stream_bytes(int threads) const = 0;
  virtual std::string auto_stream_decision(int threads) const = 0;
  // Whether kernels may write with non-temporal stores, ending with a store
  // fence (jit/target/codegen_target.h emits it).
  virtual bool can_stream_stores() const = 0;
  // Whether the host loop variants (NOTE: [Loop variants]) other than the
  // generic nest apply: fixed rows and transposed tiles need vector registers
  // and a cache, which the Ascend-style target stages through its UB instead.
  virtual bool has_loop_variants() const = 0;
  // The ISA capabilities of the code it generates, as LLVM spells them.
  virtual std::string features() const = 0;
  // Which model of the target kernels are for, part of their key (the
  // Ascend-style target's product: NOTE: [Target models]); 0 when it has one.
  virtual std::uint8_t model() const { return 0; }
  // The model's name, printed after the target's in a key ("ascend-sim-310p"); "" for model 0.
  virtual std::string model_name() const { return ""; }
  // The symbols its kernels call (an accelerator's intrinsics).
  virtual std::vector<JitSymbol> jit_symbols() const { return {}; }
};

}  // namespace bcast
