// The in-memory kernel cache: KernelKey -> compiled kernel, with single-flight
// compilation, LRU eviction and counters. LLVM-free interface.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "bcast/runtime.h"
#include "compile/host_compiler.h"
#include "kernel_key.h"

namespace bcast::jit {

// How a get() was served, for BCAST_VERBOSE.
enum class CacheOutcome { memory_hit, disk_hit, compiled, failed };

// What the cache is told by its user (the provider reads them from the
// settings): jit/ reads no setting itself.
struct CacheOptions {
  std::size_t capacity = 1024;       // kernels kept in memory
  std::string disk_folder;           // "" when the disk cache is off
  std::uint64_t disk_max_bytes = 0;  // the disk cache's size bound
  std::string dump_dir;              // where compilations write IR and assembly; "" for none

  friend bool operator==(const CacheOptions&, const CacheOptions&) = default;
};

class KernelCache {
 public:
  KernelCache();
  ~KernelCache();

  // The kernel for `key`, compiled on the first request. Threads that ask for
  // a key being compiled wait for that compilation instead of starting their
  // own. Null when compilation failed (logged once per key): the caller falls
  // back to the reference executor.
  std::shared_ptr<const CompiledKernel> get(const KernelKey& key, CacheOutcome* outcome = nullptr);

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
