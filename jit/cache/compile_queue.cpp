// The background compile queue (NOTE: [Compile queue]).
#include "cache/compile_queue.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include <unistd.h>

#include "fault_injection.h"
#include "logging.h"

namespace bcast::jit {

struct CompileQueue::State {
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::deque<Job> jobs;
  std::size_t running = 0, peak = 0;
  bool stopping = false, started = false, registered_after_first = false;
  std::thread thread;

  std::size_t length() const { return jobs.size() + running; }

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stopping || !jobs.empty(); });
      if (stopping) return;
      Job job = std::move(jobs.front());
      jobs.pop_front();
      ++running;
      lock.unlock();
      job(!stopped());
      job = nullptr;  // its captures go before the queue says it is idle
      lock.lock();
      --running;
      if (!registered_after_first) {
        registered_after_first = true;
        std::atexit(stop_at_exit);  // after the statics the first compile created
      }
      changed.notify_all();
    }
  }

  bool stopped() const {
    const std::lock_guard lock(mutex);
    return stopping;
  }

  static void stop_at_exit() { compile_queue().stop(); }
};

CompileQueue::CompileQueue() : state_(std::make_unique<State>()) {}

CompileQueue::~CompileQueue() { stop(); }

bool CompileQueue::push(Job job) {
  State& st = *state_;
  std::unique_lock lock(st.mutex);
  if (st.stopping) return false;
  if (!st.started) {
    try {
      if (fault::armed(fault::Fault::thread_start))
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      st.thread = std::thread([&st] { st.loop(); });
    } catch (const std::system_error& e) {
      logging::jit().warn("cannot start the background compile thread ({}); calls compile on their own thread",
                          e.what());
      return false;
    }
    st.started = true;
    std::atexit(State::stop_at_exit);
  }
  st.jobs.push_back(std::move(job));
  st.peak = std::max(st.peak, st.length());
  st.changed.notify_all();
  return true;
}

std::size_t CompileQueue::length() const {
  const std::lock_guard lock(state_->mutex);
  return state_->length();
}

bool CompileQueue::stopping() const { return state_->stopped(); }

std::size_t CompileQueue::peak() const {
  const std::lock_guard lock(state_->mutex);
  return state_->peak;
}

void CompileQueue::wait_idle() const {
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->length() == 0 || state_->stopping; });
}

void CompileQueue::stop() {
  State& st = *state_;
  std::deque<Job> cancelled;
  {
    const std::lock_guard lock(st.mutex);
    if (st.stopping) return;
    st.stopping = true;
    cancelled.swap(st.jobs);
    st.changed.notify_all();
  }
  for (Job& job : cancelled) job(false);
  if (st.thread.joinable()) st.thread.join();
  const std::lock_guard lock(st.mutex);
  st.running = 0;
  st.changed.notify_all();
}

CompileQueue& compile_queue() {
  static CompileQueue* queue = new CompileQueue;  // never destroyed; stopped at exit
  return *queue;
}

namespace {

// NOTE: [Compile queue] exit() runs the calling thread's thread_local
// destructors before any atexit handler or static destructor (glibc's
// __run_exit_handlers), so the main thread's guard stops the queue while
// every static a compile uses is still alive, including the ones LLVM
// creates lazily during a first compile, after any atexit registration of
// ours. An exit() from another thread relies on the atexit registrations.
struct MainThreadExitGuard {
  ~MainThreadExitGuard() {
    if (::gettid() == ::getpid()) compile_queue().stop();
  }
};
thread_local MainThreadExitGuard t_exit_guard;
// Constructs the main thread's guard when the library loads.
[[maybe_unused]] const bool g_exit_guard_armed = [] {
  static_cast<void>(&t_exit_guard);
  return true;
}();

}  // namespace

}  // namespace bcast::jit
