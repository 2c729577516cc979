// The broadcast planner. plan_broadcast reads as its table of contents.
#include "broadcast_plan.h"

#include <algorithm>
#include <cstdlib>

#include "bcast/broadcast.h"
#include "bcast/errors.h"

namespace bcast {
namespace {

// One output dim during planning; operands past `count` are unused.
struct PlanDim {
  std::int64_t extent;
  DimCode code;
  std::array<std::int64_t, kMaxOperands> stride;
};

// Base offsets of out and every input.
using Bases = std::vector<std::int64_t>;

// Right-aligns every input against out's rank; a dim an input lacks, or has
// with extent 1, gets stride 0 there and the input joins the dim's class.
std::vector<PlanDim> align_ranks(const Layout& out, std::span<const Layout* const> inputs) {
  const std::size_t rank = out.shape.size();
  std::vector<PlanDim> dims(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    PlanDim& dim = dims[d];
    dim.extent = out.shape[d];
    dim.stride[kOut] = out.strides[d];
    unsigned repeating = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Layout& in = *inputs[i];
      const std::size_t lead = rank - in.shape.size();
      const bool expanded = d < lead || in.shape[d - lead] == 1;
      dim.stride[1 + i] = expanded ? 0 : in.strides[d - lead];
      repeating |= unsigned{expanded} << i;
    }
    // Every input repeating happens only on an output dim of extent 1, which
    // drop_unit_dims removes; `same` keeps such a dim's class canonical.
    const unsigned all = (1u << inputs.size()) - 1;
    dim.code = static_cast<DimCode>(repeating == all ? 0 : repeating);
  }
  return dims;
}

// Output dims of extent 1 contribute nothing to the nest.
void drop_unit_dims(std::vector<PlanDim>& dims) {
  std::erase_if(dims, [](const PlanDim& d) { return d.extent == 1; });
}

// NOTE: [Walking order] Elementwise ops may visit elements in any order, so
// each dim is walked the way that reads best: the way fewer of the inputs'
// elements walk it backwards (each input weighs the elements it reads),
// ties to out walking it forwards. A flipped view (`x[::-1]`,
// `img[:, ::-1]`, `x[..., ::-1]`) is then read forwards and out, the fresh
// array, is written backwards there. Reads are what the direction costs: a
// hardware prefetcher follows ascending streams best (on the 2-core AMD EPYC
// VM a plain C loop adds a row to f32 [4096, 4096] at 2.7 ms forwards and
// 4.1 ms with the rows read backwards, 4.5 with each row read from its end),
// while out, written with streaming stores when it is large and kept in
// cache when it is not, goes either way at the same speed (2.7 ms written
// backwards). Flipping a dim moves every operand's base to the dim's last
// element and changes the sign of its strides.
void orient_dims(std::vector<PlanDim>& dims, Bases& base) {
  // Each input weighs the elements it reads: a repeated row or column counts
  // for what it is, little beside a full operand.
  std::vector<double> elements(base.size(), 1.0);
  for (const PlanDim& dim : dims)
    for (std::size_t k = 1; k < base.size(); ++k)
      if (dim.stride[k] != 0) elements[k] *= static_cast<double>(dim.extent);
  for (PlanDim& dim : dims) {
    double backwards = 0, forwards = 0;
    for (std::size_t k = 1; k < base.size(); ++k) {
      if (dim.stride[k] < 0) backwards += elements[k];
      if (dim.stride[k] > 0) forwards += elements[k];
    }
    if (backwards < forwards || (backwards == forwards && dim.stride[kOut] >= 0)) continue;
    for (std::size_t k = 0; k < base.size(); ++k) {
      base[k] += (dim.extent - 1) * dim.stride[k];
      dim.stride[k] = -dim.stride[k];
    }
  }
}

// Outermost first by out's stride, largest magnitude first, so the innermost
// loop is out's densest dim (a transposed out still gets a unit-stride inner
// loop and merges). Ties, which only out's broadcast-free duplicates could
// make, keep their order.
void sort_by_out_stride(std::vector<PlanDim>& dims) {
  std::stable_sort(dims.begin(), dims.end(), [](const PlanDim& x, const PlanDim& y) {
    return std::abs(x.stride[kOut]) > std::abs(y.stride[kOut]);
  });
}

// NOTE: [Merging dims]
// Adjacent dims `outer` and `inner` become one dim of extent outer*inner when
// they carry the same code and every operand walks them as one run: its stride
// on `outer` is its stride on `inner` times inner's extent (this covers stride 0
// on both, a repeated operand). For contiguous operands the merged type then
// alternates codes, e.g. [same,same,expand_b,expand_b] -> [same,expand_b].
bool can_merge(const PlanDim& outer, const PlanDim& inner, int operands) {
  if (outer.code != inner.code) return false;
  for (int k = 0; k < operands; ++k)
    if (outer.stride[k] != inner.stride[k] * inner.extent) return false;
  return true;
}

void merge_dims(std::vector<PlanDim>& dims, int operands) {
  std::vector<PlanDim> merged;
  for (const PlanDim& dim : dims) {
    if (!merged.empty() && can_merge(merged.back(), dim, operands)) {
      merged.back().extent *= dim.extent;
      merged.back().stride = dim.stride;
    } else {
      merged.push_back(dim);
    }
  }
  dims = std::move(merged);
}

BroadcastPlan assemble(const std::vector<PlanDim>& dims, const Bases& base, std::int64_t numel) {
  BroadcastPlan plan;
  plan.numel = numel;
  plan.base = base;
  plan.strides.assign(base.size(), {});
  plan.spans.assign(base.size(), {});
  for (const PlanDim& dim : dims) {
    plan.type.push_back(dim.code);
    plan.extents.push_back(dim.extent);
    for (std::size_t k = 0; k < base.size(); ++k) {
      plan.strides[k].push_back(dim.stride[k]);
      plan.spans[k].push_back((dim.extent - 1) * dim.stride[k]);
    }
  }
  return plan;
}

}  // namespace

