// The in-memory kernel cache.
#include "cache/kernel_cache.h"

#include <llvm/Config/llvm-config.h>

#include <chrono>
#include <future>
#include <set>
#include <list>
#include <mutex>
#include <unordered_map>

#include "cache/disk_cache.h"
#include "key_codec.h"
#include "logging.h"

namespace bcast::jit {
namespace {

using KernelPtr = std::shared_ptr<const CompiledKernel>;

// The disk cache of the folder the options name; null when it is off, or
// when its folder turned out not to be writable (warned once per folder).
class DiskCaches {
 public:
  std::shared_ptr<const DiskCache> current(const std::string& folder, std::uint64_t max_bytes) {
    const std::lock_guard lock(mutex_);
    if (folder.empty() || unwritable_.contains(folder)) return nullptr;
    if (cache_ == nullptr || cache_->folder() != folder) {
      // Objects from the folder are executed: it must be ours alone.
      std::string why;
      if (!DiskCache::prepare_folder(folder, why)) {
        disable(folder, why);
        return nullptr;
      }
    }
    if (!cache_ || cache_->folder() != folder || cache_->max_bytes() != max_bytes)
      cache_ = std::make_shared<const DiskCache>(folder, max_bytes);
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

DiskCaches& disk_caches() {
  static DiskCaches d;
  return d;
}

enum class Source { disk, compiled };

struct Obtained {
  CompileResult result;
  Source source = Source::compiled;
};

// A kernel from the disk cache if a valid entry is there, else compiled (and
// then stored on disk). NOTE: [Disk cache file]
Obtained obtain(const KernelKey& key, const CacheOptions& options) {
  const std::shared_ptr<const DiskCache> disk = disk_caches().current(options.disk_folder, options.disk_max_bytes);
  const std::string name = key.to_string();
  const CodegenSettings settings = codegen_settings(key.codegen);
  if (disk) {
    const auto start = std::chrono::steady_clock::now();
    std::string why;
    if (std::optional<DiskEntry> entry = disk->load(name, settings, why)) {
      CompiledObject object;
      object.object = std::move(entry->object);
      object.symbol = entry->symbol;
      object.code_bytes = entry->code_bytes;
      object.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      Obtained got{load_object(object), Source::disk};
      if (got.result.kernel) {
        disk->touch(name);
        return got;
      }
      why = "cannot load: " + got.result.error;
    }
    if (!why.empty())
      logging::jit().debug("disk cache: ignoring {}/{} for {}: {}", disk->folder(), DiskCache::file_name(name), name,
                           why);
  }
  CompiledObject object = compile_object(key, options.dump_dir);
  if (!object.error.empty()) return {{nullptr, object.error}, Source::compiled};
  Obtained got{load_object(object), Source::compiled};
  if (got.result.kernel && disk) {
    // The header names the key by the codec's fields (NOTE: [Disk cache file]).
    const KeyFields fields = split_kernel_key(name).value();
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    DiskEntry entry{.key = name,
                    .symbol = object.symbol,
                    .llvm_version = LLVM_VERSION_STRING,
                    .generator = kGeneratorRevision,
                    .settings = settings,
                    .op = fields.op,
                    .dtype = fields.dtype,
                    .broadcast_type = fields.type,
                    .inner = fields.layout,
                    .target = fields.target,
                    .created_unix = std::chrono::duration_cast<std::chrono::seconds>(now).count(),
                    .compile_ms = object.compile_ms,
                    .code_bytes = object.code_bytes,
                    .object = std::move(object.object)};
    std::string why;
    if (!disk->store(entry, why)) disk_caches().mark_unwritable(*disk, why);
  }
  return got;
}

}  // namespace

struct KernelCache::State {
  // A resident (or compiling) kernel. `ready` is set once `kernel` is final.
  struct Slot {
    std::shared_future<KernelPtr> kernel;
    std::list<KernelKey>::iterator lru;  // position in `lru`, most recent first
    KernelStats* stats;                  // this key's entry in `stats` (nodes never move)
  };

  mutable std::mutex mutex;
  std::unordered_map<KernelKey, Slot, KernelKeyHash> slots;
  std::list<KernelKey> lru;
  std::unordered_map<KernelKey, KernelStats, KernelKeyHash> stats;  // every key ever asked for
  KernelCacheStats totals;
  CacheOptions options;
  std::atomic<std::uint64_t> epoch{0};

