// The persistent kernel cache (NOTE: [Disk cache file]).
#define XXH_INLINE_ALL
#include "cache/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <llvm/Config/llvm-config.h>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "codegen_revision.h"
#include "fault_injection.h"

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

// A whole file, with open/fstat/read: nullopt (errno set) when it cannot be read.
std::optional<std::vector<char>> read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st{};
  std::optional<std::vector<char>> bytes;
  if (::fstat(fd, &st) == 0) {
    bytes.emplace(static_cast<std::size_t>(st.st_size));
    std::size_t at = 0;
    while (at < bytes->size()) {
      const ssize_t n = ::read(fd, bytes->data() + at, bytes->size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    if (at != bytes->size()) bytes.reset();
  }
  ::close(fd);
  return bytes;
}

// A loading process trims the folder after every this many loads.
constexpr std::uint64_t kTrimEveryLoads = 4096;

// <hash>.bck -> <hash>.hits
std::string hits_path(const fs::path& kernel_file) { return fs::path(kernel_file).replace_extension(".hits").string(); }

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

std::string temporary_name(const std::string& folder) {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device rd;
  return folder + "/.tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." +
         std::to_string(rd());
}

std::int64_t mtime_unix(const fs::path& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_mtime) : 0;
}

// A kernel file's last use: its .hits file's time (loads append to it), or
// its own (the store) when it was never loaded.
std::int64_t last_used_unix(const fs::path& kernel_file) {
  return std::max(mtime_unix(kernel_file), mtime_unix(fs::path(kernel_file).replace_extension(".hits")));
}

}  // namespace