std::string to_string(DimCode code) {
  if (code == DimCode::same) return "same";
  std::string name = "expand_";
  for (int i = 0; i < kMaxInputs; ++i)
    if (repeats(code, i)) name += static_cast<char>('a' + i);
  return name;
}

std::string to_string(const BroadcastType& type) {
  std::string s = "[";
  for (std::size_t i = 0; i < type.size(); ++i) s += (i ? "," : "") + to_string(type[i]);
  return s + "]";
}

std::int64_t BroadcastPlan::outer_count() const {
  std::int64_t n = 1;
  for (int l = 0; l + 1 < rank(); ++l) n *= extents[l];
  return n;
}

BroadcastPlan plan_broadcast(const Layout& out, std::span<const Layout* const> inputs) {
  if (inputs.empty() || inputs.size() > static_cast<std::size_t>(kMaxInputs))
    throw Error(ErrorKind::value, "plan_broadcast: " + std::to_string(inputs.size()) + " inputs; 1 to " +
                                      std::to_string(kMaxInputs) + " are supported");
  const std::int64_t numel = out.numel();
  Bases base(1 + inputs.size(), 0);
  if (numel == 0) return assemble({}, base, 0);

  std::vector<PlanDim> dims = align_ranks(out, inputs);  // strides 0 where an input repeats
  drop_unit_dims(dims);                                   // extent-1 dims do nothing
  orient_dims(dims, base);                                // NOTE: [Walking order]
  sort_by_out_stride(dims);                               // densest out dim innermost
  merge_dims(dims, static_cast<int>(base.size()));        // NOTE: [Merging dims]
  return assemble(dims, base, numel);
}

BroadcastPlan with_out_forwards(BroadcastPlan plan) {
  for (int l = 0; l < plan.rank(); ++l) {
    if (plan.strides[kOut][l] >= 0) continue;
    for (int k = 0; k < plan.operands(); ++k) {
      plan.base[k] += plan.spans[k][l];
      plan.strides[k][l] = -plan.strides[k][l];
      plan.spans[k][l] = -plan.spans[k][l];
    }
  }
  return plan;
}

BroadcastPlan plan_broadcast(const Layout& out, const Layout& a, const Layout& b) {
  const std::array<const Layout*, 2> inputs{&a, &b};
  return plan_broadcast(out, inputs);
}

std::string broadcast_type_of(const Layout& out, const Layout& a, const Layout& b) {
  validate_layout(a, "a");
  validate_layout(b, "b");
  validate_layout(out, "out");
  if (out.shape != broadcast_infer_shape(a.shape, b.shape))
    throw Error(ErrorKind::shape, "broadcast_type_of: out has shape " + to_string(out.shape) + ", not the broadcast of " +
                                      to_string(a.shape) + " and " + to_string(b.shape));
  return to_string(plan_broadcast(out, a, b).type);
}

}  // namespace bcast
