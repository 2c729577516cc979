// The host target: its line, vectors and caches.
#include "host_target.h"
#include "cache_share.h"
#include "codegen_settings.h"
#include "logging.h"

namespace bcast {
namespace {

// NOTE: [Streaming threshold]: read once a process, and logged then.
const CacheShare& host_cache_share(int threads) {
  static const CacheShare share = [threads] {
    CacheShare s = cache_share(read_cache_report());
    logging::core().debug("streaming stores: BCAST_STREAM_MIN_BYTES=auto is {}", s.describe(threads));
    return s;
  }();
  return share;
}

}  // namespace

HostTarget::HostTarget(HostDescription host)
    : host_(std::move(host)), x86_64_(host_.triple.starts_with("x86_64")) {}

int HostTarget::vector_bits() const { return vector_register_bits(host_.triple, host_.features); }

std::uint64_t HostTarget::auto_stream_bytes(int threads) const { return host_cache_share(threads).threshold(threads); }

std::string HostTarget::auto_stream_decision(int threads) const { return host_cache_share(threads).describe(threads); }

// NOTE: [Streaming stores]: x86-64 has non-temporal stores and sfence.
bool HostTarget::can_stream_stores() const { return x86_64_; }

}  // namespace bcast
