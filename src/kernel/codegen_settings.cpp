// The registry of interned code generator settings (NOTE: [Interned ids]).
#include "codegen_settings.h"

#include <stdexcept>

#include <fmt/format.h>

#include "intern_table.h"

namespace bcast {
namespace {

using Registry = InternTable<CodegenSettings, std::uint32_t>;

Registry& registry() {
  static Registry* r = new Registry(kSpareCodegenSettings, 0);  // never destroyed, as the keys naming it
  return *r;
}

// Every field, so that equal texts are equal settings.
std::string identity(const CodegenSettings& s) {
  return fmt::format("O{}|{}|{}|{}|{}", s.opt_level, s.cpu, s.features, s.vector_width_bits, s.quick ? 1 : 0);
}

}  // namespace

std::uint32_t intern_codegen_settings(const CodegenSettings& settings, CodegenPin* pin) {
  Registry::Interned got =
      registry().intern(identity(settings), [&] { return std::make_shared<const CodegenSettings>(settings); });
  if (pin != nullptr) *pin = std::move(got.value);
  return got.id;
}

bool has_feature(std::string_view features, std::string_view name) {
  for (std::size_t start = 0; start < features.size();) {
    std::size_t end = features.find(',', start);
    if (end == std::string_view::npos) end = features.size();
    const std::string_view flag = features.substr(start, end - start);
    if (flag.size() == name.size() + 1 && flag[0] == '+' && flag.substr(1) == name) return true;
    start = end + 1;
  }
  return false;
}

int vector_register_bits(std::string_view triple, std::string_view features) {
  if (!triple.starts_with("x86_64")) return 128;
  return has_feature(features, "avx512f") ? 512 : has_feature(features, "avx") ? 256 : 128;
}

CodegenPin pin_codegen_settings(std::uint32_t id) { return registry().find(id); }

CodegenSettings codegen_settings(std::uint32_t id) {
  const CodegenPin pin = registry().find(id);
  if (!pin)
    throw std::logic_error(fmt::format("codegen settings {} are not registered: never interned, or freed once nothing "
                                       "pinned them and {} newer settings were used (NOTE: [Interned ids])",
                                       id, kSpareCodegenSettings));
  return *pin;
}

std::size_t registered_codegen_settings() { return registry().size(); }

}  // namespace bcast
