// The target factory.
#include "targets.h"

#include "ascend_target.h"
#include "config.h"
#include "host_target.h"
#include "kernel_provider.h"

namespace bcast {

const Target& target_for(TargetKind kind) {
  static const HostTarget host(provider::host_description());
  static const std::vector<ascend::AscendTarget> ascend = [] {
    std::vector<ascend::AscendTarget> products;
    for (const ascend::Product& p : ascend::products()) products.emplace_back(p);
    return products;
  }();
  if (kind == TargetKind::ascend_sim) {
    const std::string product = config::ascend_product();
    for (const ascend::AscendTarget& t : ascend)
      if (t.product().name == product) return t;
    return ascend.front();
  }
  return host;
}

const Target& current_target() {
  return target_for(config::ascend_target() ? TargetKind::ascend_sim : TargetKind::host);
}

// The settings store, below the kernel vocabulary, names "off" itself.
static_assert(config::kStreamOff == kNeverStream);

std::uint64_t stream_threshold(const Target& target) {
  const std::uint64_t bytes = config::stream_min_bytes();
  return bytes == config::kStreamAuto ? target.auto_stream_bytes(config::threads()) : bytes;
}

KernelKey call_kernel_key(const Target& target, Op op, DType dtype, const BroadcastPlan& plan, ExprSpecPin* pin) {
  return make_kernel_key(target, op, dtype, plan, provider::current_codegen_id(), stream_threshold(target), pin);
}

}  // namespace bcast
