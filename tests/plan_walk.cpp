// The walks of plan_walk.h.
#include "plan_walk.h"

#include <string>
#include <vector>

namespace bcast::test {
namespace {

std::string offsets(const Visit& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "/" : "") + std::to_string(v[i]);
  return s;
}

}  // namespace

std::map<std::int64_t, Visit> walk_plan(const BroadcastPlan& p, int& duplicates) {
  std::map<std::int64_t, Visit> visits;
  if (p.numel == 0) return visits;
  std::vector<std::int64_t> index(p.rank(), 0);
  std::int64_t count = 1;
  for (std::int64_t e : p.extents) count *= e;
  for (std::int64_t i = 0; i < count; ++i) {
    std::vector<std::int64_t> off = p.base;
    for (int l = 0; l < p.rank(); ++l)
      for (int k = 0; k < p.operands(); ++k) off[k] += index[l] * p.strides[k][l];
    duplicates += !visits.emplace(off[kOut], Visit(off.begin() + 1, off.end())).second;
    for (int l = p.rank() - 1; l >= 0 && ++index[l] == p.extents[l]; --l) index[l] = 0;
  }
  return visits;
}

std::map<std::int64_t, Visit> walk_naive(const Layout& out, const std::vector<Layout>& inputs) {
  std::map<std::int64_t, Visit> visits;
  const std::int64_t n = out.numel();
  std::vector<std::int64_t> index(out.rank(), 0);
  auto offset = [&](const Layout& x) {
    std::int64_t o = 0;
    const std::size_t lead = index.size() - x.shape.size();
    for (std::size_t d = 0; d < x.shape.size(); ++d)
      if (x.shape[d] != 1) o += index[lead + d] * x.strides[d];
    return o;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    Visit v;
    for (const Layout& in : inputs) v.push_back(offset(in));
    visits[offset(out)] = v;
    for (int d = out.rank() - 1; d >= 0 && ++index[d] == out.shape[d]; --d) index[d] = 0;
  }
  return visits;
}

std::string compare_walks(const BroadcastPlan& plan, const Layout& out, const std::vector<Layout>& inputs) {
  int duplicates = 0;
  const auto planned = walk_plan(plan, duplicates);
  const auto naive = walk_naive(out, inputs);
  if (duplicates != 0) return std::to_string(duplicates) + " output offsets visited twice";
  if (planned.size() != naive.size())
    return std::to_string(planned.size()) + " offsets visited, " + std::to_string(naive.size()) + " expected";
  for (const auto& [out_offset, v] : naive) {
    const auto it = planned.find(out_offset);
    if (it == planned.end()) return "out offset " + std::to_string(out_offset) + " never visited";
    if (it->second != v)
      return "at out offset " + std::to_string(out_offset) + ": planned input offsets " + offsets(it->second) +
             ", naive " + offsets(v);
  }
  return "";
}

}  // namespace bcast::test
