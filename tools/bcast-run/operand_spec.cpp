// Parsing and loading bcast-run operands.
#include "operand_spec.h"

#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>

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

Operand load_operand(const std::string& spec, std::mt19937_64& rng) {
  Operand op;
  op.spec = spec;
  if (const auto literal = parse_shape_literal(spec)) {
    op.storage = Tensor(literal->first, literal->second);
    fill_random(op.storage, rng);
    op.view = op.storage.view();
    return op;
  }
  const std::optional<std::size_t> end = npy_path_end(spec);
  if (!end)
    bad_literal(spec, "expected a .npy file (known by its magic bytes, whatever its name, with an optional index "
                      "such as x.npy[1:, None]) or a literal such as f32[8,1,3]");
  const std::string path = spec.substr(0, *end);
  const std::string expression = spec.substr(*end);
  op.storage = load_npy(path);
  op.view = expression.empty() ? op.storage.view()
                               : index(op.storage.view(), parse_index_expression(expression));
  return op;
}

}  // namespace bcast::tools
