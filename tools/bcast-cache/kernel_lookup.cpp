// Which kernels of the disk cache a `bcast-cache show` argument names.
#include "kernel_lookup.h"

#include <filesystem>
#include <string_view>

namespace bcast::tools {
namespace {

// Short hex strings name too many things by chance ("add" is hex).
constexpr std::size_t kMinHexDigits = 4, kMaxHexDigits = 16;

bool is_hex_prefix(const std::string& arg) {
  return arg.size() >= kMinHexDigits && arg.size() <= kMaxHexDigits &&
         arg.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string_view tuning_hash(std::string_view key) { return key.substr(key.rfind('.') + 1); }

}  // namespace

std::string file_hash(const jit::DiskFile& file) { return std::filesystem::path(file.path).stem().string(); }

std::vector<const jit::DiskFile*> files_named_by(const std::vector<jit::DiskFile>& files, const std::string& arg) {
  std::vector<const jit::DiskFile*> named;
  for (const jit::DiskFile& f : files)
    if (f.entry && f.entry->key == arg) return {&f};
  const bool hex = is_hex_prefix(arg);
  for (const jit::DiskFile& f : files) {
    if (!f.entry) continue;
    const std::string& key = f.entry->key;
    if (key.starts_with(arg) || (hex && (file_hash(f).starts_with(arg) || tuning_hash(key).starts_with(arg))))
      named.push_back(&f);
  }
  return named;
}

}  // namespace bcast::tools
