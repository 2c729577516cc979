// The host's last-level cache as the hardware describes it, and the share
// of it a call may count on: BCAST_STREAM_MIN_BYTES=auto's threshold (NOTE:
// [Streaming threshold]). The readers take the system's text and registers
// as arguments, so that tests inject any machine's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bcast {

// NOTE: [Streaming threshold] A call that moves more bytes than the cache
// can hold for it writes with streaming stores (NOTE: [Streaming stores]).
// What it can count on is its share of the last-level cache: one instance's
// bytes over the logical CPUs that share it (Linux's shared_cpu_list, or
// CPUID leaf 4 / 0x8000001D), at most kMaxShareBytes a CPU, no more than
// any real part has (a 3D V-Cache die: 96 MiB over 8 cores, 16 CPUs, 6 MiB
// each), because VMs report the host's whole L3, or more (one reported 508
// MiB to 2 CPUs); times the CPUs of the instance; times the instances the
// call's threads span (ceil(threads / sharing CPUs)). The threshold is
// three quarters of that, as glibc's non-temporal threshold for memcpy is
// of a thread's share (glibc.cpu.x86_non_temporal_threshold), but of the
// whole instance, because a call's threads share it: a 16-CPU desktop part
// with 32 MiB streams from 24 MiB, as does the 508 MiB VM (its 2 CPUs at
// the 16 MiB cap), and a 128-CPU server of 32 MiB per 16 CPUs from 96 MiB
// for a call on 64 threads. Without any report the cache is taken as 32
// MiB shared by every CPU.
inline constexpr std::uint64_t kMaxShareBytes = std::uint64_t{16} << 20;
inline constexpr std::uint64_t kUnreportedCacheBytes = std::uint64_t{32} << 20;

// What the system says about the last-level cache.
struct CacheReport {
  std::uint64_t bytes = 0;  // one instance's size; 0: not reported
  int sharing_cpus = 0;     // logical CPUs that share it; 0: not reported
  int cpus = 1;             // logical CPUs the process may run on
  std::string source;       // "sysfs", "cpuid" or "none"
};

// The share, and the threshold of a call on some number of threads.
struct CacheShare {
  CacheReport report;
  std::uint64_t per_cpu = 0;  // bytes a CPU may count on
  bool capped = false;        // per_cpu is kMaxShareBytes, less than the report gives
  int sharing_cpus = 1;       // the CPUs of an instance (as reported, else all)
  // BCAST_STREAM_MIN_BYTES=auto for a call on `threads` threads (1 or more).
  std::uint64_t threshold(int threads) const;
  // The decision and its inputs, one line: "24 MiB for 2 threads: 32 MiB L3
  // shared by 2 CPUs (sysfs), 16 MiB a CPU, 3/4 of 1 instance".
  std::string describe(int threads) const;

 private:
  int threads_of(int threads) const;  // 1 to the process's CPUs
  int spanned(int threads) const;     // the cache instances those threads span
};

CacheShare cache_share(const CacheReport& report);

// ---- the readers (hostile text: anything unexpected reads as unknown) ----

// "0-7,64-71" -> 16; "3" -> 1; nullopt for anything else.
std::optional<int> count_cpu_list(std::string_view list);
// sysfs's cache size, "32768K" or "32M" -> bytes; nullopt for anything else.
std::optional<std::uint64_t> parse_cache_size(std::string_view text);
// CPUID leaf 4 (Intel) or 0x8000001D (AMD), one sub-leaf: the cache's level,
// size and sharing CPUs, or nullopt for a null (no more caches) sub-leaf.
struct CpuidCache {
  int level = 0;
  std::uint64_t bytes = 0;
  int sharing_cpus = 0;
};
std::optional<CpuidCache> decode_cpuid_cache(std::uint32_t eax, std::uint32_t ebx, std::uint32_t ecx);

// This machine's report: sysfs's highest-level cache of cpu0, else CPUID's,
// else none; the CPUs from the process's affinity.
CacheReport read_cache_report();

}  // namespace bcast
