// Fuzz target: expressions. Any text is either an Error naming what is wrong
// (a syntax error's position, an unknown name, a dtype an op does not
// define, a scalar out of range, NOTE: [Expression limits]) in printable
// ASCII, or an expression whose JIT kernel and reference evaluator give the
// same bits (a NaN matching any NaN). Texts past 256 bytes (deep nesting,
// long chains) are parsed and described only: compiling each would starve
// the search. Operands: x f32 [3,4], y i8 [4], z u8 [3,1] (values small and
// varied), w f16 [2], v c64 [4].
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bcast/bcast.h"
#include "error_messages.h"
#include "test_support.h"

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "%s (expression '%s')\n", what.c_str(), bcast::detail::printable(text).c_str());
  std::abort();
}

struct Operands {
  bcast::Tensor x{bcast::DType::f32, {3, 4}}, y{bcast::DType::i8, {4}}, z{bcast::DType::u8, {3, 1}},
      w{bcast::DType::f16, {2}}, v{bcast::DType::c64, {4}};
  Operands() {
    std::mt19937_64 rng(5);
    for (const bcast::Tensor* t : {&x, &y, &z, &w, &v}) bcast::test::fill_random(*t, rng);
  }
};

}  // namespace

// A call's kernel is the JIT's when it returns (NOTE: [Tiers]): async, the
// first call of each key would run on the evaluator and check nothing.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  bcast::set_jit_mode(bcast::JitMode::sync);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bcast;
  static const Operands o;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Tensor jit, reference;
  try {
    const Expr e = parse_expression(text, {{"x", o.x.view()}, {"y", o.y.view()}, {"z", o.z.view()}, {"w", o.w.view()}, {"v", o.v.view()}});
    if (size > 256) {
      set_jit_enabled(false);
      (void)describe(e);
      set_jit_enabled(true);
      return 0;
    }
    jit = evaluate(e);
    set_jit_enabled(false);
    try {
      reference = evaluate(e);
    } catch (...) {
      set_jit_enabled(true);
      throw;
    }
    set_jit_enabled(true);
  } catch (const Error& e) {
    set_jit_enabled(true);
    const std::string message = e.what();
    if (message.empty()) finding("an error without a message", text);
    for (const char c : message)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
        finding("a message with a byte outside printable ASCII: " + detail::printable(message), text);
    return 0;
  }
  if (jit.dtype() != reference.dtype() || jit.shape() != reference.shape())
    finding("the JIT and the reference evaluator disagree on the result's dtype or shape", text);
  // Part by part (a complex element has two); NaNs of any payload match.
  const std::vector<std::uint8_t> a = test::bytes_of(jit), b = test::bytes_of(reference);
  const DType part = real_part_dtype(jit.dtype());
  const std::size_t n = dtype_size(part), parts = dtype_size(jit.dtype()) / n;
  for (std::size_t p = 0; p < a.size() / n; ++p) {
    if (std::memcmp(a.data() + p * n, b.data() + p * n, n) == 0) continue;
    const TensorView ja(const_cast<std::uint8_t*>(a.data() + p * n), part, Layout::contiguous({})),
        rb(const_cast<std::uint8_t*>(b.data() + p * n), part, Layout::contiguous({}));
    if (is_floating(part) && std::isnan(test::get(ja, 0)) && std::isnan(test::get(rb, 0))) continue;
    finding("element " + std::to_string(p / parts) + " differs between the JIT and the reference evaluator", text);
  }
  return 0;
}
