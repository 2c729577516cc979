// The persistent kernel cache: a fresh memory cache loads from disk instead of
// compiling; damaged, foreign or stale files are detected and replaced; an
// unusable folder means no disk cache and correct results; files another
// user could have written are refused (NOTE: [Disk cache trust]).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "cache/disk_cache.h"
#include "cache_folder_fixture.h"
#include "codegen_settings.h"
#include "config.h"
#include "test_support.h"

namespace bcast {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The stand-in for another local user (nobody).
constexpr uid_t kOtherUser = 65534;

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
  std::unique_ptr<jit::DiskCache> open_cache(std::uint64_t max_bytes) const {
    std::string why;
    std::unique_ptr<jit::DiskCache> cache = jit::DiskCache::open(dir_.string(), max_bytes, why);
    EXPECT_TRUE(cache) << why;
    return cache;
  }
  // The entry of the one kernel file there is, object included.
  jit::DiskEntry the_entry() const {
    std::string why;
    const std::optional<jit::DiskEntry> e = open_cache(1 << 30)->read_entry(files().at(0).filename(), true, why);
    EXPECT_TRUE(e) << why;
    return e.value_or(jit::DiskEntry{});
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
  const std::vector<jit::DiskFile> listed = open_cache(1 << 30)->list();
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
  const jit::DiskEntry good = the_entry();
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::unique_ptr<jit::DiskCache> opened = open_cache(1 << 30);
  const jit::DiskCache& cache = *opened;

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
  std::vector<std::pair<fs::path, std::string>> folders{{dir_ / "plain_file" / "cache", "cannot use"}};
  for (const mode_t mode : {0777, 0775, 0757, 01777}) {
    const fs::path shared = dir_ / ("shared" + std::to_string(mode));
    fs::create_directories(shared);
    ::chmod(shared.c_str(), mode);
    folders.emplace_back(shared, "writable by other users");
  }
  fs::create_symlink(dir_ / "shared511", dir_ / "link_to_shared");  // the check is of what the link names
  folders.emplace_back(dir_ / "link_to_shared", "writable by other users");
  if (::geteuid() == 0) {  // only root can make a folder of another user
    fs::create_directories(dir_ / "theirs");
    EXPECT_EQ(::chown((dir_ / "theirs").c_str(), kOtherUser, kOtherUser), 0);
    folders.emplace_back(dir_ / "theirs", "belongs to another user (uid 65534)");
    fs::create_directories(dir_ / "mine");
    fs::create_symlink(dir_ / "mine", dir_ / "their_link");
    EXPECT_EQ(::lchown((dir_ / "their_link").c_str(), kOtherUser, kOtherUser), 0);
    folders.emplace_back(dir_ / "their_link", "symbolic link that belongs to another user (uid 65534)");
  }
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
  for (const auto& [folder, message] : folders) {
    if (fs::is_directory(folder)) {
      EXPECT_TRUE(fs::is_empty(folder)) << folder;
    }
  }
}

TEST_F(DiskCacheTest, SizeBoundEvictsTheLeastRecentlyUsedFiles) {
  run();
  const jit::DiskEntry good = the_entry();
  const std::uint64_t one = fs::file_size(files()[0]);
  const std::unique_ptr<jit::DiskCache> small = open_cache(3 * one + one / 2);  // room for three
  ASSERT_NO_FATAL_FAILURE(store_aged(*small, good, 5));
  EXPECT_LE(small->total_bytes(), small->max_bytes());
  EXPECT_FALSE(fs::exists(dir_ / jit::DiskCache::file_name("key0")));
  EXPECT_TRUE(fs::exists(dir_ / jit::DiskCache::file_name("key4")));
}

// A .hits file grows by a byte per load: it counts toward the bound, and a
// process that only loads trims the folder too (every 4096th load), oldest
// last use first: a load's time is its .hits file's.
TEST_F(DiskCacheTest, HitsFilesCountTowardTheBoundAndAreTrimmed) {
  run();
  const jit::DiskEntry good = the_entry();
  fs::remove(files()[0]);  // run()'s own kernel: the test follows three of its own
  const std::unique_ptr<jit::DiskCache> roomy = open_cache(std::uint64_t{1} << 30);
  ASSERT_NO_FATAL_FAILURE(store_aged(*roomy, good, 3));
  const std::uint64_t without_hits = roomy->total_bytes();
  const std::unique_ptr<jit::DiskCache> small = open_cache(without_hits + 1024);  // the three kernels and 1 KiB
  for (int i = 0; i < 4096; ++i) small->touch("key2");  // 4 KiB of hits; the process's 4096th load trims
  EXPECT_EQ(fs::file_size(dir_ / fs::path(jit::DiskCache::file_name("key2")).replace_extension(".hits")), 4096u);
  EXPECT_LE(small->total_bytes(), small->max_bytes());  // the hits counted, and key0 went
  EXPECT_FALSE(fs::exists(dir_ / jit::DiskCache::file_name("key0")));  // touch() made key2 the newest
  EXPECT_TRUE(fs::exists(dir_ / jit::DiskCache::file_name("key2")));
}

// ---- NOTE: [Disk cache trust]: the attacks, each refused ----

TEST(DiskCacheTrust, OnlyTheUsersOwnRegularFilesThatNobodyElseCanWriteAreTrusted) {
  const struct {
    mode_t mode;
    uid_t uid;
    std::string problem;
  } cases[] = {
      {S_IFREG | 0600, ::geteuid(), ""},
      {S_IFREG | 0644, ::geteuid(), ""},
      {S_IFREG | 0400, ::geteuid(), ""},
      {S_IFREG | 0620, ::geteuid(), "is writable by other users (mode 0620)"},
      {S_IFREG | 0602, ::geteuid(), "is writable by other users (mode 0602)"},
      {S_IFREG | 0666, ::geteuid(), "is writable by other users (mode 0666)"},
      {S_IFREG | 0600, ::geteuid() + 1, "belongs to another user (uid " + std::to_string(::geteuid() + 1) + ")"},
      {S_IFLNK | 0777, ::geteuid(), "is a symbolic link"},
      {S_IFIFO | 0600, ::geteuid(), "is not a regular file"},
      {S_IFDIR | 0700, ::geteuid(), "is not a regular file"},
  };
  for (const auto& c : cases) {
    struct stat st{};
    st.st_mode = c.mode;
    st.st_uid = c.uid;
    EXPECT_EQ(jit::file_trust_problem(st), c.problem) << std::oct << c.mode << std::dec << " uid " << c.uid;
  }
}

// The one kernel file, refused as `damage` leaves it: the call compiles
// instead, the warning names the file and `reason`, and the name then holds
// the new kernel (the next process loads it).
void expect_refused_and_replaced(const fs::path& file, const std::string& reason,
                                 const std::function<std::pair<std::uint64_t, std::uint64_t>()>& run_fresh) {
  ::testing::internal::CaptureStderr();
  const auto [disk_hits, compiles] = run_fresh();
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(disk_hits, 0u) << reason << ": the file was trusted";
  EXPECT_EQ(compiles, 1u) << reason;
  EXPECT_THAT(log, HasSubstr("refusing " + file.string())) << reason;
  EXPECT_THAT(log, HasSubstr(reason));
  struct stat st{};
  ASSERT_EQ(::lstat(file.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode)) << reason << ": not replaced";
  EXPECT_EQ(st.st_uid, ::geteuid()) << reason;
  EXPECT_EQ(st.st_mode & 0777, 0600u) << reason;
  EXPECT_EQ(run_fresh(), (std::pair<std::uint64_t, std::uint64_t>{1, 0})) << reason << ": not replaced";
}

TEST_F(DiskCacheTest, AKernelFileThatIsASymlinkIsRefusedAndReplacedNotWrittenThrough) {
  run();
  const fs::path file = files().at(0);
  // Another user's 0666 file, which the name points at.
  const fs::path planted = dir_.string() + "_planted";
  fs::rename(file, planted);
  ::chmod(planted.c_str(), 0666);
  if (::geteuid() == 0) {
    EXPECT_EQ(::chown(planted.c_str(), kOtherUser, kOtherUser), 0);
  }
  std::ifstream in(planted, std::ios::binary);
  const std::string planted_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  fs::create_symlink(planted, file);
  expect_refused_and_replaced(file, "is a symbolic link", [this] { return run_fresh(); });
  std::ifstream again(planted, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), planted_bytes)
      << "the store wrote through the link";
  fs::remove(planted);
}

