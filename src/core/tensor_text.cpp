// A view as text, as NumPy's repr lays it out (TensorView::to_string).
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <string>

#include "bcast/tensor.h"
#include "half.h"

namespace bcast {
namespace {

// Above this many elements, each level shows its first and last kEdge items.
constexpr std::int64_t kSummariseAbove = 1000;
constexpr std::int64_t kEdge = 3;

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A float in its shortest round-trip form; NaN of either sign is "nan", as
// NumPy prints it (fmt would write "-nan" for a NaN with its sign bit set).
template <class F>
std::string float_text(F v) {
  return std::isnan(v) ? "nan" : fmt::format("{}", v);
}

// A complex number as Python writes one, without the parentheses: 1-2.5j, nan+infj.
template <class F>
std::string complex_text(F re, F im) {
  const bool minus = !std::isnan(im) && std::signbit(im);
  return float_text(re) + (minus ? "-" : "+") + float_text(minus ? -im : im) + "j";
}

// One element: integers as integers, floats as float_text, bools as NumPy's
// True and False, complex numbers as complex_text.
std::string element_text(DType dtype, const char* p) {
  switch (dtype) {
    case DType::f16: return float_text(f16_to_f32(load<std::uint16_t>(p)));
    case DType::bf16: return float_text(bf16_to_f32(load<std::uint16_t>(p)));
    case DType::f32: return float_text(load<float>(p));
    case DType::f64: return float_text(load<double>(p));
    case DType::i8: return fmt::format("{}", load<std::int8_t>(p));
    case DType::i16: return fmt::format("{}", load<std::int16_t>(p));
    case DType::i32: return fmt::format("{}", load<std::int32_t>(p));
    case DType::i64: return fmt::format("{}", load<std::int64_t>(p));
    case DType::u8: return fmt::format("{}", load<std::uint8_t>(p));
    case DType::u16: return fmt::format("{}", load<std::uint16_t>(p));
    case DType::u32: return fmt::format("{}", load<std::uint32_t>(p));
    case DType::u64: return fmt::format("{}", load<std::uint64_t>(p));
    case DType::boolean: return load<std::uint8_t>(p) != 0 ? "True" : "False";
    case DType::c64: return complex_text(load<float>(p), load<float>(p + 4));
    case DType::c128: return complex_text(load<double>(p), load<double>(p + 8));
  }
  return "?";
}

// Level `level` of the view from the element at `p`, nested in brackets.
void append_level(const TensorView& x, int level, const char* p, bool summarise, std::string& out) {
  if (level == x.rank()) {
    out += element_text(x.dtype(), p);
    return;
  }
  const std::int64_t n = x.shape()[level];
  const std::int64_t step = x.strides()[level] * static_cast<std::int64_t>(x.element_size());
  out += '[';
  for (std::int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdge && i == kEdge) {
      out += "..., ";
      i = n - kEdge;
    }
    append_level(x, level + 1, p + i * step, summarise, out);
    if (i + 1 < n) out += ", ";
  }
  out += ']';
}

}  // namespace

std::string TensorView::to_string() const {
  std::string out = fmt::format("{}{} ", dtype_name(dtype()), bcast::to_string(shape()));
  if (numel() > 0 && data_ == nullptr) return out + "(no data)";
  append_level(*this, 0, static_cast<const char*>(data_), numel() > kSummariseAbove, out);
  return out;
}

}  // namespace bcast
