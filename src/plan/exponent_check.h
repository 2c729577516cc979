// NOTE: [Negative integer exponents] NumPy's integer power refuses a negative
// exponent ("Integers to negative integer powers are not allowed", a
// ValueError): 2 ** -1 has no integer value. bcast refuses it too, before
// anything is written, as an Error(value) naming the exponent and the first
// negative value:
//   - a scalar exponent (x ** -1) when the call is built;
//   - an exponent tensor (x ** y, an operand of a call, prepared or not) on
//     every run whose output has elements, by reading it: the one pass over
//     data that a call makes before computing, and only for pow on signed
//     integers.
//   - an exponent computed inside an expression (x ** (y - 2)) on every
//     run, by computing it first (the reference evaluator over the call's
//     shape, src/api/expr_call.cpp) and reading that: a second pass, paid
//     only by expressions that hold such a power.
// The kernels' own rule (1 ** -n is 1, (-1) ** -n is +-1, anything else 0,
// as C's integer division would give) is then never reached through the
// API; it stays defined for the kernels' tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "bcast/ops.h"
#include "bcast/tensor.h"

namespace bcast {

// Whether op computed in `loop` is NumPy's integer power with a signed
// exponent, which may be negative.
bool checks_exponents(Op op, DType loop);

// The first negative element of x in C order, with its index; none when x's
// dtype is not a signed integer or no element is negative.
struct NegativeElement {
  std::int64_t index, value;
};
std::optional<NegativeElement> first_negative(const TensorView& x);

// "<subject>: the exponent <name> has the negative value -3 (at index 5): ..."
[[noreturn]] void fail_negative_exponent(std::string_view subject, std::string_view name, NegativeElement at);
// For a scalar exponent.
[[noreturn]] void fail_negative_exponent(std::string_view subject, std::string_view name);

// The binary call's check: b, op's exponent, read when op checks exponents
// and the output has elements (NumPy's loop refuses only what it computes:
// an empty result raises nothing).
void check_exponent_data(Op op, const TensorView& b, std::int64_t out_elements);

}  // namespace bcast
