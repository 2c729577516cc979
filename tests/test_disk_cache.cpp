// The persistent kernel cache: a fresh memory cache loads from disk instead of
// compiling; damaged, foreign or stale files are detected and replaced; an
// unusable folder means no disk cache and correct results.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cache/disk_cache.h"
#include "cache_folder_fixture.h"
#include "codegen_settings.h"
#include "config.h"
#include "test_support.h"

namespace bcast {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class DiskCacheTest : public test::CacheFolderTest {
 protected:
  DiskCacheTest() : CacheFolderTest("bcast_disk_test_") {}
  // One call whose kernel the tests follow: [6,5] - [5] in f32.
  Tensor run() {
    const Tensor a = test::make(DType::f32, {6, 5}, std::vector<double>(30, 2.5));
    const Tensor b = test::make(DType::f32, {5}, {1, 2, 3, 4, 5});
    return sub(a, b);
  }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    for (const auto& f : fs::directory_iterator(dir_))
      if (f.path().extension() == ".bck") out.push_back(f.path());
    return out;
  }
  // Stores `good` as key0 .. key<n-1>, key0 used longest ago (hours apart).
  void store_aged(const jit::DiskCache& cache, const jit::DiskEntry& good, int n) const {
    std::string why;
    for (int i = 0; i < n; ++i) {
      jit::DiskEntry e = good;
      e.key = "key" + std::to_string(i);
      ASSERT_TRUE(cache.store(e, why)) << why;
      const auto t = fs::file_time_type::clock::now() - std::chrono::hours(10 - i);
      fs::last_write_time(dir_ / jit::DiskCache::file_name(e.key), t);
    }
  }
  // Runs the call with an empty memory cache; returns (disk hits, compiles).
  std::pair<std::uint64_t, std::uint64_t> run_fresh() {
    clear_kernel_cache();
    const Tensor c = run();
    EXPECT_EQ(test::get(c, 29), -2.5);
    return {kernel_cache_stats().disk_hits, kernel_cache_stats().compiles};
  }
};

TEST_F(DiskCacheTest, AFreshMemoryCacheLoadsFromDiskAndCompilesNothing) {
  const Tensor first = run();
  EXPECT_EQ(kernel_cache_stats().compiles, 1u);
  ASSERT_EQ(files().size(), 1u);
  for (int process = 1; process <= 3; ++process) {  // each load rewrites the hit count: still loadable
    clear_kernel_cache();
    const Tensor again = run();
    EXPECT_EQ(kernel_cache_stats().compiles, 0u) << "load " << process;
    EXPECT_EQ(kernel_cache_stats().disk_hits, 1u) << "load " << process;
    EXPECT_EQ(test::bytes_of(first), test::bytes_of(again));
  }
  const std::vector<jit::DiskFile> listed = jit::DiskCache(dir_.string(), 1 << 30).list();
  ASSERT_EQ(listed.size(), 1u);
  ASSERT_TRUE(listed[0].entry) << listed[0].problem;
  EXPECT_EQ(listed[0].hits, 3u);
  EXPECT_EQ(listed[0].entry->op, "sub");
  EXPECT_EQ(listed[0].entry->broadcast_type, "[expand_b,same]");
}

TEST_F(DiskCacheTest, DamagedAndForeignFilesAreReplaced) {
  run();
  ASSERT_EQ(files().size(), 1u);
  const fs::path file = files()[0];
  std::string why;
  const jit::DiskEntry good = *jit::read_disk_entry(file.string(), true, why);
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const jit::DiskCache cache(dir_.string(), 1 << 30);

  const std::vector<std::pair<std::string, std::function<void()>>> damage{
      {"truncated", [&] { std::ofstream(file, std::ios::binary) << bytes.substr(0, bytes.size() - 10); }},
      {"empty", [&] { std::ofstream(file, std::ios::binary | std::ios::trunc); }},
      {"object bit flip",
       [&] {
         std::string b = bytes;
         b[b.size() - 40] ^= 0x10;
         std::ofstream(file, std::ios::binary) << b;
       }},
      {"header bit flip",
       [&] {
         std::string b = bytes;
         b[30] ^= 0x01;
         std::ofstream(file, std::ios::binary) << b;
       }},
      {"other LLVM",
       [&] {
         jit::DiskEntry e = good;
         e.llvm_version = "18.1.8";
         std::string w;
         ASSERT_TRUE(cache.store(e, w)) << w;
       }},
      {"an older code generator",
       [&] {
         jit::DiskEntry e = good;
         e.generator = "0123456789abcdef";
         std::string w;
         ASSERT_TRUE(cache.store(e, w)) << w;
       }},
      {"other CPU features",
       [&] {
         jit::DiskEntry e = good;
         e.settings.features += ",+made-up";
         std::string w;
         ASSERT_TRUE(cache.store(e, w)) << w;
       }},
      {"another key's file",
       [&] {
         jit::DiskEntry e = good;
         e.key = "add.f32.[same].uuu.host.x.O2.00000000";
         std::string w;
         ASSERT_TRUE(cache.store(e, w)) << w;
         fs::rename(dir_ / jit::DiskCache::file_name(e.key), file);
       }},
  };
  for (const auto& [what, make_damage] : damage) {
    make_damage();
    const auto [disk_hits, compiles] = run_fresh();
    EXPECT_EQ(disk_hits, 0u) << what << " was trusted";
    EXPECT_EQ(compiles, 1u) << what;
    // The file was rewritten: the next process gets a disk hit again.
    EXPECT_EQ(run_fresh(), (std::pair<std::uint64_t, std::uint64_t>{1, 0})) << what << " was not replaced";
    std::ofstream(file, std::ios::binary) << bytes;  // back to the good file
  }
}

