// The Ascend-style accelerator as a target (NOTE: [Ascend model]), one object
// per modelled product (BCAST_ASCEND_PRODUCT): kernels stage tiles through
// the unified buffer and call the simulator's intrinsics, which this target
// registers with the JIT.
#pragma once

#include "ascend_product.h"
#include "ascend_sim.h"
#include "target.h"

namespace bcast::ascend {

class AscendTarget final : public Target {
 public:
  explicit AscendTarget(const Product& product) : product_(product) {}
  TargetKind kind() const override { return TargetKind::ascend_sim; }
  std::int64_t line_bytes() const override { return kAlign; }          // the UB's alignment unit
  int vector_bits() const override { return 8 * kRepeatBytes; }        // one repeat of a vector instruction
  std::uint64_t auto_stream_bytes(int /*threads*/) const override { return 0; }  // no cache: tiles go through the UB
  std::string auto_stream_decision(int /*threads*/) const override { return "no cache: tiles go through the UB"; }
  bool can_stream_stores() const override { return false; }
  bool has_loop_variants() const override { return false; }
  std::string features() const override { return ""; }
  std::uint8_t model() const override {
    return static_cast<std::uint8_t>(1 + (&product_ - products().data()));
  }
  std::string model_name() const override { return std::string(product_.name); }
  std::vector<JitSymbol> jit_symbols() const override { return intrinsics(); }
  const Product& product() const { return product_; }

 private:
  const Product& product_;
};

}  // namespace bcast::ascend
