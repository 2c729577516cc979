// bcast-run --functions (function_list.h).
#include "function_list.h"

#include <fmt/format.h>

#include "function_table.h"

namespace bcast::tools {
namespace {

using detail::FunctionRow;

std::string loops_text(const FunctionRow& r) {
  using namespace detail;
  const bool all_ints = [&] {
    for (DType d : {DType::i8, DType::i16, DType::i32, DType::i64, DType::u8, DType::u16, DType::u32, DType::u64})
      if (!r.loops.contains(d)) return false;
    return true;
  }();
  const bool floats = r.loops.contains(DType::f16) && r.loops.contains(DType::f32) && r.loops.contains(DType::f64);
  std::string text = all_ints && floats ? "numbers" : all_ints ? "integers" : floats ? "floats" : "";
  const bool complex = r.loops.contains(DType::c64) && r.loops.contains(DType::c128);
  if (!all_ints && !floats)
    for (int i = 0; i < kNumDTypes; ++i)
      if (r.loops.contains(static_cast<DType>(i)) && !(complex && is_complex_dtype(static_cast<DType>(i))))
        text += (text.empty() ? "" : ", ") + std::string(dtype_name(static_cast<DType>(i)));
  if (r.loops.contains(DType::boolean) && (all_ints || floats)) text += ", bool";
  if (complex) text += text.empty() ? "complex" : ", complex";
  if (!r.loops.contains(DType::boolean)) {
    if (!r.bool_casts) text += "; no bool";
    else if (all_ints) text += "; bool as i8";
  }
  if (!all_ints && floats) text += "; integers in the float that holds them";
  if (r.int_exponent) text += "; b an integer";
  return text;
}

std::string result_text(const FunctionRow& r) {
  switch (r.result) {
    case detail::Result::boolean: return "bool";
    case detail::Result::true_divide: return "floats and complex; f64 for integers";
    case detail::Result::real_part: return "its loop's; complex: the parts' (c64: f32)";
    case detail::Result::complex_partner: return "c64 from f32, c128 from f64";
    case detail::Result::same: break;
  }
  return "its loop's";
}

std::string accuracy_text(const FunctionRow& r) {
  if (r.accuracy.exact()) return "exact";
  if (r.accuracy.f32_ulp == r.accuracy.f64_ulp) return fmt::format("{:g} ULP", r.accuracy.f32_ulp);
  return fmt::format("{:g} ULP (f32), {:g} (f64)", r.accuracy.f32_ulp, r.accuracy.f64_ulp);
}

std::string names_text(const FunctionRow& r) {
  std::string text;
  for (std::string_view n : detail::names_of(r)) text += fmt::format("{}`{}`", text.empty() ? "" : ", ", n);
  return text;
}

}  // namespace

std::string function_table_markdown() {
  std::string out =
      "| function | arity | dtypes it computes in | result | accuracy | what it computes |\n"
      "|---|---|---|---|---|---|\n";
  for (const FunctionRow& r : detail::all_functions())
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", names_text(r), static_cast<int>(r.arity), loops_text(r),
                       result_text(r), accuracy_text(r), r.summary);
  return out;
}

}  // namespace bcast::tools
