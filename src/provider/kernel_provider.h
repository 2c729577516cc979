// The kernel provider: the one door from src/ into jit/. It hands out
// compiled kernels for keys, passes the settings jit/ needs as arguments, and
// reports on the cache. LLVM-free, and free of jit/ headers: nothing else in
// src/ links jit/.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "bcast/runtime.h"
#include "host_target.h"
#include "expr_program.h"
#include "kernel_abi.h"
#include "kernel_key.h"
#include "target.h"

namespace bcast::provider {

// Where a kernel came from; pending: nowhere yet, its compile runs in the
// background; quick: the first tier, while the full compile runs (NOTE: [Tiers]).
enum class KernelSource : std::uint8_t { memory, disk, compiled, failed, pending, quick };

// A compiled kernel, and what keeps its code loaded while calls run it.
struct Kernel {
  KernelFn fn = nullptr;                     // a host kernel's entry; null when there is none
  void* entry = nullptr;                     // any kernel's entry (an Ascend-style kernel has its own signature)
  std::shared_ptr<const void> keep_alive{};
  std::atomic<std::uint64_t>* memo_hits = nullptr;  // its count of memoised calls (NOTE: [Call memo])
  KernelSource source = KernelSource::failed;
};

// The kernel for `key`, made for `target` (whose symbols the JIT learns on
// first sight): from memory, disk or a compilation. A failure is logged once
// per key and returns a kernel whose fn and entry are null.
// NOTE: [Tiers]: under BCAST_JIT_MODE=async a host kernel's compile runs in
// the background, its quick first tier first: until the full kernel is
// ready the call gets the first tier once it is, else pending (fn null),
// unless the compile is expected within `wait_us`, the time the caller's
// fallback would take beyond the kernel's (NOTE: [Waiting rule]).
// kWaitAlways compiles and waits in either mode (pre-generation, the
// ascend-sim target).
// `use`: a call that runs now counts in fallback_calls when it gets no
// kernel (pending); a look-up that runs nothing (describe) starts the
// compile all the same and counts nothing.
inline constexpr double kWaitAlways = 1e300;
enum class Use : std::uint8_t { call, look_up };
Kernel kernel_for(const KernelKey& key, const Target& target, double wait_us = kWaitAlways, Use use = Use::call);

// Whether jit/ emits a kernel for a key whose spec's program is `program`
// (the spec the caller pins): complex values have IR for the instructions
// jit::has_complex_ir names (NOTE: [Complex in IR]); a call whose program
// has another runs on the reference executor or evaluator (NOTE: [Complex
// arithmetic]). Callers ask before kernel_for, which would count a failure.
bool emits(const ExprProgram& program);

// Until no background compile is queued or running.
void wait_for_compiles();

// Tells jit/ the settings it takes as arguments (the cache's capacity, disk
// folder and size bound, the dump folder) when any setting changed since it
// was last told. The public setters call it; every other entry point here
// checks first, which costs one atomic load.
void apply_settings();

// The interned codegen settings new kernels are compiled with now.
std::uint32_t current_codegen_id();

// Changes whenever a kernel leaves the cache: a memo of a kernel taken at
// another epoch must ask again.
std::uint64_t epoch();

// What the code generator reports about the host, and its LLVM version.
const HostDescription& host_description();
const std::string& llvm_version();

KernelCacheStats stats();
std::vector<KernelStats> entries();
void clear();

}  // namespace bcast::provider
