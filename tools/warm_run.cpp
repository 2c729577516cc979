// NOTE: [Warm runs]
#include "warm_run.h"
#include "function_table.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <ostream>

#include "bcast/bcast.h"
#include "config.h"
#include "name_lists.h"

namespace bcast::tools {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
  return text;
}

// The folder's mean kernel file, or kTypicalKernelFileBytes when it holds
// fewer than 16 to measure.
std::size_t mean_kernel_file_bytes(const std::string& folder) {
  std::error_code ec;
  std::size_t files = 0, bytes = 0;
  for (const auto& item : std::filesystem::directory_iterator(folder, ec))
    if (item.path().extension() == ".bck") {
      const std::uintmax_t size = item.file_size(ec);
      if (!ec) ++files, bytes += size;
    }
  return files >= 16 ? bytes / files : kTypicalKernelFileBytes;
}

// One line on a terminal's stderr, rewritten at most ten times a second.
class ProgressLine {
 public:
  ProgressLine() : on_(::isatty(STDERR_FILENO) != 0) {}
  ~ProgressLine() {
    if (on_ && shown_) std::fputs("\n", stderr);
  }
  void operator()(std::size_t done, std::size_t total) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    std::fprintf(stderr, "\rwarm: %zu/%zu kernels  %.0f/s  ETA %.0f s   ", done, total, rate, left);
    std::fflush(stderr);
  }

 private:
  bool on_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
};

}  // namespace

std::size_t run_warm(const WarmRequest& r, std::ostream& out) {
  const std::vector<Op> ops = ops_from_names(r.ops, r.ops_option);
  const std::vector<DType> dtypes = dtypes_from_names(r.dtypes, r.dtypes_option);
  // Pairs that name no op of that dtype (pow of an integer type): said, and
  // when nothing is left, an error rather than "0 kernels ready".
  std::vector<std::string> missing;
  for (const Op op : ops)
    for (const DType d : dtypes)
      if (!detail::supports(op, d)) missing.push_back(fmt::format("{}.{}", op_name(op), dtype_name(d)));
  const std::size_t total = pregenerate_size(ops, dtypes, r.max_rank);
  if (!missing.empty() && total == 0)
    throw Error(ErrorKind::value, fmt::format("warm: nothing to make: {} {} not exist (bcast/ops.h says which dtypes each "
                                              "op takes)",
                                              joined(missing), missing.size() == 1 ? "does" : "do"));
  if (!missing.empty())
    std::cerr << fmt::format("warning: warm: skipping {}: no such op for that dtype\n", joined(missing));
  const auto mark = [](bool given) { return given ? "" : " (default)"; };
  out << fmt::format("warm: {} kernels: ops {}{}, dtypes {}{}, ranks 0..{}{}\n", total, joined(r.ops),
                     mark(r.ops_given), joined(r.dtypes), mark(r.dtypes_given), r.max_rank, mark(r.rank_given));
  const std::string folder = config::cache_dir();
  if (!folder.empty()) {
    const std::uint64_t bound = config::cache_max_bytes();
    const std::uint64_t need = static_cast<std::uint64_t>(total) * mean_kernel_file_bytes(folder);
    if (need > bound)
      throw Error(ErrorKind::value,
                  fmt::format("warm: {} kernels of about {:.1f} KiB each need {} MiB, more than the disk cache's bound of {} "
                              "MiB (BCAST_CACHE_MAX_MB): lower --max-rank (each rank doubles the count) or raise the bound",
                              total, static_cast<double>(mean_kernel_file_bytes(folder)) / 1024, need >> 20, bound >> 20));
  }
  ProgressLine progress;
  return pregenerate(ops, dtypes, r.max_rank, r.threads, [&](std::size_t done, std::size_t all) { progress(done, all); });
}

}  // namespace bcast::tools
