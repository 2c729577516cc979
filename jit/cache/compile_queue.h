// The background compile queue of NOTE: [Tiers]: one thread that runs the
// compiles asynchronous calls asked for, in the order they asked.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

namespace bcast::jit {

// NOTE: [Compile queue] One thread, started on the first push, runs jobs
// first in, first out; a job is told whether it runs or is cancelled. At
// exit the queue stops before the statics a compile uses are destroyed: the
// job in flight finishes, the ones still queued are cancelled, the thread is
// joined (no compile runs while the process tears LLVM down). The stop is
// registered with atexit when the thread starts and again after its first
// job, so that it runs before the destructors of the statics LLVM creates
// lazily during a first compile.
//
// NOTE: [Queue bound] At most `bound` jobs wait at once (BCAST_JIT_QUEUE;
// the running one is not counted). A push that finds the queue full drops
// the oldest waiting job that nobody wanted since it was queued (its
// `wanted` flag, which the cache sets when a call asks for the job's key
// again, is still false) to make room, or, when every waiting job is
// wanted, refuses the new one: its call runs the fallback and a later call
// may queue it. A dropped job is told so and gives its slots up.
class CompileQueue {
 public:
  enum class Fate { run, cancelled, dropped };  // cancelled: at exit; dropped: for a newer job (NOTE: [Queue bound])
  using Job = std::function<void(Fate)>;
  using Wanted = std::shared_ptr<const std::atomic<bool>>;
  enum class Pushed { queued, full, unavailable };

  // Queues `job`: full (not kept) when `bound` jobs wait and all of them are
  // wanted; unavailable (not kept) when the thread cannot start or the queue
  // has stopped: the caller then compiles on its own thread. A job dropped
  // to make room is told so on the caller's thread before push returns.
  Pushed push(Job job, std::size_t bound, Wanted wanted);
  std::size_t length() const;  // jobs queued or running
  std::size_t waiting() const;  // jobs queued, not running yet
  std::size_t peak() const;    // the most there have been at once
  void wait_idle() const;      // until no job is queued or running
  void wait_taken() const;     // until the thread has taken every queued job (or the queue stopped)
  void stop();                 // cancels the queued jobs, finishes the running one, joins
  bool stopping() const;

  CompileQueue();
  ~CompileQueue();
  CompileQueue(const CompileQueue&) = delete;
  CompileQueue& operator=(const CompileQueue&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The process's queue; never destroyed (a caller may still ask for a kernel
// while static destructors run), stopped at exit.
CompileQueue& compile_queue();

}  // namespace bcast::jit
