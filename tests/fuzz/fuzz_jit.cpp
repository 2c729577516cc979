// Fuzz target: the JIT differential. Bytes -> op, dtype, two strided input
// views, an output view (sometimes input a itself), and raw element bits.
// bcast::binary must either refuse the case with the error the rules give, or
// write exactly what the naive executor computes (NaN payloads of arithmetic
// aside, see test::first_mismatch) and what the oracle expects (tests/oracle.h,
// which shares no code with either); a JIT kernel must really have run. An
// input over the element cap checks nothing and returns -1 (libFuzzer's "not
// for the corpus"), which the replay main reports as a seed that did not run.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bcast/bcast.h"
#include "exponent_check.h"
#include "function_table.h"
#include "fuzz_input.h"
#include "naive_executor.h"
#include "oracle.h"
#include "test_support.h"

namespace {

using namespace bcast;

[[noreturn]] void finding(const std::string& what, Op op, DType dtype, const Shape& a, const Shape& b) {
  std::fprintf(stderr, "%s.%s %s & %s: %s\n", op_name(op).data(), dtype_name(dtype).data(), to_string(a).c_str(),
               to_string(b).c_str(), what.c_str());
  std::abort();
}

// Element i's value and raw bits, "nan (0x7e01)" (a complex one's real
// part and both parts' bits, "(re, im)").
std::string bits_of(const TensorView& x, std::int64_t i) {
  const char* p = static_cast<const char*>(x.data()) + test::element_offset(x, i) * static_cast<std::int64_t>(x.element_size());
  return std::to_string(test::get(x, i)) + " " + test::describe_element(test::element_at(p, x.dtype()), x.dtype());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  set_cache_dir("off");  // every kernel is compiled in this process
  // A call's kernel is the JIT's when it returns (NOTE: [Tiers]): async, the
  // first call of each key would run on the fallback and check nothing.
  set_jit_mode(JitMode::sync);
  // Every call that may stream does (NOTE: [Streaming stores]), however small.
  set_setting("BCAST_STREAM_MIN_BYTES", "0");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzBytes in(data, size);
  const Op op = static_cast<Op>(in.in_range(0, kNumOps - 1));
  // Bytes below 247 pick the 13 real dtypes as before c64 and c128 came (the
  // corpus keeps its meaning), the top 9 a complex one.
  const std::uint8_t dtype_byte = in.byte();
  const DType dtype = dtype_byte < 247 ? static_cast<DType>(dtype_byte % test::kNumRealDTypes)
                                       : (dtype_byte % 2 ? DType::c128 : DType::c64);
  const auto [sa, sb] = fuzz::decode_shape_pair(in);
  fuzz::FuzzView a = fuzz::decode_view(in, dtype, sa, false);
  fuzz::FuzzView b = fuzz::decode_view(in, dtype, sb, false);
  const bool in_place = in.in_range(0, 7) == 0;
  Shape out_shape;
  try {
    out_shape = broadcast_infer_shape(sa, sb);
  } catch (const Error& e) {
    try {
      (void)binary(op, a.view, b.view);
    } catch (const Error& refused) {
      if (refused.kind() == ErrorKind::shape || refused.kind() == ErrorKind::dtype) return 0;
    }
    finding("shapes that do not broadcast were not refused", op, dtype, sa, sb);
  }
  if (Layout::contiguous(out_shape).numel() > 4096) return -1;  // too big to check quickly: did not run
  const DType out_dtype = op_supports(op, dtype) ? result_dtype(op, dtype) : dtype;
  fuzz::FuzzView out = fuzz::decode_view(in, out_dtype, out_shape, true);
  const std::vector<std::uint8_t> values = in.rest();
  fuzz::fill_bytes(a, values);
  fuzz::fill_bytes(b, std::vector<std::uint8_t>(values.rbegin(), values.rend()));
  if (std::getenv("BCAST_FUZZ_VERBOSE"))
    std::fprintf(stderr, "%s.%s a %s strides %s, b %s strides %s, out %s%s\n", op_name(op).data(),
                 dtype_name(dtype).data(), to_string(sa).c_str(), to_string(a.view.strides()).c_str(),
                 to_string(sb).c_str(), to_string(b.view.strides()).c_str(), to_string(out_shape).c_str(),
                 in_place ? " (in place if a fits)" : "");
  // A pair that computes in another dtype (arctan2 on i8) runs as an
  // expression, which fuzz_expression covers; this target is the binary
  // kernels', and the complex calls' (their kernels are the expression's,
  // NOTE: [Complex in IR]).
  if (op_supports(op, dtype) && !detail::supports(op, dtype)) return 0;
  if (!op_supports(op, dtype)) {
    try {
      binary(op, a.view, b.view, out.view);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::dtype) return 0;
    }
    finding("an op the dtype does not support was not refused", op, dtype, sa, sb);
  }
  // NOTE: [Negative integer exponents]: refused, with nothing written; then
  // the call is checked with b's negatives made non-negative.
  if (op == Op::pow && first_negative(b.view) && Layout::contiguous(out_shape).numel() > 0) {
    const std::vector<std::uint8_t> out_before = out.buffer;
    try {
      binary(op, a.view, b.view, out.view);
      finding("a negative integer exponent was not refused", op, dtype, sa, sb);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::value) finding(std::string("refused as the wrong kind: ") + e.what(), op, dtype, sa, sb);
    }
    if (out.buffer != out_before) finding("a refused negative exponent wrote to its output", op, dtype, sa, sb);
    test::keep_in_domain(op, b.view);
  }
  Tensor want(out_dtype, out_shape);
  run_naive(op, a.view, b.view, want);
  const std::vector<test::Expected> oracle = test::oracle(op, a.view, b.view, out_shape);  // before a may change
  // In place: out is a itself, when a already has the output's shape and dtype.
  const TensorView target = in_place && sa == out_shape && out_dtype == dtype ? a.view : out.view;
  const std::vector<std::uint8_t> a_before = a.buffer;
  const std::uint64_t failures_before = kernel_cache_stats().failures;
  try {
    binary(op, a.view, b.view, target);
  } catch (const Error& e) {
    // Only an in-place out that overlaps itself (a with a stride-0 or
    // interleaved dim) may be refused, and then nothing may be written.
    if (target.data() != a.view.data() || e.kind() != ErrorKind::value)
      finding(std::string("refused: ") + e.what(), op, dtype, sa, sb);
    if (a.buffer != a_before) finding("a refused in-place call wrote to its output", op, dtype, sa, sb);
    return 0;
  }
  if (kernel_cache_stats().failures != failures_before) finding("the JIT failed to compile", op, dtype, sa, sb);
  if (const std::int64_t i = test::first_mismatch(op, target, want); i >= 0)
    finding("element " + std::to_string(i) + " is " + bits_of(target, i) + ", naive gives " + bits_of(want, i), op,
            dtype, sa, sb);
  if (const std::string bad = test::oracle_mismatch(oracle, target); !bad.empty())
    finding("the naive executor agrees, but the oracle does not: " + bad, op, dtype, sa, sb);
  return 0;
}
