// Raising bcast::Error with a formatted one-line message. The texts of the
// messages that recur live here too, so they stay consistent.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bcast/errors.h"
#include "bcast/layout.h"

namespace bcast::detail {

template <class... Args>
[[noreturn]] void fail(ErrorKind kind, fmt::format_string<Args...> format, Args&&... args) {
  throw Error(kind, fmt::format(format, std::forward<Args>(args)...));
}

// "dim 2" for a dim counted from the front, as users wrote it.
inline std::string dim_label(std::int64_t dim) { return fmt::format("dim {}", dim); }

// `text` with every byte outside printable ASCII written as \xNN: how messages
// quote what the caller typed (a NUL would otherwise end the message early).
std::string printable(std::string_view text);

// NOTE: [Expression limits]: an expression (text, graph or tree) that nests
// deeper than `limit`.
[[noreturn]] void fail_expression_too_deep(int limit);

// Normalises a possibly negative dim against `rank`, or fails naming `what`.
std::int64_t normalize_dim(std::int64_t dim, std::int64_t rank, const char* what);

}  // namespace bcast::detail
