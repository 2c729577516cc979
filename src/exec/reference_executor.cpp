// The reference executor: one template loop nest, instantiated per (op, dtype).
#include "reference_executor.h"

#include "broadcast_plan.h"
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

// NOTE: [Kernel ABI] (kernel_abi.h). The outer levels run as an odometer: each
// step adds the level's strides; a level that wraps subtracts its span and carries.
template <Op O, DType D>
struct Nest {
  using F = ScalarOp<O, D>;
  using In = typename detail::Element<D>::storage;
  using Out = typename F::Out::storage;

  static void run(const KernelArgs* args) {
    auto* out = static_cast<Out*>(args->data[kOut]);
    const auto* a = static_cast<const In*>(args->data[kA]);
    const auto* b = static_cast<const In*>(args->data[kB]);
    const std::int64_t rank = args->rank;
    if (rank == 0) {  // a scalar: one element
      if (args->count > 0) *out = F::run(*a, *b);
      return;
    }
    const std::int64_t inner = rank - 1;
    const std::int64_t* extents = args->extents;
    const std::int64_t* stride[kNumOperands] = {args->strides, args->strides + rank, args->strides + 2 * rank};
    const std::int64_t* span[kNumOperands] = {args->spans, args->spans + rank, args->spans + 2 * rank};
    std::int64_t* index = args->index;
    std::int64_t offset[kNumOperands] = {0, 0, 0};
    for (std::int64_t it = 0; it < args->count; ++it) {
      inner_loop<F>(extents[inner], out + offset[kOut], stride[kOut][inner], a + offset[kA], stride[kA][inner],
                    b + offset[kB], stride[kB][inner]);
      for (std::int64_t l = inner - 1; l >= 0; --l) {
        if (++index[l] < extents[l]) {
          for (int k = 0; k < kNumOperands; ++k) offset[k] += stride[k][l];
          break;
        }
        index[l] = 0;
        for (int k = 0; k < kNumOperands; ++k) offset[k] -= span[k][l];
      }
    }
  }
};

constexpr auto kNests = detail::make_op_dtype_table<Nest, KernelFn>();

}  // namespace

KernelFn reference_kernel(Op op, DType dtype) { return kNests[detail::table_index(op, dtype)]; }

}  // namespace bcast
