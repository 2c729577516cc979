// NOTE: [Streaming threshold]: the last-level cache's report and its share.
#include "cache_share.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sched.h>
#endif

namespace bcast {
namespace {

std::string mib(std::uint64_t bytes) {
  return bytes % (1u << 20) == 0 ? fmt::format("{} MiB", bytes >> 20)
                                 : fmt::format("{:.1f} MiB", static_cast<double>(bytes) / 1048576.0);
}

std::optional<int> parse_int(std::string_view text) {
  int v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<CacheReport> from_sysfs() {
  CacheReport r{.source = "sysfs"};
  int best = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::optional<int> level = parse_int(read_line(dir + "level"));
    const std::optional<std::uint64_t> bytes = parse_cache_size(read_line(dir + "size"));
    if (!level || !bytes || *level <= best || read_line(dir + "type") == "Instruction") continue;
    best = *level;
    r.bytes = *bytes;
    r.sharing_cpus = count_cpu_list(read_line(dir + "shared_cpu_list")).value_or(0);
  }
  if (best == 0) return std::nullopt;
  return r;
}

std::optional<CacheReport> from_cpuid() {
#if defined(__x86_64__)
  unsigned max = 0, ebx = 0, ecx = 0, edx = 0;
  __cpuid(0, max, ebx, ecx, edx);
  const bool amd = ebx == 0x68747541;  // "Auth(enticAMD)"
  unsigned leaf = 4;
  if (amd) {
    unsigned ext = 0;
    __cpuid(0x80000000, ext, ebx, ecx, edx);
    if (ext < 0x8000001D) return std::nullopt;
    leaf = 0x8000001D;
  } else if (max < 4) {
    return std::nullopt;
  }
  CacheReport r{.source = "cpuid"};
  int best = 0;
  for (unsigned sub = 0; sub < 16; ++sub) {
    unsigned eax = 0;
    __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
    const std::optional<CpuidCache> c = decode_cpuid_cache(eax, ebx, ecx);
    if (!c) break;
    if (c->level <= best || (eax & 0x1f) == 2) continue;  // type 2: instructions
    best = c->level;
    r.bytes = c->bytes;
    r.sharing_cpus = c->sharing_cpus;
  }
  if (best == 0) return std::nullopt;
  return r;
#else
  return std::nullopt;
#endif
}

int process_cpus() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int CacheShare::spanned(int threads) const { return (threads_of(threads) + sharing_cpus - 1) / sharing_cpus; }

int CacheShare::threads_of(int threads) const { return std::clamp(threads, 1, std::max(1, report.cpus)); }

std::uint64_t CacheShare::threshold(int threads) const {
  return per_cpu * static_cast<std::uint64_t>(sharing_cpus) * static_cast<std::uint64_t>(spanned(threads)) / 4 * 3;
}

std::string CacheShare::describe(int threads) const {
  const int t = threads_of(threads), instances = spanned(threads);
  const std::string cache =
      report.bytes == 0
          ? fmt::format("no cache reported, taken as {} shared by all {} CPUs", mib(kUnreportedCacheBytes),
                        sharing_cpus)
          : fmt::format("{} last-level cache shared by {} CPUs ({}{})", mib(report.bytes), sharing_cpus, report.source,
                        report.sharing_cpus == 0 ? ", sharing not reported: all the process's" : "");
  return fmt::format("{} for {} thread{}: {}, {} a CPU{}, 3/4 of {} instance{}", mib(threshold(threads)), t,
                     t == 1 ? "" : "s", cache, mib(per_cpu), capped ? " (capped)" : "", instances,
                     instances == 1 ? "" : "s");
}

CacheShare cache_share(const CacheReport& report) {
  CacheShare s{.report = report};
  s.report.cpus = std::max(1, report.cpus);
  s.sharing_cpus = report.sharing_cpus > 0 ? report.sharing_cpus : s.report.cpus;
  const std::uint64_t bytes = report.bytes > 0 ? report.bytes : kUnreportedCacheBytes;
  s.per_cpu = std::min(bytes / static_cast<std::uint64_t>(s.sharing_cpus), kMaxShareBytes);
  s.capped = bytes / static_cast<std::uint64_t>(s.sharing_cpus) > kMaxShareBytes;
  return s;
}

std::optional<int> count_cpu_list(std::string_view list) {
  while (!list.empty() && (list.back() == '\n' || list.back() == ' ')) list.remove_suffix(1);
  if (list.empty()) return std::nullopt;
  long count = 0;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view part = list.substr(start, comma - start);
    const std::size_t dash = part.find('-');
    const std::optional<int> first = parse_int(part.substr(0, dash));
    const std::optional<int> last = dash == std::string_view::npos ? first : parse_int(part.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    count += static_cast<long>(*last) - *first + 1;
    if (count > 1 << 20) return std::nullopt;
    start = comma + 1;
  }
  return static_cast<int>(count);
}

std::optional<std::uint64_t> parse_cache_size(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const std::uint64_t scale = unit == 'K' ? 1u << 10 : unit == 'M' ? 1u << 20 : unit == 'G' ? 1u << 30 : 0;
  std::uint64_t count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, count);
  if (scale == 0 || ec != std::errc() || end != text.data() + text.size() - 1 || count == 0 || count > (1u << 30))
    return std::nullopt;
  return count * scale;
}

std::optional<CpuidCache> decode_cpuid_cache(std::uint32_t eax, std::uint32_t ebx, std::uint32_t ecx) {
  if ((eax & 0x1f) == 0) return std::nullopt;  // type 0: no more caches
  CpuidCache c;
  c.level = static_cast<int>((eax >> 5) & 0x7);
  c.sharing_cpus = static_cast<int>((eax >> 14) & 0xfff) + 1;
  const std::uint64_t ways = ((ebx >> 22) & 0x3ff) + 1, partitions = ((ebx >> 12) & 0x3ff) + 1;
  const std::uint64_t line = (ebx & 0xfff) + 1, sets = static_cast<std::uint64_t>(ecx) + 1;
  c.bytes = ways * partitions * line * sets;
  return c;
}

CacheReport read_cache_report() {
  CacheReport r = from_sysfs().value_or(from_cpuid().value_or(CacheReport{.source = "none"}));
  r.cpus = process_cpus();
  return r;
}

}  // namespace bcast
