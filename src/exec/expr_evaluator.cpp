// The reference evaluator: per node, per block, in the reference executor's
// style (an additive-offset odometer over the outer levels).
#include "expr_evaluator.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "broadcast_plan.h"
#include "node_ops.h"
#include "scalar_ops.h"

namespace bcast {
namespace {

using detail::Element;

constexpr std::int64_t kBlock = 256;  // elements per node step: the buffers stay in L1
constexpr std::size_t kSlot = 16;     // bytes of the widest element (c128)

template <Op O, DType D>
struct BinaryStep {
  static void run(std::int64_t n, void* out, const void* const* args) {
    using F = detail::ScalarOp<O, D>;
    auto* o = static_cast<typename F::Out::storage*>(out);
    const auto* a = static_cast<const typename F::In::storage*>(args[0]);
    const auto* b = static_cast<const typename F::Second::storage*>(args[1]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::run(a[i], b[i]);
  }
};

template <UnaryOp U, DType D>
struct UnaryStep {
  static void run(std::int64_t n, void* out, const void* const* args) {
    using F = detail::UnaryElement<U, D>;
    auto* o = static_cast<typename F::Out::storage*>(out);
    const auto* x = static_cast<const typename F::In::storage*>(args[0]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::run(x[i]);
  }
};

template <DType From, DType To>
struct CastStep {
  static void run(std::int64_t n, void* out, const void* const* args) {
    using F = detail::CastElement<From, To>;
    auto* o = static_cast<typename F::Out::storage*>(out);
    const auto* x = static_cast<const typename F::In::storage*>(args[0]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::run(x[i]);
  }
};

template <TernaryOp T, DType D>
struct TernaryStep {
  static void run(std::int64_t n, void* out, const void* const* args) {
    using F = detail::TernaryElement<T, D>;
    auto* o = static_cast<typename Element<D>::storage*>(out);
    const auto* a = static_cast<const typename F::First*>(args[0]);
    const auto* b = static_cast<const typename Element<D>::storage*>(args[1]);
    const auto* c = static_cast<const typename Element<D>::storage*>(args[2]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::run(a[i], b[i], c[i]);
  }
};

// ---- tables: every (node, dtype) that exists, nullptr elsewhere ----

template <std::size_t N, class Make, std::size_t... I>
constexpr std::array<BlockStep, N> table(Make make, std::index_sequence<I...>) {
  return {make.template operator()<I>()...};
}

constexpr auto kBinarySteps = detail::make_op_dtype_table<BinaryStep, BlockStep, /*Exponents=*/true>();

constexpr auto kUnarySteps = [] {
  constexpr auto make = []<std::size_t J>() -> BlockStep {
    constexpr auto op = static_cast<UnaryOp>(J / kNumDTypes);
    constexpr auto d = static_cast<DType>(J % kNumDTypes);
    if constexpr (detail::has_loop(detail::row(op), d)) return &UnaryStep<op, d>::run;
    else return nullptr;
  };
  return table<kNumUnaryOps * kNumDTypes>(make, std::make_index_sequence<kNumUnaryOps * kNumDTypes>());
}();

constexpr auto kCastSteps = [] {
  constexpr auto make = []<std::size_t J>() -> BlockStep {
    return &CastStep<static_cast<DType>(J / kNumDTypes), static_cast<DType>(J % kNumDTypes)>::run;
  };
  return table<kNumDTypes * kNumDTypes>(make, std::make_index_sequence<kNumDTypes * kNumDTypes>());
}();

constexpr auto kTernarySteps = [] {
  constexpr auto make = []<std::size_t J>() -> BlockStep {
    constexpr auto op = static_cast<TernaryOp>(J / kNumDTypes);
    constexpr auto d = static_cast<DType>(J % kNumDTypes);
    if constexpr (detail::has_loop(detail::row(op), d)) return &TernaryStep<op, d>::run;
    else return nullptr;
  };
  return table<kNumTernaryOps * kNumDTypes>(make, std::make_index_sequence<kNumTernaryOps * kNumDTypes>());
}();

BlockStep step_of(const ExprInstr& s) {
  const auto in = static_cast<std::size_t>(s.in);
  switch (s.kind) {
    case InstrKind::binary: return kBinarySteps[detail::table_index(static_cast<Op>(s.code), s.in)];
    case InstrKind::unary: return kUnarySteps[s.code * kNumDTypes + in];
    case InstrKind::cast: return kCastSteps[in * kNumDTypes + static_cast<std::size_t>(s.out)];
    case InstrKind::ternary: return kTernarySteps[s.code * kNumDTypes + in];
  }
  return nullptr;
}

}  // namespace

ExprEvaluator::ExprEvaluator(ExprProgram program) : program_(std::move(program)) {
  for (const ExprInstr& s : program_.code) steps_.push_back(step_of(s));  // lowering admits only existing ones
}

void ExprEvaluator::kernel(const KernelArgs* args) {
  const auto* frame = static_cast<const Frame*>(args->context);
  frame->evaluator->run(*args, frame->scalars);
}

// One row of n elements: inputs gathered into blocks, scalars repeated,
// every node a block at a time, the result scattered to out.
void ExprEvaluator::run_row(std::int64_t n, void* const* row, const std::int64_t* inner_stride, const void* scalars,
                            std::vector<std::uint64_t>& buffers) const {
  const int inputs = static_cast<int>(program_.inputs.size());
  auto buffer = [&](int v) { return reinterpret_cast<char*>(buffers.data()) + static_cast<std::size_t>(v) * kBlock * kSlot; };
  for (std::int64_t start = 0; start < n; start += kBlock) {
    const std::int64_t m = std::min(kBlock, n - start);
    for (int k = 0; k < inputs; ++k) {
      const std::size_t size = dtype_size(program_.inputs[k]);
      const char* from = static_cast<const char*>(row[1 + k]) + start * inner_stride[1 + k] * static_cast<std::int64_t>(size);
      for (std::int64_t i = 0; i < m; ++i) std::memcpy(buffer(k) + i * size, from + i * inner_stride[1 + k] * static_cast<std::int64_t>(size), size);
    }
    for (std::size_t j = 0; j < program_.scalars.size(); ++j) {
      const std::size_t size = dtype_size(program_.scalars[j]);
      const char* value = static_cast<const char*>(scalars) + j * kScalarSlotBytes;
      char* to = buffer(program_.first_scalar() + static_cast<int>(j));
      for (std::int64_t i = 0; i < m; ++i) std::memcpy(to + i * size, value, size);
    }
    for (std::size_t s = 0; s < program_.code.size(); ++s) {
      const ExprInstr& instr = program_.code[s];
      const void* args[3] = {};
      for (int a = 0; a < instr.arity(); ++a) args[a] = buffer(instr.args[a]);
      steps_[s](m, buffer(program_.first_instr() + static_cast<int>(s)), args);
    }
    const std::size_t size = dtype_size(program_.out_dtype);
    char* to = static_cast<char*>(row[0]) + start * inner_stride[0] * static_cast<std::int64_t>(size);
    for (std::int64_t i = 0; i < m; ++i)
      std::memcpy(to + i * inner_stride[0] * static_cast<std::int64_t>(size), buffer(program_.result) + i * size, size);
  }
}

void ExprEvaluator::run(const KernelArgs& args, const void* scalars) const {
  const int operands = 1 + static_cast<int>(program_.inputs.size());
  const int values = program_.first_instr() + static_cast<int>(program_.code.size());
  std::vector<std::uint64_t> buffers(static_cast<std::size_t>(values) * kBlock * kSlot / sizeof(std::uint64_t));
  std::array<std::size_t, kMaxOperands> size{};
  size[0] = dtype_size(program_.out_dtype);
  for (int k = 1; k < operands; ++k) size[k] = dtype_size(program_.inputs[k - 1]);
  const std::int64_t rank = args.rank;
  std::array<void*, kMaxOperands> row{};
  std::array<std::int64_t, kMaxOperands> offset{}, inner{};
  if (rank == 0) {
    for (int k = 0; k < operands; ++k) row[k] = args.data[k];
    if (args.count > 0) run_row(1, row.data(), inner.data(), scalars, buffers);
    return;
  }
  const std::int64_t last = rank - 1;
  for (int k = 0; k < operands; ++k) inner[k] = args.strides[k * rank + last];
  for (std::int64_t it = 0; it < args.count; ++it) {
    for (int k = 0; k < operands; ++k)
      row[k] = static_cast<char*>(args.data[k]) + offset[k] * static_cast<std::int64_t>(size[k]);
    run_row(args.extents[last], row.data(), inner.data(), scalars, buffers);
    for (std::int64_t l = last - 1; l >= 0; --l) {  // NOTE: [Additive offsets]
      if (++args.index[l] < args.extents[l]) {
        for (int k = 0; k < operands; ++k) offset[k] += args.strides[k * rank + l];
        break;
      }
      args.index[l] = 0;
      for (int k = 0; k < operands; ++k) offset[k] -= args.spans[k * rank + l];
    }
  }
}

}  // namespace bcast
