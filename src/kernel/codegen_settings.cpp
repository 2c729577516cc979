// The registry of interned code generator settings.
#include "codegen_settings.h"

#include <mutex>
#include <vector>

namespace bcast {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<CodegenSettings> settings;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::uint32_t intern_codegen_settings(const CodegenSettings& settings) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (std::size_t i = 0; i < r.settings.size(); ++i)
    if (r.settings[i] == settings) return static_cast<std::uint32_t>(i);
  r.settings.push_back(settings);
  return static_cast<std::uint32_t>(r.settings.size() - 1);
}

CodegenSettings codegen_settings(std::uint32_t id) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.settings.at(id);
}

}  // namespace bcast
