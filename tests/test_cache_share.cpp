// NOTE: [Streaming threshold] on machines injected as their reports: a VM
// that reports its host's whole L3, a desktop part, a server of many cache
// instances, a host that reports nothing; the readers of sysfs's text and
// CPUID's registers, hostile input included.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cache_share.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;

constexpr std::uint64_t kMiB = 1 << 20;

TEST(CacheShare, AVmThatReportsItsHostsWholeCacheGetsTheCappedShare) {
  // 508 MiB for 2 CPUs: 254 MiB a CPU, which no real part has: 16 MiB each.
  const CacheShare vm = cache_share({.bytes = 508 * kMiB, .sharing_cpus = 2, .cpus = 2, .source = "sysfs"});
  EXPECT_EQ(vm.per_cpu, kMaxShareBytes);
  EXPECT_EQ(vm.threshold(1), 24 * kMiB);
  EXPECT_EQ(vm.threshold(2), 24 * kMiB);
  EXPECT_EQ(vm.threshold(16), 24 * kMiB) << "no more threads than the process's CPUs";
  EXPECT_EQ(vm.describe(2),
            "24 MiB for 2 threads: 508 MiB last-level cache shared by 2 CPUs (sysfs), 16 MiB a CPU (capped), 3/4 of "
            "1 instance");
  // The VM this session ran on reports 32 MiB for its 2 CPUs: the same threshold, uncapped.
  const CacheShare here = cache_share({.bytes = 32 * kMiB, .sharing_cpus = 2, .cpus = 2, .source = "sysfs"});
  EXPECT_EQ(here.per_cpu, 16 * kMiB);
  EXPECT_EQ(here.threshold(1), 24 * kMiB);
  EXPECT_FALSE(here.capped);
  EXPECT_TRUE(vm.capped);
}

TEST(CacheShare, ADesktopPartSharesItsCacheAmongAllItsCpus) {
  const CacheShare desktop = cache_share({.bytes = 32 * kMiB, .sharing_cpus = 16, .cpus = 16, .source = "cpuid"});
  EXPECT_EQ(desktop.per_cpu, 2 * kMiB);
  EXPECT_EQ(desktop.threshold(1), 24 * kMiB);
  EXPECT_EQ(desktop.threshold(16), 24 * kMiB);
}

TEST(CacheShare, AServerCallSpansTheInstancesOfItsThreads) {
  // 32 MiB per 16 CPUs (a CCD), 128 CPUs.
  const CacheShare server = cache_share({.bytes = 32 * kMiB, .sharing_cpus = 16, .cpus = 128, .source = "sysfs"});
  EXPECT_EQ(server.threshold(1), 24 * kMiB);
  EXPECT_EQ(server.threshold(16), 24 * kMiB);
  EXPECT_EQ(server.threshold(17), 48 * kMiB);
  EXPECT_EQ(server.threshold(64), 96 * kMiB);
  EXPECT_THAT(server.describe(64), HasSubstr("96 MiB for 64 threads: 32 MiB last-level cache shared by 16 CPUs"));
  EXPECT_THAT(server.describe(64), HasSubstr("3/4 of 4 instances"));
}

TEST(CacheShare, AHostThatReportsNothingTakes32MiBSharedByAll) {
  const CacheShare none = cache_share({.cpus = 4, .source = "none"});
  EXPECT_EQ(none.sharing_cpus, 4);
  EXPECT_EQ(none.per_cpu, 8 * kMiB);
  EXPECT_EQ(none.threshold(2), 24 * kMiB);
  EXPECT_THAT(none.describe(2), HasSubstr("no cache reported, taken as 32 MiB shared by all 4 CPUs"));
  // Size without sharing: shared by the process's CPUs.
  const CacheShare unshared = cache_share({.bytes = 8 * kMiB, .cpus = 1, .source = "sysfs"});
  EXPECT_EQ(unshared.threshold(1), 6 * kMiB);
  EXPECT_THAT(unshared.describe(1), HasSubstr("sharing not reported"));
}

TEST(CacheShare, SysfsTextReadsOrIsUnknown) {
  EXPECT_EQ(count_cpu_list("0-1"), 2);
  EXPECT_EQ(count_cpu_list("0-7,64-71\n"), 16);
  EXPECT_EQ(count_cpu_list("3"), 1);
  EXPECT_EQ(count_cpu_list("0,2,4"), 3);
  for (const char* bad : {"", "-", "1-", "-3", "3-1", "a", "0-1,", ",0", "0--1", "99999999999", "0-2147483647"})
    EXPECT_EQ(count_cpu_list(bad), std::nullopt) << bad;
  EXPECT_EQ(parse_cache_size("32768K"), 32 * kMiB);
  EXPECT_EQ(parse_cache_size("32M\n"), 32 * kMiB);
  EXPECT_EQ(parse_cache_size("1G"), 1024 * kMiB);
  for (const char* bad : {"", "K", "32", "32k", "-1K", "0K", "1.5M", "32 K", "99999999999999999999K"})
    EXPECT_EQ(parse_cache_size(bad), std::nullopt) << bad;
}

TEST(CacheShare, CpuidRegistersDecode) {
  // A unified L3 (type 3, level 3) of 16 ways, 1 partition, 64-byte lines and
  // 32768 sets: 32 MiB, shared by 16 logical CPUs (EAX[25:14] = 15).
  const std::uint32_t eax = 3u | (3u << 5) | (15u << 14), ebx = (15u << 22) | 63u, ecx = 32767;
  const std::optional<CpuidCache> l3 = decode_cpuid_cache(eax, ebx, ecx);
  ASSERT_TRUE(l3);
  EXPECT_EQ(l3->level, 3);
  EXPECT_EQ(l3->bytes, 32 * kMiB);
  EXPECT_EQ(l3->sharing_cpus, 16);
  EXPECT_EQ(decode_cpuid_cache(0, ebx, ecx), std::nullopt) << "type 0: no more caches";
  // The largest fields stay in range.
  const std::optional<CpuidCache> big = decode_cpuid_cache(0xffffffffu, 0xffffffffu, 0xffffffffu);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->sharing_cpus, 4096);
}

TEST(CacheShare, ThisMachinesReportIsSane) {
  const CacheReport r = read_cache_report();
  EXPECT_GE(r.cpus, 1);
  EXPECT_THAT(r.source, ::testing::AnyOf("sysfs", "cpuid", "none"));
  const CacheShare s = cache_share(r);
  EXPECT_GT(s.threshold(1), 0u);
  EXPECT_LE(s.per_cpu, kMaxShareBytes);
}

}  // namespace
}  // namespace bcast
