// bcast::Error and the shared error helpers.
#include "bcast/errors.h"

#include <algorithm>
#include <utility>
#include <vector>

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

namespace {

// Levenshtein's distance: the fewest insertions, deletions and substitutions
// that turn a into b.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string_view> nearest_names(std::string_view name, const std::vector<std::string_view>& known,
                                            std::size_t most) {
  constexpr std::size_t kLongest = 64;  // a longer name is no typo of a known one (and costs time to compare)
  if (name.empty() || name.size() > kLongest) return {};
  const std::size_t limit = std::max<std::size_t>(1, (name.size() + 1) / 3);
  std::vector<std::pair<std::size_t, std::string_view>> near;
  for (const std::string_view k : known) {
    const std::size_t d = edit_distance(name, k);
    const bool begins = k.size() >= 3 && name.size() > k.size() && name.substr(0, k.size()) == k;
    if (d <= limit || begins) near.emplace_back(d, k);
  }
  std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string_view> names;
  for (std::size_t i = 0; i < near.size() && i < most; ++i) names.push_back(near[i].second);
  return names;
}

std::string did_you_mean(const std::vector<std::string_view>& names) {
  if (names.empty()) return "";
  std::string text = " (did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return text + "?)";
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
