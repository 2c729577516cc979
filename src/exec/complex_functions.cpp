// NOTE: [Complex math]'s recipes on the reference evaluator's doubles, with
// every step rounded as the kernels round it (built with -ffp-contract=off).
#include "complex_math.h"
#include "complex_ops.h"
#include "scalar_ops.h"

namespace bcast::detail::complex_ops {
namespace {

// The real functions as the reference evaluator computes them.
struct ReferenceTier {
  template <UnaryOp U>
  static double unary(double x) {
    return math_function<U>(x);
  }
  template <Op O>
  static double binary(double x, double y) {
    return math_function<O>(x, y);
  }
};
using R = math::recipes::Real<ReferenceTier>;

}  // namespace

template <UnaryOp U>
C<double> recipe(C<double> z) {
  const auto r = math::recipes::run_complex<U, R>(math::recipes::Parts<double>{z.real(), z.imag()});
  return {r.re, r.im};
}

C<double> power_recipe(C<double> z, C<double> w) {
  const auto r = math::recipes::power<R>(math::recipes::Parts<double>{z.real(), z.imag()},
                                                     math::recipes::Parts<double>{w.real(), w.imag()});
  return {r.re, r.im};
}

#define BCAST_INSTANTIATE(name) template C<double> recipe<UnaryOp::name>(C<double>);
BCAST_FOR_EACH_COMPLEX_RECIPE(BCAST_INSTANTIATE)
#undef BCAST_INSTANTIATE

}  // namespace bcast::detail::complex_ops