TEST_F(DiskCacheTest, AKernelFileOthersCanWriteIsRefused) {
  for (const mode_t mode : {0666, 0620, 0602}) {
    run_fresh();
    const fs::path file = files().at(0);
    ::chmod(file.c_str(), mode);
    char octal[8];
    std::snprintf(octal, sizeof octal, "0%03o", static_cast<unsigned>(mode));
    expect_refused_and_replaced(file, std::string("is writable by other users (mode ") + octal + ")",
                                [this] { return run_fresh(); });
  }
}

TEST_F(DiskCacheTest, AKernelFileOfAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user (uid 65534)";
  run();
  const fs::path file = files().at(0);
  ASSERT_EQ(::chown(file.c_str(), kOtherUser, kOtherUser), 0);
  expect_refused_and_replaced(file, "belongs to another user (uid 65534)", [this] { return run_fresh(); });
}

TEST_F(DiskCacheTest, FilesAreWrittenForTheOwnerOnlyWhateverTheUmask) {
  for (const mode_t mask : {0000, 0002, 0022, 0077}) {
    set_cache_dir("off");
    fs::remove_all(dir_);
    set_cache_dir(dir_.string());
    const mode_t before = ::umask(mask);
    run_fresh();  // a compile and its store
    run_fresh();  // a load and its hit count
    ::umask(before);
    EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all) << "umask " << std::oct << mask;
    std::size_t seen = 0;
    for (const auto& f : fs::directory_iterator(dir_)) {
      EXPECT_EQ(f.status().permissions(), fs::perms::owner_read | fs::perms::owner_write)
          << f.path() << " under umask " << std::oct << mask;
      ++seen;
    }
    EXPECT_EQ(seen, 2u) << "a kernel and its .hits";
  }
}

