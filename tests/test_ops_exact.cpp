// Every op on every dtype on each executor (JIT kernels, the reference
// executor, ascend-sim), against exact expectations: hand-written NumPy
// results for floats and bool, the oracle's exact 128-bit arithmetic for
// integers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>

#include "oracle.h"
#include "oracle_expr.h"
#include "test_support.h"

namespace bcast {
namespace {

constexpr double nan_ = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

// Inputs exactly representable in f16, bf16, f32 and f64.
const std::vector<std::pair<double, double>> kFloatInputs{
    {3, 2}, {-7, 2}, {0.5, -4}, {1, 0}, {-1, 0}, {0, 0}, {nan_, 1}, {1, nan_}, {inf, 1}, {-0.0, 0.0}};

// NumPy's results for kFloatInputs (comparisons and logical ops as 0/1).
const std::map<Op, std::vector<double>> kFloatExpected{
    {Op::add, {5, -5, -3.5, 1, -1, 0, nan_, nan_, inf, 0}},
    {Op::sub, {1, -9, 4.5, 1, -1, 0, nan_, nan_, inf, -0.0}},
    {Op::mul, {6, -14, -2, 0, -0.0, 0, nan_, nan_, inf, -0.0}},
    {Op::div, {1.5, -3.5, -0.125, inf, -inf, nan_, nan_, nan_, inf, nan_}},
    {Op::floor_div, {1, -4, -1, inf, -inf, nan_, nan_, nan_, nan_, nan_}},
    {Op::max, {3, 2, 0.5, 1, 0, 0, nan_, nan_, inf, 0.0}},  // -0 < +0
    {Op::min, {2, -7, -4, 0, -1, 0, nan_, nan_, 1, -0.0}},
    {Op::pow, {9, 49, 16, 1, 1, 1, nan_, 1, inf, 1}},
    {Op::eq, {0, 0, 0, 0, 0, 1, 0, 0, 0, 1}},
    {Op::ne, {1, 1, 1, 1, 1, 0, 1, 1, 1, 0}},
    {Op::lt, {0, 1, 0, 0, 1, 0, 0, 0, 0, 0}},
    {Op::le, {0, 1, 0, 0, 1, 1, 0, 0, 0, 1}},
    {Op::gt, {1, 0, 1, 1, 0, 0, 0, 0, 1, 0}},
    {Op::ge, {1, 0, 1, 1, 0, 1, 0, 0, 1, 1}},
    {Op::logical_and, {1, 1, 1, 0, 0, 0, 1, 1, 1, 0}},
    {Op::logical_or, {1, 1, 1, 1, 1, 0, 1, 1, 1, 0}},
    {Op::logical_xor, {0, 0, 0, 1, 1, 0, 0, 0, 0, 0}},
    {Op::remainder, {1, 1, -3.5, nan_, nan_, nan_, nan_, nan_, nan_, nan_}},
    {Op::fmod, {1, -1, 0.5, nan_, nan_, nan_, nan_, nan_, nan_, nan_}},
    {Op::copysign, {3, 7, -0.5, 1, 1, 0, nan_, 1, inf, 0}},
    {Op::fmax, {3, 2, 0.5, 1, 0, 0, 1, 1, inf, 0}},
    {Op::fmin, {2, -7, -4, 0, -1, 0, 1, 1, 1, -0.0}},  // -0 < +0 (NumPy's f64 loop gives its second operand)
    {Op::float_power, {9, 49, 16, 1, 1, 1, nan_, 1, inf, 1}},
    {Op::heaviside, {1, 0, 1, 1, 0, 0, nan_, 1, 1, 0}},
};
// arctan2, hypot, nextafter, logaddexp and logaddexp2 round differently per
// dtype: the oracle's (tests/oracle_values.cpp) are their expectations.

const std::vector<std::pair<double, double>> kBoolInputs{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
const std::map<Op, std::vector<double>> kBoolExpected{
    {Op::add, {0, 1, 1, 1}},         {Op::mul, {0, 0, 0, 1}},         {Op::max, {0, 1, 1, 1}},
    {Op::min, {0, 0, 0, 1}},         {Op::eq, {1, 0, 0, 1}},          {Op::ne, {0, 1, 1, 0}},
    {Op::lt, {0, 1, 0, 0}},          {Op::le, {1, 1, 0, 1}},          {Op::gt, {0, 0, 1, 0}},
    {Op::ge, {1, 0, 1, 1}},          {Op::logical_and, {0, 0, 0, 1}}, {Op::logical_or, {0, 1, 1, 1}},
    {Op::logical_xor, {0, 1, 1, 0}}, {Op::bit_and, {0, 0, 0, 1}},     {Op::bit_or, {0, 1, 1, 1}},
    {Op::bit_xor, {0, 1, 1, 0}},     {Op::div, {nan_, 0, inf, 1}},  // true division, in f64
    {Op::fmax, {0, 1, 1, 1}},        {Op::fmin, {0, 0, 0, 1}},
};

// ---- integers: the extremes and their neighbours, small values, signs ----

// Values as the bits of an i64 (set_int keeps the low bytes): u64's maximum
// is -1.
std::vector<std::int64_t> integer_inputs(DType d) {
  const auto [min, max] = d == DType::i8    ? std::pair<std::int64_t, std::int64_t>{INT8_MIN, INT8_MAX}
                          : d == DType::i16 ? std::pair<std::int64_t, std::int64_t>{INT16_MIN, INT16_MAX}
                          : d == DType::i32 ? std::pair<std::int64_t, std::int64_t>{INT32_MIN, INT32_MAX}
                          : d == DType::i64 ? std::pair<std::int64_t, std::int64_t>{INT64_MIN, INT64_MAX}
                          : d == DType::u16 ? std::pair<std::int64_t, std::int64_t>{0, UINT16_MAX}
                          : d == DType::u32 ? std::pair<std::int64_t, std::int64_t>{0, UINT32_MAX}
                          : d == DType::u64 ? std::pair<std::int64_t, std::int64_t>{0, -1}
                                            : std::pair<std::int64_t, std::int64_t>{0, UINT8_MAX};
  std::vector<std::int64_t> v{0, 1, 2, 3, 7, 100, max, max - 1};
  if (d == DType::u64) v.push_back(INT64_MIN);  // 2^63, the top bit alone
  if (min < 0)
    for (const std::int64_t x : {std::int64_t{-1}, std::int64_t{-2}, std::int64_t{-7}, std::int64_t{-100}, min})
      v.push_back(x);
  if (min < 0) v.push_back(min + 1);
  return v;
}

void set_int(const TensorView& x, std::int64_t i, std::int64_t v) {
  char* p = static_cast<char*>(x.data()) + i * static_cast<std::int64_t>(x.element_size());
  std::memcpy(p, &v, x.element_size());  // little-endian: the low bytes
}

std::string case_name(Op op, DType d) { return std::string(op_name(op)) + "_" + std::string(dtype_name(d)); }

// Where the op runs: JIT kernels on the host, the reference executor's own
// arithmetic (BCAST_JIT=0), or the Ascend-style simulator.
enum class Executor { jit, reference, ascend_sim };
constexpr const char* executor_name(Executor e) {
  return e == Executor::jit ? "jit" : e == Executor::reference ? "reference" : "ascend_sim";
}

struct OpDType {
  Op op;
  DType dtype;
  Executor executor = Executor::jit;
};
std::vector<OpDType> supported_pairs(Executor executor = Executor::jit) {
  std::vector<OpDType> pairs;
  for (const auto& [op, dtype] : test::supported_pairs()) pairs.push_back({op, dtype, executor});
  return pairs;
}

// The pairs 910b has vector instructions for (docs/ascend.md, "Ops map to
// Add Sub Mul Div Max Min And Or": the instruction table's dtypes, the
// comparisons on half and float and eq/ne on int32_t, bf16 arithmetic but
// max and min through float). Written out by hand, not asked of the
// lowering: OpExact runs each of these on the simulator and nothing else
// there, and AscendSupport checks that every other pair falls back.
bool runs_on_the_simulator(Op op, DType d) {
  using enum Op;
  const bool arithmetic = op == add || op == sub || op == mul || op == max || op == min;
  const bool compare = op == eq || op == ne || op == lt || op == le || op == gt || op == ge;
  switch (d) {
    case DType::f16: case DType::f32: return arithmetic || op == div || compare;
    case DType::bf16: return op == add || op == sub || op == mul || op == div;
    case DType::i16: return arithmetic || op == bit_and || op == bit_or;
    case DType::u16: return op == bit_and || op == bit_or;
    case DType::i32: return arithmetic || op == eq || op == ne;
    default: return false;
  }
}
std::vector<OpDType> simulator_pairs() {
  std::vector<OpDType> pairs;
  for (const auto& [op, dtype] : test::supported_pairs())
    if (runs_on_the_simulator(op, dtype)) pairs.push_back({op, dtype, Executor::ascend_sim});
  return pairs;
}

// Every pair on the JIT and on the reference executor; on ascend-sim, the
// pairs its product runs (a pair that falls back to the host is not a
// simulator case: AscendSupport checks those fall back with their reason).
std::vector<OpDType> every_pair_on_every_executor() {
  std::vector<OpDType> all;
  for (const Executor e : {Executor::jit, Executor::reference})
    for (const OpDType& p : supported_pairs(e)) all.push_back(p);
  for (const OpDType& p : simulator_pairs()) all.push_back(p);
  return all;
}

void PrintTo(const OpDType& p, std::ostream* os) {
  *os << case_name(p.op, p.dtype) << "_" << executor_name(p.executor);
}

// binary(op, a, b) into an output that starts as the sentinel, so that an
// element the executor never writes cannot pass for a 0 result.
Tensor run_into_sentinel(Op op, const Tensor& a, const Tensor& b) {
  Tensor out(result_dtype(op, a.dtype()), broadcast_infer_shape(a.shape(), b.shape()));
  test::fill_sentinel(out);
  binary(op, a, b, out);
  return out;
}

// Routes calls to one executor for a test, and checks afterwards that they
// really ran there (a silent fallback would test another executor). Cases
// on ascend-sim run on 910b, the product with the most instructions.
class OnExecutor {
 public:
  explicit OnExecutor(Executor e)
      : executor_(e),
        jit_("BCAST_JIT", e == Executor::reference ? "0" : "1"),
        target_("BCAST_TARGET", e == Executor::ascend_sim ? "ascend-sim" : "host"),
        product_("BCAST_ASCEND_PRODUCT", "910b"),
        failures_(kernel_cache_stats().failures) {}
  void expect_ran_there() const {
    EXPECT_EQ(kernel_cache_stats().failures, failures_) << "a kernel failed to compile";
    if (executor_ == Executor::ascend_sim) {
      const AscendTrace trace = last_ascend_trace();
      EXPECT_EQ(trace.fallback, "") << "the call fell back to the host";
      EXPECT_NE(trace.kernel.find(".ascend-sim-910b."), std::string::npos)
          << "the call did not reach the simulator: '" << trace.kernel << "'";
    }
  }

 private:
  Executor executor_;
  test::ScopedSetting jit_, target_, product_;
  std::uint64_t failures_;
};

// A broadcast operand made dense: the simulator's comparisons take no row
// or column input (docs/ascend.md), so its cases get the same elements as
// whole [n, n] tensors.
Tensor dense(const Tensor& x, const Shape& shape) {
  Tensor d(x.dtype(), shape);
  x.copy_to(d);
  return d;
}

class OpExact : public ::testing::TestWithParam<OpDType> {};

TEST_P(OpExact, MatchesExpectation) {
  const auto [op, dtype, executor] = GetParam();
  const OnExecutor on(executor);
  const DType out_dtype = result_dtype(op, dtype);
  if (is_integer(dtype)) {
    // Every pair of inputs, as an outer product [n,1] op [1,n].
    const std::vector<std::int64_t> in = integer_inputs(dtype);
    const auto n = static_cast<std::int64_t>(in.size());
    Tensor a(dtype, {n, 1}), b(dtype, {1, n});
    for (std::int64_t i = 0; i < n; ++i) set_int(a, i, in[i]), set_int(b, i, in[i]);
    if (executor == Executor::ascend_sim) a = dense(a, {n, n}), b = dense(b, {n, n});
    if (op == Op::pow && !is_unsigned(dtype)) {
      // NOTE: [Negative integer exponents]: refused as NumPy refuses it; the
      // other pairs are computed once b's negatives are made non-negative.
      EXPECT_THROW(run_into_sentinel(op, a, b), Error) << case_name(op, dtype);
      test::keep_in_domain(op, b);
    }
    const Tensor out = run_into_sentinel(op, a, b);
    on.expect_ran_there();
    ASSERT_EQ(out.dtype(), out_dtype);
    // NumPy's integer semantics, computed exactly in 128 bits by the oracle
    // (wrapping add/sub/mul, floor division with x // 0 == 0, MIN // -1 ==
    // MIN, two's-complement bits; Oracle.IntegersFollowNumPy checks those).
    ASSERT_EQ(test::oracle_mismatch(op, a, b, out), "") << case_name(op, dtype);
    return;
  }
  const bool boolean = dtype == DType::boolean;
  const auto& inputs = boolean ? kBoolInputs : kFloatInputs;
  const auto& table = boolean ? kBoolExpected : kFloatExpected;
  const auto it = table.find(op);
  const auto n = static_cast<std::int64_t>(inputs.size());
  Tensor a(dtype, {n}), b(dtype, {n});
  for (std::int64_t i = 0; i < n; ++i) test::set(a, i, inputs[i].first), test::set(b, i, inputs[i].second);
  const Tensor out = run_into_sentinel(op, a, b);
  on.expect_ran_there();
  ASSERT_EQ(out.dtype(), out_dtype);
  if (it == table.end()) {
    ASSERT_TRUE(is_floating(dtype)) << "no expectation table for " << case_name(op, dtype);
    ASSERT_EQ(test::oracle_mismatch(op, a, b, out), "") << case_name(op, dtype);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const double got = test::get(out, i), want = it->second[i];
    const std::string where = case_name(op, dtype) + "(" + std::to_string(inputs[i].first) + ", " +
                              std::to_string(inputs[i].second) + ")";
    if (std::isnan(want)) {
      EXPECT_TRUE(test::quiet_nan_at(out, i)) << where << " = " << got << ", expected a quiet NaN";
    } else {
      EXPECT_EQ(got, want) << where;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << where << ": sign of zero";
    }
  }
}

// docs/semantics.md's NaN promises, bit for bit: max and min return the NaN
// input's bits (a's when both are), a signalling one included, and fmax and
// fmin the number's (a's NaN when both are NaN); pow with a signalling NaN operand
// is a quiet NaN, except on f16, whose conversion to f32 quiets the NaN
// first (so pow(1, sNaN) is 1 there); copysign works on the bits, so a
// NaN keeps its payload and quiet bit and takes b's sign bit, as NumPy's
// does; heaviside is NumPy's own NaN for a NaN a and b's bits where a is 0;
// an arithmetic op on a signalling NaN gives a quiet one.
class NaNPromise : public ::testing::TestWithParam<OpDType> {};

TEST_P(NaNPromise, QuietOrCopiedBitForBit) {
  const auto [op, dtype, executor] = GetParam();
  const OnExecutor on(executor);
  struct Bits {
    std::uint64_t one, quiet, signalling;  // 1.0, a quiet NaN and a signalling NaN, both with payloads
    std::uint64_t numpy_nan;               // positive, quiet, no payload
  };
  const Bits bits = dtype == DType::f16    ? Bits{0x3c00, 0xfe05, 0x7c05, 0x7e00}
                    : dtype == DType::bf16 ? Bits{0x3f80, 0xffc5, 0x7f85, 0x7fc0}
                    : dtype == DType::f32  ? Bits{0x3f800000, 0xffc00005, 0x7f800005, 0x7fc00000}
                                           : Bits{0x3ff0000000000000, 0xfff8000000000005, 0x7ff0000000000005,
                                                  0x7ff8000000000000};
  // a: 1, 1, qNaN, sNaN, sNaN, +0; b: qNaN, sNaN, 1, 1, qNaN, sNaN (a NaN in each pair)
  constexpr int kN = 6;
  Tensor a(dtype, {kN}), b(dtype, {kN});
  const std::uint64_t av[kN] = {bits.one, bits.one, bits.quiet, bits.signalling, bits.signalling, 0};
  const std::uint64_t bv[kN] = {bits.quiet, bits.signalling, bits.one, bits.one, bits.quiet, bits.signalling};
  const auto is_nan = [&](std::uint64_t v) { return v == bits.quiet || v == bits.signalling; };
  const std::size_t size = dtype_size(dtype);
  for (int i = 0; i < kN; ++i) {
    std::memcpy(static_cast<char*>(a.data()) + i * size, &av[i], size);
    std::memcpy(static_cast<char*>(b.data()) + i * size, &bv[i], size);
  }
  const Tensor out = run_into_sentinel(op, a, b);
  on.expect_ran_there();
  for (int i = 0; i < kN; ++i) {
    std::uint64_t got = 0;
    std::memcpy(&got, static_cast<const char*>(out.data()) + i * size, size);
    const std::string where = case_name(op, dtype) + " element " + std::to_string(i);
    if (op == Op::max || op == Op::min) {
      EXPECT_EQ(got, is_nan(av[i]) ? av[i] : bv[i]) << where << ": the NaN input's bits";
    } else if (op == Op::fmax || op == Op::fmin) {
      EXPECT_EQ(got, is_nan(bv[i]) ? av[i] : bv[i]) << where << ": the number's bits, or a's NaN";
    } else if (op == Op::copysign) {
      const std::uint64_t sign = std::uint64_t{1} << (8 * size - 1);
      EXPECT_EQ(got, (av[i] & ~sign) | (bv[i] & sign)) << where << ": a's bits with b's sign bit";
    } else if (op == Op::heaviside) {
      EXPECT_EQ(got, av[i] == 0 ? bv[i] : is_nan(av[i]) ? bits.numpy_nan : bits.one)
          << where << ": b's bits at a == 0, NumPy's NaN for a NaN a";
    } else if (op == Op::pow && dtype == DType::f16 && i == 1) {
      EXPECT_EQ(got, bits.one) << where << ": pow(1, NaN) is 1 once f16's conversion has quieted the NaN";
    } else if (op == Op::pow && i == 0) {
      EXPECT_EQ(got, bits.one) << where << ": pow(1, qNaN) is 1 (C and NumPy)";
    } else {
      EXPECT_TRUE(test::quiet_nan_at(out, i)) << where << ": 0x" << std::hex << got << " is not a quiet NaN";
    }
  }
}

// The values where float semantics get subtle, as bits: signed zeros and
// ones, a half, the extremes (largest finite, smallest subnormal), infinities,
// and quiet and signalling NaNs of both signs with payloads.
std::vector<std::uint64_t> special_bits(DType d) {
  switch (d) {
    case DType::f16: return {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x7bff, 0x0001, 0x8001,
                             0x7c00, 0xfc00, 0x7e05, 0xfe05, 0x7c05, 0xfd00};
    case DType::bf16: return {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x7f7f, 0x0001, 0x8001,
                              0x7f80, 0xff80, 0x7fc5, 0xffc5, 0x7f85, 0xffa0};
    case DType::f32: return {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3f000000, 0x7f7fffff, 0x00000001,
                             0x80000001, 0x7f800000, 0xff800000, 0x7fc00005, 0xffc00005, 0x7f800005, 0xff9c0000};
    default: return {0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
                     0x3fe0000000000000, 0x7fefffffffffffff, 0x0000000000000001, 0x8000000000000001,
                     0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000005, 0xfff8000000000005,
                     0x7ff0000000000005, 0xfff3800000000000};
  }
}

// One operand's special values: special_bits as they are, or for a complex
// dtype every pairing of its part's signed zeros, ones, infinities and NaNs.
Tensor special_values(DType dtype, std::int64_t axis) {
  const bool complex = is_complex(dtype);
  const DType part = complex ? real_part_dtype(dtype) : dtype;
  std::vector<std::uint64_t> parts = special_bits(part);
  if (complex) parts = {parts[0], parts[1], parts[2], parts[3], parts[8], parts[9], parts[10], parts[12]};
  const std::size_t k = parts.size(), size = dtype_size(part);
  const auto n = static_cast<std::int64_t>(complex ? k * k : k);
  Tensor t(dtype, axis == 0 ? Shape{n, 1} : Shape{1, n});
  auto* p = static_cast<char*>(t.data());
  for (std::int64_t i = 0; i < n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    std::memcpy(p, &parts[complex ? u / k : u], size), p += size;
    if (complex) std::memcpy(p, &parts[u % k], size), p += size;
  }
  return t;
}

// The real floats' pairs on every executor, and every op a complex dtype
// supports on the JIT and the reference executor.
std::vector<OpDType> float_cases() {
  std::vector<OpDType> cases;
  for (const OpDType& p : every_pair_on_every_executor())
    if (is_floating(p.dtype)) cases.push_back(p);
  for (const Executor e : {Executor::jit, Executor::reference})
    for (const DType d : {DType::c64, DType::c128})
      for (int o = 0; o < kNumOps; ++o)
        if (op_supports(static_cast<Op>(o), d)) cases.push_back({static_cast<Op>(o), d, e});
  return cases;
}

struct DTypeOn {
  DType dtype;
  Executor executor;
  bool operator==(const DTypeOn&) const = default;
};
void PrintTo(const DTypeOn& p, std::ostream* os) { *os << dtype_name(p.dtype) << "_" << executor_name(p.executor); }

// Every pair of special values, as an outer product [n,1] op [1,n], for
// every op of float_cases() on the dtype and executor, against the oracle
// (whose NaN rules are docs/semantics.md's, NumPy's): a signalling NaN is
// where an executor's shortcut (a select that returns an input, a round
// trip through f32) parts from NumPy.
class SpecialPairs : public ::testing::TestWithParam<DTypeOn> {};

TEST_P(SpecialPairs, EveryOpMatchesTheOracle) {
  const auto [dtype, executor] = GetParam();
  const OnExecutor on(executor);
  Tensor a = special_values(dtype, 0), b = special_values(dtype, 1);
  const std::int64_t n = a.shape()[0];
  if (executor == Executor::ascend_sim) a = dense(a, {n, n}), b = dense(b, {n, n});
  int ops = 0;
  for (const OpDType& p : float_cases()) {
    if (p.dtype != dtype || p.executor != executor) continue;
    const Tensor out = run_into_sentinel(p.op, a, b);
    on.expect_ran_there();
    EXPECT_EQ(test::oracle_mismatch(p.op, a, b, out), "") << case_name(p.op, dtype);
    ++ops;
  }
  EXPECT_GT(ops, 0);
}

std::vector<DTypeOn> float_dtypes_on_executors() {
  std::vector<DTypeOn> all;
  for (const OpDType& p : float_cases())
    if (std::find(all.begin(), all.end(), DTypeOn{p.dtype, p.executor}) == all.end()) all.push_back({p.dtype, p.executor});
  return all;
}

std::vector<OpDType> nan_cases() {
  std::vector<OpDType> cases;
  for (const OpDType& p : every_pair_on_every_executor())
    if (is_floating(p.dtype) && (p.op == Op::max || p.op == Op::min || p.op == Op::fmax || p.op == Op::fmin || p.op == Op::add ||
                                 p.op == Op::pow || p.op == Op::copysign || p.op == Op::heaviside)) cases.push_back(p);
  return cases;
}

std::string param_name(const ::testing::TestParamInfo<OpDType>& info) {
  return case_name(info.param.op, info.param.dtype) + "_" + executor_name(info.param.executor);
}

INSTANTIATE_TEST_SUITE_P(FloatsOnEveryExecutor, NaNPromise, ::testing::ValuesIn(nan_cases()), param_name);

INSTANTIATE_TEST_SUITE_P(FloatsOnEveryExecutor, SpecialPairs, ::testing::ValuesIn(float_dtypes_on_executors()),
                         [](const ::testing::TestParamInfo<DTypeOn>& p) { return ::testing::PrintToString(p.param); });

INSTANTIATE_TEST_SUITE_P(AllOpsAllDTypes, OpExact, ::testing::ValuesIn(every_pair_on_every_executor()), param_name);

// The other half of runs_on_the_simulator's table: every pair outside it
// falls back on 910b, naming the product, with the oracle's result; so the
// table neither misses a pair the simulator runs nor lists one it cannot.
TEST(AscendSupport, EveryPairOutsideTheSimulatorTableFallsBackNamingTheProduct) {
  const test::ScopedSetting target("BCAST_TARGET", "ascend-sim"), product("BCAST_ASCEND_PRODUCT", "910b");
  std::mt19937_64 rng(28);
  for (const auto& [op, dtype] : test::supported_pairs()) {
    if (runs_on_the_simulator(op, dtype)) continue;
    Tensor a(dtype, {4, 8}), b(dtype, {4, 8});
    test::fill_random(a, rng);
    test::fill_random(b, rng);
    test::keep_in_domain(op, b);
    const Tensor out = run_into_sentinel(op, a, b);
    const AscendTrace trace = last_ascend_trace();
    EXPECT_TRUE(trace.fallback.starts_with("910b: ")) << case_name(op, dtype) << ": '" << trace.fallback << "'";
    EXPECT_EQ(trace.kernel, "") << case_name(op, dtype);
    EXPECT_EQ(test::oracle_mismatch(op, a, b, out), "") << case_name(op, dtype);
  }
}

TEST(OpSupport, UndefinedPairsAreRefusedWithADTypeError) {
  const std::vector<OpDType> refused{{Op::sub, DType::boolean},   {Op::bit_and, DType::f32}, {Op::bit_xor, DType::f16},
                                     {Op::bit_or, DType::f64},    {Op::gcd, DType::f32},     {Op::gcd, DType::boolean},
                                     {Op::lcm, DType::f64},       {Op::left_shift, DType::f32}, {Op::right_shift, DType::bf16},
                                     {Op::ldexp, DType::f32}};
  for (const auto& [op, dtype, executor] : refused) {
    EXPECT_FALSE(op_supports(op, dtype)) << case_name(op, dtype);
    Tensor a(dtype, {2}), b(dtype, {2});
    try {
      binary(op, a, b);
      ADD_FAILURE() << case_name(op, dtype) << " ran";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::dtype);
      EXPECT_THAT(std::string(e.what()), ::testing::StartsWith(std::string(op_name(op)) + ": not defined"));
      EXPECT_THAT(std::string(e.what()), ::testing::HasSubstr(std::string(dtype_name(dtype))));
    }
  }
  // The table's pairs are the oracle's, which it writes from NumPy's loops
  // (tests/oracle_expr.cpp): a call is defined on every dtype that has a loop
  // or casts to one (ldexp's exponent is never a float), and a binary kernel
  // exists where the loop is the dtype's own.
  std::size_t defined = 0, numpy_defined = 0, numpy_kernels = 0;
  for (int o = 0; o < kNumOps; ++o)
    for (int d = 0; d < kNumDTypes; ++d) {
      const auto op = static_cast<Op>(o);
      const auto dtype = static_cast<DType>(d);
      const std::optional<DType> loop = test::oracle_loop(op, dtype);
      const bool exponent = op == Op::ldexp;
      numpy_defined += loop && !(exponent && is_floating(dtype));
      // complex calls, and complex(a, b), run as expressions
      numpy_kernels += loop == dtype && !exponent && !is_complex(dtype) && !is_complex(test::oracle_result(op, dtype));
      defined += op_supports(op, dtype);
      if (op_supports(op, dtype) && loop) {
        EXPECT_EQ(result_dtype(op, dtype), test::oracle_result(op, *loop)) << case_name(op, dtype);
      }
    }
  EXPECT_EQ(defined, numpy_defined);
  EXPECT_EQ(supported_pairs().size(), numpy_kernels);
  EXPECT_EQ(result_dtype(Op::arctan2, DType::i8), DType::f16);
  EXPECT_EQ(result_dtype(Op::arctan2, DType::i32), DType::f64);
  EXPECT_EQ(result_dtype(Op::gcd, DType::u16), DType::u16);
  EXPECT_EQ(result_dtype(Op::left_shift, DType::boolean), DType::i8);
}

TEST(OpSemantics, NumPyDocumentedSpotChecks) {
  auto one = [](Op op, DType d, double x, double y) {
    return test::get(binary(op, test::make(d, {}, {x}), test::make(d, {}, {y})), 0);
  };
  EXPECT_EQ(one(Op::add, DType::i8, 127, 1), -128);   // wraps
  EXPECT_EQ(one(Op::sub, DType::u8, 0, 1), 255);
  EXPECT_EQ(one(Op::mul, DType::i16, 300, 300), 24464);
  EXPECT_EQ(one(Op::floor_div, DType::i32, -7, 2), -4);     // floor, not truncation
  EXPECT_EQ(one(Op::floor_div, DType::i32, 7, -2), -4);
  EXPECT_EQ(one(Op::floor_div, DType::i8, -128, -1), -128); // MIN // -1 wraps
  EXPECT_EQ(one(Op::floor_div, DType::i64, 5, 0), 0);       // x // 0 == 0
  EXPECT_EQ(one(Op::floor_div, DType::u8, 5, 0), 0);
  // div is true division, as NumPy's `/` (a change from bcast 0.x, where
  // div on integers was floor division): integers give f64.
  EXPECT_EQ(one(Op::div, DType::i32, -7, 2), -3.5);
  EXPECT_EQ(binary(Op::div, test::make(DType::i8, {}, {1}), test::make(DType::i8, {}, {3})).dtype(), DType::f64);
  EXPECT_EQ(one(Op::div, DType::i64, 5, 0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(one(Op::floor_div, DType::f64, 7, -0.5), -14);
  EXPECT_EQ(std::signbit(one(Op::floor_div, DType::f32, -0.0, 3)), true);  // a zero carries a / b's sign
  EXPECT_EQ(one(Op::add, DType::f16, 2048, 1), 2048); // 2049 ties to even in f16
  EXPECT_EQ(one(Op::add, DType::f16, 2048, 3), 2052); // 2051 ties to even (up)
  EXPECT_EQ(one(Op::add, DType::bf16, 256, 1), 256);  // 257 ties to even in bf16
  EXPECT_TRUE(std::isnan(one(Op::max, DType::f32, nan_, 1)));
  EXPECT_TRUE(std::isnan(one(Op::min, DType::f64, 1, nan_)));
}

}  // namespace
}  // namespace bcast
