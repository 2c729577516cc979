// The host target: its line, vectors and caches.
#include "host_target.h"
#include "codegen_settings.h"

#include <charconv>
#include <fstream>

namespace bcast {
namespace {

// The size of the last-level cache the first CPU sees (one instance: on a
// chip with several L3 slices, sysconf would report their sum).
std::uint64_t read_last_level_cache_bytes() {
  std::uint64_t bytes = std::uint64_t{32} << 20;  // when the system does not say
  int best_level = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || level <= best_level || size.size() < 2) continue;
    std::uint64_t count = 0;
    const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size() - 1, count);
    if (ec != std::errc() || end != size.data() + size.size() - 1 || count == 0) continue;
    const std::uint64_t unit = size.back() == 'K' ? 1 << 10 : size.back() == 'M' ? 1 << 20 : 0;
    if (unit == 0) continue;
    best_level = level;
    bytes = count * unit;
  }
  return bytes;
}

}  // namespace

HostTarget::HostTarget(HostDescription host)
    : host_(std::move(host)), x86_64_(host_.triple.starts_with("x86_64")) {}

int HostTarget::vector_bits() const {
  if (x86_64_) return has_feature(host_.features, "avx512f") ? 512 : has_feature(host_.features, "avx") ? 256 : 128;
  return 128;
}

std::uint64_t HostTarget::last_level_cache_bytes() const {
  static const std::uint64_t bytes = read_last_level_cache_bytes();
  return bytes;
}

// NOTE: [Streaming stores]: x86-64 has non-temporal stores and sfence.
bool HostTarget::can_stream_stores() const { return x86_64_; }

}  // namespace bcast
