// The in-memory kernel cache.
#include "kernel_cache.h"

#include <future>
#include <list>
#include <mutex>
#include <unordered_map>

#include "config.h"
#include "logging.h"

namespace bcast::jit {
namespace {

using KernelPtr = std::shared_ptr<const CompiledKernel>;

}  // namespace

struct KernelCache::State {
  // A resident (or compiling) kernel. `ready` is set once `kernel` is final.
  struct Slot {
    std::shared_future<KernelPtr> kernel;
    std::list<KernelKey>::iterator lru;  // position in `lru`, most recent first
  };

  mutable std::mutex mutex;
  std::unordered_map<KernelKey, Slot, KernelKeyHash> slots;
  std::list<KernelKey> lru;
  std::unordered_map<KernelKey, KernelStats, KernelKeyHash> stats;  // every key ever asked for
  KernelCacheStats totals;
  std::size_t capacity = config::cache_capacity();

  static bool ready(const Slot& slot) {
    return slot.kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // Drops least recently used, finished kernels until the cache fits. Calls
  // holding an evicted kernel keep it alive (CompiledKernel is shared).
  void evict_to_capacity() {
    for (auto it = lru.end(); slots.size() > capacity && it != lru.begin();) {
      --it;
      const auto slot = slots.find(*it);
      if (!ready(slot->second)) continue;  // still compiling: its caller is waiting for it
      if (const KernelPtr& k = slot->second.kernel.get()) totals.code_bytes -= k->code_bytes;
      stats[*it].resident = false;
      stats[*it].code_bytes = 0;
      slots.erase(slot);
      it = lru.erase(it);
      ++totals.evictions;
    }
  }

  // Books a finished compilation.
  void record(const KernelKey& key, const CompileResult& result, bool resident) {
    KernelStats& s = stats[key];
    ++totals.compiles;
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

std::shared_ptr<const CompiledKernel> KernelCache::get(const KernelKey& key) {
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  if (const auto it = st.slots.find(key); it != st.slots.end()) {
    st.lru.splice(st.lru.begin(), st.lru, it->second.lru);
    ++st.stats[key].hits;
    ++st.totals.hits;
    const std::shared_future<KernelPtr> kernel = it->second.kernel;
    lock.unlock();
    return kernel.get();
  }
  KernelStats& s = st.stats[key];
  if (s.key.empty()) s.key = key.to_string();
  ++s.misses;
  ++st.totals.misses;
  const bool resident = st.capacity > 0;
  std::promise<KernelPtr> promise;
  if (resident) {
    st.lru.push_front(key);
    st.slots.emplace(key, State::Slot{promise.get_future().share(), st.lru.begin()});
    s.resident = true;
  }
  lock.unlock();

  CompileResult result = compile_host_kernel(key);  // outside the lock: other keys go on
  promise.set_value(result.kernel);

  lock.lock();
  st.record(key, result, resident);
  st.evict_to_capacity();
  return result.kernel;
}

void KernelCache::set_capacity(std::size_t kernels) {
  const std::lock_guard lock(state_->mutex);
  state_->capacity = kernels;
  state_->evict_to_capacity();
}

std::size_t KernelCache::capacity() const {
  const std::lock_guard lock(state_->mutex);
  return state_->capacity;
}

void KernelCache::clear() {
  const std::lock_guard lock(state_->mutex);
  // Only finished kernels go; a compilation in flight finishes into its slot.
  const std::size_t capacity = state_->capacity;
  state_->capacity = 0;
  state_->evict_to_capacity();
  state_->capacity = capacity;
  std::erase_if(state_->stats, [&](const auto& kv) { return !state_->slots.contains(kv.first); });
  state_->totals = {};
  for (const auto& [key, slot] : state_->slots)
    if (State::ready(slot) && slot.kernel.get()) state_->totals.code_bytes += slot.kernel.get()->code_bytes;
}

KernelCacheStats KernelCache::stats() const {
  const std::lock_guard lock(state_->mutex);
  KernelCacheStats s = state_->totals;
  s.resident = state_->slots.size();
  s.capacity = state_->capacity;
  return s;
}

std::vector<KernelStats> KernelCache::entries() const {
  const std::lock_guard lock(state_->mutex);
  std::vector<KernelStats> out;
  for (const auto& [key, s] : state_->stats) out.push_back(s);
  return out;
}

KernelCache& kernel_cache() {
  static KernelCache cache;
  return cache;
}

}  // namespace bcast::jit
