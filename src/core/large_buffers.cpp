#include "large_buffers.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>

namespace bcast::large_buffers {
namespace {

struct Store {
  std::mutex mutex;
  std::unordered_map<const std::byte*, std::size_t> sizes;  // every live or kept buffer
  std::vector<std::byte*> kept;                             // oldest first
  std::size_t kept_bytes = 0;
};

Store& store() {
  static Store* s = new Store;  // never destroyed: tensors may outlive static destruction
  return *s;
}

}  // namespace

std::byte* take(std::size_t bytes) {
  Store& s = store();
  {
    const std::lock_guard lock(s.mutex);
    for (auto it = s.kept.rbegin(); it != s.kept.rend(); ++it) {
      if (s.sizes.at(*it) != bytes) continue;
      std::byte* buffer = *it;
      s.kept.erase(std::next(it).base());
      s.kept_bytes -= bytes;
      return buffer;
    }
  }
  auto* buffer = static_cast<std::byte*>(std::aligned_alloc(kHugePageBytes, bytes));
  if (buffer == nullptr) return nullptr;
  ::madvise(buffer, bytes, MADV_HUGEPAGE);
  const std::lock_guard lock(s.mutex);
  s.sizes.emplace(buffer, bytes);
  return buffer;
}

void give_back(std::byte* buffer) {
  Store& s = store();
  std::vector<std::byte*> to_free;
  {
    const std::lock_guard lock(s.mutex);
    const std::size_t bytes = s.sizes.at(buffer);
    if (bytes > kMaxKeptBytes) {
      s.sizes.erase(buffer);
      to_free.push_back(buffer);
    } else {
      s.kept.push_back(buffer);
      s.kept_bytes += bytes;
      while (s.kept.size() > kMaxKept || s.kept_bytes > kMaxKeptBytes) {  // the oldest go
        std::byte* oldest = s.kept.front();
        s.kept.erase(s.kept.begin());
        s.kept_bytes -= s.sizes.at(oldest);
        s.sizes.erase(oldest);
        to_free.push_back(oldest);
      }
    }
  }
  for (std::byte* p : to_free) std::free(p);
}

void release_kept() {
  Store& s = store();
  std::vector<std::byte*> to_free;
  {
    const std::lock_guard lock(s.mutex);
    to_free.swap(s.kept);
    for (std::byte* p : to_free) s.sizes.erase(p);
    s.kept_bytes = 0;
  }
  for (std::byte* p : to_free) std::free(p);
}

std::size_t kept() {
  const std::lock_guard lock(store().mutex);
  return store().kept.size();
}

std::size_t kept_bytes() {
  const std::lock_guard lock(store().mutex);
  return store().kept_bytes;
}

}  // namespace bcast::large_buffers
