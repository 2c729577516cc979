// What LLVM knows about the host: the target that host kernels are compiled for.
// LLVM-free interface; the implementation asks LLVM.
#pragma once

#include <string>

namespace bcast::jit {

struct HostTarget {
  std::string llvm_version;  // e.g. "19.1.7"
  std::string triple;        // e.g. "x86_64-pc-linux-gnu"
  std::string cpu;           // e.g. "skylake-avx512"
  std::string features;      // enabled features, comma separated: "+avx2,+fma,..."
};

// Asked once per process and cached.
const HostTarget& host_target();

}  // namespace bcast::jit
