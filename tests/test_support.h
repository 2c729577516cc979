// Helpers shared by the test suites: typed element access through doubles,
// and random strided views for property tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bcast/bcast.h"
#include "half.h"

namespace bcast::test {

// Sets a BCAST_* setting through the API for a scope, then puts back the
// value it had.
class ScopedSetting {
 public:
  ScopedSetting(std::string name, const std::string& value) : name_(std::move(name)), saved_(get_setting(name_)) {
    set_setting(name_, value);
  }
  ~ScopedSetting() { set_setting(name_, saved_); }
  ScopedSetting(const ScopedSetting&) = delete;
  ScopedSetting& operator=(const ScopedSetting&) = delete;

 private:
  std::string name_, saved_;
};

// Element i (C order over the view's index space) as a double, and back (a
// complex element: its real part; set stores v + 0j). Every value the tests
// use is exactly representable in the dtype involved.
std::int64_t element_offset(const TensorView& x, std::int64_t i);
double get(const TensorView& x, std::int64_t i);
void set(const TensorView& x, std::int64_t i, double v);
Tensor make(DType dtype, const Shape& shape, const std::vector<double>& values);

// Raw bytes of every element in C order: bit-exact comparison of results.
std::vector<std::uint8_t> bytes_of(const TensorView& x);

// A strided view into its own buffer: a random permutation of a contiguous
// parent, sliced with random steps (negative too), so strides are neither
// sorted nor dense.
struct RandomView {
  Tensor parent;
  TensorView view;
};
RandomView random_view(DType dtype, const Shape& shape, std::mt19937_64& rng, bool allow_strange = true);

// Random shapes (out, a, b) that broadcast: out has rank up to max_rank and
// at most max_numel elements; a and b are trailing parts of it with some
// extents replaced by 1.
struct ShapeTriple {
  Shape out, a, b;
};
ShapeTriple random_broadcast_shapes(std::mt19937_64& rng, int max_rank, std::int64_t max_extent,
                                    std::int64_t max_numel);

void fill_random(const TensorView& x, std::mt19937_64& rng);
// NOTE: [Negative integer exponents]: a call refuses pow on signed integers
// with a negative exponent, as NumPy does. A test that draws b at random for
// every op keeps it in op's domain: each negative v becomes -1 - v (which
// cannot overflow). Other ops and dtypes are left alone.
void keep_in_domain(Op op, const TensorView& b);

// op on i32 [n] and [n] for n = 1000, 2000, 3000, random values into
// sentinel-filled outs: one kernel key (one contiguous level), each time with
// a new layout, so that the call memo keeps no kernel between the calls. For
// each call, "" or what the oracle finds wrong. For the tests of a cache that
// keeps nothing.
inline constexpr std::int64_t kOneKeyLengths[] = {1000, 2000, 3000};
std::vector<std::string> calls_of_one_key(Op op);

// Every (op, dtype) pair that has a binary kernel (two operands of dtype,
// computed in dtype: not arctan2 on i8, which computes in f16 as an
// expression; no complex operands or result, whose calls are expressions
// too), op by op; and the ops of one dtype.
std::vector<std::pair<Op, DType>> supported_pairs();

// The host target's facts, asked at run time from its description (never the
// build's macros): whether it is x86-64 (the mnemonics the assembly checks
// know), whether it writes with streaming stores, whether it has a feature
// ("avx512f", as LLVM spells it).
bool host_is_x86_64();
bool host_streams();
bool host_has_feature(std::string_view feature);
std::vector<Op> supported_ops(DType dtype);

// Element i of a float view is a NaN with its quiet bit (the top bit of the
// mantissa) set.
bool quiet_nan_at(const TensorView& x, std::int64_t i, int part = 0);  // a complex element's part 0 or 1

// Index (C order) of the first element where two results of `op` differ, or
// -1. Bits must be equal, with one exception: both quiet NaNs after an
// arithmetic op (a signalling NaN result is always a mismatch).
// IEEE 754 leaves open which input's payload a NaN result carries, and each
// compiler orders commutative operands its own way; max and min, whose NaN
// choice bcast defines (a's), are compared bit for bit.
std::int64_t first_mismatch(Op op, const TensorView& got, const TensorView& want);

// Puts back the JIT switch, the JIT mode and the thread count a test
// changes, when it ends.
struct JitGuard {
  bool enabled = jit_enabled();
  JitMode mode = jit_mode();
  int threads = num_threads();
  JitGuard() = default;
  JitGuard(const JitGuard&) = delete;
  JitGuard& operator=(const JitGuard&) = delete;
  ~JitGuard() {
    set_jit_enabled(enabled);
    set_jit_mode(mode);
    set_num_threads(threads);
  }
};

}  // namespace bcast::test
