// Host target description from LLVM's host detection.
#include "host_target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <vector>

namespace bcast::jit {
namespace {

std::string enabled_features() {
  std::vector<std::string> names;
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    if (feature.getValue()) names.push_back("+" + feature.getKey().str());
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
  return joined;
}

}  // namespace

const HostTarget& host_target() {
  static const HostTarget target{LLVM_VERSION_STRING, llvm::sys::getProcessTriple(),
                                 llvm::sys::getHostCPUName().str(), enabled_features()};
  return target;
}

}  // namespace bcast::jit