TEST_F(DiskCacheTest, ChangedCodegenSettingsNeverReuseAnEntry) {
  run();
  set_opt_level(1);
  EXPECT_EQ(run_fresh().second, 1u);
  set_opt_level(2);
  EXPECT_EQ(run_fresh(), (std::pair<std::uint64_t, std::uint64_t>{1, 0}));
  EXPECT_EQ(files().size(), 2u);
}

TEST_F(DiskCacheTest, AnUnusableFolderMeansNoDiskCacheAndCorrectResults) {
  // A folder below a regular file cannot exist; one writable by others is refused.
  fs::create_directories(dir_);
  std::ofstream(dir_ / "plain_file") << "x";
  const std::vector<std::pair<fs::path, std::string>> folders{{dir_ / "plain_file" / "cache", "cannot create"},
                                                              {dir_ / "shared", "writable by other users"}};
  fs::create_directories(dir_ / "shared");
  fs::permissions(dir_ / "shared", fs::perms::all, fs::perm_options::replace);
  for (const auto& [folder, message] : folders) {
    set_cache_dir(folder.string());
    clear_kernel_cache();
    ::testing::internal::CaptureStderr();
    run();
    run_fresh();
    const std::string log = ::testing::internal::GetCapturedStderr();
    EXPECT_THAT(log, HasSubstr("disk cache off for this process")) << folder;
    EXPECT_THAT(log, HasSubstr(message)) << folder;
    EXPECT_EQ(kernel_cache_stats().disk_hits, 0u);
  }
  EXPECT_TRUE(fs::is_empty(dir_ / "shared"));
}

TEST_F(DiskCacheTest, SizeBoundEvictsTheLeastRecentlyUsedFiles) {
  run();
  std::string why;
  const jit::DiskEntry good = *jit::read_disk_entry(files()[0].string(), true, why);
  const std::uint64_t one = fs::file_size(files()[0]);
  const jit::DiskCache small(dir_.string(), 3 * one + one / 2);  // room for three
  ASSERT_NO_FATAL_FAILURE(store_aged(small, good, 5));
  EXPECT_LE(small.total_bytes(), small.max_bytes());
  EXPECT_FALSE(fs::exists(dir_ / jit::DiskCache::file_name("key0")));
  EXPECT_TRUE(fs::exists(dir_ / jit::DiskCache::file_name("key4")));
}

// A .hits file grows by a byte per load: it counts toward the bound, and a
// process that only loads trims the folder too (every 4096th load), oldest
// last use first: a load's time is its .hits file's.
TEST_F(DiskCacheTest, HitsFilesCountTowardTheBoundAndAreTrimmed) {
  run();
  std::string why;
  const jit::DiskEntry good = *jit::read_disk_entry(files()[0].string(), true, why);
  fs::remove(files()[0]);  // run()'s own kernel: the test follows three of its own
  const jit::DiskCache roomy(dir_.string(), std::uint64_t{1} << 30);
  ASSERT_NO_FATAL_FAILURE(store_aged(roomy, good, 3));
  const std::uint64_t without_hits = roomy.total_bytes();
  const jit::DiskCache small(dir_.string(), without_hits + 1024);  // the three kernels and 1 KiB
  for (int i = 0; i < 4096; ++i) small.touch("key2");  // 4 KiB of hits; the process's 4096th load trims
  EXPECT_EQ(fs::file_size(dir_ / fs::path(jit::DiskCache::file_name("key2")).replace_extension(".hits")), 4096u);
  EXPECT_LE(small.total_bytes(), small.max_bytes());  // the hits counted, and key0 went
  EXPECT_FALSE(fs::exists(dir_ / jit::DiskCache::file_name("key0")));  // touch() made key2 the newest
  EXPECT_TRUE(fs::exists(dir_ / jit::DiskCache::file_name("key2")));
}

}  // namespace
}  // namespace bcast
