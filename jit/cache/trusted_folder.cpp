// The disk cache's folder, opened once and checked (NOTE: [Disk cache trust]).
#include "cache/trusted_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include "fault_injection.h"

namespace bcast::jit {
namespace {

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "0%03o", static_cast<unsigned>(mode & 07777));
  return text;
}

// Why a folder may not hold code this process runs: empty when it may.
std::string folder_trust_problem(const struct stat& st) {
  if (!S_ISDIR(st.st_mode)) return "is not a folder";
  if (st.st_uid != ::geteuid()) return "belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "is writable by other users (mode " + octal_mode(st.st_mode) + ")";
  if ((st.st_mode & S_IWUSR) == 0 && ::geteuid() != 0) return "is not writable";
  return "";
}

// Makes `path` with mode 0700, its parents as create_directories makes them.
bool make_folder(const std::string& path, std::string& why) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec || (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)) {
    why = "cannot create " + path + ": " + (ec ? ec.message() : std::strerror(errno));
    return false;
  }
  return true;
}

std::string temporary_name() {
  static std::atomic<std::uint64_t> counter{0};
  std::random_device rd;
  return ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++) + "." + std::to_string(rd());
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_all(int fd, std::vector<char>& bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::string file_trust_problem(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != ::geteuid()) return "belongs to another user (uid " + std::to_string(st.st_uid) + ")";
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) return "is writable by other users (mode " + octal_mode(st.st_mode) + ")";
  return "";
}

std::unique_ptr<TrustedFolder> TrustedFolder::open(const std::string& path, bool create, std::string& why) {
  struct stat link{};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT || !create) {
      why = "cannot use " + path + ": " + std::strerror(errno);
      return nullptr;
    }
    if (!make_folder(path, why)) return nullptr;
  } else if (S_ISLNK(link.st_mode) && link.st_uid != ::geteuid() && link.st_uid != 0) {
    why = path + " is a symbolic link that belongs to another user (uid " + std::to_string(link.st_uid) + ")";
    return nullptr;
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    why = path + (errno == ENOTDIR ? std::string(" is not a folder") : ": " + std::string(std::strerror(errno)));
    return nullptr;
  }
  struct stat st{};
  const std::string problem = ::fstat(fd, &st) == 0 ? folder_trust_problem(st) : std::strerror(errno);
  if (!problem.empty()) {
    ::close(fd);
    why = path + " " + problem;
    return nullptr;
  }
  return std::unique_ptr<TrustedFolder>(new TrustedFolder(path, fd));
}

TrustedFolder::~TrustedFolder() { ::close(fd_); }

bool TrustedFolder::removed() const {
  struct stat st{};
  return ::fstat(fd_, &st) != 0 || st.st_nlink == 0;
}

TrustedFolder::Read TrustedFolder::read(std::string_view name) const {
  Read r;
  if (fault::armed(fault::Fault::disk_read)) {
    r.why = "cannot open";
    return r;
  }
  const int fd = ::openat(fd_, std::string(name).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.missing = errno == ENOENT;
    r.untrusted = errno == ELOOP;
    r.why = r.untrusted ? "is a symbolic link" : "cannot open: " + std::string(std::strerror(errno));
    return r;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    r.why = "cannot stat: " + std::string(std::strerror(errno));
  } else if (std::string problem = file_trust_problem(st); !problem.empty()) {
    r.untrusted = true;
    r.why = std::move(problem);
  } else {
    r.bytes.emplace(static_cast<std::size_t>(st.st_size));
    if (!read_all(fd, *r.bytes)) {
      r.bytes.reset();
      r.why = "cannot read";
    }
  }
  ::close(fd);
  return r;
}

bool TrustedFolder::write(std::string_view name, std::initializer_list<std::string_view> pieces,
                          std::string& why) const {
  const std::string tmp = temporary_name();
  const int fd = ::openat(fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot write in " + path_ + ": " + std::strerror(errno);
    return false;
  }
  bool ok = true;
  for (std::string_view piece : pieces) ok = ok && write_all(fd, piece);
  if (fault::armed(fault::Fault::disk_write)) {  // as a full disk fails a write
    ok = false;
    errno = ENOSPC;
  }
  const int write_errno = errno;
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    why = "cannot write in " + path_ + ": " + std::strerror(write_errno);
    ::unlinkat(fd_, tmp.c_str(), 0);
    return false;
  }
  // renameat replaces atomically: readers see the old file or the new one,
  // and a refused file (a link, another user's) is replaced, not written through.
  if (::renameat(fd_, tmp.c_str(), fd_, std::string(name).c_str()) != 0) {
    why = "cannot rename into " + path_ + ": " + std::strerror(errno);
    ::unlinkat(fd_, tmp.c_str(), 0);
    return false;
  }
  return true;
}

void TrustedFolder::append_byte(std::string_view name, char byte) const {
  const int fd = ::openat(fd_, std::string(name).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
                                                             O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && file_trust_problem(st).empty()) {
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
  }
  ::close(fd);
}

bool TrustedFolder::remove(std::string_view name) const { return ::unlinkat(fd_, std::string(name).c_str(), 0) == 0; }

std::vector<TrustedFolder::Entry> TrustedFolder::entries() const {
  std::vector<Entry> out;
  // A descriptor of its own (a dup would share the read position with other
  // threads' listings); closedir closes it.
  const int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    ::close(fd);
    return out;
  }
  while (const dirent* d = ::readdir(dir)) {
    const std::string_view name = d->d_name;
    if (name == "." || name == "..") continue;
    if (const std::optional<struct stat> st = status(name)) out.push_back({std::string(name), *st});
  }
  ::closedir(dir);
  return out;
}

std::optional<struct stat> TrustedFolder::status(std::string_view name) const {
  struct stat st{};
  if (::fstatat(fd_, std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return st;
}

}  // namespace bcast::jit
