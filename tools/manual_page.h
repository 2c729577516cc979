// Where a tool's manual page is, for the last line of its --help: the
// installed copy beside the tool (cmake --install puts the docs/ pages in
// <prefix>/share/doc/bcast and the tools in <prefix>/bin), else the page in
// the source tree.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace bcast::tools {

inline std::string manual_line(std::string_view page) {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path().parent_path() / "share" / "doc" / "bcast" / page;
    if (std::filesystem::exists(installed, ec)) return "Manual: " + installed.lexically_normal().string();
  }
  return "Manual: docs/" + std::string(page) + " in bcast's source tree";
}

}  // namespace bcast::tools
