// NOTE: [Complex arithmetic] What each function computes on c64 and c128, as
// NumPy's complex loops compute it, so that the results are NumPy's bits
// where NumPy's are plain arithmetic (+ - * square conj real imag and the
// comparisons) and NumPy's special values elsewhere:
//   - a * b is the schoolbook product, without FMA and without C99 Annex G's
//     recovery of infinities (which std::complex's operator* performs);
//   - a / b and 1 / b scale by the larger part of b (Smith's method), with
//     x / 0 dividing each part by zero;
//   - ordering is lexicographic: the real parts, then the imaginary parts;
//     a NaN in either part makes the pair unordered;
//   - maximum and minimum return the first operand holding a NaN;
//     fmax and fmin the operand that holds none;
//   - abs is |z| without overflow (finite for 1e300+1e300j): in c64 the
//     parts squared and summed in f64, where nothing overflows or is
//     inexact but the sum, then one sqrt rounded to f32 (within 0.5 ULP plus
//     2^-28 ULP, and several times faster than hypot); in c128 the math
//     library's hypot, which the kernels call too (NOTE: [Vector math]);
//     an infinite part gives +inf, as hypot's, and a NaN the NaN rule's;
//   - sign is z / |z| (NumPy 2), 0 for 0, and NaN where |z| is infinite in both parts;
//   - z ** w takes NumPy's path: 1 for w == 0, exact products for small
//     integer w, exp(w log z) (the C library's cpow) otherwise, as NOTE:
//     [Complex math]'s recipe;
//   - the other functions (exp, log, sqrt, sin, ..., arctanh) are NOTE:
//     [Complex math]'s recipes, which the kernels run too, with C99 Annex
//     G's branch cuts and special values as the C library gives them.
// The evaluator runs these; the JIT's complex code is held to them.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "bcast/expr.h"
#include "bcast/ops.h"
#include "complex_math.h"
#include "math_guards.h"
#include "math_library.h"

