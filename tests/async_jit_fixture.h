// A fixture for tests of the async JIT (NOTE: [Tiers]): each test starts
// async with an empty memory cache and no disk cache (a kernel on disk would
// skip the compile a test holds), and leaves sync with every hold released,
// no compile in flight and an empty memory cache, as the other suites expect.
#pragma once

#include <gtest/gtest.h>

#include "bcast/bcast.h"
#include "fault_injection.h"

namespace bcast::test {

class AsyncJitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_cache_dir("off");
    set_jit_mode(JitMode::async);
    clear_kernel_cache();
  }
  void TearDown() override {
    fault::set(fault::Fault::hold_compile, false);
    fault::set(fault::Fault::hold_full_compile, false);
    wait_for_compiles();
    set_jit_mode(JitMode::sync);
    clear_kernel_cache();
  }
};

}  // namespace bcast::test
