// A plain-text table whose columns stay in line whatever their cells hold.
#include "text_table.h"

#include <algorithm>
#include <string_view>

namespace bcast::tools {
namespace {

// The tool prints ASCII only: an ellipsis is three dots.
constexpr std::string_view kEllipsis = "...";

std::string cut(const std::string& cell, std::size_t width) {
  if (cell.size() <= width) return cell;
  if (width <= kEllipsis.size()) return cell.substr(0, width);
  return cell.substr(0, width - kEllipsis.size()) + std::string(kEllipsis);
}

std::string pad(const std::string& cell, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, cell.size()), ' ');
  return right ? fill + cell : cell + fill;
}

}  // namespace

std::string format_text_table(const std::vector<TextColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                              bool wide) {
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    std::size_t w = wide ? columns[c].header.size() : columns[c].width;
    if (wide)
      for (const auto& row : rows) w = std::max(w, row[c].size());
    widths.push_back(w);
  }
  std::string out;
  const auto line = [&](auto cell_of) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const bool last = c + 1 == columns.size();
      if (c > 0) out += last ? "  " : " ";
      out += last ? cell_of(c) : pad(cut(cell_of(c), widths[c]), widths[c], columns[c].right);
    }
    out += '\n';
  };
  line([&](std::size_t c) { return columns[c].header; });
  for (const auto& row : rows) line([&](std::size_t c) { return row[c]; });
  return out;
}

}  // namespace bcast::tools
