// Fuzz target: the index-expression parser and index(). The first byte picks a
// parent shape, the rest is the expression text. A parse either fails with
// Error(index) or yields items; applying them either fails with Error(index)
// (Error(shape) for a result of too high a rank) or gives a view whose every element lies inside the parent's buffer.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bcast/bcast.h"
#include "error_messages.h"

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& text) {
  std::fprintf(stderr, "%s (expression '%s')\n", what.c_str(), bcast::detail::printable(text).c_str());
  std::abort();
}

void expect_kind(const bcast::Error& e, const std::string& text) {
  if (e.kind() != bcast::ErrorKind::index) finding(std::string("unexpected error kind: ") + e.what(), text);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bcast;
  if (size == 0) return 0;
  static const Shape kParents[] = {{}, {5}, {2, 3}, {4, 1, 3}, {0, 3}, {2, 3, 4, 5}, {7, 1}, {1}};
  const Shape& parent_shape = kParents[data[0] % std::size(kParents)];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<IndexItem> items;
  try {
    items = parse_index_expression(text);
  } catch (const Error& e) {
    expect_kind(e, text);
    if (std::string(e.what()).find("'" + detail::printable(text) + "'") == std::string::npos)
      finding(std::string("message does not quote the expression: ") + e.what(), text);
    return 0;
  }
  const Tensor parent(DType::u8, parent_shape);
  TensorView v;
  try {
    v = index(parent.view(), items);
  } catch (const Error& e) {
    // index() may also find the result's rank over the limit: a shape error.
    if (e.kind() != ErrorKind::shape) expect_kind(e, text);
    return 0;
  }
  validate_layout(v.layout(), "the indexed view");
  if (v.numel() == 0) return 0;
  // Lowest and highest element the view reaches, relative to the parent's data.
  std::int64_t lo = static_cast<const std::uint8_t*>(v.data()) - static_cast<const std::uint8_t*>(parent.data());
  std::int64_t hi = lo;
  for (int d = 0; d < v.rank(); ++d) {
    const std::int64_t span = (v.shape()[d] - 1) * v.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  if (lo < 0 || hi >= parent.view().numel())
    finding("view reaches elements " + std::to_string(lo) + ".." + std::to_string(hi) + " of a parent of " +
                std::to_string(parent.view().numel()), text);
  return 0;
}
