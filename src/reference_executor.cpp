// The reference executor: one template loop nest, instantiated per (op, dtype).
#include "reference_executor.h"

#include <vector>

#include "scalar_ops.h"

namespace bcast {
namespace {

using detail::ScalarOp;

// The innermost level. Unit and zero strides get their own loops so that the
// compiler sees plain array walks; the general loop handles any strides.
template <class F, class In, class Out>
void inner_loop(std::int64_t n, Out* out, std::int64_t so, const In* a, std::int64_t sa, const In* b,
                std::int64_t sb) {
  if (so == 1 && sa == 1 && sb == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = F::run(a[i], b[i]);
  } else if (so == 1 && sa == 0 && sb == 1) {
    const In x = *a;
    for (std::int64_t i = 0; i < n; ++i) out[i] = F::run(x, b[i]);
  } else if (so == 1 && sa == 1 && sb == 0) {
    const In y = *b;
    for (std::int64_t i = 0; i < n; ++i) out[i] = F::run(a[i], y);
  } else {
    for (std::int64_t i = 0; i < n; ++i, out += so, a += sa, b += sb) *out = F::run(*a, *b);
  }
}

// NOTE: [Additive offsets] (broadcast_plan.h). The outer levels run as an
// odometer: each step adds the level's strides; a level that wraps subtracts
// what its steps added (its span, computed once per call) and carries.
template <Op O, DType D>
struct Nest {
  using F = ScalarOp<O, D>;
  using In = typename detail::Element<D>::storage;
  using Out = typename F::Out::storage;

  static void run(const BroadcastPlan& plan, const OperandPointers& ptrs, std::int64_t begin,
                  std::int64_t end) {
    auto* out = static_cast<Out*>(ptrs.out) + plan.base[kOut];
    const auto* a = static_cast<const In*>(ptrs.a) + plan.base[kA];
    const auto* b = static_cast<const In*>(ptrs.b) + plan.base[kB];
    const int rank = plan.rank();
    if (rank == 0) {  // a scalar: one element
      if (begin < end) *out = F::run(*a, *b);
      return;
    }
    const int inner = rank - 1;
    const std::int64_t n = plan.extents[inner];
    const std::int64_t so = plan.strides[kOut][inner], sa = plan.strides[kA][inner],
                       sb = plan.strides[kB][inner];

    // Position the odometer at `begin`: the only index arithmetic, once per call.
    std::vector<std::int64_t> index(inner);
    std::array<std::int64_t, kNumOperands> offset{};
    std::vector<std::array<std::int64_t, kNumOperands>> span(inner);
    for (std::int64_t l = inner - 1, rest = begin; l >= 0; --l) {
      index[l] = rest % plan.extents[l];
      rest /= plan.extents[l];
      for (int k = 0; k < kNumOperands; ++k) {
        offset[k] += index[l] * plan.strides[k][l];
        span[l][k] = (plan.extents[l] - 1) * plan.strides[k][l];
      }
    }

    for (std::int64_t it = begin; it < end; ++it) {
      inner_loop<F>(n, out + offset[kOut], so, a + offset[kA], sa, b + offset[kB], sb);
      for (int l = inner - 1; l >= 0; --l) {
        if (++index[l] < plan.extents[l]) {
          for (int k = 0; k < kNumOperands; ++k) offset[k] += plan.strides[k][l];
          break;
        }
        index[l] = 0;
        for (int k = 0; k < kNumOperands; ++k) offset[k] -= span[l][k];
      }
    }
  }
};

using NestFn = void (*)(const BroadcastPlan&, const OperandPointers&, std::int64_t, std::int64_t);
constexpr auto kNests = detail::make_op_dtype_table<Nest, NestFn>();

}  // namespace

void run_reference(Op op, DType dtype, const BroadcastPlan& plan, const OperandPointers& ptrs,
                   std::int64_t begin, std::int64_t end) {
  kNests[detail::table_index(op, dtype)](plan, ptrs, begin, end);
}

}  // namespace bcast
