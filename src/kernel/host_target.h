// The host CPU as a target: x86-64 today, with room for AArch64 or a generic
// host. What LLVM knows about the host (triple, CPU, features) comes in from
// the provider; the rest is read from the system here.
#pragma once

#include "target.h"

namespace bcast {

// What the code generator reports about the host.
struct HostDescription {
  std::string triple;    // e.g. "x86_64-pc-linux-gnu"
  std::string cpu;       // e.g. "rocketlake"
  std::string features;  // "+avx2,+fma,...", enabled features only
};

class HostTarget final : public Target {
 public:
  // A cache line of x86-64 and of the AArch64 cores bcast knows.
  static constexpr std::int64_t kLineBytes = 64;

  explicit HostTarget(HostDescription host);
  TargetKind kind() const override { return TargetKind::host; }
  std::int64_t line_bytes() const override { return kLineBytes; }
  int vector_bits() const override;
  std::uint64_t auto_stream_bytes(int threads) const override;
  std::string auto_stream_decision(int threads) const override;
  bool can_stream_stores() const override;
  bool has_loop_variants() const override { return true; }
  std::string features() const override { return host_.features; }

  const HostDescription& description() const { return host_; }

 private:
  HostDescription host_;
  bool x86_64_;
};

}  // namespace bcast
