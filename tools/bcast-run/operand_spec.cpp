// Parsing and loading bcast-run operands.
#include "operand_spec.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>
#include <vector>

#include "error_messages.h"
#include "run_support.h"

namespace bcast::tools {
namespace {

[[noreturn]] void bad_literal(const std::string& spec, const std::string& why) {
  throw Error(ErrorKind::value, "operand '" + detail::printable(spec) + "': " + why);
}

}  // namespace

std::optional<std::pair<DType, Shape>> parse_shape_literal(const std::string& spec) {
  const std::size_t open = spec.find('[');
  if (open == std::string::npos || spec.back() != ']') return std::nullopt;
  const std::optional<DType> dtype = parse_dtype(std::string_view(spec).substr(0, open));
  if (!dtype) return std::nullopt;
  Shape shape;
  std::string_view rest = std::string_view(spec).substr(open + 1, spec.size() - open - 2);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    std::int64_t extent = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), extent);
    if (ec != std::errc() || end != item.data() + item.size() || extent < 0)
      bad_literal(spec, "extent '" + detail::printable(item) + "' is not a non-negative integer");
    shape.push_back(extent);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return std::pair{*dtype, shape};
}

namespace {

// Whether `path` is a file that starts as a .npy does (the magic "\x93NUMPY").
bool is_npy_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[6] = {};
  return in.read(magic, 6) && std::memcmp(magic, "\x93NUMPY", 6) == 0;
}

}  // namespace

std::optional<std::size_t> npy_path_end(const std::string& spec) {
  // The whole spec, else the part before each '[' in turn: the first that is
  // a .npy file by its magic bytes.
  if (is_npy_file(spec)) return spec.size();
  for (std::size_t bracket = spec.find('['); bracket != std::string::npos; bracket = spec.find('[', bracket + 1))
    if (is_npy_file(spec.substr(0, bracket))) return bracket;
  // A name that says .npy: load_npy then says what is wrong with the file.
  if (const std::size_t npy = spec.find(".npy"); npy != std::string::npos) return npy + 4;
  return std::nullopt;
}

TensorView apply_view_suffix(const TensorView& x, std::string_view suffix, const std::string& spec) {
  TensorView v = x;
  while (!suffix.empty()) {
    if (suffix.front() == '[') {
      // An index not closed goes to the index parser whole: it says what is wrong.
      const std::size_t close = std::min(suffix.find(']'), suffix.size() - 1);
      v = index(v, parse_index_expression(suffix.substr(0, close + 1)));
      suffix.remove_prefix(close + 1);
    } else if (suffix.starts_with(".T")) {
      std::vector<std::int64_t> reversed(v.layout().shape.size());
      for (std::size_t d = 0; d < reversed.size(); ++d) reversed[d] = static_cast<std::int64_t>(reversed.size() - 1 - d);
      v = permute(v, reversed);
      suffix.remove_prefix(2);
    } else if (suffix.starts_with(".permute(") && suffix.find(')') != std::string_view::npos) {
      const std::size_t close = suffix.find(')');
      std::vector<std::int64_t> order;
      std::string_view items = suffix.substr(9, close - 9);
      while (!items.empty()) {
        while (!items.empty() && (items.front() == ' ' || items.front() == ',')) items.remove_prefix(1);
        if (items.empty()) break;
        std::int64_t dim = -1;
        const auto [end, ec] = std::from_chars(items.data(), items.data() + items.size(), dim);
        if (ec != std::errc()) bad_literal(spec, "permute takes dims, such as .permute(1,0)");
        order.push_back(dim);
        items.remove_prefix(static_cast<std::size_t>(end - items.data()));
      }
      v = permute(v, order);
      suffix.remove_prefix(close + 1);
    } else {
      bad_literal(spec, "cannot read '" + detail::printable(suffix) +
                            "' after the operand: expected an index such as [1:, None], .T or .permute(1,0)");
    }
  }
  return v;
}

Operand load_operand(const std::string& spec, std::mt19937_64& rng) {
  Operand op;
  op.spec = spec;
  // A literal, and what follows its first ']': an index, .T, .permute(...).
  const std::size_t close = spec.find(']');
  const std::string base = close == std::string::npos ? spec : spec.substr(0, close + 1);
  if (const auto literal = parse_shape_literal(base)) {
    op.storage = Tensor(literal->first, literal->second);
    fill_random(op.storage, rng);
    op.view = apply_view_suffix(op.storage.view(), std::string_view(spec).substr(base.size()), spec);
    return op;
  }
  // A file, and the same after its name.
  std::optional<std::size_t> end = npy_path_end(spec);
  if (!end && spec.find(".T") != std::string::npos && npy_path_end(spec.substr(0, spec.find(".T"))))
    end = spec.find(".T");
  if (!end)
    bad_literal(spec, "expected a .npy file (known by its magic bytes, whatever its name, with an optional index "
                      "such as x.npy[1:, None]) or a literal such as f32[8,1,3], either followed by an index, .T "
                      "or .permute(1,0)");
  op.storage = load_npy(spec.substr(0, *end));
  op.view = apply_view_suffix(op.storage.view(), std::string_view(spec).substr(*end), spec);
  return op;
}

}  // namespace bcast::tools
