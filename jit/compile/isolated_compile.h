// Compiles in a child process, so that LLVM aborting costs a fallback and
// not the user's process (BCAST_JIT_ISOLATE=1). LLVM-free interface.
#pragma once

#include <string>

#include "compile/host_compiler.h"
#include "kernel_key.h"

namespace bcast::jit {

// NOTE: [Isolated compiles] compile_object(), run in a child made by fork().
// The child sends the object back through a pipe and leaves with _exit; the
// parent loads it and stores it on disk as it would its own compile. A child
// that dies (LLVM reports a fatal error by aborting), runs past
// kIsolatedCompileLimitMs, or sends a malformed reply is a failed compile:
// the error names what happened and the call falls back. fork() copies only
// the calling thread; should the child block on a lock another thread held at
// the fork, the time limit ends it like any other failure.
inline constexpr int kIsolatedCompileLimitMs = 10000;
CompiledObject compile_object_isolated(const KernelKey& key, const std::string& dump_dir);

}  // namespace bcast::jit
