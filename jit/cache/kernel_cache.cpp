// The in-memory kernel cache (NOTE: [Bounded cache]).
#include "cache/kernel_cache.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "cache/compile_queue.h"
#include "cache/kernel_sources.h"
#include "cache/key_stats.h"
#include "codegen_settings.h"
#include "expr_kernel.h"
#include "fault_injection.h"
#include "logging.h"

namespace bcast::jit {
namespace {

using KernelPtr = std::shared_ptr<const CompiledKernel>;

// The test hooks of NOTE: [Tiers]: a background compile held at its start
// until the fault is disarmed or the queue stops.
void hold_if_asked(fault::Fault hold) {
  if (!fault::armed(hold)) return;
  const fault::Holding held(hold);  // fault::wait_until_held's event
  while (fault::armed(hold) && !compile_queue().stopping()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace

// NOTE: [Waiting rule] The compile time an async call expects before it has
// measured one: the median cold compile of this machine (docs/performance.md).
// A job compiles the first tier and then the full kernel: 1.7 + 4.6 ms here.
constexpr double kFirstCompileGuessUs = 6300;

namespace {

// What a pending slot and its background job share.
struct Compile {
  std::promise<KernelPtr> promise;
  std::shared_future<KernelPtr> future = promise.get_future().share();
  std::atomic<bool> asked{false};  // a call asked for the key since the job was queued (NOTE: [Queue bound])
};
using CompilePtr = std::shared_ptr<Compile>;

// NOTE: [Interned ids]: what keeps a key's spec and codegen settings
// registered while a slot, a job or a compile of the key lives.
struct KeyPins {
  ExprSpecPin spec;
  CodegenPin codegen;
};
KeyPins pins_of(const KernelKey& key) {
  return {pin_expr_kernel(key.expr), pin_codegen_settings(key.codegen)};
}

// NOTE: [Queue bound] What the waiters of a given-up slot get (its job was
// dropped, or refused by a full queue): not a kernel, ask again.
const KernelPtr& given_up() {
  static const KernelPtr* k = new KernelPtr(std::make_shared<const CompiledKernel>());
  return *k;
}

}  // namespace

struct KernelCache::State {
  // A resident (or compiling) kernel. `ready` is set once `kernel` is final.
  struct Slot {
    std::shared_future<KernelPtr> kernel;
    std::list<KernelKey>::iterator lru;  // position in `lru`, most recent first
    KernelStats* stats;                  // this key's entry in `key_stats` (entries never move)
    CompilePtr compile;                  // what its job shares; kept once ready (small)
    KeyPins pins;
    bool finished = false;               // its kernel (or failure) is in: it counts against the capacity
  };

  // A background job's work (NOTE: [Tiers]).
  struct Job {
    KernelKey key;
    CacheOptions told;
    std::shared_ptr<const DiskCache> disk;
    bool read_disk = false;
    CompilePtr compile;
    std::optional<KernelKey> tier;  // the first tier, when `quick`
    CompilePtr quick;
    KeyPins pins;
  };

  mutable std::mutex mutex;
  std::unordered_map<KernelKey, Slot, KernelKeyHash> slots;
  std::list<KernelKey> lru;
  std::size_t finished = 0;  // slots whose kernel is in; the others are pending
  KeyStatsTable key_stats{kRetiredKeyStats};
  KernelCacheStats totals;
  CacheOptions options;
  std::atomic<std::uint64_t> epoch{0};
  double mean_compile_us = kFirstCompileGuessUs;  // of this process's background jobs, recent ones weighing most

  static bool ready(const Slot& slot) {
    return slot.kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // Drops least recently used, finished kernels until at most `capacity`
  // are kept. Calls holding an evicted kernel keep it alive (CompiledKernel
  // is shared). NOTE: [Bounded cache]: pending slots do not count (the
  // compile queue bounds them), so that they never push out a fresh kernel.
  void evict_to_capacity() {
    for (auto it = lru.end(); finished > options.capacity && it != lru.begin();) {
      --it;
      const auto slot = slots.find(*it);
      if (!slot->second.finished) continue;  // still compiling: its caller is waiting for it
      it = evict(slot);
    }
  }

  // Drops a finished slot; the position in `lru` after it.
  std::list<KernelKey>::iterator evict(std::unordered_map<KernelKey, Slot, KernelKeyHash>::iterator slot) {
    if (const KernelPtr& k = slot->second.kernel.get()) {
      totals.code_bytes -= k->code_bytes;
      const std::uint64_t memo_hits = k->memo_hits.exchange(0);
      slot->second.stats->hits += memo_hits;
      totals.hits += memo_hits;
    }
    epoch.fetch_add(1, std::memory_order_release);
    const KernelKey key = slot->first;
    const auto next = lru.erase(slot->second.lru);
    slots.erase(slot);
    --finished;
    key_stats.retire(key);
    ++totals.evictions;
    return next;
  }

  // NOTE: [Bounded cache]: once its full kernel is in, a first tier serves
  // nobody (calls ask for it only while the full kernel is pending): it goes,
  // leaving the capacity to full kernels. Calls running it keep it alive.
  void retire_first_tier(const Job& job) {
    const std::lock_guard guard(mutex);
    const auto slot = slots.find(*job.tier);
    if (slot != slots.end() && slot->second.compile == job.quick && slot->second.finished) evict(slot);
  }

  // Books a finished disk load or compilation.
  void record(const KernelKey& key, const CompileResult& result, bool from_disk, bool resident) {
    KernelStats& s = key_stats.at(key);
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
  KernelPtr finish(const KernelKey& key, const Obtained& got, Compile& compile, bool resident) {
    {
      const std::lock_guard lock(mutex);
      const auto slot = slots.find(key);
      const bool into_slot = resident && slot != slots.end() && slot->second.compile.get() == &compile;
      record(key, got.result, got.source == Source::disk, into_slot);
      compile.promise.set_value(got.result.kernel);
      if (into_slot) {
        slot->second.finished = true;
        ++finished;
      }
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
  // (pending) when it should not; given_up() when its slot was given up
  // while the caller waited. A waiting call wants the job: it is never
  // dropped for a newer one (NOTE: [Queue bound]).
  KernelPtr wait_or_pend(const CompilePtr& compile, const Patience& patience, std::unique_lock<std::mutex>& lock,
                         CacheOutcome* outcome) {
    const std::shared_future<KernelPtr> kernel = compile->future;
    const bool done = kernel.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    if (done || worth_waiting(patience)) {
      if (!done) compile->asked.store(true, std::memory_order_relaxed);
      if (!done && patience.async) ++totals.waits;
      lock.unlock();
      KernelPtr k = kernel.get();
      if (outcome) *outcome = k == given_up() ? CacheOutcome::pending : k ? CacheOutcome::memory_hit : CacheOutcome::failed;
      return k;
    }
    if (outcome) *outcome = CacheOutcome::pending;
    return nullptr;
  }

  // NOTE: [Queue bound] Forgets the job's slots, still pending, and tells
  // their waiters to ask again. Called with `mutex` held.
  void give_up(const Job& job) {
    drop_slot(job.key, job.compile);
    if (job.quick) drop_slot(*job.tier, job.quick);
    job.compile->promise.set_value(given_up());
    if (job.quick) job.quick->promise.set_value(given_up());
  }

  // NOTE: [Tiers] The background job of an async miss: the disk, when the
  // caller left it (the JIT not set up yet), else the first tier, then the
  // full kernel, stored on disk. Cancelled at exit, it fails both slots
  // (nobody waits any more); dropped for a newer job (NOTE: [Queue bound]),
  // it gives them up.
  CompileQueue::Job background_job(Job job) {
    return [this, job = std::move(job)](CompileQueue::Fate fate) {
      if (fate == CompileQueue::Fate::dropped) {
        const std::lock_guard guard(mutex);
        give_up(job);
        ++totals.dropped;
      } else if (fate == CompileQueue::Fate::cancelled) {
        if (job.quick) job.quick->promise.set_value(nullptr);
        job.compile->promise.set_value(nullptr);
      } else {
        run(job);
      }
    };
  }

  void run(const Job& job) {
    hold_if_asked(fault::Fault::hold_compile);
    if (job.disk && job.read_disk)
      if (const std::optional<Obtained> got = try_disk(*job.disk, job.key)) {
        if (job.quick) {  // no first tier needed
          job.quick->promise.set_value(nullptr);
          const std::lock_guard guard(mutex);
          drop_slot(*job.tier, job.quick);
        }
        finish(job.key, *got, *job.compile, true);
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
    if (job.quick)
      finish(*job.tier, timed([&] { return compile_and_store(*job.tier, job.told, nullptr); }), *job.quick, true);
    hold_if_asked(fault::Fault::hold_full_compile);
    const Obtained got = timed([&] { return compile_and_store(job.key, job.told, job.disk.get()); });
    {
      const std::lock_guard guard(mutex);
      mean_compile_us += 0.25 * (took.count() - mean_compile_us);
    }
    finish(job.key, got, *job.compile, true);
    if (job.quick && got.result.kernel) retire_first_tier(job);
  }

  // Forgets `key`'s slot, when it is the one of `compile`: it will never be
  // compiled into.
  void drop_slot(const KernelKey& key, const CompilePtr& compile) {
    const auto it = slots.find(key);
    if (it == slots.end() || it->second.compile != compile) return;
    if (it->second.finished) --finished;
    lru.erase(it->second.lru);
    slots.erase(it);
    key_stats.retire(key);
  }

  // A slot for `key`, compiling, when it has none: what its job shares, or null.
  CompilePtr open_slot(const KernelKey& key, const KeyPins& pins) {
    if (slots.contains(key) || options.capacity == 0) return nullptr;
    KernelStats& s = key_stats.make_resident(key);
    ++s.misses;
    ++totals.misses;
    auto compile = std::make_shared<Compile>();
    lru.push_front(key);
    slots.emplace(key, Slot{compile->future, lru.begin(), &s, compile, pins});
    return compile;
  }

  KernelPtr hit(Slot& slot, const Patience& patience, std::unique_lock<std::mutex>& lock, CacheOutcome* outcome);
  KernelPtr miss(const KernelKey& key, const Patience& patience, std::unique_lock<std::mutex>& lock,
                 CacheOutcome* outcome);
  std::optional<KernelPtr> queue(Job job, const Patience& patience, std::unique_lock<std::mutex>& lock,
                                 CacheOutcome* outcome);
};

// A look-up that found `slot` (under `lock`).
KernelPtr KernelCache::State::hit(Slot& slot, const Patience& patience, std::unique_lock<std::mutex>& lock,
                                  CacheOutcome* outcome) {
  lru.splice(lru.begin(), lru, slot.lru);
  ++slot.stats->hits;
  ++totals.hits;
  const std::shared_future<KernelPtr> kernel = slot.kernel;
  if (!ready(slot)) {
    slot.compile->asked.store(true, std::memory_order_relaxed);  // NOTE: [Queue bound]
    return wait_or_pend(slot.compile, patience, lock, outcome);
  }
  lock.unlock();
  KernelPtr k = kernel.get();
  if (outcome) *outcome = k ? CacheOutcome::memory_hit : CacheOutcome::failed;
  return k;
}

// A look-up that found no slot for `key` (under `lock`, which it releases).
KernelPtr KernelCache::State::miss(const KernelKey& key, const Patience& patience, std::unique_lock<std::mutex>& lock,
                                   CacheOutcome* outcome) {
  const bool resident = options.capacity > 0;
  const CacheOptions told = options;
  const KeyPins pins = pins_of(key);  // for this call's own compile, if it makes one
  CompilePtr compile = open_slot(key, pins);
  if (!compile) {  // a cache that keeps nothing: the caller's own promise
    ++key_stats.at(key).misses;
    ++totals.misses;
    compile = std::make_shared<Compile>();
  }
  lock.unlock();

  // Outside the lock: other keys go on. The disk is read on the caller's
  // thread, as a load costs tens of microseconds, once the process's JIT is
  // set up; before, an async miss leaves the load to the background job too
  // (NOTE: [Tiers]).
  const std::shared_ptr<const DiskCache> disk = disk_caches().current(told.disk_folder, told.disk_max_bytes);
  const bool load_here = !patience.async || host_jit_ready();
  if (disk && load_here) {
    const std::optional<Obtained> got = try_disk(*disk, key);
    if (got) {
      if (outcome) *outcome = got->result.kernel ? CacheOutcome::disk_hit : CacheOutcome::failed;
      return finish(key, *got, *compile, resident);
    }
  }
  // NOTE: [Tiers]: an async miss compiles on the background queue; a cache
  // that keeps nothing has no slot to finish into, so its calls compile here.
  if (patience.async && resident) {
    Job job{key, told, disk, !load_here, compile, patience.first_tier, nullptr, pins};
    if (std::optional<KernelPtr> k = queue(std::move(job), patience, lock, outcome)) return *k;
  }
  const Obtained got = guarded([&] { return compile_and_store(key, told, disk.get()); });
  if (outcome) *outcome = got.result.kernel ? CacheOutcome::compiled : CacheOutcome::failed;
  return finish(key, got, *compile, resident);
}

// Queues an async miss's job: the kernel, null (pending) or given_up() as
// wait_or_pend says; none when there is no background thread: the caller
// then compiles on its own thread. A full queue (NOTE: [Queue bound]) gives
// the slots up: the call runs its fallback, pending.
std::optional<KernelPtr> KernelCache::State::queue(Job job, const Patience& patience,
                                                   std::unique_lock<std::mutex>& lock, CacheOutcome* outcome) {
  if (job.tier) {
    lock.lock();
    job.quick = open_slot(*job.tier, job.pins);
    lock.unlock();
  }
  const CompilePtr compile = job.compile;
  const CompileQueue::Wanted wanted(job.compile, &job.compile->asked);
  const std::size_t bound = job.told.queue_bound;
  Job kept = job;  // the queue keeps `job` only when it takes it
  switch (compile_queue().push(background_job(std::move(job)), bound, wanted)) {
    case CompileQueue::Pushed::queued:
      lock.lock();
      return wait_or_pend(compile, patience, lock, outcome);
    case CompileQueue::Pushed::full:
      lock.lock();
      give_up(kept);
      ++totals.refused;
      lock.unlock();
      if (outcome) *outcome = CacheOutcome::pending;
      return KernelPtr{};
    case CompileQueue::Pushed::unavailable:
      break;
  }
  if (kept.quick) {  // no background thread: no first tier either
    kept.quick->promise.set_value(nullptr);
    lock.lock();
    drop_slot(*kept.tier, kept.quick);
    lock.unlock();
  }
  return std::nullopt;
}

KernelCache::KernelCache() : state_(std::make_unique<State>()) {}
KernelCache::~KernelCache() = default;

std::shared_ptr<const CompiledKernel> KernelCache::get(const KernelKey& key, Patience patience,
                                                       CacheOutcome* outcome) {
  State& st = *state_;
  for (;;) {
    std::unique_lock lock(st.mutex);
    const auto it = st.slots.find(key);
    KernelPtr k = it != st.slots.end() ? st.hit(it->second, patience, lock, outcome) : st.miss(key, patience, lock, outcome);
    if (k != given_up()) return k;
    // NOTE: [Queue bound]: the slot this call waited for was given up. An
    // async call runs its fallback; a sync call asks again, and compiles.
    if (patience.async) return nullptr;
  }
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
  ++st.key_stats.at(key).fallback_calls;
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
  state_->key_stats.forget_retired();
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
  s.pending = state_->slots.size() - state_->finished;
  s.capacity = state_->options.capacity;
  return s;
}

std::vector<KernelStats> KernelCache::entries() const {
  const std::lock_guard lock(state_->mutex);
  std::vector<KernelStats> out;
  state_->key_stats.for_each([&](const KernelKey& key, const KernelStats& s) {
    out.push_back(s);
    if (const auto slot = state_->slots.find(key); slot != state_->slots.end() && State::ready(slot->second) &&
                                                   slot->second.kernel.get())
      out.back().hits += slot->second.kernel.get()->memo_hits.load();
  });
  return out;
}

KernelCache& kernel_cache() {
  // Never destroyed: threads the program did not join may still call it while
  // static destructors run at exit.
  static KernelCache* cache = new KernelCache;
  return *cache;
}

}  // namespace bcast::jit
