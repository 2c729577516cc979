// A fixture that gives each test its own empty disk-cache folder and an empty
// memory cache, and switches the disk cache off again afterwards.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "bcast/bcast.h"

namespace bcast::test {

class CacheFolderTest : public ::testing::Test {
 protected:
  explicit CacheFolderTest(const std::string& prefix)
      : dir_(std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))) {}
  void SetUp() override {
    std::filesystem::remove_all(dir_);
    set_cache_dir(dir_.string());
    clear_kernel_cache();
  }
  void TearDown() override {
    set_cache_dir("off");
    set_opt_level(2);
    std::error_code ec;  // a test may have made the folder unreadable
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace, ec);
    std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path dir_;
};

}  // namespace bcast::test
