// The worker pool of NOTE: [Thread pool].
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "fault_injection.h"
#include "logging.h"

namespace bcast {

namespace {

// One call's work, on the caller's stack while the call runs.
struct Job {
  ThreadPool::PartFn part;
  void* context;
  std::int64_t parts;
  int workers_wanted;                  // workers with an index below this join
  std::atomic<std::int64_t> next{0};  // the next unclaimed part
  std::atomic<int> helped{0};          // workers that ran at least one part
};

// Claims and runs parts until none are left; returns how many it ran.
std::int64_t drain(Job& job) {
  std::int64_t ran = 0;
  for (std::int64_t p; (p = job.next.fetch_add(1, std::memory_order_relaxed)) < job.parts; ++ran)
    job.part(job.context, p);
  return ran;
}

}  // namespace

struct ThreadPool::Impl {
  std::mutex run_mutex;  // held by the one call that owns the workers

  std::mutex mutex;  // guards everything below
  std::condition_variable wake, left;
  std::vector<std::jthread> workers;
  Job* job = nullptr;           // the job open for joining, if any
  std::uint64_t generation = 0;  // bumped for every job
  int active = 0;               // workers inside the current job

  std::atomic<std::uint64_t> workers_started{0}, start_failures{0}, jobs{0}, parts{0}, parts_on_workers{0};

  void worker_loop(int index) {
    std::uint64_t seen = 0;
    std::unique_lock lock(mutex);
    for (;;) {
      wake.wait(lock, [&] { return generation != seen; });
      seen = generation;
      Job* const mine = job;
      if (mine == nullptr || index >= mine->workers_wanted) continue;
      ++active;
      lock.unlock();
      const std::int64_t ran = drain(*mine);
      parts_on_workers.fetch_add(static_cast<std::uint64_t>(ran), std::memory_order_relaxed);
      if (ran > 0) mine->helped.fetch_add(1, std::memory_order_relaxed);
      lock.lock();
      if (--active == 0) left.notify_one();
    }
  }

  // Starts workers until there are `wanted`, or one cannot start.
  void grow(int wanted) {
    std::lock_guard lock(mutex);
    while (static_cast<int>(workers.size()) < wanted) {
      try {
        if (fault::armed(fault::Fault::thread_start))
          throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
        const int index = static_cast<int>(workers.size());
        workers.emplace_back([this, index] { worker_loop(index); });
        ++workers_started;
      } catch (const std::system_error& e) {
        if (start_failures++ == 0)
          logging::core().warn("cannot start worker thread {} ({}); calls run on the threads there are", workers.size() + 1,
                            e.what());
        return;
      }
    }
  }
};

ThreadPool& ThreadPool::instance() {
  // Never destroyed, like the kernel cache: a thread the program did not join
  // may still run an op while static destructors run at exit. The workers
  // sleep until the process ends.
  static ThreadPool* pool = new ThreadPool;
  return *pool;
}

ThreadPool& ThreadPool::long_jobs() {
  static ThreadPool* pool = new ThreadPool;  // never destroyed, as instance()
  return *pool;
}

ThreadPool::ThreadPool() : impl_(new Impl) {}

int ThreadPool::run(int threads, std::int64_t parts, PartFn part, void* context) {
  Job job{part, context, parts, 0};
  std::unique_lock owner(impl_->run_mutex, std::try_to_lock);
  if (threads <= 1 || parts <= 1 || !owner.owns_lock()) {
    drain(job);
    return 1;
  }
  const int wanted = static_cast<int>(std::min<std::int64_t>(threads, parts)) - 1;
  impl_->grow(wanted);
  {
    std::lock_guard lock(impl_->mutex);
    job.workers_wanted = std::min(wanted, static_cast<int>(impl_->workers.size()));
    impl_->job = &job;
    ++impl_->generation;
  }
  if (job.workers_wanted > 0) {
    ++impl_->jobs;
    impl_->parts += static_cast<std::uint64_t>(parts);
    impl_->wake.notify_all();
  }
  const bool caller_ran = drain(job) > 0;
  // Close the job to late joiners, then wait for the workers still inside it.
  std::unique_lock lock(impl_->mutex);
  impl_->job = nullptr;
  impl_->left.wait(lock, [&] { return impl_->active == 0; });
  return std::max(1, (caller_ran ? 1 : 0) + job.helped.load(std::memory_order_relaxed));
}

ThreadPool::Stats ThreadPool::stats() const {
  return {impl_->workers_started.load(), impl_->start_failures.load(), impl_->jobs.load(), impl_->parts.load(),
          impl_->parts_on_workers.load()};
}

namespace {
thread_local int t_call_threads = 0;  // NOTE: [Threads used]
}  // namespace

void record_call_threads(int threads) { t_call_threads = threads; }
int recorded_call_threads() { return t_call_threads; }

}  // namespace bcast
