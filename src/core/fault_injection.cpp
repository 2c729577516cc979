// The switches of fault_injection.h.
#include "fault_injection.h"

#include <array>
#include <atomic>

namespace bcast::fault {
namespace {

std::array<std::atomic<bool>, kNumFaults> g_armed{};

}  // namespace

void set(Fault fault, bool armed) { g_armed[static_cast<int>(fault)].store(armed, std::memory_order_relaxed); }
bool armed(Fault fault) { return g_armed[static_cast<int>(fault)].load(std::memory_order_relaxed); }

}  // namespace bcast::fault
