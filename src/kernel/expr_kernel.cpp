// The registry of expression kernel specs (NOTE: [Expression kernels]).
#include "expr_kernel.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "intern_table.h"
#include "variant.h"

namespace bcast {
namespace {

char stride_letter(InnerStride s) { return s == InnerStride::unit ? 'u' : s == InnerStride::zero ? 'z' : 's'; }

// NOTE: [Interned ids]: ids from 1 (0 is a binary op's key).
using Registry = InternTable<ExprKernelSpec, std::uint64_t>;
Registry& registry() {
  static Registry* r = new Registry(kSpareExprSpecs, 1);  // never destroyed: kernels may run during static destruction
  return *r;
}

std::string identity(const ExprKernelSpec& s) {
  return s.structure + "|" + s.leaf_types() + "|" + to_string(s.type) + "|" + s.layout();
}

}  // namespace

std::string ExprKernelSpec::leaf_types() const {
  std::string text;
  for (const LeafType& t : inputs) text += (text.empty() ? "" : ",") + leaf_type_name(t);
  for (const LeafType& t : scalars) text += (text.empty() ? "" : ",") + leaf_type_name(t);
  return text;
}

std::string ExprKernelSpec::layout() const {
  std::string code;
  for (InnerStride s : inner) code += stride_letter(s);
  return code;
}

std::uint64_t intern_expr_kernel(const ExprKernelSpec& spec, ExprSpecPin* pin) {
  Registry::Interned got = registry().intern(identity(spec), [&] {
    auto lowered = std::make_shared<ExprKernelSpec>(spec);
    lowered->program = lower_expression(parse_structure(spec.structure), spec.inputs, spec.scalars);
    return std::shared_ptr<const ExprKernelSpec>(std::move(lowered));
  });
  if (pin != nullptr) *pin = std::move(got.value);
  return got.id;
}

ExprSpecPin pin_expr_kernel(std::uint64_t id) { return registry().find(id); }

const ExprKernelSpec& expr_kernel_spec(std::uint64_t id) {
  // The reference outlives this pin: the caller's own pin keeps it (NOTE: [Interned ids]).
  const ExprSpecPin pin = registry().find(id);
  if (!pin)
    throw std::logic_error(fmt::format("expression kernel spec {} is not registered: never interned, or freed once "
                                       "nothing pinned it and {} newer specs were used (NOTE: [Interned ids])",
                                       id, kSpareExprSpecs));
  return *pin;
}

std::size_t registered_expr_kernels() { return registry().size(); }

std::vector<InnerStride> inner_strides_of(const BroadcastPlan& plan) {
  std::vector<InnerStride> inner(static_cast<std::size_t>(plan.operands()), InnerStride::unit);
  if (plan.rank() == 0) return inner;
  const int last = plan.rank() - 1;
  for (int k = 0; k < plan.operands(); ++k) {
    const bool repeated = k > 0 && repeats(plan.type[last], k - 1);
    const std::int64_t stride = plan.strides[k][last];
    inner[k] = repeated ? InnerStride::zero : stride == 1 ? InnerStride::unit : InnerStride::strided;
  }
  return inner;
}

bool expr_layout_can_stream(const std::vector<InnerStride>& inner) {
  if (inner.empty() || inner[0] != InnerStride::unit) return false;
  return std::none_of(inner.begin() + 1, inner.end(), [](InnerStride s) { return s == InnerStride::strided; });
}

KernelKey make_expr_kernel_key(const Target& target, const std::string& structure, const std::vector<LeafType>& inputs,
                               const std::vector<LeafType>& scalars, const BroadcastPlan& plan, std::uint32_t codegen,
                               std::uint64_t stream_min_bytes, ExprSpecPin* pin) {
  ExprKernelSpec spec{.structure = structure, .inputs = inputs, .scalars = scalars, .type = plan.type,
                      .inner = inner_strides_of(plan), .program = {}};
  KernelKey key;
  key.target = target.kind();
  key.model = target.model();
  key.codegen = codegen;
  key.rank = static_cast<std::uint8_t>(plan.rank());
  ExprSpecPin own;
  ExprSpecPin& held = pin != nullptr ? *pin : own;
  key.expr = intern_expr_kernel(spec, &held);
  key.dtype = held->program.out_dtype;
  std::vector<std::size_t> sizes{dtype_size(key.dtype)};
  bool complex = is_complex(key.dtype);
  for (const LeafType& t : inputs) {
    sizes.push_back(dtype_size(t.dtype));
    complex = complex || is_complex(t.dtype);
  }
  // NOTE: [Transposed tiles] on real operands; streaming as there, when a
  // block's row of out is one line (out's element is t's size, 4 or 8 bytes).
  if (target.has_loop_variants() && !complex) key.transposed = static_cast<std::uint8_t>(transposed_operand(plan));
  const bool layout = key.transposed != 0 ? sizes[0] >= 4 && sizes[0] == sizes[key.transposed]
                                          : expr_layout_can_stream(spec.inner);
  if (plan.rank() > 0 && target.can_stream_stores() && layout) {
    const bool long_rows = plan.extents.back() * static_cast<std::int64_t>(sizes[0]) >= kStreamMinRowBytes;
    key.stream = long_rows && bytes_moved(plan, sizes) >= stream_min_bytes;
  }
  return key;
}

std::optional<DimCode> parse_dim_class(std::string_view name) {
  if (name == "same") return DimCode::same;
  if (!name.starts_with("expand_") || name.size() == 7) return std::nullopt;
  unsigned set = 0;
  for (char c : name.substr(7)) {
    const int input = c - 'a';
    if (input < 0 || input >= kMaxInputs || (set >> input & 1u)) return std::nullopt;
    set |= 1u << input;
  }
  return static_cast<DimCode>(set);
}

}  // namespace bcast
