// Process-wide runtime settings and facts about the code generator's host.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bcast {

// Threads one op call may use, 0 .. kMaxThreads; 0 (the default) means one
// per hardware thread. Calls below a minimum amount of work stay on the
// calling thread.
inline constexpr int kMaxThreads = 1024;
void set_num_threads(int n);
int num_threads();
// The threads, the caller's own included, that ran the calling thread's most
// recent op or expression call: 1 for a call below BCAST_GRAIN elements or on
// one thread, at most num_threads()'s worth; 0 before its first call.
int last_call_threads();

// JIT compilation. When off, every call runs on the reference executor (the
// results are the same; only speed differs). Default on.
void set_jit_enabled(bool enabled);
bool jit_enabled();

// NOTE: [Tiers] What a call does when its kernel is in neither the memory
// nor the disk cache (BCAST_JIT_MODE):
//   async (the default): it runs at once on the reference executor while a
//     background thread compiles the kernel; later calls take the kernel as
//     soon as it is ready. A call waits for the compile only when that is
//     expected to be faster than the fallback (NOTE: [Waiting rule]).
//   sync: it compiles (or waits for another thread's compile) and then runs
//     the kernel, as benchmarks and deterministic tests want.
// Threads asking for the same key share one compile in both modes.
enum class JitMode { async, sync };
void set_jit_mode(JitMode mode);
JitMode jit_mode();
// Blocks until no background compile is queued or running: for tools before
// they time calls, and for tests.
void wait_for_compiles();

// Kernels kept in memory, least recently used evicted first. A kernel still
// running when it is evicted stays loaded until its calls finish. 0 keeps
// nothing: every call compiles its kernel.
void set_kernel_cache_capacity(std::size_t kernels);
std::size_t kernel_cache_capacity();
void clear_kernel_cache();  // drops every kernel and resets the counters

// NOTE: [Compile phases] Where the time to obtain a kernel went, in
// microseconds. setup is LLVM's native target and the process's LLJIT,
// booked to the compile that paid for it (the first of a process); read is a
// disk cache file read and checked (a load from disk has read, setup and link).
struct CompilePhases {
  double setup_us = 0, target_machine_us = 0, emit_ir_us = 0, verify_us = 0, optimise_us = 0, codegen_us = 0,
         link_us = 0, read_us = 0;
  double total_us() const {
    return setup_us + target_machine_us + emit_ir_us + verify_us + optimise_us + codegen_us + link_us + read_us;
  }
};

// Counters for one kernel key, kept across evictions.
struct KernelStats {
  std::string key;            // KernelKey::to_string()
  std::uint64_t hits = 0;     // calls served by an already compiled (or compiling) kernel
  std::uint64_t misses = 0;   // calls that found it neither compiled nor compiling
  std::uint64_t disk_hits = 0;  // misses served by the disk cache
  std::uint64_t compiles = 0;   // misses that compiled (disk cache off, absent or stale)
  std::uint64_t failures = 0; // compilations that failed (calls then fell back)
  double compile_ms = 0;      // total time compiling or loading this key
  std::uint64_t fallback_calls = 0;  // calls that ran on the fallback while its compile was pending
  CompilePhases phases;       // of its last compile (or disk load: setup and link only)
  std::size_t code_bytes = 0; // machine code of the resident kernel
  bool resident = false;      // in the cache now
};

// misses = disk_hits + compiles: a miss loads from disk or compiles.
struct KernelCacheStats {
  std::uint64_t hits = 0, misses = 0, disk_hits = 0, compiles = 0, failures = 0, evictions = 0;
  double compile_ms = 0;
  // NOTE: [Tiers]: calls run on the fallback while their compile was pending,
  // calls that waited for a pending compile (NOTE: [Waiting rule]), compiles
  // queued or running now, and the most there have been at once.
  std::uint64_t fallback_calls = 0, waits = 0;
  std::size_t queued = 0, queue_peak = 0;
  // NOTE: [Queue bound]: calls that found the compile queue full and ran the
  // fallback without queueing, and queued compiles dropped for newer ones.
  std::uint64_t refused = 0, dropped = 0;
  std::size_t code_bytes = 0;  // of the resident kernels
  std::size_t resident = 0;  // kernels in memory, and the pending ones: compiling or queued
  std::size_t pending = 0;   // of them, pending (NOTE: [Bounded cache]: not counted against the capacity)
  std::size_t capacity = 0;
};

KernelCacheStats kernel_cache_stats();
std::vector<KernelStats> kernel_cache_entries();

// Writes the in-memory cache's entries (kernel_cache_entries()) as JSON, for
// `bcast-cache list --memory FILE`. Written aside and renamed into place.
void write_kernel_cache_dump(const std::string& path);

// What the calling thread's last op under BCAST_TARGET=ascend-sim did: the
// tiling, and per block the traffic and the pipe schedule's estimate
// (docs/ascend.md: the cost model, its figures and what they promise).
struct AscendBlockTrace {
  std::int64_t tiles = 0, gm_to_ub_bytes = 0, ub_to_gm_bytes = 0, copy_calls = 0, vector_calls = 0,
               vector_repeats = 0, ub_high_water = 0;
  std::int64_t cycles = 0;               // the block's estimated time, in the product's clock cycles
  std::array<std::int64_t, 4> busy{};    // cycles each pipe works: MTE2, V, MTE3, S
  std::string critical;                  // the busiest pipe's name
  std::vector<std::string> hazards;      // empty for a sound kernel
};
struct AscendTrace {
  std::string kernel;              // the kernel key; empty if the call did not run on the simulator
  std::string fallback;            // why it ran on the host instead, if it did
  std::string product;             // BCAST_ASCEND_PRODUCT's
  double clock_ghz = 0;            // the product's (an estimate)
  std::int64_t rows = 0, cols = 0, pitch = 0;  // a full tile: rows x cols elements, rows pitch elements apart in the UB
  std::int64_t tiles = 0, slots = 0, ub_bytes = 0;
  std::int64_t shared_granules = 0;  // 32-byte GM granules two blocks each write part of
  std::vector<std::string> fetch;  // how each input reaches a tile: stream, row, column, scalar
  std::vector<AscendBlockTrace> blocks;
  // The call's estimate: its slowest block, in microseconds.
  double estimated_us() const;
};
AscendTrace last_ascend_trace();

struct RuntimeInfo {
  std::string version;       // bcast's version
  std::string llvm_version;  // the LLVM that jit/ is built against
  std::string host_cpu;      // LLVM's name for the host CPU, e.g. "skylake-avx512"
  std::string host_triple;   // e.g. "x86_64-pc-linux-gnu"
  // NOTE: [Streaming threshold]: the bytes from which a call on
  // num_threads() threads writes with streaming stores (0 when it never
  // does), and how BCAST_STREAM_MIN_BYTES gave it: "24 MiB for 2 threads:
  // 32 MiB last-level cache shared by 2 CPUs (sysfs), 16 MiB a CPU, ...".
  std::uint64_t stream_min_bytes = 0;
  std::string stream_decision;
};
RuntimeInfo runtime_info();

}  // namespace bcast
