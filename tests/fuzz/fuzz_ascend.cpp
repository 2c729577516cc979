// Fuzz target: the Ascend-style instructions. Bytes -> a vector instruction
// (any mask, repeat times, block and repeat strides, addresses, some of them
// breaking a rule) or a copy (DataCopy, DataCopyPad with pads), and a UB's
// contents; the simulator must agree with the naive model of the
// documentation (tests/ascend_naive_model.h) on whether the call is allowed
// and, when it is, on every byte it leaves.
#include <cstdio>
#include <cstdlib>

#include "ascend_naive_model.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string diff = bcast::test::compare_ascend_with_naive_model(data, size);
  if (!diff.empty()) {
    std::fprintf(stderr, "%s\n", diff.c_str());
    std::abort();
  }
  return 0;
}
