// The library that computes the function table's `math` functions (exp, tan,
// atan2, ...) for the reference evaluator and for the JIT's kernels.
// LLVM-free.
#pragma once

#include <string>
#include <string_view>

namespace bcast::math {

// NOTE: [Vector math] Kernels call SLEEF 3.5's 1-ULP ("u10"; hypot: u05)
// functions: the vector ones of libsleefgnuabi (_ZGVeN16v_expf: AVX-512,
// 16 floats), which LLVM's loop vectoriser calls in place of a scalar call
// that names them (jit/ir/math_calls.cpp), and for a loop's remainder, and for
// the reference evaluator, the scalar ones of libsleef (Sleef_expf1_u10purecfma).
// SLEEF's builds with FMA (the AVX2 and AVX-512 ones) give the bits of its
// scalar "purecfma" function, the builds without (SSE2, AVX) those of its
// "purec" one, so that the JIT, its remainder loop and the reference agree
// bit for bit; one flavour is chosen per process, by the host's FMA, and a
// kernel calls only the vector builds of that flavour. Their NaNs differ
// (sign and payload), which NOTE: [Math guards]'s NaN rule evens out; on
// 2026-12-02 sin, cos, tan, exp, log, tanh, asinh, expm1, log1p and cbrt
// gave the same bits in a kernel and in the reference on 300,000 random
// arguments each (f32 and f64, up to 1e30 and random bits), and the tests
// that compare the two tiers bit for bit would show a difference. One
// exception, found 2026-12-03: SLEEF's vector f64 tan (and, rarely, cos)
// takes a slower reduction for the whole vector when one lane's argument
// is huge (1e300), and the other lanes may then round an ULP away from the
// scalar function (312 of 700,000 small arguments beside huge ones, each
// within 1 ULP): the tiers agree within the function's bound there, which
// the issue allows; the bit-for-bit tests keep huge arguments apart.
// SLEEF u10 was the only library measured within 1 ULP on every function
// (branch vm30, bench/vector_math/README.md; speed: tools/bcast-bench-functions.py).
// Without SLEEF (not found at configure time, not loadable now, or a host
// that is not x86-64) every call is the C library's, as before.
enum class Flavour { libm, sleef_purec, sleef_purecfma };

struct Library {
  Flavour flavour = Flavour::libm;
  void* scalar = nullptr;  // dlopen handle of libsleef, or null
  void* vector = nullptr;  // dlopen handle of libsleefgnuabi, or null
  std::string why_libm;    // when flavour is libm: why SLEEF is not used
};

// Whether the host's CPU has fused multiply-add (x86-64's FMA3).
bool host_has_fma();

// Loaded once per process.
const Library& library();

// The scalar symbol that computes the row's `math` function `name` ("exp")
// in f32 or f64: "Sleef_expf1_u10purecfma", or the C library's "expf".
std::string scalar_symbol(std::string_view name, bool f64);

// The gnuabi vector symbol of `name` for ISA letter `isa` (b, c, d, e) and
// `lanes` lanes: "_ZGVeN16v_expf"; "" when the loaded library lacks it.
std::string vector_symbol(std::string_view name, bool f64, char isa, int lanes, int arity);

// The address of a symbol of the chosen library (scalar or vector), or null.
void* address_of(const std::string& symbol);

// The scalar function `name` in the precision of T, for the reference
// evaluator: a pointer looked up once per call site.
template <class T>
using Unary = T (*)(T);
template <class T>
using Binary = T (*)(T, T);
template <class T>
Unary<T> unary(std::string_view name) {
  return reinterpret_cast<Unary<T>>(address_of(scalar_symbol(name, sizeof(T) == 8)));
}
template <class T>
Binary<T> binary(std::string_view name) {
  return reinterpret_cast<Binary<T>>(address_of(scalar_symbol(name, sizeof(T) == 8)));
}

}  // namespace bcast::math
