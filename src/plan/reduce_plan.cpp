// Planning a reduction (NOTE: [Reduction plan]): axes, the result's shape,
// the kept and reduced loops.
#include "reduce_plan.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "bcast/errors.h"
#include "error_messages.h"

namespace bcast {

std::vector<bool> reduced_dims(const Axes& axes, int rank, std::string_view op) {
  std::vector<bool> reduced(static_cast<std::size_t>(rank), axes.every());
  if (axes.every()) return reduced;
  std::vector<int> given(static_cast<std::size_t>(rank), 0);
  for (int axis : axes.list()) {
    if (axis < -rank || axis >= rank)
      detail::fail(ErrorKind::value, "{}: axis {} is out of range for x of rank {} (axes run from {} to {})", op, axis,
                   rank, -rank, rank - 1);
    const int d = axis < 0 ? axis + rank : axis;
    if (reduced[static_cast<std::size_t>(d)])
      detail::fail(ErrorKind::value, "{}: axis {} is given twice (as {} and {}); each axis may be reduced once", op, d,
                   given[static_cast<std::size_t>(d)], axis);
    reduced[static_cast<std::size_t>(d)] = true;
    given[static_cast<std::size_t>(d)] = axis;
  }
  return reduced;
}

Shape reduced_shape(const Shape& shape, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d])
      out.push_back(shape[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

namespace {

// Whether `outer` and `inner` walk as one: for x, the result and each of
// the `with` riding operands, the outer stride is the inner one times the
// inner extent.
bool walk_as_one(const ReduceLoop& outer, const ReduceLoop& inner, int with) {
  const auto steps = [&](std::int64_t o, std::int64_t i) { return o == i * inner.extent; };
  if (!steps(outer.stride, inner.stride) || !steps(outer.out_stride, inner.out_stride)) return false;
  for (int k = 0; k < with; ++k)
    if (!steps(outer.with[static_cast<std::size_t>(k)], inner.with[static_cast<std::size_t>(k)])) return false;
  return true;
}

// Sorted outer to inner by x's |stride| (the first dim first among equals),
// then merged where they walk as one.
std::vector<ReduceLoop> ordered_and_merged(std::vector<ReduceLoop> loops, int with) {
  std::stable_sort(loops.begin(), loops.end(), [](const ReduceLoop& a, const ReduceLoop& b) {
    return std::llabs(a.stride) > std::llabs(b.stride);
  });
  std::vector<ReduceLoop> merged;
  for (const ReduceLoop& l : loops) {
    if (!merged.empty()) {
      ReduceLoop& outer = merged.back();
      if (walk_as_one(outer, l, with)) {
        const std::int64_t extent = outer.extent * l.extent;
        outer = l;
        outer.extent = extent;
        continue;
      }
    }
    merged.push_back(l);
  }
  return merged;
}

std::int64_t product(const std::vector<ReduceLoop>& loops) {
  return std::accumulate(loops.begin(), loops.end(), std::int64_t{1},
                         [](std::int64_t n, const ReduceLoop& l) { return n * l.extent; });
}

}  // namespace

ReducePlan plan_reduce(const Layout& x, const std::vector<bool>& reduced, const Strides& out_strides,
                       std::span<const Strides> with) {
  std::vector<ReduceLoop> kept, along;
  std::int64_t empty_reduced = 1;
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    const std::int64_t n = x.shape[d];
    if (n == 0 && reduced[d]) empty_reduced = 0;
    if (n == 1) continue;
    ReduceLoop loop{n, x.strides[d], reduced[d] ? 0 : out_strides[d]};
    for (std::size_t k = 0; k < with.size(); ++k) loop.with[k] = with[k][d];
    (reduced[d] ? along : kept).push_back(loop);
  }
  ReducePlan plan;
  plan.with = static_cast<int>(with.size());
  plan.kept = ordered_and_merged(std::move(kept), plan.with);
  plan.reduced = ordered_and_merged(std::move(along), plan.with);
  plan.outputs = product(plan.kept);
  plan.count = empty_reduced * product(plan.reduced);
  // The innermost loop is x's smallest |stride|: reduced (rows) unless a
  // kept loop steps less.
  const auto inner = [](const std::vector<ReduceLoop>& l) {
    return l.empty() ? INT64_MAX : std::llabs(l.back().stride);
  };
  plan.rows = plan.kept.empty() || (!plan.reduced.empty() && inner(plan.reduced) <= inner(plan.kept));
  return plan;
}

std::int64_t loop_offset(std::span<const ReduceLoop> loops, std::int64_t i, bool out) {
  std::int64_t offset = 0;
  for (std::size_t l = loops.size(); l-- > 0;) {
    offset += (i % loops[l].extent) * (out ? loops[l].out_stride : loops[l].stride);
    i /= loops[l].extent;
  }
  return offset;
}

}  // namespace bcast