std::optional<DiskEntry> read_disk_entry(const std::string& path, bool with_object, std::string& why) {
  std::optional<std::vector<char>> file = fault::armed(fault::Fault::disk_read) ? std::nullopt : read_file(path);
  if (!file) {
    why = "cannot open";
    return std::nullopt;
  }
  const std::vector<char>& bytes = *file;
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

bool DiskCache::prepare_folder(const std::string& folder, std::string& why) {
  std::error_code ec;
  if (!fs::exists(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec) {
      why = "cannot create " + folder + ": " + ec.message();
      return false;
    }
    fs::permissions(folder, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  struct stat st{};
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why = folder + " is not a folder";
    return false;
  }
  if (st.st_uid != ::geteuid()) {
    why = folder + " belongs to another user";
    return false;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    why = folder + " is writable by other users";
    return false;
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    why = folder + " is not writable";
    return false;
  }
  return true;
}

DiskCache::DiskCache(std::string folder, std::uint64_t max_bytes) : folder_(std::move(folder)), max_bytes_(max_bytes) {}

std::string DiskCache::file_name(const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx%s", static_cast<unsigned long long>(XXH3_64bits(key.data(), key.size())),
                kExtension);
  return name;
}

std::optional<DiskEntry> DiskCache::load(const std::string& key, const CodegenSettings& settings,
                                         std::string& why) const {
  const std::string path = folder_ + "/" + file_name(key);
  why.clear();
  // NOTE: [Disk cache file]: the fast path checks the prefix (identity and
  // checksums) without parsing the header; a file that fails it is read
  // again in full, to say why.
  std::optional<std::vector<char>> file;
  if (!fault::armed(fault::Fault::disk_read)) {
    file = read_file(path);
    if (!file && errno == ENOENT) return std::nullopt;
  }
  if (file && file->size() >= kPrefixBytes && std::memcmp(file->data(), kMagic, sizeof kMagic) == 0 &&
      read_le<std::uint32_t>(file->data() + 8) == kFormat) {
    const char* p = file->data();
    const std::uint64_t header_bytes = read_le<std::uint32_t>(p + 12), object_bytes = read_le<std::uint64_t>(p + 32);
    const char* header = p + kPrefixBytes;
    const char* object = header + header_bytes;
    if (header_bytes + object_bytes == file->size() - kPrefixBytes &&
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
  std::optional<DiskEntry> e = read_disk_entry(path, true, why);
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
  std::error_code ec;
  // The folder may have been removed since this process checked it.
  if (!fs::exists(folder_, ec) && !prepare_folder(folder_, why)) return false;
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

  const std::string tmp = temporary_name(folder_);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << prefix << header;
    out.write(entry.object.data(), static_cast<std::streamsize>(entry.object.size()));
    out.close();
    if (fault::armed(fault::Fault::disk_write)) {  // as a full disk fails a write
      out.setstate(std::ios::badbit);
      errno = ENOSPC;
    }
    if (!out) {
      why = "cannot write in " + folder_ + ": " + std::strerror(errno);
      fs::remove(tmp, ec);
      return false;
    }
  }
  // rename() replaces atomically: readers see the old file or the new one.
  fs::rename(tmp, folder_ + "/" + file_name(entry.key), ec);
  if (ec) {
    why = "cannot rename into " + folder_ + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  trim();
  return true;
}

void DiskCache::touch(const std::string& key) const {
  // The append is the record of the use: it sets the .hits file's time too.
  const int fd = ::open(hits_path(folder_ + "/" + file_name(key)).c_str(),
                        O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  [[maybe_unused]] const ssize_t n = ::write(fd, "+", 1);
  ::close(fd);
  // A process that only loads still keeps the folder in its bound.
  if (loads_.fetch_add(1, std::memory_order_relaxed) % kTrimEveryLoads == kTrimEveryLoads - 1) trim();
}

std::vector<DiskFile> DiskCache::list() const {
  std::vector<DiskFile> files;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(folder_, ec)) {
    if (!item.is_regular_file() || item.path().extension() != kExtension) continue;
    DiskFile f;
    f.path = item.path().string();
    f.bytes = item.file_size(ec);
    if (ec) continue;  // removed by another process meanwhile
    f.last_used_unix = last_used_unix(item.path());
    f.hits = fs::file_size(hits_path(item.path()), ec);
    if (ec) f.hits = 0;
    f.entry = read_disk_entry(f.path, false, f.problem);
    if (f.entry && file_name(f.entry->key) != item.path().filename().string()) {
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
  std::error_code ec;
  for (const DiskFile& f : list()) {
    if (f.entry) continue;
    removed += fs::remove(f.path, ec);
    fs::remove(hits_path(f.path), ec);
  }
  // Hit counts whose kernel file is gone.
  for (const auto& item : fs::directory_iterator(folder_, ec))
    if (item.path().extension() == ".hits" && !fs::exists(fs::path(item.path()).replace_extension(kExtension), ec))
      fs::remove(item.path(), ec);
  return removed;
}

std::size_t DiskCache::clear() const {
  std::size_t removed = 0;
  std::error_code ec;
  for (const DiskFile& f : list()) {
    removed += fs::remove(f.path, ec);
    fs::remove(hits_path(f.path), ec);
  }
  return removed;
}

std::uint64_t DiskCache::total_bytes() const {
  std::uint64_t total = 0;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(folder_, ec))
    if (item.is_regular_file() && (item.path().extension() == kExtension || item.path().extension() == ".hits")) {
      const std::uintmax_t bytes = item.file_size(ec);
      if (!ec) total += bytes;  // a file another process removed meanwhile counts nothing
    }
  return total;
}

void DiskCache::trim() const {
  struct File {
    fs::path path;
    std::int64_t used;
    std::uint64_t bytes;
  };
  std::vector<File> files;
  std::uint64_t total = 0;
  std::error_code ec;
  // A kernel's .hits file counts with it: it grows by a byte per load.
  for (const auto& item : fs::directory_iterator(folder_, ec)) {
    if (!item.is_regular_file() || item.path().extension() != kExtension) continue;
    std::uintmax_t bytes = item.file_size(ec);
    if (ec) continue;  // removed by another process meanwhile
    const std::uintmax_t hits = fs::file_size(hits_path(item.path()), ec);
    if (!ec) bytes += hits;
    files.push_back({item.path(), last_used_unix(item.path()), bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(files.begin(), files.end(), [](const File& x, const File& y) { return x.used < y.used; });
  for (const File& f : files) {
    if (total <= max_bytes_) break;
    if (fs::remove(f.path, ec)) total -= f.bytes;
    fs::remove(hits_path(f.path), ec);
  }
}

}  // namespace bcast::jit
