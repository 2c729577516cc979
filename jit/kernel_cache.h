// The in-memory kernel cache: KernelKey -> compiled kernel, with single-flight
// compilation, LRU eviction and counters. LLVM-free interface.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "bcast/runtime.h"
#include "host_compiler.h"
#include "kernel_key.h"

namespace bcast::jit {

// How a get() was served, for BCAST_VERBOSE.
enum class CacheOutcome { memory_hit, disk_hit, compiled, failed };
std::string_view cache_outcome_name(CacheOutcome outcome);  // "hit", "disk", "compiled", "failed"

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

  void set_capacity(std::size_t kernels);
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
