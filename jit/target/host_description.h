// What LLVM knows about the host: the description the host target
// (src/kernel/host_target.h) is made from. LLVM-free interface.
#pragma once

#include <string>

#include "host_target.h"

namespace bcast::jit {

// Asked once per process and cached.
const HostDescription& host_description();
const std::string& llvm_version();  // e.g. "19.1.7"

}  // namespace bcast::jit
