// The persistent kernel cache: one file per kernel key in a folder shared by
// every process of the user, written atomically, never trusted without checks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/trusted_folder.h"
#include "codegen_settings.h"

namespace bcast::jit {

// NOTE: [Disk cache file] A file is named <16 hex digits of xxh3(key)>.bck:
//   "BCASTKRN"  u32 format (2)  u32 header bytes
//   u64 xxh3(header)  u64 identity  u64 object bytes  u64 xxh3(object)  u64 code bytes
//   header  object
// The identity is xxh3 of what a load must match: the key, the LLVM version,
// the code generator's revision (a hash of the generator's sources and of
// every project header they include, the math recipes among them: a kernel
// made by an older bcast is recompiled) and the codegen settings (CPU,
// features, opt level, vector width). A load checks the prefix (identity
// and both checksums) without parsing the header: ~3 us of a disk hit's
// ~45. The header is JSON for the tools and for saying why a file was not
// used: the full key string, the kernel's symbol, the LLVM version, the
// generator, the settings, op, dtype, broadcast type, inner strides and
// target (so that tools can rebuild the key), creation time, compile time,
// code size, and the object's size and xxh3 checksum.
// A load appends one byte to <hash>.hits: appends are atomic, so processes
// count hits without rewriting the kernel file, and the .hits file's time is
// the kernel's last use, which the size bound evicts by. A .hits file counts
// toward the size bound with its kernel and goes with it; the folder is
// trimmed after each store and after every 4096th load of a process.
// The revision of the code generator this build carries.
extern const char* const kGeneratorRevision;

struct DiskEntry {
  std::string key, symbol, llvm_version;
  std::string generator = kGeneratorRevision;
  CodegenSettings settings;
  std::string op, dtype, broadcast_type, inner, target;
  std::int64_t created_unix = 0;
  double compile_ms = 0;
  std::uint64_t code_bytes = 0;
  std::vector<char> object;
};

// One file as a listing sees it.
struct DiskFile {
  std::string path;                 // the folder's path and the file's name, for messages
  std::uint64_t bytes = 0;
  std::int64_t last_used_unix = 0;  // its .hits file's time (loads append to it), else its own
  std::uint64_t hits = 0;           // loads recorded in its .hits file
  std::optional<DiskEntry> entry;   // header fields (object left empty); nullopt if unreadable
  std::string problem;              // why the file is bad, when it is
};

class DiskCache {
 public:
  // Opens the cache folder (made with mode 0700 when absent and `create`)
  // and checks it (NOTE: [Disk cache trust]); null, with `why`, when it
  // must not be used.
  static std::unique_ptr<DiskCache> open(const std::string& folder, std::uint64_t max_bytes, std::string& why,
                                         bool create = true);

  const std::string& folder() const { return folder_->path(); }
  bool removed() const { return folder_->removed(); }  // the folder was deleted since it was opened
  static std::string file_name(const std::string& key);

  // Why load() found no usable entry: `why` is empty when there is no file;
  // `untrusted` when the file failed NOTE: [Disk cache trust] (the caller
  // warns), not a mismatch (the caller notes it at debug level).
  struct Refusal {
    std::string why;
    bool untrusted = false;
  };

  // The entry for `key` if its file exists, passes the trust checks and
  // everything in it matches `settings` and this build's LLVM.
  std::optional<DiskEntry> load(const std::string& key, const CodegenSettings& settings, Refusal& refusal) const;

  // Reads the file `name` of the folder and checks everything that does not
  // depend on the host: trust, magic, format, checksums, sizes. The caller
  // compares the header with its key.
  std::optional<DiskEntry> read_entry(const std::string& name, bool with_object, std::string& why) const;

  // Writes the entry aside and renames it into place, then trims the folder to
  // its size bound (least recently used first). False if the folder cannot be
  // written; `why` says why.
  bool store(const DiskEntry& entry, std::string& why) const;

  // Records a load: one more hit, at this time.
  void touch(const std::string& key) const;

  std::vector<DiskFile> list() const;           // every *.bck entry, checked
  std::size_t remove_bad() const;               // verify: deletes the entries list() finds bad
  std::size_t clear() const;                    // deletes every cache file
  std::uint64_t total_bytes() const;
  std::uint64_t max_bytes() const { return max_bytes_; }

 private:
  DiskCache(std::unique_ptr<TrustedFolder> folder, std::uint64_t max_bytes)
      : folder_(std::move(folder)), max_bytes_(max_bytes) {}
  void trim() const;
  std::unique_ptr<TrustedFolder> folder_;
  std::uint64_t max_bytes_;
  mutable std::atomic<std::uint64_t> loads_{0};
};

// The header of NOTE: [Disk cache file] as JSON text: every field of `entry`
// but its object, and the object's size and checksum.
std::string header_text(const DiskEntry& entry);

}  // namespace bcast::jit
