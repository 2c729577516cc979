// Test-only switches that make bcast's failure paths happen on demand, so the
// tests can show each one ends in a correct result or a clear error: a kernel
// that will not compile, a disk cache that cannot be read or written (full),
// an output that cannot be allocated, worker threads that cannot start, an
// ascend-sim kernel that breaks a rule of the simulator (it reads outside
// its input's global memory), a background compile held at its start until
// disarmed (every one, or only full ones, so that the quick first tier runs:
// NOTE: [Tiers]), an isolated compile whose child process
// aborts as LLVM does on a fatal error (NOTE: [Isolated compiles]), a kernel
// that calls a function the process does not have (NOTE: [Unresolved
// symbols]).
#pragma once

namespace bcast::fault {

enum class Fault {
  compile, disk_read, disk_write, allocate, thread_start, ascend_rule, hold_compile, hold_full_compile, child_abort,
  missing_symbol
};
inline constexpr int kNumFaults = 10;

// Arms or disarms one fault for the whole process. Cheap to test when off.
void set(Fault fault, bool armed);
bool armed(Fault fault);

// The hold faults (hold_compile, hold_full_compile) stop a thread until they
// are disarmed. The held thread counts itself for the scope of its hold, so
// that a test waits for that event instead of polling for its effects.
class Holding {
 public:
  explicit Holding(Fault fault);
  ~Holding();
  Holding(const Holding&) = delete;
  Holding& operator=(const Holding&) = delete;

 private:
  Fault fault_;
};
// Blocks until some thread is inside a Holding of `fault`.
void wait_until_held(Fault fault);

// Arms a fault for one scope.
class Armed {
 public:
  explicit Armed(Fault fault) : fault_(fault) { set(fault_, true); }
  ~Armed() { set(fault_, false); }
  Armed(const Armed&) = delete;
  Armed& operator=(const Armed&) = delete;

 private:
  Fault fault_;
};

}  // namespace bcast::fault
