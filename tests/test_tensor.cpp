// Tensor's buffer: 64-byte aligned, and from 4 MiB on aligned to a 2 MiB huge
// page and offered to transparent huge pages (madvise(MADV_HUGEPAGE)).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "bcast/bcast.h"

namespace bcast {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

std::uintptr_t address(const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.data()); }

// The VmFlags line of the mapping in /proc/self/smaps that holds `p`, or
// nothing when smaps cannot be read or has no such line.
std::optional<std::string> vm_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;  // a mapping's first line: "lo-hi perms offset dev inode path"
    } else if (inside && line.starts_with("VmFlags:")) {
      return line.substr(8) + " ";
    }
  }
  return std::nullopt;
}

TEST(Tensor, BuffersAre64ByteAligned) {
  const std::int64_t sizes[] = {0, 1, 3, 17, 1000, 100000, (std::int64_t{4} << 20) - 1};  // bytes, under 4 MiB
  for (const std::int64_t n : sizes) {
    const Tensor t(DType::u8, {n});
    EXPECT_EQ(address(t) % 64, 0u) << n << " bytes";
  }
  const Tensor odd(DType::f16, {3, 5, 7});
  EXPECT_EQ(address(odd) % 64, 0u);
}

TEST(Tensor, BuffersOf4MiBOrMoreAreHugePageAligned) {
  const std::int64_t sizes[] = {std::int64_t{4} << 20, (std::int64_t{4} << 20) + 4, std::int64_t{9} << 20};
  for (const std::int64_t bytes : sizes) {
    const Tensor t(DType::f32, {bytes / 4});
    EXPECT_EQ(address(t) % kHugePage, 0u) << bytes << " bytes";
  }
  // Two of them at once: each is aligned, not just the first one malloc hands out.
  const Tensor a(DType::f64, {1024, 1024}), b(DType::f64, {1024, 1024});
  EXPECT_EQ(address(a) % kHugePage, 0u);
  EXPECT_EQ(address(b) % kHugePage, 0u);
}

TEST(Tensor, BuffersOf4MiBOrMoreAreOfferedToTransparentHugePages) {
  const Tensor big(DType::f32, {std::int64_t{1} << 20});  // 4 MiB
  const std::optional<std::string> flags = vm_flags_of(big.data());
  if (!flags) GTEST_SKIP() << "/proc/self/smaps has no VmFlags for the tensor's mapping here";
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos)
    GTEST_SKIP() << "transparent huge pages are off or absent (" << modes << "): madvise cannot mark the mapping";
  // "hg" is VM_HUGEPAGE, which only madvise(MADV_HUGEPAGE) sets.
  EXPECT_NE(flags->find(" hg "), std::string::npos) << "VmFlags:" << *flags;
}

}  // namespace
}  // namespace bcast
