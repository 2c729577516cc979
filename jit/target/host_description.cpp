// The host's description from LLVM's host detection.
#include "target/host_description.h"

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

const HostDescription& host_description() {
  static const HostDescription host{llvm::sys::getProcessTriple(), llvm::sys::getHostCPUName().str(),
                                    enabled_features()};
  return host;
}

const std::string& llvm_version() {
  static const std::string version = LLVM_VERSION_STRING;
  return version;
}

}  // namespace bcast::jit
