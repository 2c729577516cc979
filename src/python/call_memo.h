// NOTE: [Python call memo] A plain call from Python, bcast.add(a, b) on two
// ndarrays, is run as a prepared call once its layouts have come twice in a
// row. Reading an ndarray's shape and strides into a Layout costs two
// allocations a view, which on a 16-element call cost more than NumPy's whole
// call; comparing them in place with a prepared op's costs none
// (data_in_place). One entry per op and form (a new result, or out=) and
// thread, as bcast's own call memo (NOTE: [Call memo]); preparing waits for
// the second call in a row, so calls alternating between two layouts never
// pay for a prepare() they would not use. An entry holds while no
// setting changes (config::generation()); none is made while BCAST_VERBOSE
// asks for lines, so that they name the plain API.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "numpy_api.h"

#include "bcast/prepared.h"

namespace bcast::python {

class CallMemo {
 public:
  // The prepared op that runs op(a, b[, out]) on these objects as they are,
  // with their data; none: the caller then runs the call plainly and tells
  // seen().
  struct Hit {
    const PreparedOp* op;
    const void* a;
    const void* b;
    void* out;  // null for a new result
  };
  std::optional<Hit> find(Op op, PyObject* a, PyObject* b, PyObject* out) const;
  // A plain call that ran on these views (out: null for a new result).
  void seen(Op op, const TensorView& a, const TensorView& b, const TensorView* out);

 private:
  struct Entry {
    std::uint64_t generation = 0;
    DType dtype{};
    Layout a, b, out;
    bool again = false;  // the layouts came twice in a row
    std::optional<PreparedOp> prepared;
  };
  Entry& entry(Op op, bool has_out) { return entries_[static_cast<std::size_t>(op) * 2 + (has_out ? 1 : 0)]; }
  const Entry& entry(Op op, bool has_out) const {
    return entries_[static_cast<std::size_t>(op) * 2 + (has_out ? 1 : 0)];
  }
  std::array<Entry, 2 * kNumOps> entries_;
};

// The calling thread's memo.
CallMemo& call_memo();

}  // namespace bcast::python