namespace bcast::detail {

template <class T>
struct IsComplex : std::false_type {};
template <class P>
struct IsComplex<std::complex<P>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = IsComplex<T>::value;

namespace complex_ops {

template <class P>
using C = std::complex<P>;

// The product, quotient and reciprocal: complex_math.h's, which the
// kernels emit too.
template <class P>
math::recipes::Parts<P> parts(C<P> x) {
  return {x.real(), x.imag()};
}
template <class P>
C<P> mul(C<P> a, C<P> b) {
  const math::recipes::Parts<P> r = math::recipes::mul(parts(a), parts(b));
  return {r.re, r.im};
}
template <class P>
C<P> div(C<P> a, C<P> b) {
  const math::recipes::Parts<P> r = math::recipes::div(parts(a), parts(b));
  return {r.re, r.im};
}
template <class P>
C<P> reciprocal(C<P> x) {
  const math::recipes::Parts<P> r = math::recipes::reciprocal(parts(x));
  return {r.re, r.im};
}

// Lexicographic order; `strict` for < and >, `greater` for > and >=.
template <bool greater, bool strict, class P>
bool ordered(C<P> a, C<P> b) {
  const P ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const bool first = greater ? ar > br : ar < br;
  const bool second = strict ? (greater ? ai > bi : ai < bi) : (greater ? ai >= bi : ai <= bi);
  return (first && !std::isnan(ai) && !std::isnan(bi)) || (ar == br && second);
}

// |x| as the list above says; jit/ir/ir_complex.cpp emits the same steps.
template <class P>
P magnitude(C<P> x) {
  const P r = x.real(), i = x.imag();
  if constexpr (std::is_same_v<P, float>) {
    if (std::isinf(r) || std::isinf(i)) return std::numeric_limits<float>::infinity();
    const double wide_r = r, wide_i = i;
    const auto m = static_cast<float>(std::sqrt(wide_r * wide_r + wide_i * wide_i));
    return m == m ? m : r + i;  // NOTE: [Math guards]'s NaN rule: an operand's NaN
  } else {
    static const math::Binary<P> hypot = math::binary<P>("hypot");
    return math::guarded_binary(hypot, r, i);
  }
}

template <class P>
bool has_nan(C<P> x) {
  return std::isnan(x.real()) || std::isnan(x.imag());
}
template <class P>
bool nonzero(C<P> x) {
  return x.real() != 0 || x.imag() != 0;
}

template <class P>
C<P> sign(C<P> x) {
  constexpr P kNaN = std::numeric_limits<P>::quiet_NaN();
  const P r = x.real(), i = x.imag(), m = magnitude(x);
  if (std::isnan(m)) return {kNaN, kNaN};
  if (std::isinf(m)) {
    if (std::isinf(r) && std::isinf(i)) return {kNaN, kNaN};
    if (std::isinf(r)) return {r > 0 ? P{1} : P{-1}, P{0}};
    return {P{0}, i > 0 ? P{1} : P{-1}};
  }
  if (m == 0) return {P{0}, P{0}};
  return {r / m, i / m};
}

// NOTE: [Complex math]'s recipe of U (has_complex_recipe), in f64
// (complex_functions.cpp); a c128's with its real values in pairs (NOTE:
// [Two-part math]).
template <UnaryOp U>
C<double> recipe(C<double> z, bool c128);

// NOTE: [Complex math]'s z ** w, in f64.
C<double> power_recipe(C<double> z, C<double> w, bool c128);

// Those on a c64 or c128: a c64's parts widened, and rounded back once.
template <UnaryOp U, class P>
C<P> by_recipe(C<P> x) {
  return C<P>(recipe<U>(C<double>(x), std::is_same_v<P, double>));
}
template <class P>
C<P> power(C<P> z, C<P> w) {
  return C<P>(power_recipe(C<double>(z), C<double>(w), std::is_same_v<P, double>));
}

template <UnaryOp U, class P>
auto unary(C<P> x) {
  if constexpr (U == UnaryOp::positive || U == UnaryOp::copy) return x;
  else if constexpr (U == UnaryOp::neg) return C<P>{-x.real(), -x.imag()};
  else if constexpr (U == UnaryOp::conj) return C<P>{x.real(), -x.imag()};
  else if constexpr (U == UnaryOp::real) return x.real();
  else if constexpr (U == UnaryOp::imag) return x.imag();
  else if constexpr (U == UnaryOp::abs) return magnitude(x);
  else if constexpr (U == UnaryOp::ones_like) return C<P>{P{1}, P{0}};
  else if constexpr (U == UnaryOp::square) return mul(x, x);
  else if constexpr (U == UnaryOp::reciprocal) return reciprocal(x);
  else if constexpr (U == UnaryOp::sign) return sign(x);
  else if constexpr (U == UnaryOp::round) return C<P>{std::nearbyint(x.real()), std::nearbyint(x.imag())};
  else if constexpr (U == UnaryOp::logical_not) return !nonzero(x);
  else if constexpr (U == UnaryOp::isnan) return has_nan(x);
  else if constexpr (U == UnaryOp::isinf) return std::isinf(x.real()) || std::isinf(x.imag());
  else if constexpr (U == UnaryOp::isfinite) return std::isfinite(x.real()) && std::isfinite(x.imag());
  else {
    static_assert(math::recipes::has_complex_recipe(U), "a unary op without a complex loop (NOTE: [Function table])");
    return by_recipe<U>(x);
  }
}

template <Op O, class P>
auto binary(C<P> a, C<P> b) {
  if constexpr (O == Op::add) return C<P>{a.real() + b.real(), a.imag() + b.imag()};
  else if constexpr (O == Op::sub) return C<P>{a.real() - b.real(), a.imag() - b.imag()};
  else if constexpr (O == Op::mul) return mul(a, b);
  else if constexpr (O == Op::div) return div(a, b);
  else if constexpr (O == Op::pow || O == Op::float_power) return power(a, b);
  else if constexpr (O == Op::eq) return a.real() == b.real() && a.imag() == b.imag();
  else if constexpr (O == Op::ne) return a.real() != b.real() || a.imag() != b.imag();
  else if constexpr (O == Op::lt) return ordered<false, true>(a, b);
  else if constexpr (O == Op::le) return ordered<false, false>(a, b);
  else if constexpr (O == Op::gt) return ordered<true, true>(a, b);
  else if constexpr (O == Op::ge) return ordered<true, false>(a, b);
  else if constexpr (O == Op::logical_and) return nonzero(a) && nonzero(b);
  else if constexpr (O == Op::logical_or) return nonzero(a) || nonzero(b);
  else if constexpr (O == Op::logical_xor) return nonzero(a) != nonzero(b);
  else if constexpr (O == Op::max) return has_nan(a) || ordered<true, false>(a, b) ? a : b;
  else if constexpr (O == Op::min) return has_nan(a) || ordered<false, false>(a, b) ? a : b;
  else if constexpr (O == Op::fmax) return has_nan(b) || ordered<true, false>(a, b) ? a : b;
  else {
    static_assert(O == Op::fmin, "a binary op without a complex loop (NOTE: [Function table])");
    return has_nan(b) || ordered<false, false>(a, b) ? a : b;
  }
}

}  // namespace complex_ops
}  // namespace bcast::detail