  static bool ready(const Slot& slot) {
    return slot.kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // Drops least recently used, finished kernels until the cache fits. Calls
  // holding an evicted kernel keep it alive (CompiledKernel is shared).
  void evict_to_capacity() {
    for (auto it = lru.end(); slots.size() > options.capacity && it != lru.begin();) {
      --it;
      const auto slot = slots.find(*it);
      if (!ready(slot->second)) continue;  // still compiling: its caller is waiting for it
      if (const KernelPtr& k = slot->second.kernel.get()) {
        totals.code_bytes -= k->code_bytes;
        const std::uint64_t memo_hits = k->memo_hits.exchange(0);
        stats[*it].hits += memo_hits;
        totals.hits += memo_hits;
      }
      epoch.fetch_add(1, std::memory_order_release);
      stats[*it].resident = false;
      stats[*it].code_bytes = 0;
      slots.erase(slot);
      it = lru.erase(it);
      ++totals.evictions;
    }
  }

  // Books a finished disk load or compilation.
  void record(const KernelKey& key, const CompileResult& result, bool from_disk, bool resident) {
    KernelStats& s = stats[key];
    ++(from_disk ? s.disk_hits : s.compiles);
    ++(from_disk ? totals.disk_hits : totals.compiles);
    if (!result.kernel) {
      ++totals.failures;
      if (s.failures++ == 0)
        logging::jit().warn("compiling {} failed; its calls run on the reference executor: {}", s.key, result.error);
      return;
    }
    s.compile_ms += result.kernel->compile_ms;
    totals.compile_ms += result.kernel->compile_ms;
    if (resident) {
      s.code_bytes = result.kernel->code_bytes;
      totals.code_bytes += result.kernel->code_bytes;
    }
  }
};

KernelCache::KernelCache() : state_(std::make_unique<State>()) {}
KernelCache::~KernelCache() = default;

std::shared_ptr<const CompiledKernel> KernelCache::get(const KernelKey& key, CacheOutcome* outcome) {
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  if (const auto it = st.slots.find(key); it != st.slots.end()) {
    st.lru.splice(st.lru.begin(), st.lru, it->second.lru);
    ++it->second.stats->hits;
    ++st.totals.hits;
    const std::shared_future<KernelPtr> kernel = it->second.kernel;
    lock.unlock();
    KernelPtr k = kernel.get();
    if (outcome) *outcome = k ? CacheOutcome::memory_hit : CacheOutcome::failed;
    return k;
  }
  KernelStats& s = st.stats[key];
  if (s.key.empty()) s.key = key.to_string();
  ++s.misses;
  ++st.totals.misses;
  const bool resident = st.options.capacity > 0;
  const CacheOptions options = st.options;
  std::promise<KernelPtr> promise;
  if (resident) {
    st.lru.push_front(key);
    st.slots.emplace(key, State::Slot{promise.get_future().share(), st.lru.begin(), &s});
    s.resident = true;
  }
  lock.unlock();

  Obtained got;
  try {
    got = obtain(key, options);  // outside the lock: other keys go on
  } catch (const std::exception& e) {
    // A failure of ours (file system, memory) must not poison the key for
    // the waiters: it is a failed compilation like any other.
    got = {{nullptr, std::string("internal error: ") + e.what()}, Source::compiled};
  }
  lock.lock();
  // Booked before the waiters wake, so that an eviction or clear() never
  // sees a finished slot whose code size is not counted yet.
  const auto slot = st.slots.find(key);
  st.record(key, got.result, got.source == Source::disk, resident && slot != st.slots.end());
  promise.set_value(got.result.kernel);
  st.evict_to_capacity();
  if (outcome)
    *outcome = !got.result.kernel ? CacheOutcome::failed
               : got.source == Source::disk ? CacheOutcome::disk_hit
                                            : CacheOutcome::compiled;
  return got.result.kernel;
}

void KernelCache::configure(const CacheOptions& options) {
  const std::lock_guard lock(state_->mutex);
  state_->options = options;
  state_->evict_to_capacity();
}

std::size_t KernelCache::capacity() const {
  const std::lock_guard lock(state_->mutex);
  return state_->options.capacity;
}

void KernelCache::clear() {
  const std::lock_guard lock(state_->mutex);
  // Only finished kernels go; a compilation in flight finishes into its slot.
  const std::size_t capacity = state_->options.capacity;
  state_->options.capacity = 0;
  state_->evict_to_capacity();
  state_->options.capacity = capacity;
  std::erase_if(state_->stats, [&](const auto& kv) { return !state_->slots.contains(kv.first); });
  state_->totals = {};
  state_->epoch.fetch_add(1, std::memory_order_release);
  for (const auto& [key, slot] : state_->slots)
    if (State::ready(slot) && slot.kernel.get()) state_->totals.code_bytes += slot.kernel.get()->code_bytes;
}

std::uint64_t KernelCache::epoch() const { return state_->epoch.load(std::memory_order_acquire); }

KernelCacheStats KernelCache::stats() const {
  const std::lock_guard lock(state_->mutex);
  KernelCacheStats s = state_->totals;
  for (const auto& [key, slot] : state_->slots)
    if (State::ready(slot) && slot.kernel.get()) s.hits += slot.kernel.get()->memo_hits.load();
  s.resident = state_->slots.size();
  s.capacity = state_->options.capacity;
  return s;
}

std::vector<KernelStats> KernelCache::entries() const {
  const std::lock_guard lock(state_->mutex);
  std::vector<KernelStats> out;
  for (const auto& [key, s] : state_->stats) {
    out.push_back(s);
    if (const auto slot = state_->slots.find(key); slot != state_->slots.end() && State::ready(slot->second) &&
                                                   slot->second.kernel.get())
      out.back().hits += slot->second.kernel.get()->memo_hits.load();
  }
  return out;
}

KernelCache& kernel_cache() {
  // Never destroyed: threads the program did not join may still call it while
  // static destructors run at exit.
  static KernelCache* cache = new KernelCache;
  return *cache;
}

}  // namespace bcast::jit
