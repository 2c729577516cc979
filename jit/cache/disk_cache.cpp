// The persistent kernel cache (NOTE: [Disk cache file]).
#define XXH_INLINE_ALL
#include "cache/disk_cache.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <llvm/Config/llvm-config.h>
#include <nlohmann/json.hpp>

#include "codegen_revision.h"

namespace bcast::jit {

const char* const kGeneratorRevision = BCAST_CODEGEN_REVISION;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kMagic[8] = {'B', 'C', 'A', 'S', 'T', 'K', 'R', 'N'};
constexpr std::uint32_t kFormat = 2;
// magic, format, header bytes, then five u64: the header's checksum, the
// identity, the object's size and checksum, the kernel's code bytes.
constexpr std::size_t kPrefixBytes = 8 + 4 + 4 + 5 * 8;
constexpr const char* kExtension = ".bck";

std::uint64_t checksum(const char* data, std::size_t size) { return XXH3_64bits(data, size); }

// NOTE: [Disk cache file]: what a load must match, as one hash.
std::uint64_t identity(const std::string& key, const std::string& llvm_version, const std::string& generator,
                       const CodegenSettings& s) {
  const std::string text = key + '\0' + llvm_version + '\0' + generator + '\0' + s.cpu + '\0' + s.features + '\0' +
                           std::to_string(s.opt_level) + '\0' + std::to_string(s.vector_width_bits);
  return checksum(text.data(), text.size());
}

// A loading process trims the folder after every this many loads.
constexpr std::uint64_t kTrimEveryLoads = 4096;

// <hash>.bck -> <hash>.hits
std::string hits_name(std::string_view kernel_file) {
  return std::string(kernel_file.substr(0, kernel_file.size() - std::strlen(kExtension))) + ".hits";
}

bool is_kernel_file(std::string_view name) { return name.ends_with(kExtension); }

json header_json(const DiskEntry& e) {
  return {{"key", e.key},
          {"symbol", e.symbol},
          {"llvm_version", e.llvm_version},
          {"generator", e.generator},
          {"cpu", e.settings.cpu},
          {"features", e.settings.features},
          {"opt_level", e.settings.opt_level},
          {"vector_width_bits", e.settings.vector_width_bits},
          {"op", e.op},
          {"dtype", e.dtype},
          {"broadcast_type", e.broadcast_type},
          {"inner", e.inner},
          {"target", e.target},
          {"created_unix", e.created_unix},
          {"compile_ms", e.compile_ms},
          {"code_bytes", e.code_bytes},
          {"object_bytes", e.object.size()},
          {"object_xxh3", checksum(e.object.data(), e.object.size())}};
}

}  // namespace

std::string header_text(const DiskEntry& entry) { return header_json(entry).dump(); }

namespace {

std::optional<DiskEntry> from_json(const json& h, std::string& why) {
  try {
    DiskEntry e;
    e.key = h.at("key").get<std::string>();
    e.symbol = h.at("symbol").get<std::string>();
    e.llvm_version = h.at("llvm_version").get<std::string>();
    e.generator = h.at("generator").get<std::string>();
    e.settings.cpu = h.at("cpu").get<std::string>();
    e.settings.features = h.at("features").get<std::string>();
    e.settings.opt_level = h.at("opt_level").get<int>();
    e.settings.vector_width_bits = h.at("vector_width_bits").get<int>();
    e.op = h.at("op").get<std::string>();
    e.dtype = h.at("dtype").get<std::string>();
    e.broadcast_type = h.at("broadcast_type").get<std::string>();
    e.inner = h.at("inner").get<std::string>();
    e.target = h.at("target").get<std::string>();
    e.created_unix = h.at("created_unix").get<std::int64_t>();
    e.compile_ms = h.at("compile_ms").get<double>();
    e.code_bytes = h.at("code_bytes").get<std::uint64_t>();
    return e;
  } catch (const json::exception& ex) {
    why = std::string("header field: ") + ex.what();
    return std::nullopt;
  }
}

template <class T>
T read_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::optional<DiskEntry> DiskCache::read_entry(const std::string& name, bool with_object, std::string& why) const {
  TrustedFolder::Read file = folder_->read(name);
  if (!file.bytes) {
    why = file.why;
    return std::nullopt;
  }
  const std::vector<char>& bytes = *file.bytes;
  const std::size_t size = bytes.size();
  if (size < kPrefixBytes) {
    why = "truncated (" + std::to_string(size) + " bytes)";
    return std::nullopt;
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    why = "not a bcast kernel file (bad magic)";
    return std::nullopt;
  }
  const auto format = read_le<std::uint32_t>(bytes.data() + 8);
  if (format != kFormat) {
    why = "format version " + std::to_string(format) + ", this build reads " + std::to_string(kFormat);
    return std::nullopt;
  }
  const auto header_bytes = read_le<std::uint32_t>(bytes.data() + 12);
  if (header_bytes > size - kPrefixBytes) {
    why = "truncated header";
    return std::nullopt;
  }
  const char* header = bytes.data() + kPrefixBytes;
  if (checksum(header, header_bytes) != read_le<std::uint64_t>(bytes.data() + 16)) {
    why = "header checksum mismatch";
    return std::nullopt;
  }
  const json h = json::parse(header, header + header_bytes, nullptr, false);
  if (h.is_discarded() || !h.is_object()) {
    why = "header is not JSON";
    return std::nullopt;
  }
  std::optional<DiskEntry> entry = from_json(h, why);
  if (!entry) return std::nullopt;
  const char* object = header + header_bytes;
  const std::size_t object_bytes = size - kPrefixBytes - header_bytes;
  std::uint64_t claimed_bytes = 0, claimed_sum = 0;
  try {
    claimed_bytes = h.at("object_bytes").get<std::uint64_t>();
    claimed_sum = h.at("object_xxh3").get<std::uint64_t>();
  } catch (const json::exception& ex) {
    why = std::string("header field: ") + ex.what();
    return std::nullopt;
  }
  if (claimed_bytes != object_bytes) {
    why = "object size " + std::to_string(object_bytes) + ", header says " + std::to_string(claimed_bytes);
    return std::nullopt;
  }
  if (claimed_sum != checksum(object, object_bytes)) {
    why = "object checksum mismatch";
    return std::nullopt;
  }
  if (with_object) entry->object.assign(object, object + object_bytes);
  return entry;
}

std::unique_ptr<DiskCache> DiskCache::open(const std::string& folder, std::uint64_t max_bytes, std::string& why,
                                           bool create) {
  std::unique_ptr<TrustedFolder> trusted = TrustedFolder::open(folder, create, why);
  if (!trusted) return nullptr;
  return std::unique_ptr<DiskCache>(new DiskCache(std::move(trusted), max_bytes));
}

std::string DiskCache::file_name(const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx%s", static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())),
                kExtension);
  return name;
}

