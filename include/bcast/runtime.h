// Process-wide runtime settings and facts about the code generator's host.
#pragma once

#include <string>

namespace bcast {

// Threads one op call may use; 0 (the default) means one per hardware thread.
// Calls below a minimum amount of work stay on the calling thread.
void set_num_threads(int n);
int num_threads();

struct RuntimeInfo {
  std::string version;       // bcast's version
  std::string llvm_version;  // the LLVM that jit/ is built against
  std::string host_cpu;      // LLVM's name for the host CPU, e.g. "skylake-avx512"
  std::string host_triple;   // e.g. "x86_64-pc-linux-gnu"
};
RuntimeInfo runtime_info();

}  // namespace bcast
