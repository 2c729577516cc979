// The disk cache's folder as one opened descriptor: every later file
// operation is relative to it, and every file read from it passed the trust
// checks of NOTE: [Disk cache trust].
#pragma once

#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bcast::jit {

// NOTE: [Disk cache trust] The disk cache executes the machine code it
// reads, so it reads only what this user wrote, and a checksum is no
// authentication: its inputs are public in every file's header, so anyone who
// can write a file can make one that checks. What is trusted is who wrote it:
// - the folder is opened once and checked on the opened descriptor: a
//   folder, owned by this user, not writable by group or others; when the
//   path is a symbolic link, the link itself belongs to this user or root.
//   Every later operation is relative to that descriptor (openat, renameat,
//   unlinkat, fstatat), so repointing the path afterwards changes nothing;
// - each file is opened with O_NOFOLLOW (and O_NONBLOCK: a FIFO planted under
//   a kernel's name must not hang the load) and checked on the descriptor: a
//   regular file, owned by this user, not writable by group or others;
// - every file is created with mode 0600 and O_EXCL under a temporary name,
//   then renamed into place, whatever the umask (mode 0600 less any umask
//   never grants group or others a bit).
// A file that fails is refused with a warning naming it and the reason, and
// the kernel is compiled and written afresh: the rename replaces the refused
// name itself, never writing through it.
class TrustedFolder {
 public:
  // Opens `path` (made with mode 0700 when absent and `create`) and checks
  // it; null, with `why`, when it must not be used.
  static std::unique_ptr<TrustedFolder> open(const std::string& path, bool create, std::string& why);
  ~TrustedFolder();
  TrustedFolder(const TrustedFolder&) = delete;
  TrustedFolder& operator=(const TrustedFolder&) = delete;

  const std::string& path() const { return path_; }
  std::string path_of(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Whether the folder was deleted since it was opened.
  bool removed() const;

  // The whole file `name`, when it passes the trust checks.
  struct Read {
    std::optional<std::vector<char>> bytes;
    std::string why;         // when there are no bytes: why not
    bool missing = false;    // no file of that name
    bool untrusted = false;  // a file failed the trust checks (why says which)
  };
  Read read(std::string_view name) const;

  // Writes `pieces` to a new file and renames it to `name`; false, with `why`.
  bool write(std::string_view name, std::initializer_list<std::string_view> pieces, std::string& why) const;
  // Appends one byte to `name`, made when absent; nothing when the file that
  // is there fails the trust checks.
  void append_byte(std::string_view name, char byte) const;
  bool remove(std::string_view name) const;

  // The folder's entries (not "." or ".."), as lstat sees them: a symbolic
  // link is itself, never what it points to.
  struct Entry {
    std::string name;
    struct stat status;
  };
  std::vector<Entry> entries() const;
  std::optional<struct stat> status(std::string_view name) const;

 private:
  TrustedFolder(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

// Why an opened file may not be executed from: empty when it may.
std::string file_trust_problem(const struct stat& status);

}  // namespace bcast::jit