std::optional<DiskEntry> DiskCache::load(const std::string& key, const CodegenSettings& settings,
                                         Refusal& refusal) const {
  const std::string name = file_name(key);
  refusal = {};
  // NOTE: [Disk cache file]: the fast path checks the prefix (identity and
  // checksums) without parsing the header; a file that fails it is read
  // again in full, to say why.
  TrustedFolder::Read file = folder_->read(name);
  if (file.missing) return std::nullopt;
  if (file.untrusted) {
    refusal = {file.why, true};
    return std::nullopt;
  }
  if (file.bytes && file.bytes->size() >= kPrefixBytes && std::memcmp(file.bytes->data(), kMagic, sizeof kMagic) == 0 &&
      read_le<std::uint32_t>(file.bytes->data() + 8) == kFormat) {
    const char* p = file.bytes->data();
    const std::uint64_t header_bytes = read_le<std::uint32_t>(p + 12), object_bytes = read_le<std::uint64_t>(p + 32);
    const char* header = p + kPrefixBytes;
    const char* object = header + header_bytes;
    if (header_bytes + object_bytes == file.bytes->size() - kPrefixBytes &&
        read_le<std::uint64_t>(p + 24) == identity(key, LLVM_VERSION_STRING, kGeneratorRevision, settings) &&
        read_le<std::uint64_t>(p + 16) == checksum(header, header_bytes) &&
        read_le<std::uint64_t>(p + 40) == checksum(object, object_bytes)) {
      DiskEntry e;
      e.key = e.symbol = key;
      e.code_bytes = read_le<std::uint64_t>(p + 48);
      e.object.assign(object, object + object_bytes);
      return e;
    }
  }
  std::string& why = refusal.why;
  std::optional<DiskEntry> e = read_entry(name, true, why);
  if (!e) return std::nullopt;
  if (e->key != key) why = "holds another key: " + e->key;
  else if (e->llvm_version != LLVM_VERSION_STRING) why = "compiled by LLVM " + e->llvm_version;
  else if (e->generator != kGeneratorRevision) why = "made by code generator " + e->generator;
  else if (e->settings.cpu != settings.cpu) why = "compiled for CPU " + e->settings.cpu;
  else if (e->settings.features != settings.features) why = "compiled for other CPU features";
  else if (e->settings.opt_level != settings.opt_level || e->settings.vector_width_bits != settings.vector_width_bits)
    why = "compiled with other settings";
  else if (e->symbol != key) why = "its symbol is " + e->symbol;
  else why = "its prefix does not match its header";
  return std::nullopt;
}

