// NOTE: [Kernel memory]: slabs of a memory file mapped read and execute,
// written through the file descriptor.
#include "compile/kernel_memory.h"

#include <llvm/ExecutionEngine/Orc/Shared/AllocationActions.h>
#include <llvm/Support/Memory.h>

#include <sys/mman.h>
#include <unistd.h>

#include <pthread.h>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace bcast::jit {
namespace {

using llvm::orc::ExecutorAddr;

llvm::Error system_error(const std::string& what) {
  return llvm::createStringError(std::error_code(errno, std::generic_category()), "%s: %s", what.c_str(),
                                 std::strerror(errno));
}

// All of [data, data + bytes) written at `offset`, across short writes.
bool write_all(int fd, const char* data, std::size_t bytes, off_t offset) {
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, data, bytes, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n, bytes -= static_cast<std::size_t>(n), offset += n;
  }
  return true;
}

// A memory file of `bytes`, or -1.
int new_memory_file(std::size_t bytes) {
  const int fd = static_cast<int>(::memfd_create("bcast-kernels", MFD_CLOEXEC));
  if (fd < 0) return -1;
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class FileBackedMapper final : public llvm::orc::MemoryMapper {
 public:
  FileBackedMapper();
  ~FileBackedMapper() override;

  unsigned int getPageSize() override { return page_; }

  void reserve(std::size_t bytes, OnReservedFunction done) override {
    Slab slab;
    slab.bytes = bytes;
    slab.fd = new_memory_file(bytes);
    if (slab.fd < 0) return done(system_error("kernel memory: memfd_create"));
    void* exec = ::mmap(nullptr, bytes, PROT_READ | PROT_EXEC, MAP_SHARED, slab.fd, 0);
    void* mirror = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (exec == MAP_FAILED || mirror == MAP_FAILED) {
      llvm::Error e = system_error("kernel memory: mmap");
      if (exec != MAP_FAILED) ::munmap(exec, bytes);
      if (mirror != MAP_FAILED) ::munmap(mirror, bytes);
      ::close(slab.fd);
      return done(std::move(e));
    }
    slab.exec = static_cast<char*>(exec);
    slab.mirror = static_cast<char*>(mirror);
    {
      const std::lock_guard lock(mutex_);
      slabs_[address(slab.exec)] = slab;
    }
    done(llvm::orc::ExecutorAddrRange(ExecutorAddr::fromPtr(exec), llvm::orc::ExecutorAddrDiff(bytes)));
  }

  // The linker's working copy of [at, at + bytes): the mirror.
  char* prepare(ExecutorAddr at, std::size_t) override {
    const std::lock_guard lock(mutex_);
    const Slab* slab = slab_of(at.getValue());
    return slab == nullptr ? nullptr : slab->mirror + (at.getValue() - address(slab->exec));
  }

  void initialize(AllocInfo& info, OnInitializedFunction done) override {
    std::uintptr_t lo = UINTPTR_MAX, hi = 0;
    if (llvm::Error e = write_through(info, lo, hi)) return done(std::move(e));
    if (lo >= hi) lo = hi = info.MappingBase.getValue();
    llvm::sys::Memory::InvalidateInstructionCache(reinterpret_cast<const void*>(lo), hi - lo);
    auto dealloc = llvm::orc::shared::runFinalizeActions(info.Actions);
    if (!dealloc) return done(dealloc.takeError());
    {
      const std::lock_guard lock(mutex_);
      allocations_[lo] = {hi - lo, std::move(*dealloc)};
    }
    done(ExecutorAddr(lo));
  }

  void deinitialize(llvm::ArrayRef<ExecutorAddr> allocations, OnDeinitializedFunction done) override {
    llvm::Error errors = llvm::Error::success();
    for (const ExecutorAddr at : allocations) {
      std::vector<llvm::orc::shared::WrapperFunctionCall> actions;
      {
        const std::lock_guard lock(mutex_);
        const auto it = allocations_.find(at.getValue());
        if (it == allocations_.end()) continue;
        actions = std::move(it->second.dealloc);
        allocations_.erase(it);
      }
      errors = llvm::joinErrors(std::move(errors), llvm::orc::shared::runDeallocActions(actions));
    }
    done(std::move(errors));
  }

  void release(llvm::ArrayRef<ExecutorAddr> reservations, OnReleasedFunction done) override {
    for (const ExecutorAddr at : reservations) {
      Slab slab;
      {
        const std::lock_guard lock(mutex_);
        const auto it = slabs_.find(at.getValue());
        if (it == slabs_.end()) continue;
        slab = it->second;
        slabs_.erase(it);
        const auto [first, last] = allocations_in(slab);
        allocations_.erase(first, last);
      }
      unmap(slab);
    }
    done(llvm::Error::success());
  }

  // NOTE: [Kernel memory]: in a forked child, before fork() returns there:
  // each slab moves to a file of its own, holding the kernels it inherited.
  // A slab that cannot move is kept as a private copy and takes no more
  // kernels (a load there fails and its call falls back).
  void detach_after_fork() {
    for (auto& [base, slab] : slabs_) {
      const auto [first, last] = allocations_in(slab);
      const int fd = new_memory_file(slab.bytes);
      bool copied = fd >= 0;
      for (auto it = first; copied && it != last; ++it)
        copied = write_all(fd, slab.exec + (it->first - base), it->second.bytes, static_cast<off_t>(it->first - base));
      if (copied && ::mmap(slab.exec, slab.bytes, PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED) {
        ::close(slab.fd);
        slab.fd = fd;
        continue;
      }
      if (fd >= 0) ::close(fd);
      // The private copy: the mirror holds what every live kernel was written from.
      ::mmap(slab.exec, slab.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      for (auto it = first; it != last; ++it)
        std::memcpy(slab.exec + (it->first - base), slab.mirror + (it->first - base), it->second.bytes);
      ::mprotect(slab.exec, slab.bytes, PROT_READ | PROT_EXEC);
      ::close(slab.fd);
      slab.fd = -1;
    }
  }

  std::mutex& mutex() { return mutex_; }

 private:
  struct Slab {
    int fd = -1;
    char* exec = nullptr;    // the file, read and execute
    char* mirror = nullptr;  // the linker's working copy, private
    std::size_t bytes = 0;
  };
  struct Allocation {
    std::size_t bytes = 0;
    std::vector<llvm::orc::shared::WrapperFunctionCall> dealloc;
  };
  using Allocations = std::map<std::uintptr_t, Allocation>;

  static std::uintptr_t address(const char* p) { return reinterpret_cast<std::uintptr_t>(p); }

  // The allocation's segments, zero-filled in the mirror, copied into the
  // file with one write; [lo, hi) is the range they span.
  llvm::Error write_through(const AllocInfo& info, std::uintptr_t& lo, std::uintptr_t& hi) {
    const std::lock_guard lock(mutex_);
    const Slab* slab = slab_of(info.MappingBase.getValue());
    if (slab == nullptr || slab->fd < 0)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "kernel memory: no open slab at this address");
    for (const AllocInfo::SegInfo& segment : info.Segments) {
      if ((static_cast<unsigned>(segment.AG.getMemProt()) & static_cast<unsigned>(llvm::orc::MemProt::Write)) != 0)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "kernel memory: the kernel has a writable segment");
      const std::uintptr_t begin = info.MappingBase.getValue() + segment.Offset;
      std::memset(slab->mirror + (begin - address(slab->exec)) + segment.ContentSize, 0, segment.ZeroFillSize);
      lo = std::min(lo, begin);
      hi = std::max(hi, begin + segment.ContentSize + segment.ZeroFillSize);
    }
    const std::size_t offset = lo < hi ? lo - address(slab->exec) : 0;
    if (lo < hi && !write_all(slab->fd, slab->mirror + offset, hi - lo, static_cast<off_t>(offset)))
      return system_error("kernel memory: pwrite");
    return llvm::Error::success();
  }

  static void unmap(const Slab& slab) {
    ::munmap(slab.exec, slab.bytes);
    ::munmap(slab.mirror, slab.bytes);
    if (slab.fd >= 0) ::close(slab.fd);
  }

  // The live kernels inside `slab`, under the lock.
  std::pair<Allocations::iterator, Allocations::iterator> allocations_in(const Slab& slab) {
    return std::pair{allocations_.lower_bound(address(slab.exec)),
                     allocations_.lower_bound(address(slab.exec) + slab.bytes)};
  }

  // The slab holding `at`, under the lock.
  const Slab* slab_of(std::uintptr_t at) const {
    auto it = slabs_.upper_bound(at);
    if (it == slabs_.begin()) return nullptr;
    --it;
    return at < it->first + it->second.bytes ? &it->second : nullptr;
  }

  const unsigned page_ = static_cast<unsigned>(::sysconf(_SC_PAGESIZE));
  std::mutex mutex_;
  std::map<std::uintptr_t, Slab> slabs_;              // by the executable view's address
  Allocations allocations_;                           // live kernels, by lowest address
};

// The mappers alive, for the fork handlers: before a fork every mapper's lock
// is taken, so that none is copied mid-change; after it the parent lets go,
// and the child detaches each mapper's slabs, then lets go.
std::mutex& mappers_mutex() {
  static auto* m = new std::mutex;  // never destroyed: a fork may come during exit
  return *m;
}
std::vector<FileBackedMapper*>& mappers() {
  static auto* v = new std::vector<FileBackedMapper*>;
  return *v;
}

void before_fork() {
  mappers_mutex().lock();
  for (FileBackedMapper* m : mappers()) m->mutex().lock();
}
void after_fork_in_parent() {
  for (FileBackedMapper* m : mappers()) m->mutex().unlock();
  mappers_mutex().unlock();
}
void after_fork_in_child() {
  for (FileBackedMapper* m : mappers()) {
    m->detach_after_fork();
    m->mutex().unlock();
  }
  mappers_mutex().unlock();
}

FileBackedMapper::FileBackedMapper() {
  static std::once_flag once;
  std::call_once(once, [] { ::pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child); });
  const std::lock_guard lock(mappers_mutex());
  mappers().push_back(this);
}

FileBackedMapper::~FileBackedMapper() {
  {
    const std::lock_guard lock(mappers_mutex());
    std::erase(mappers(), this);
  }
  for (const auto& [base, slab] : slabs_) unmap(slab);
}

// Whether this system maps a memory file for execution.
bool executable_files_allowed(std::string& why) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const int fd = new_memory_file(static_cast<std::size_t>(page));
  if (fd < 0) {
    why = std::string("memfd_create: ") + std::strerror(errno);
    return false;
  }
  void* view = ::mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  if (view == MAP_FAILED)
    why = std::string("an executable memory file: ") + std::strerror(errno);
  else
    ::munmap(view, static_cast<std::size_t>(page));
  ::close(fd);
  return view != MAP_FAILED;
}

}  // namespace

std::unique_ptr<llvm::orc::MemoryMapper> make_kernel_memory_mapper(std::string& why) {
  if (!executable_files_allowed(why)) return nullptr;
  return std::make_unique<FileBackedMapper>();
}

}  // namespace bcast::jit
