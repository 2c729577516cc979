// NOTE: [Complex math]'s recipes on the reference evaluator's doubles, with
// every step rounded as the kernels round it (built with -ffp-contract=off).
#include "complex_math.h"
#include "complex_ops.h"
#include "scalar_ops.h"

namespace bcast::detail::complex_ops {
namespace {

// The real functions as the reference evaluator computes them.
struct ReferenceReal {
  static double cos(double x) { return math_function<UnaryOp::cos>(x); }
  static double sin(double x) { return math_function<UnaryOp::sin>(x); }
  static double sinh(double x) { return math_function<UnaryOp::sinh>(x); }
  static double cosh(double x) { return math_function<UnaryOp::cosh>(x); }
  static double log(double x) { return math_function<UnaryOp::log>(x); }
  static double log1p(double x) { return math_function<UnaryOp::log1p>(x); }
  static double exp(double x) { return math_function<UnaryOp::exp>(x); }
  static double expm1(double x) { return math_function<UnaryOp::expm1>(x); }
  static double asin(double x) { return math_function<UnaryOp::arcsin>(x); }
  static double acos(double x) { return math_function<UnaryOp::arccos>(x); }
  static double atan(double x) { return math_function<UnaryOp::arctan>(x); }
  static double atan2(double y, double x) { return math_function<Op::arctan2>(y, x); }
  static double hypot(double x, double y) { return math_function<Op::hypot>(x, y); }
};

}  // namespace

template <UnaryOp U>
C<double> recipe(C<double> z) {
  const auto r = math::recipes::run_complex<U, ReferenceReal>(math::recipes::Parts<double>{z.real(), z.imag()});
  return {r.re, r.im};
}

C<double> power_recipe(C<double> z, C<double> w) {
  const auto r = math::recipes::power<ReferenceReal>(math::recipes::Parts<double>{z.real(), z.imag()},
                                                     math::recipes::Parts<double>{w.real(), w.imag()});
  return {r.re, r.im};
}

template C<double> recipe<UnaryOp::exp>(C<double>);
template C<double> recipe<UnaryOp::exp2>(C<double>);
template C<double> recipe<UnaryOp::log>(C<double>);
template C<double> recipe<UnaryOp::log2>(C<double>);
template C<double> recipe<UnaryOp::log10>(C<double>);
template C<double> recipe<UnaryOp::sqrt>(C<double>);
template C<double> recipe<UnaryOp::sin>(C<double>);
template C<double> recipe<UnaryOp::cos>(C<double>);
template C<double> recipe<UnaryOp::sinh>(C<double>);
template C<double> recipe<UnaryOp::cosh>(C<double>);
template C<double> recipe<UnaryOp::tan>(C<double>);
template C<double> recipe<UnaryOp::tanh>(C<double>);
template C<double> recipe<UnaryOp::log1p>(C<double>);
template C<double> recipe<UnaryOp::expm1>(C<double>);
template C<double> recipe<UnaryOp::arcsin>(C<double>);
template C<double> recipe<UnaryOp::arccos>(C<double>);
template C<double> recipe<UnaryOp::arctan>(C<double>);
template C<double> recipe<UnaryOp::arcsinh>(C<double>);
template C<double> recipe<UnaryOp::arccosh>(C<double>);
template C<double> recipe<UnaryOp::arctanh>(C<double>);

}  // namespace bcast::detail::complex_ops
