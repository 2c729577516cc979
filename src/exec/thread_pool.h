// The worker threads that share large op calls with the caller.
#pragma once

#include <cstdint>
#include <type_traits>

namespace bcast {

// The start of part `part` when `total` items are shared out in `parts`
// parts whose sizes differ by at most one: share(total, parts, parts) == total.
inline std::int64_t share(std::int64_t total, std::int64_t parts, std::int64_t part) {
  return total / parts * part + (part < total % parts ? part : total % parts);
}

// NOTE: [Thread pool] Workers are started on first need (up to the largest
// BCAST_NUM_THREADS asked for, less the caller) and then sleep on a condition
// variable between calls. A call hands out `parts` pieces of work; the caller
// and the workers it wakes claim them one at a time from a shared counter, so
// a worker that wakes late costs at most the pieces it did not take. One call
// uses the pool at a time: a second caller that finds it busy runs its pieces
// itself (its own thread is already parallel work). A worker that cannot be
// started (std::system_error) leaves its pieces to the others; the call
// always completes.
class ThreadPool {
 public:
  using PartFn = void (*)(void* context, std::int64_t part);

  static ThreadPool& instance();
  // A second pool, of the same kind, for long jobs (pre-generation compiles
  // for seconds): they never hold the workers that op calls share.
  static ThreadPool& long_jobs();

  // Runs part(context, p) once for every p in [0, parts), on the caller and up
  // to threads - 1 workers; returns when every part has finished, with the
  // number of threads that ran parts of it (at least 1, the caller).
  int run(int threads, std::int64_t parts, PartFn part, void* context);

  template <class F>
  int run(int threads, std::int64_t parts, F&& f) {
    using Fn = std::remove_reference_t<F>;
    return run(
        threads, parts, [](void* c, std::int64_t p) { (*static_cast<Fn*>(c))(p); },
        const_cast<void*>(static_cast<const void*>(&f)));
  }

  struct Stats {
    std::uint64_t workers_started = 0;   // threads created since the process began
    std::uint64_t start_failures = 0;    // std::system_error from thread creation
    std::uint64_t jobs = 0;              // calls that woke workers
    std::uint64_t parts = 0;             // parts of those calls, wherever they ran
    std::uint64_t parts_on_workers = 0;  // parts run by a worker, not the caller
  };
  Stats stats() const;

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

 private:
  struct Impl;
  ThreadPool();  // instance() makes the one pool, never destroyed
  Impl* impl_;
};

// NOTE: [Threads used] Each thread keeps the number of threads, its own
// included, that ran its latest op or expression call: the entry points
// record what execute_plan (or the Ascend launcher) returned, 1 for a call
// that stayed on the caller. bcast::last_call_threads() reads it; bcast-run
// reports it beside the BCAST_NUM_THREADS setting.
void record_call_threads(int threads);
int recorded_call_threads();

}  // namespace bcast
