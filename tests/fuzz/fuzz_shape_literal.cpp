// Fuzz target: bcast-run's operand literal parser ("f32[8,1,3]"). Any text is
// either not a literal, a literal that prints back to itself in canonical form
// and parses to the same dtype and shape, or an Error(value) that quotes it.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bcast-run/operand_spec.h"
#include "error_messages.h"

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "%s (literal '%s')\n", what.c_str(), bcast::detail::printable(text).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bcast;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::optional<std::pair<DType, Shape>> literal;
  try {
    literal = tools::parse_shape_literal(text);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::value) finding(std::string("unexpected error kind: ") + e.what(), text);
    if (std::string(e.what()).find("operand '" + detail::printable(text) + "'") == std::string::npos)
      finding(std::string("message does not quote the operand: ") + e.what(), text);
    return 0;
  }
  if (!literal) return 0;
  std::string canonical = std::string(dtype_name(literal->first)) + "[";
  for (std::size_t d = 0; d < literal->second.size(); ++d)
    canonical += (d ? "," : "") + std::to_string(literal->second[d]);
  canonical += "]";
  const auto again = tools::parse_shape_literal(canonical);
  if (!again || *again != *literal) finding("canonical form '" + canonical + "' parses differently", text);
  for (std::int64_t e : literal->second)
    if (e < 0) finding("negative extent accepted", text);
  return 0;
}
