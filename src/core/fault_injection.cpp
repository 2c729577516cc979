// The switches of fault_injection.h.
#include "fault_injection.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace bcast::fault {
namespace {

std::array<std::atomic<bool>, kNumFaults> g_armed{};

// Threads inside a Holding, per fault.
std::mutex g_held_mutex;
std::condition_variable g_held_changed;
std::array<int, kNumFaults> g_held{};

}  // namespace

void set(Fault fault, bool armed) { g_armed[static_cast<int>(fault)].store(armed, std::memory_order_relaxed); }
bool armed(Fault fault) { return g_armed[static_cast<int>(fault)].load(std::memory_order_relaxed); }

Holding::Holding(Fault fault) : fault_(fault) {
  const std::lock_guard lock(g_held_mutex);
  ++g_held[static_cast<int>(fault_)];
  g_held_changed.notify_all();
}

Holding::~Holding() {
  const std::lock_guard lock(g_held_mutex);
  --g_held[static_cast<int>(fault_)];
}

void wait_until_held(Fault fault) {
  std::unique_lock lock(g_held_mutex);
  g_held_changed.wait(lock, [fault] { return g_held[static_cast<int>(fault)] > 0; });
}

}  // namespace bcast::fault
