// NOTE: [Complex math]'s recipes on the reference evaluator's doubles, with
// every step rounded as the kernels round it (built with -ffp-contract=off).
#include <cmath>

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
  template <UnaryOp U>
  static double beyond(double x, double limit, double main) {
    return std::fabs(x) <= limit ? main : math_function<U>(x);
  }
};
using R = math::recipes::Real<ReferenceTier>;
using RPairs = math::recipes::RealPairs<ReferenceTier>;  // a c128's (NOTE: [Two-part math])

math::recipes::Parts<double> parts_of(C<double> z) { return {z.real(), z.imag()}; }
C<double> complex_of(math::recipes::Parts<double> r) { return {r.re, r.im}; }

}  // namespace

template <UnaryOp U>
C<double> recipe(C<double> z, bool c128) {
  return complex_of(c128 ? math::recipes::run_complex<U, RPairs>(parts_of(z))
                         : math::recipes::run_complex<U, R>(parts_of(z)));
}

C<double> power_recipe(C<double> z, C<double> w, bool c128) {
  return complex_of(c128 ? math::recipes::power<RPairs>(parts_of(z), parts_of(w))
                         : math::recipes::power<R>(parts_of(z), parts_of(w)));
}

#define BCAST_INSTANTIATE(name) template C<double> recipe<UnaryOp::name>(C<double>, bool);
BCAST_FOR_EACH_COMPLEX_RECIPE(BCAST_INSTANTIATE)
#undef BCAST_INSTANTIATE

}  // namespace bcast::detail::complex_ops
