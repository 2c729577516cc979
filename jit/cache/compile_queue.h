// The background compile queue of NOTE: [Tiers]: one thread that runs the
// compiles asynchronous calls asked for, in the order they asked.
#pragma once

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
class CompileQueue {
 public:
  using Job = std::function<void(bool run)>;  // run == false: cancelled, clean up only

  // Queues `job`; false (the job is not kept) when the thread cannot start
  // or the queue has stopped: the caller then compiles on its own thread.
  bool push(Job job);
  std::size_t length() const;  // jobs queued or running
  std::size_t peak() const;    // the most there have been at once
  void wait_idle() const;      // until no job is queued or running
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
