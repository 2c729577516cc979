// Where a kernel the cache misses comes from: the disk cache of the current
// folder, or a compile (stored on disk); and the log lines of each.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "cache/disk_cache.h"
#include "cache/kernel_cache.h"
#include "compile/host_compiler.h"
#include "logging.h"

namespace bcast::jit {

// The disk cache of the folder the options name, opened and checked once
// (NOTE: [Disk cache trust]); null when it is off, or when its folder turned
// out not to be usable (warned once per folder). A folder deleted since it
// was opened is opened (and made) afresh.
class DiskCaches {
 public:
  std::shared_ptr<const DiskCache> current(const std::string& folder, std::uint64_t max_bytes) {
    const std::lock_guard lock(mutex_);
    if (folder.empty()) cache_.reset();  // off: a later folder of the same name is opened afresh
    if (folder.empty() || unwritable_.contains(folder)) return nullptr;
    if (!cache_ || cache_->folder() != folder || cache_->max_bytes() != max_bytes || cache_->removed()) {
      // Objects from the folder are executed: it must be ours alone.
      std::string why;
      cache_ = DiskCache::open(folder, max_bytes, why);
      if (!cache_) disable(folder, why);
    }
    return cache_;
  }
  void mark_unwritable(const DiskCache& cache, const std::string& why) {
    const std::lock_guard lock(mutex_);
    disable(cache.folder(), why);
  }

 private:
  // Called with mutex_ held: warns once per folder.
  void disable(const std::string& folder, const std::string& why) {
    if (unwritable_.insert(folder).second) logging::jit().warn("disk cache off for this process: {}", why);
  }

  std::mutex mutex_;
  std::shared_ptr<const DiskCache> cache_;
  std::set<std::string> unwritable_;
};

// The process's disk caches.
DiskCaches& disk_caches();

enum class Source { disk, compiled };

struct Obtained {
  CompileResult result;
  Source source = Source::compiled;
};

// A kernel from the disk cache, when a valid entry is there; a failure to
// read is no entry (NOTE: [Disk cache file]).
std::optional<Obtained> try_disk(const DiskCache& disk, const KernelKey& key);

// A compiled kernel, stored on disk when `disk` is not null.
Obtained compile_and_store(const KernelKey& key, const CacheOptions& options, const DiskCache* disk);

// A finished compile or disk load: the debug log's line and, at
// BCAST_VERBOSE=2, the compile line of NOTE: [Verbose lines]. Outside the
// cache's lock: a host's log handler may take its time.
void report_obtained(const KernelKey& key, const Obtained& got);

// A failure of ours (file system, memory) must not poison the key for the
// waiters: it is a failed compilation like any other.
template <class F>
Obtained guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return {{nullptr, std::string("internal error: ") + e.what()}, Source::compiled};
  }
}

}  // namespace bcast::jit