bool DiskCache::store(const DiskEntry& entry, std::string& why) const {
  const std::string header = header_json(entry).dump();
  std::string prefix(kMagic, sizeof kMagic);
  const auto format = kFormat;
  const auto header_bytes = static_cast<std::uint32_t>(header.size());
  const std::uint64_t header_sum = checksum(header.data(), header.size());
  const std::uint64_t fields[] = {header_sum, identity(entry.key, entry.llvm_version, entry.generator, entry.settings),
                                  entry.object.size(), checksum(entry.object.data(), entry.object.size()),
                                  entry.code_bytes};
  prefix.append(reinterpret_cast<const char*>(&format), 4);
  prefix.append(reinterpret_cast<const char*>(&header_bytes), 4);
  prefix.append(reinterpret_cast<const char*>(fields), sizeof fields);
  if (!folder_->write(file_name(entry.key), {prefix, header, {entry.object.data(), entry.object.size()}}, why))
    return false;
  trim();
  return true;
}

void DiskCache::touch(const std::string& key) const {
  // The append is the record of the use: it sets the .hits file's time too.
  folder_->append_byte(hits_name(file_name(key)), '+');
  // A process that only loads still keeps the folder in its bound.
  if (loads_.fetch_add(1, std::memory_order_relaxed) % kTrimEveryLoads == kTrimEveryLoads - 1) trim();
}

namespace {

// A kernel file's last use: its .hits file's time (loads append to it), or
// its own (the store) when it was never loaded.
std::int64_t last_used_unix(const TrustedFolder& folder, const TrustedFolder::Entry& kernel) {
  const std::optional<struct stat> hits = folder.status(hits_name(kernel.name));
  return std::max<std::int64_t>(kernel.status.st_mtime, hits ? hits->st_mtime : 0);
}

std::uint64_t hits_bytes(const TrustedFolder& folder, const std::string& kernel_name) {
  const std::optional<struct stat> hits = folder.status(hits_name(kernel_name));
  return hits && S_ISREG(hits->st_mode) ? static_cast<std::uint64_t>(hits->st_size) : 0;
}

}  // namespace

std::vector<DiskFile> DiskCache::list() const {
  std::vector<DiskFile> files;
  for (const TrustedFolder::Entry& item : folder_->entries()) {
    if (!is_kernel_file(item.name)) continue;
    DiskFile f;
    f.path = folder_->path_of(item.name);
    f.bytes = static_cast<std::uint64_t>(item.status.st_size);
    f.last_used_unix = last_used_unix(*folder_, item);
    f.hits = hits_bytes(*folder_, item.name);
    f.entry = read_entry(item.name, false, f.problem);
    if (f.entry && file_name(f.entry->key) != item.name) {
      f.problem = "file name does not match its key";
      f.entry.reset();
    }
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const DiskFile& x, const DiskFile& y) { return x.path < y.path; });
  return files;
}

std::size_t DiskCache::remove_bad() const {
  std::size_t removed = 0;
  for (const DiskFile& f : list()) {
    if (f.entry) continue;
    const std::string name = fs::path(f.path).filename().string();
    removed += folder_->remove(name);
    folder_->remove(hits_name(name));
  }
  // Hit counts whose kernel file is gone.
  for (const TrustedFolder::Entry& item : folder_->entries())
    if (item.name.ends_with(".hits") && !folder_->status(item.name.substr(0, item.name.size() - 5) + kExtension))
      folder_->remove(item.name);
  return removed;
}

std::size_t DiskCache::clear() const {
  std::size_t removed = 0;
  for (const TrustedFolder::Entry& item : folder_->entries())
    if (is_kernel_file(item.name)) {
      removed += folder_->remove(item.name);
      folder_->remove(hits_name(item.name));
    }
  return removed;
}

std::uint64_t DiskCache::total_bytes() const {
  std::uint64_t total = 0;
  for (const TrustedFolder::Entry& item : folder_->entries())
    if (S_ISREG(item.status.st_mode) && (is_kernel_file(item.name) || item.name.ends_with(".hits")))
      total += static_cast<std::uint64_t>(item.status.st_size);
  return total;
}

void DiskCache::trim() const {
  struct File {
    std::string name;
    std::int64_t used;
    std::uint64_t bytes;
  };
  std::vector<File> files;
  std::uint64_t total = 0;
  // A kernel's .hits file counts with it: it grows by a byte per load.
  for (const TrustedFolder::Entry& item : folder_->entries()) {
    if (!is_kernel_file(item.name) || !S_ISREG(item.status.st_mode)) continue;
    const std::uint64_t bytes = static_cast<std::uint64_t>(item.status.st_size) + hits_bytes(*folder_, item.name);
    files.push_back({item.name, last_used_unix(*folder_, item), bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(files.begin(), files.end(), [](const File& x, const File& y) { return x.used < y.used; });
  for (const File& f : files) {
    if (total <= max_bytes_) break;
    if (folder_->remove(f.name)) total -= f.bytes;
    folder_->remove(hits_name(f.name));
  }
}

}  // namespace bcast::jit
