// Raising bcast::Error with a formatted one-line message. The texts of the
// messages that recur live here too, so they stay consistent.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <string_view>
#include <vector>

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

// The names among `known` nearest to `name`, what a caller who wrote `name`
// most likely meant, best first, at most `most`: those within a small edit
// distance (a third of the name's length, at least 1), and those that begin
// a longer name the caller wrote ("max" for "maximum"). "log1p" -> {"log"}.
std::vector<std::string_view> nearest_names(std::string_view name, const std::vector<std::string_view>& known,
                                            std::size_t most = 3);
// " (did you mean a, b or c?)", or "" when `names` is empty.
std::string did_you_mean(const std::vector<std::string_view>& names);

// Where a user finds every function an expression's text may call.
inline constexpr std::string_view kFunctionsDoc = "docs/semantics.md#expressions";

// NOTE: [Expression limits]: an expression (text, graph or tree) that nests
// deeper than `limit`.
[[noreturn]] void fail_expression_too_deep(int limit);

// Normalises a possibly negative dim against `rank`, or fails naming `what`.
std::int64_t normalize_dim(std::int64_t dim, std::int64_t rank, const char* what);

}  // namespace bcast::detail
