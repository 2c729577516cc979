// The in-memory kernel cache.
#include "cache/kernel_cache.h"

#include <llvm/Config/llvm-config.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <set>
#include <list>
#include <mutex>
#include <thread>
#include <optional>
#include <unordered_map>

#include "cache/compile_queue.h"
#include "cache/disk_cache.h"
#include "compile/isolated_compile.h"
#include "key_codec.h"
#include "fault_injection.h"
#include "logging.h"

namespace bcast::jit {
namespace {

using KernelPtr = std::shared_ptr<const CompiledKernel>;

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

DiskCaches& disk_caches() {
  static DiskCaches d;
  return d;
}

enum class Source { disk, compiled };

struct Obtained {
  CompileResult result;
  Source source = Source::compiled;
};

// The kernel from the disk cache, when a valid entry is there (NOTE: [Disk
// cache file]); a file that failed NOTE: [Disk cache trust] is a warning,
// any other reason to ignore one goes to the debug log.
std::optional<Obtained> load_from_disk(const DiskCache& disk, const KernelKey& key) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = key.to_string();
  DiskCache::Refusal refusal;
  if (std::optional<DiskEntry> entry = disk.load(name, codegen_settings(key.codegen), refusal)) {
    CompiledObject object;
    object.object = std::move(entry->object);
    object.symbol = entry->symbol;
    object.code_bytes = entry->code_bytes;
    object.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    object.phases.read_us = object.compile_ms * 1e3;
    Obtained got{load_object(object), Source::disk};
    if (got.result.kernel) {
      disk.touch(name);
      return got;
    }
    refusal.why = "cannot load: " + got.result.error;
  }
  if (refusal.untrusted)
    logging::jit().warn("disk cache: refusing {}/{} for {}: it {}; compiling the kernel afresh", disk.folder(),
                        DiskCache::file_name(name), name, refusal.why);
  else if (!refusal.why.empty())
    logging::jit().debug("disk cache: ignoring {}/{} for {}: {}", disk.folder(), DiskCache::file_name(name), name,
                         refusal.why);
  return std::nullopt;
}

// A compiled kernel, stored on disk when the disk cache is on.
Obtained compile_and_store(const KernelKey& key, const CacheOptions& options, const DiskCache* disk) {
  CompiledObject object =
      options.isolate ? compile_object_isolated(key, options.dump_dir) : compile_object(key, options.dump_dir);
  if (!object.error.empty()) return {{nullptr, object.error}, Source::compiled};
  Obtained got{load_object(object), Source::compiled};
  if (got.result.kernel && disk != nullptr) {
    // The header names the key by the codec's fields (NOTE: [Disk cache file]).
    const std::string name = key.to_string();
    const KeyFields fields = split_kernel_key(name).value();
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    DiskEntry entry{.key = name,
                    .symbol = object.symbol,
                    .llvm_version = LLVM_VERSION_STRING,
                    .generator = kGeneratorRevision,
                    .settings = codegen_settings(key.codegen),
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

// "setup=0.6,target_machine=0.2,...": a compile's phases in microseconds.
std::string phases_text(const CompilePhases& p) {
  return fmt::format("setup={:.1f},target_machine={:.1f},emit_ir={:.1f},verify={:.1f},optimise={:.1f},codegen={:.1f},"
                     "link={:.1f},read={:.1f}",
                     p.setup_us, p.target_machine_us, p.emit_ir_us, p.verify_us, p.optimise_us, p.codegen_us,
                     p.link_us, p.read_us);
}

// A finished compile or disk load: the debug log's line and, at
// BCAST_VERBOSE=2, the compile line of NOTE: [Verbose lines]. Outside the
// cache's lock: a host's log handler may take its time.
void report_obtained(const KernelKey& key, const Obtained& got) {
  const bool debug = logging::jit().should_log(spdlog::level::debug);
  const bool line = logging::verbose().should_log(spdlog::level::debug);
  if (!debug && !line) return;
  const std::string name = key.to_string();
  const std::string_view source = got.source == Source::disk ? "disk" : "compiled";
  const CompiledKernel* k = got.result.kernel.get();
  const std::string phases = k != nullptr ? phases_text(k->phases) : "";
  const double total_us = k != nullptr ? k->phases.total_us() : 0;
  if (debug) {
    if (k == nullptr)
      logging::jit().debug("{}: {} failed: {}", name, source == "disk" ? "loading" : "compiling", got.result.error);
    else
      logging::jit().debug("{}: {} in {:.1f} us ({}), {} bytes of code", name,
                           source == "disk" ? "loaded from disk" : "compiled", total_us, phases, k->code_bytes);
  }
  if (line)
    logging::verbose().debug(logging::verbose_line(
        "compile", {source, name, k != nullptr ? "ok" : "failed", fmt::format("{:.1f}", total_us), phases,
                    k != nullptr ? "" : got.result.error}));
}

// load_from_disk(), a failure to read being no entry.
std::optional<Obtained> try_disk(const DiskCache& disk, const KernelKey& key) {
  try {
    return load_from_disk(disk, key);
  } catch (const std::exception& e) {
    logging::jit().debug("disk cache: cannot read {} for {}: {}", disk.folder(), key.to_string(), e.what());
    return std::nullopt;
  }
}

// The test hooks of NOTE: [Tiers]: a background compile held at its start
// until the fault is disarmed or the queue stops.
void hold_if_asked(fault::Fault hold) {
  if (!fault::armed(hold)) return;
  const fault::Holding held(hold);  // fault::wait_until_held's event
  while (fault::armed(hold) && !compile_queue().stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

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

}  // namespace

// NOTE: [Waiting rule] The compile time an async call expects before it has
// measured one: the median cold compile of this machine (docs/performance.md).
// A job compiles the first tier and then the full kernel: 1.7 + 4.6 ms here.
constexpr double kFirstCompileGuessUs = 6300;

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
  double mean_compile_us = kFirstCompileGuessUs;  // of this process's background jobs, recent ones weighing most

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
    s.phases = result.kernel->phases;
    if (resident) {
      s.code_bytes = result.kernel->code_bytes;
      totals.code_bytes += result.kernel->code_bytes;
    }
  }

  // Books a finished load or compile and hands the kernel to the waiters.
  // Booked before they wake, so that an eviction or clear() never sees a
  // finished slot whose code size is not counted yet.
  KernelPtr finish(const KernelKey& key, const Obtained& got, std::promise<KernelPtr>& promise, bool resident) {
    {
      const std::lock_guard lock(mutex);
      record(key, got.result, got.source == Source::disk, resident && slots.contains(key));
      promise.set_value(got.result.kernel);
      evict_to_capacity();
    }
    report_obtained(key, got);
    return got.result.kernel;
  }

  // NOTE: [Waiting rule]: a pending kernel is expected after the jobs queued
  // before it and its own, and at least one job away: the thread that opened
  // the slot may not have queued its job yet (it reads the disk first). The
  // caller waits if that is within its patience.
  bool worth_waiting(const Patience& patience) const {
    const double jobs = static_cast<double>(std::max<std::size_t>(1, compile_queue().length()));
    return !patience.async || mean_compile_us * jobs <= patience.wait_us;
  }

  // A pending slot's kernel, when the caller should wait for it; null
  // (pending) when it should not.
  KernelPtr wait_or_pend(const std::shared_future<KernelPtr>& kernel, const Patience& patience,
                         std::unique_lock<std::mutex>& lock, CacheOutcome* outcome) {
    const bool done = kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    if (done || worth_waiting(patience)) {
      if (!done && patience.async) ++totals.waits;
      lock.unlock();
      KernelPtr k = kernel.get();
      if (outcome) *outcome = k ? CacheOutcome::memory_hit : CacheOutcome::failed;
      return k;
    }
    if (outcome) *outcome = CacheOutcome::pending;
    return nullptr;
  }

  // NOTE: [Tiers] The background job of an async miss: the disk, when the
  // caller left it (the JIT not set up yet), else the first tier, then the
  // full kernel, stored on disk. Cancelled at exit, it fails both slots
  // (nobody waits any more).
  CompileQueue::Job background_job(const KernelKey& key, const CacheOptions& told,
                                   std::shared_ptr<const DiskCache> disk, bool read_disk,
                                   std::shared_ptr<std::promise<KernelPtr>> promise, std::optional<KernelKey> tier,
                                   std::shared_ptr<std::promise<KernelPtr>> quick) {
    return [this, key, told, disk, read_disk, promise, tier, quick](bool run) {
      if (!run) {
        if (quick) quick->set_value(nullptr);
        promise->set_value(nullptr);
        return;
      }
      hold_if_asked(fault::Fault::hold_compile);
      if (disk && read_disk)
        if (const std::optional<Obtained> got = try_disk(*disk, key)) {
          if (quick) {  // no first tier needed
            quick->set_value(nullptr);
            const std::lock_guard guard(mutex);
            drop_slot(*tier);
          }
          finish(key, *got, *promise, true);
          return;
        }
      // The job's time, for NOTE: [Waiting rule]: its compiles, not a test's hold.
      std::chrono::duration<double, std::micro> took{0};
      const auto timed = [&took](auto&& compile) {
        const auto start = std::chrono::steady_clock::now();
        Obtained got = guarded(compile);
        took += std::chrono::steady_clock::now() - start;
        return got;
      };
      if (quick) finish(*tier, timed([&] { return compile_and_store(*tier, told, nullptr); }), *quick, true);
      hold_if_asked(fault::Fault::hold_full_compile);
      const Obtained got = timed([&] { return compile_and_store(key, told, disk.get()); });
      {
        const std::lock_guard guard(mutex);
        mean_compile_us += 0.25 * (took.count() - mean_compile_us);
      }
      finish(key, got, *promise, true);
    };
  }

  // Forgets a slot that will never be compiled into.
  void drop_slot(const KernelKey& key) {
    const auto it = slots.find(key);
    if (it == slots.end()) return;
    lru.erase(it->second.lru);
    it->second.stats->resident = false;
    slots.erase(it);
  }

  // Counts a miss of `key`; its entry in `stats`.
  KernelStats& book_miss(const KernelKey& key) {
    KernelStats& s = stats[key];
    if (s.key.empty()) s.key = key.to_string();
    ++s.misses;
    ++totals.misses;
    return s;
  }

  // A slot for `key`, compiling, when it has none: its promise, or null.
  std::shared_ptr<std::promise<KernelPtr>> open_slot(const KernelKey& key) {
    if (slots.contains(key) || options.capacity == 0) return nullptr;
    KernelStats& s = book_miss(key);
    auto promise = std::make_shared<std::promise<KernelPtr>>();
    lru.push_front(key);
    slots.emplace(key, Slot{promise->get_future().share(), lru.begin(), &s});
    s.resident = true;
    return promise;
  }
};

KernelCache::KernelCache() : state_(std::make_unique<State>()) {}
KernelCache::~KernelCache() = default;

std::shared_ptr<const CompiledKernel> KernelCache::get(const KernelKey& key, Patience patience,
                                                       CacheOutcome* outcome) {
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  if (const auto it = st.slots.find(key); it != st.slots.end()) {
    st.lru.splice(st.lru.begin(), st.lru, it->second.lru);
    ++it->second.stats->hits;
    ++st.totals.hits;
    const std::shared_future<KernelPtr> kernel = it->second.kernel;
    if (!State::ready(it->second)) return st.wait_or_pend(kernel, patience, lock, outcome);
    lock.unlock();
    KernelPtr k = kernel.get();
    if (outcome) *outcome = k ? CacheOutcome::memory_hit : CacheOutcome::failed;
    return k;
  }
  const bool resident = st.options.capacity > 0;
  const CacheOptions options = st.options;
  std::shared_ptr<std::promise<KernelPtr>> promise = st.open_slot(key);
  std::shared_future<KernelPtr> future;
  if (promise) {
    future = st.slots.at(key).kernel;
  } else {  // a cache that keeps nothing: the caller's own promise
    st.book_miss(key);
    promise = std::make_shared<std::promise<KernelPtr>>();
    future = promise->get_future().share();
  }
  lock.unlock();

  // Outside the lock: other keys go on. The disk is read on the caller's
  // thread, as a load costs tens of microseconds, once the process's JIT is
  // set up; before, an async miss leaves the load to the background job too
  // (NOTE: [Tiers]).
  const std::shared_ptr<const DiskCache> disk = disk_caches().current(options.disk_folder, options.disk_max_bytes);
  const bool load_here = !patience.async || host_jit_ready();
  if (disk && load_here) {
    const std::optional<Obtained> got = try_disk(*disk, key);
    if (got) {
      if (outcome) *outcome = got->result.kernel ? CacheOutcome::disk_hit : CacheOutcome::failed;
      return st.finish(key, *got, *promise, resident);
    }
  }
  // NOTE: [Tiers]: an async miss compiles on the background queue; a cache
  // that keeps nothing has no slot to finish into, so its calls compile here.
  if (patience.async && resident) {
    std::shared_ptr<std::promise<KernelPtr>> quick;
    if (patience.first_tier) {
      lock.lock();
      quick = st.open_slot(*patience.first_tier);
      lock.unlock();
    }
    const bool queued =
        compile_queue().push(st.background_job(key, options, disk, !load_here, promise, patience.first_tier, quick));
    if (queued) {
      lock.lock();
      return st.wait_or_pend(future, patience, lock, outcome);
    }
    if (quick) {  // no background thread: no first tier either
      quick->set_value(nullptr);
      lock.lock();
      st.drop_slot(*patience.first_tier);
      lock.unlock();
    }
  }
  const Obtained got = guarded([&] { return compile_and_store(key, options, disk.get()); });
  if (outcome) *outcome = got.result.kernel ? CacheOutcome::compiled : CacheOutcome::failed;
  return st.finish(key, got, *promise, resident);
}

void KernelCache::wait_for_compiles() const { compile_queue().wait_idle(); }

std::shared_ptr<const CompiledKernel> KernelCache::find_ready(const KernelKey& key) {
  State& st = *state_;
  const std::lock_guard lock(st.mutex);
  const auto it = st.slots.find(key);
  if (it == st.slots.end() || !State::ready(it->second)) return nullptr;
  st.lru.splice(st.lru.begin(), st.lru, it->second.lru);
  ++it->second.stats->hits;
  ++st.totals.hits;
  return it->second.kernel.get();
}

void KernelCache::record_fallback(const KernelKey& key) {
  State& st = *state_;
  const std::lock_guard lock(st.mutex);
  ++st.stats[key].fallback_calls;
  ++st.totals.fallback_calls;
}

void KernelCache::configure(const CacheOptions& options) {
  set_profiler_hooks({.perf_map = options.perf_map, .gdb = options.gdb});
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
  s.queued = compile_queue().length();
  s.queue_peak = compile_queue().peak();
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
