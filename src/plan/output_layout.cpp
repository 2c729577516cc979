// NOTE: [Output order]: an insertion sort of the output's dims by the inputs' strides.
#include "output_layout.h"

#include <cstdlib>

namespace bcast {
namespace {

// How far input `x` moves along output dim d: 0 where it is broadcast (it
// lacks the dim, or has extent 1 there).
std::int64_t reach(const Layout& x, int out_rank, int d) {
  const int k = d - (out_rank - x.rank());
  if (k < 0 || x.shape[k] == 1) return 0;
  return std::abs(x.strides[k]);
}

// Whether dim `d` belongs inside dim `inner` (already placed inside it):
// +1 yes, -1 no, 0 when no input moves along both.
int moves_inside(int d, int inner, int out_rank, const std::vector<const Layout*>& inputs) {
  int vote = 0;
  for (const Layout* x : inputs) {
    const std::int64_t along_d = reach(*x, out_rank, d), along_inner = reach(*x, out_rank, inner);
    if (along_d == 0 || along_inner == 0) continue;
    if (along_inner <= along_d) return -1;  // one input against is enough to keep the order
    vote = 1;
  }
  return vote;
}

}  // namespace

Layout output_layout(const Shape& shape, const std::vector<const Layout*>& inputs) {
  const int rank = static_cast<int>(shape.size());
  // Innermost first: C order is the last dim innermost.
  std::vector<int> inner_first(rank);
  for (int i = 0; i < rank; ++i) inner_first[i] = rank - 1 - i;
  for (int i = 1; i < rank; ++i) {
    const int d = inner_first[i];
    int at = i;
    for (int j = i - 1; j >= 0; --j) {
      const int vote = moves_inside(d, inner_first[j], rank, inputs);
      if (vote < 0) break;
      if (vote > 0) at = j;  // no input says anything: look further in
    }
    inner_first.erase(inner_first.begin() + i);
    inner_first.insert(inner_first.begin() + at, d);
  }
  return Layout::dense(shape, std::vector<int>(inner_first.rbegin(), inner_first.rend()));
}

}  // namespace bcast
