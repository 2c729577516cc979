// Where loaded kernels live: the JIT's memory mapper (NOTE: [Kernel memory]).
#pragma once

#include <llvm/ExecutionEngine/Orc/MemoryMapper.h>

#include <memory>
#include <string>

namespace bcast::jit {

// NOTE: [Kernel memory] Linking a kernel used to end in mprotect calls, one
// per segment to seal it, one more to unseal it when the kernel is unloaded;
// each changes page tables that other threads' TLBs may hold, and on the
// 2-core Zen 5 VM one took about 19 us alone and 38 us with a second thread
// running (half of a disk-cache hit). Here kernel memory is a memory file
// (memfd) mapped read and execute only, from the start, never writable in
// the process: the linker writes a kernel into a private mirror of the slab,
// and initialize() copies the written range into the file with one pwrite,
// which the executable view shows at once (the same page cache pages). No
// protection ever changes, and no page is both writable and executable.
// Constants share their code's pages (read and execute); a segment that asks
// to be writable is refused, and its kernel fails to load (bcast's kernels
// have none).
//
// A forked child shares the file with its parent: both would write their
// next kernels over the same offsets, and each would run the other's code.
// A fork handler gives the child its own file, holding the kernels it
// inherited, at the same addresses, before fork() returns in it.
//
// Null, with the reason, where the system refuses an executable memory file
// (no memfd_create, vm.memfd_noexec, a security policy): LLVM's in-process
// mapper then, which seals with mprotect.
std::unique_ptr<llvm::orc::MemoryMapper> make_kernel_memory_mapper(std::string& why);

}  // namespace bcast::jit
