// The test binary's main: the suites run in sync JIT mode, so that a call's
// kernel is the JIT's when the call returns and each test sees what it
// compiled (NOTE: [Tiers]). BCAST_JIT_MODE in the environment wins; the
// tiered tests (test_tiers.cpp) switch to async themselves.
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  ::setenv("BCAST_JIT_MODE", "sync", /*overwrite=*/0);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
