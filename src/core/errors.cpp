// bcast::Error and the shared error helpers.
#include "bcast/errors.h"

#include "error_messages.h"

namespace bcast {

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::shape: return "shape";
    case ErrorKind::dtype: return "dtype";
    case ErrorKind::index: return "index";
    case ErrorKind::value: return "value";
    case ErrorKind::io: return "io";
    case ErrorKind::memory: return "memory";
  }
  return "unknown";
}

// Every message is printable ASCII, whatever the caller typed: a NUL would end
// it early in C and Python, and a byte that is not UTF-8 would stop a JSON
// writer or a Python decoder (detail::printable).
Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(detail::printable(message)), kind_(kind) {}

namespace detail {

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) out += c;
    else out += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
  }
  return out;
}

void fail_expression_too_deep(int limit) {
  fail(ErrorKind::value,
       "expression: its operations nest deeper than {} levels (NOTE: [Expression limits]); evaluate an inner part "
       "first",
       limit);
}

std::int64_t normalize_dim(std::int64_t dim, std::int64_t rank, const char* what) {
  if (dim < -rank || dim >= rank)
    fail(ErrorKind::index, "{}: dim {} is out of range for rank {} (valid: {} to {})", what, dim,
         rank, -rank, rank - 1);
  return dim < 0 ? dim + rank : dim;
}

}  // namespace detail
}  // namespace bcast
