// A plain-text table whose columns stay in line whatever their cells hold.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace bcast::tools {

struct TextColumn {
  std::string header;
  std::size_t width;   // cells longer than this end in "..." (the last column is never cut)
  bool right = false;  // numbers are right-aligned
};

// One line per row after the header's, each ending in '\n'. Columns are one
// space apart, the last two; with `wide` each column is as wide as its longest
// cell and nothing is cut. Example, width 6: "expr[(f32(x0)-x1)/s0]" -> "exp...".
std::string format_text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                              bool wide);

}  // namespace bcast::tools
