// NOTE: [GIL] A call lets go of the GIL while it runs a kernel over at least
// kGilFreeElements elements of output, so that other Python threads run
// meanwhile; below that, letting go and taking it back would cost more than
// the call (NumPy's ufuncs draw the line at 500 elements, for loops slower
// than bcast's kernels).
#pragma once

#include <cstdint>

#include "numpy_api.h"

namespace bcast::python {

inline constexpr std::int64_t kGilFreeElements = 4096;

class GilRelease {
 public:
  explicit GilRelease(std::int64_t elements)
      : state_(elements >= kGilFreeElements ? PyEval_SaveThread() : nullptr) {}
  ~GilRelease() {
    if (state_ != nullptr) PyEval_RestoreThread(state_);
  }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

}  // namespace bcast::python
