// Prepared calls and pre-generation: for callers that know their shapes ahead.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bcast/ops.h"
#include "bcast/tensor.h"

namespace bcast {

// A call with its shapes fixed: validated, planned and given its host kernel
// once. Each run skips shape validation, planning and the cache look-up; it
// checks only what depends on the data (non-null pointers, no overlap of out
// with an input other than in place). A run goes where a plain call would
// go: to ascend-sim when BCAST_TARGET names it at the time of the run, else to
// the host kernel it was prepared with.
//   auto k = bcast::prepare(Op::add, DType::f32, a.layout(), b.layout());
//   for (...) k(a, b, out);
class PreparedOp {
 public:
  // The views must have the layouts and dtype given to prepare(): only their
  // data pointers may change from call to call (an Error(value) otherwise).
  void operator()(const TensorView& a, const TensorView& b, const TensorView& out) const;
  // Allocates the result in the layout it was prepared with.
  Tensor operator()(const TensorView& a, const TensorView& b) const;
  // The call on bare data pointers (each to the element (0, ..., 0)) of
  // views that the caller has checked have the prepared layouts and dtypes:
  // for bindings that compare a foreign array's shape and strides in place
  // (the Python module). The data checks are made as for views.
  void run_data(const void* a, const void* b, void* out) const;

  const Shape& out_shape() const;
  DType out_dtype() const;
  DType dtype() const;  // of a and b
  const Layout& a_layout() const;
  const Layout& b_layout() const;
  const Layout& out_layout() const;
  const std::string& broadcast_type() const;  // "[expand_b,same]"
  // KernelKey::to_string() for the target current at prepare(), or
  // "reference" when the JIT was off or failed then.
  const std::string& kernel_key() const;

  struct Impl;

 private:
  friend PreparedOp prepare(Op, DType, const Layout&, const Layout&, const Layout&);
  std::shared_ptr<const Impl> impl_;
};

// Throws the same errors as the op would, for the same mistakes.
PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b, const Layout& out);
// out is a new output's layout: dense, in the inputs' memory order (NOTE: [Output order]).
PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b);

// The kernel key of a call with these layouts (KernelKey::to_string()), or
// "reference" when the JIT is off. Compiles nothing; the cache is not touched.
std::string kernel_key_for(Op op, DType dtype, const Layout& out, const Layout& a, const Layout& b);

// Compiles (or finds in the cache) the kernel of every broadcast type with up
// to `max_rank` levels, for contiguous operands, for each op in `ops` and
// dtype in `dtypes` (op/dtype pairs that do not exist are skipped), on
// `threads` threads (0: one per hardware thread); max_rank is 0..kMaxPregenerateRank. Returns the number of
// kernels compiled or found in the cache; ones that failed are not counted
// (their calls will use the reference executor). A cache smaller than the
// set keeps the most recent ones.
// Rank r has 3 * 2^(r-1) types (the codes of adjacent levels differ); on the
// host, each rank-2 type also has a kernel per short row length, 1 to 16, and,
// on x86-64 unless BCAST_STREAM_MIN_BYTES is off, each kernel whose layout can
// store non-temporally has a streaming twin for calls larger than the cache.
// Rank 12 is already 6,144 types per op and dtype.
// `progress`, when given, is called after each kernel with (done, total),
// from one thread at a time.
inline constexpr int kMaxPregenerateRank = 12;
using PregenerateProgress = std::function<void(std::size_t done, std::size_t total)>;
std::size_t pregenerate(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank, int threads = 0,
                        const PregenerateProgress& progress = {});
// How many kernels pregenerate() would compile or load for these arguments.
std::size_t pregenerate_size(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank);

// Every broadcast type of contiguous operands with exactly `rank` levels.
std::vector<std::string> broadcast_types_of_rank(int rank);

}  // namespace bcast
