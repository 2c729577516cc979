// Parser for NumPy basic-index expressions such as "[..., ::-1]" or "[1:, None, -1]".
#include <cctype>
#include <charconv>

#include "bcast/views.h"
#include "error_messages.h"

namespace bcast {
namespace {

using detail::fail;

class IndexParser {
 public:
  explicit IndexParser(std::string_view text) : text_(text) {}

  // expression := '[' [item (',' item)* [',']] ']'
  std::vector<IndexItem> parse() {
    expect('[');
    std::vector<IndexItem> items;
    skip_space();
    while (peek() != ']') {
      items.push_back(item());
      skip_space();
      if (peek() == ',') {
        ++pos_;
        skip_space();
      } else if (peek() != ']') {
        error("expected ',' or ']'");
      }
    }
    expect(']');
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after ']'");
    return items;
  }

 private:
  // item := '...' | 'None' | [int] [':' [int] [':' [int]]]
  IndexItem item() {
    if (consume("...")) return Ellipsis{};
    if (consume("None")) return NewAxis{};
    std::optional<std::int64_t> first = maybe_int();
    skip_space();
    if (peek() != ':') {
      if (!first) error("expected an integer, a slice, '...' or 'None'");
      return *first;
    }
    ++pos_;
    Slice s{first, maybe_int(), std::nullopt};
    skip_space();
    if (peek() == ':') {
      ++pos_;
      s.step = maybe_int();
    }
    return s;
  }

  std::optional<std::int64_t> maybe_int() {
    skip_space();
    const std::size_t begin = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == begin) return std::nullopt;
    std::string_view digits = text_.substr(begin, pos_ - begin);
    if (digits.front() == '+') digits.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range) error("integer out of the 64-bit range");
    if (ec != std::errc() || end != digits.data() + digits.size()) error("malformed integer");
    return value;
  }

  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) error(fmt::format("expected '{}'", c));
    ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(ErrorKind::index, "bad index expression '{}': {} at column {}", detail::printable(text_), what, pos_ + 1);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<IndexItem> parse_index_expression(std::string_view text) { return IndexParser(text).parse(); }

}  // namespace bcast
