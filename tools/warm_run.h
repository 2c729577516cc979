// What bcast-cache warm and bcast-run --warm share (NOTE: [Warm runs]).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace bcast::tools {

// NOTE: [Warm runs] A pre-generation from the command line: it says what it
// will make, its defaults marked, before it starts; it refuses (an
// Error(value) naming the numbers) a set whose files would not fit the disk
// cache's size bound; on a terminal it keeps one progress line on stderr:
// kernels done of the total, the rate and the time left.
struct WarmRequest {
  std::vector<std::string> ops, dtypes;
  int max_rank = 3;
  int threads = 0;
  bool ops_given = false, dtypes_given = false, rank_given = false;  // else the tool's default
  std::string ops_option = "--ops", dtypes_option = "--dtypes";      // as errors name them
};

// An average kernel file (header and object), for the bound check of a
// folder that holds too few files to measure.
inline constexpr std::size_t kTypicalKernelFileBytes = 4096;

// The kernels made or found ready (pregenerate()'s count).
std::size_t run_warm(const WarmRequest& request, std::ostream& out);

}  // namespace bcast::tools
