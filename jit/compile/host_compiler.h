// The host CPU back end: LLVM ORC LLJIT compiling kernels for this machine.
// LLVM-free interface: src/ and the tests use it without LLVM headers.
#pragma once

#include <cstddef>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bcast/runtime.h"
#include "codegen_settings.h"
#include "kernel_abi.h"
#include "kernel_key.h"
#include "target.h"

namespace bcast::jit {

// A kernel in executable memory. Its code stays loaded while any copy of the
// shared_ptr that holds it lives, so a cache may drop it while calls still run.
class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  KernelFn fn = nullptr;       // a host kernel's entry
  void* entry = nullptr;       // any kernel's entry (an Ascend-style kernel has its own signature)
  std::string symbol;
  std::size_t code_bytes = 0;  // size of the kernel's machine code (.text)
  double compile_ms = 0;       // to obtain it: compile or read from disk, then load
  CompilePhases phases;
  // Calls served by a caller's memo of this kernel, without a cache look-up
  // (NOTE: [Call memo]); the cache adds them to its hit counts.
  mutable std::atomic<std::uint64_t> memo_hits{0};
};

struct CompileResult {
  std::shared_ptr<const CompiledKernel> kernel;  // null on failure
  std::string error;                             // why, when kernel is null
};

// A kernel as an object file, ready to load or to store on disk.
struct CompiledObject {
  std::vector<char> object;
  std::string symbol;          // the kernel's symbol in the object: the key string
  std::size_t code_bytes = 0;
  double compile_ms = 0;
  CompilePhases phases;
  std::string error;           // non-empty on failure
};

// IR emission, optimisation and codegen; writes the IR before and after
// optimisation and the assembly into `dump_dir` unless it is empty.
CompiledObject compile_object(const KernelKey& key, const std::string& dump_dir);
// Loads an object (fresh or from disk) into the process's JIT.
CompileResult load_object(const CompiledObject& object);

// NOTE: [Profilers] What the JIT tells profilers and debuggers about each
// kernel it loads (BCAST_PROFILE). perf_map appends "address size key" to
// /tmp/perf-<pid>.map, the file perf report reads to name JIT code. gdb
// registers each loaded object with gdb's JIT interface
// (__jit_debug_register_code), so a backtrace through a kernel names it;
// turned on, it stays on for the process.
struct ProfilerHooks {
  bool perf_map = false;
  bool gdb = false;
};
void set_profiler_hooks(ProfilerHooks hooks);
std::string perf_map_path();  // /tmp/perf-<pid>.map

// Whether the process's JIT is set up (LLVM's target, the LLJIT): until it
// is, loading even a disk cache file costs about a millisecond.
bool host_jit_ready();

// Makes `symbols` (a target's intrinsics) resolvable by every kernel loaded
// after; a symbol already defined keeps its first address. Returns the error,
// or "" on success.
std::string define_symbols(const std::vector<JitSymbol>& symbols);

// NOTE: [Kernel size] The most IR instructions (the module as emitted,
// before optimisation) the JIT compiles. Optimisation and code generation
// grow faster than the code, and a complex power is the costliest op per
// instruction: on the Zen 3 VM chains of them compiled (full tier) in 0.2 s
// for one (1,350 instructions), 3.4 s for 15 (~10,800), 6.3 s for 26
// (19,400) and 50 s for 59 (46,507, a fuzzer's find). The biggest one-op
// kernels are integer loops, cheap per instruction: lcm.i32 with transposed
// tiles and streaming lines, 15,866 in 0.8 s (JitDifferential checks that
// every op and dtype gets its kernel). A bigger kernel is refused as a
// failed compile is (its calls run on the reference executor, NOTE:
// [Tiers]), in the few ms its IR takes to emit.
inline constexpr std::size_t kMaxKernelInstructions = 20'000;

// Both steps, with no dump. Never throws for a compiler failure: the error comes back as
// text and the caller falls back to the reference executor.
CompileResult compile_host_kernel(const KernelKey& key);

// The settings of this host: LLVM's CPU name and features, the given opt
// level, with vector extensions above `max_isa` (kIsaLevels; see
// BCAST_MAX_ISA) turned off.
CodegenSettings host_codegen_settings(int opt_level, std::string_view max_isa = "all");
// The settings of a host whose CPU is `cpu` (an LLVM CPU name): its features
// spelled out as LLVM knows them, as host detection would list them. Code
// for any CPU can be generated on any host (bcast-jit-bench times some).
CodegenSettings named_cpu_codegen_settings(int opt_level, const std::string& cpu);

// The kernel's IR before or after the optimisation pipeline, and its assembly:
// for tests and dumps.
std::string kernel_ir(const KernelKey& key, bool optimized);
std::string kernel_assembly(const KernelKey& key);

}  // namespace bcast::jit
