// The in-memory kernel cache: KernelKey -> compiled kernel, with single-flight
// compilation, LRU eviction and counters. LLVM-free interface.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "bcast/runtime.h"
#include "compile/host_compiler.h"
#include "kernel_key.h"

namespace bcast::jit {

// How a get() was served, for BCAST_VERBOSE: pending when it returned no
// kernel because its compile is still running in the background.
enum class CacheOutcome { memory_hit, disk_hit, compiled, failed, pending };

// NOTE: [Tiers] How long a get() may wait for its kernel's compile.
struct Patience {
  bool async = false;  // compile in the background; else compile on the caller's thread (or wait for another's)
  double wait_us = 0;  // async: wait for a compile expected to be ready within this (NOTE: [Waiting rule])
  // async: the key's quick first tier, compiled just before it by the same
  // background job (never stored on disk); find it with find_ready().
  std::optional<KernelKey> first_tier;
};

// What the cache is told by its user (the provider reads them from the
// settings): jit/ reads no setting itself.
struct CacheOptions {
  std::size_t capacity = 1024;       // kernels kept in memory
  std::size_t queue_bound = 256;     // background compiles waiting at once (NOTE: [Queue bound])
  std::string disk_folder;           // "" when the disk cache is off
  std::uint64_t disk_max_bytes = 0;  // the disk cache's size bound
  std::string dump_dir;              // where compilations write IR and assembly; "" for none
  bool isolate = false;              // compile in a child process (NOTE: [Isolated compiles])
  bool perf_map = false;             // write /tmp/perf-<pid>.map (NOTE: [Profilers])
  bool gdb = false;                  // register kernels with gdb's JIT interface

  friend bool operator==(const CacheOptions&, const CacheOptions&) = default;
};

// NOTE: [Bounded cache] The cache's memory is bounded:
//  - at most `capacity` finished kernels; pending slots (queued or
//    compiling) do not count against it, so that they never push out a
//    fresh kernel: the compile queue bounds them (NOTE: [Queue bound]), at
//    two per background job (the key and its first tier) and two per calling
//    thread (a call opens both before it queues their job, and one whose job
//    takes a dropped job's place gives that job's two up after it queued);
//  - the counters of every resident key, and of the kRetiredKeyStats keys
//    that left (evicted, given up) or never had a slot (their calls ran the
//    fallback) most recently; a key's compile failure is logged once while
//    its counters are kept;
//  - each slot pins its key's spec and codegen settings (NOTE: [Interned
//    ids]), which go with it.
inline constexpr std::size_t kRetiredKeyStats = 1024;

class KernelCache {
 public:
  KernelCache();
  ~KernelCache();

  // The kernel for `key`: from memory, from disk, or compiled on the first
  // request. Threads that ask for a key being compiled share that compile.
  // Null when compilation failed (logged once per key), and, with an async
  // `patience`, while the compile is pending and not expected within
  // patience.wait_us: the caller runs its fallback (NOTE: [Tiers]).
  std::shared_ptr<const CompiledKernel> get(const KernelKey& key, Patience patience = {},
                                            CacheOutcome* outcome = nullptr);

  // Until no background compile is queued or running.
  void wait_for_compiles() const;

  // The kernel of `key` if it is resident and compiled (a hit), else null;
  // never compiles. For a first tier while its full kernel is pending.
  std::shared_ptr<const CompiledKernel> find_ready(const KernelKey& key);
  // Books a call that ran on its fallback while `key` was pending.
  void record_fallback(const KernelKey& key);

  // Changes whenever a kernel leaves the cache (eviction, clear, capacity):
  // a memo of a kernel taken at another epoch must look it up again.
  std::uint64_t epoch() const;

  // Applies new options: a smaller capacity evicts at once; the disk folder
  // and dump folder serve the next miss.
  void configure(const CacheOptions& options);
  std::size_t capacity() const;
  void clear();
  KernelCacheStats stats() const;
  std::vector<KernelStats> entries() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The process-wide cache.
KernelCache& kernel_cache();

}  // namespace bcast::jit
