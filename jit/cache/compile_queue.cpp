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
  struct Entry {
    Job job;
    Wanted wanted;
  };
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::deque<Entry> jobs;
  std::size_t running = 0, peak = 0;
  bool stopping = false, started = false, registered_after_first = false;
  std::thread thread;

  std::size_t length() const { return jobs.size() + running; }

  void loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stopping || !jobs.empty(); });
      if (stopping) return;
      Job job = std::move(jobs.front().job);
      jobs.pop_front();
      ++running;
      changed.notify_all();  // wait_taken()
      lock.unlock();
      job(stopped() ? Fate::cancelled : Fate::run);
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

  // NOTE: [Queue bound]: with `bound` jobs waiting, the oldest unwanted one,
  // taken out of the queue; null when every waiting job is wanted.
  Job take_unwanted() {
    for (auto it = jobs.begin(); it != jobs.end(); ++it)
      if (!it->wanted || !it->wanted->load(std::memory_order_relaxed)) {
        Job job = std::move(it->job);
        jobs.erase(it);
        return job;
      }
    return nullptr;
  }

  // Starts the thread on the first push; false when it cannot start.
  bool start() {
    if (started) return true;
    try {
      if (fault::armed(fault::Fault::thread_start))
        throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again));
      thread = std::thread([this] { loop(); });
    } catch (const std::system_error& e) {
      logging::jit().warn("cannot start the background compile thread ({}); calls compile on their own thread",
                          e.what());
      return false;
    }
    started = true;
    std::atexit(State::stop_at_exit);
    return true;
  }
};

CompileQueue::CompileQueue() : state_(std::make_unique<State>()) {}

CompileQueue::~CompileQueue() { stop(); }

CompileQueue::Pushed CompileQueue::push(Job job, std::size_t bound, Wanted wanted) {
  State& st = *state_;
  Job dropped;
  {
    const std::lock_guard lock(st.mutex);
    if (st.stopping || !st.start()) return Pushed::unavailable;
    if (st.jobs.size() >= bound && !(dropped = st.take_unwanted())) return Pushed::full;
    st.jobs.push_back({std::move(job), std::move(wanted)});
    st.peak = std::max(st.peak, st.length());
    st.changed.notify_all();
  }
  if (dropped) dropped(Fate::dropped);  // outside the lock: it takes the cache's
  return Pushed::queued;
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

std::size_t CompileQueue::waiting() const {
  const std::lock_guard lock(state_->mutex);
  return state_->jobs.size();
}

void CompileQueue::wait_taken() const {
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->jobs.empty() || state_->stopping; });
}

void CompileQueue::wait_idle() const {
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(lock, [&] { return state_->length() == 0 || state_->stopping; });
}

void CompileQueue::stop() {
  State& st = *state_;
  std::deque<State::Entry> cancelled;
  {
    const std::lock_guard lock(st.mutex);
    if (st.stopping) return;
    st.stopping = true;
    cancelled.swap(st.jobs);
    st.changed.notify_all();
  }
  for (State::Entry& e : cancelled) e.job(Fate::cancelled);
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