// The folder is checked once and then held by its descriptor: repointing a
// symlinked path afterwards does not move the process to another folder.
TEST_F(DiskCacheTest, RepointingTheFoldersPathAfterTheCheckChangesNothing) {
  const fs::path real = dir_ / "real", planted = dir_ / "planted", link = dir_ / "link";
  fs::create_directories(real);
  fs::create_directories(planted);
  fs::permissions(real, fs::perms::owner_all, fs::perm_options::replace);
  fs::permissions(planted, fs::perms::owner_all, fs::perm_options::replace);
  fs::create_symlink(real, link);
  set_cache_dir(link.string());
  run();
  const fs::path kernel = fs::directory_iterator(real)->path();  // the one file there
  fs::copy_file(kernel, planted / kernel.filename());
  fs::remove(link);
  fs::create_symlink(planted, link);  // its owner repoints it
  EXPECT_EQ(run_fresh(), (std::pair<std::uint64_t, std::uint64_t>{1, 0}));
  EXPECT_TRUE(fs::exists(fs::path(real / kernel.filename()).replace_extension(".hits"))) << "not loaded from real";
  EXPECT_FALSE(fs::exists(fs::path(planted / kernel.filename()).replace_extension(".hits")))
      << "loaded from the folder the link points at now";
}

// bcast-cache's listing: a link or a file others can write is a bad file
// (verify removes the name, never what a link points at).
TEST_F(DiskCacheTest, TheListingNamesUntrustedFilesAndVerifyRemovesOnlyTheirNames) {
  run();
  const fs::path file = files().at(0);
  const fs::path outside = dir_.string() + "_outside";
  fs::copy_file(file, outside, fs::copy_options::overwrite_existing);
  fs::create_symlink(outside, dir_ / "0123456789abcdef.bck");
  fs::copy_file(file, dir_ / "fedcba9876543210.bck");
  ::chmod((dir_ / "fedcba9876543210.bck").c_str(), 0666);
  const std::unique_ptr<jit::DiskCache> cache = open_cache(1 << 30);
  std::map<std::string, std::string> problems;
  for (const jit::DiskFile& f : cache->list()) problems[fs::path(f.path).filename().string()] = f.problem;
  EXPECT_EQ(problems.size(), 3u);
  EXPECT_EQ(problems["0123456789abcdef.bck"], "is a symbolic link");
  EXPECT_EQ(problems["fedcba9876543210.bck"], "is writable by other users (mode 0666)");
  EXPECT_EQ(problems[file.filename().string()], "");
  EXPECT_EQ(cache->remove_bad(), 2u);
  EXPECT_EQ(files(), std::vector<fs::path>{file});
  EXPECT_TRUE(fs::exists(outside)) << "verify followed the link";
  fs::remove(outside);
}

// NOTE: [Disk cache file]'s revision covers every header a kernel's code is
// built from: the recipes that the IR builder instantiates are headers under
// src/core, and a kernel made from an older one must not load. The hashed
// files are the generator's sources and what they include, transitively
// (cmake/codegen_revision.cmake); complex_math.h was once left out of a
// hand-kept list, so complex kernels of old recipes loaded from disk.
TEST(CodegenRevision, HashesEveryMathHeaderOfTheRecipes) {
  std::ifstream listed(BCAST_TEST_CODEGEN_FILES);
  ASSERT_TRUE(listed) << BCAST_TEST_CODEGEN_FILES;
  std::set<fs::path> hashed;
  for (std::string line; std::getline(listed, line);)
    if (!line.empty()) hashed.insert(fs::weakly_canonical(line));
  int math_headers = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(BCAST_TEST_SOURCE_DIR) / "src" / "core")) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".h" || name.find("math") == std::string::npos) continue;
    ++math_headers;
    EXPECT_TRUE(hashed.count(fs::weakly_canonical(entry.path()))) << name << " is not in the codegen revision";
  }
  EXPECT_GE(math_headers, 8);  // complex_math.h, f32_math.h, f64_math.h, math_lanes.h, two_part_math.h, ...
}

}  // namespace
}  // namespace bcast
