// The registry of expression kernel specs (NOTE: [Expression kernels]).
#include "expr_kernel.h"

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "intern_table.h"
#include "variant.h"

namespace bcast {
namespace {

// NOTE: [Interned ids]: ids from 1 (0 names no spec: a key made by no make_*_key).
using Registry = InternTable<ExprKernelSpec, std::uint64_t>;
Registry& registry() {
  static Registry* r = new Registry(kSpareExprSpecs, 1);  // never destroyed: kernels may run during static destruction
  return *r;
}

std::string identity(const ExprKernelSpec& s) {
  return s.structure + "|" + s.leaf_types() + "|" + to_string(s.type);
}

}  // namespace

std::string ExprKernelSpec::leaf_types() const {
  std::string text;
  for (const LeafType& t : inputs) text += (text.empty() ? "" : ",") + leaf_type_name(t);
  for (const LeafType& t : scalars) text += (text.empty() ? "" : ",") + leaf_type_name(t);
  return text;
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

ExprKernelSpec binary_spec(Op op, DType dtype, const BroadcastType& type) {
  const LeafType input{ScalarKind::strong, dtype};
  return {.structure = binary_structure(op), .inputs = {input, input}, .scalars = {}, .type = type, .program = {}};
}

std::optional<Op> binary_op_of(const ExprKernelSpec& spec) {
  const std::vector<ExprInstr>& code = spec.program.code;
  if (spec.inputs.size() != 2 || !spec.scalars.empty() || spec.inputs[0] != spec.inputs[1] ||
      spec.inputs[0].kind != ScalarKind::strong || code.size() != 1 || code[0].kind != InstrKind::binary)
    return std::nullopt;
  const auto op = static_cast<Op>(code[0].code);
  if (spec.structure != binary_structure(op)) return std::nullopt;
  return op;
}

KernelKey key_for_spec(const Target& target, std::uint64_t id, const ExprKernelSpec& spec, const BroadcastPlan& plan,
                       std::uint32_t codegen, std::uint64_t stream_min_bytes) {
  KernelKey key;
  key.target = target.kind();
  key.model = target.model();
  key.codegen = codegen;
  key.rank = static_cast<std::uint8_t>(plan.rank());
  key.expr = id;
  key.dtype = spec.program.out_dtype;
  select_variants(key, spec, plan, target, stream_min_bytes);
  return key;
}

std::uint64_t intern_binary_spec(Op op, DType dtype, const BroadcastType& type, ExprSpecPin* pin) {
  struct Remembered {
    Op op{};
    DType dtype{};
    BroadcastType type;
    std::uint64_t id = 0;
    ExprSpecPin pin;
  };
  thread_local std::array<Remembered, kBinarySpecMemo> memo;
  thread_local std::size_t next = 0;
  for (const Remembered& r : memo)
    if (r.id != 0 && r.op == op && r.dtype == dtype && r.type == type) {
      *pin = r.pin;
      return r.id;
    }
  Remembered& r = memo[next++ % memo.size()];
  r = {.op = op, .dtype = dtype, .type = type, .id = 0, .pin = nullptr};
  r.id = intern_expr_kernel(binary_spec(op, dtype, type), &r.pin);
  *pin = r.pin;
  return r.id;
}

KernelKey make_expr_kernel_key(const Target& target, const std::string& structure, const std::vector<LeafType>& inputs,
                               const std::vector<LeafType>& scalars, const BroadcastPlan& plan, std::uint32_t codegen,
                               std::uint64_t stream_min_bytes, ExprSpecPin* pin) {
  const ExprKernelSpec spec{
      .structure = structure, .inputs = inputs, .scalars = scalars, .type = plan.type, .program = {}};
  ExprSpecPin own;
  ExprSpecPin& held = pin != nullptr ? *pin : own;
  const std::uint64_t id = intern_expr_kernel(spec, &held);
  return key_for_spec(target, id, *held, plan, codegen, stream_min_bytes);
}

KernelKey make_reduction_kernel_key(const Target& target, const std::string& structure,
                                    const std::vector<LeafType>& inputs, const std::vector<LeafType>& scalars,
                                    const BroadcastPlan& plan, std::uint32_t codegen, const ReductionKernel& reduction,
                                    ExprSpecPin* pin) {
  const ExprKernelSpec spec{
      .structure = structure, .inputs = inputs, .scalars = scalars, .type = plan.type, .program = {}};
  ExprSpecPin own;
  ExprSpecPin& held = pin != nullptr ? *pin : own;
  KernelKey key;
  key.target = target.kind();
  key.model = target.model();
  key.codegen = codegen;
  key.rank = static_cast<std::uint8_t>(plan.rank());
  key.expr = intern_expr_kernel(spec, &held);
  key.dtype = held->program.out_dtype;
  key.operands = static_cast<std::uint8_t>(plan.operands());
  key.inner = inner_strides(plan);
  key.inner[kOut] = InnerStride::unit;  // rows: unused; columns: the caller's out is a row
  key.reduce = reduction.form;
  key.combine = reduction.combine;
  key.accumulator = reduction.accumulator;
  key.reduce_width = static_cast<std::uint8_t>(reduction.width);
  key.reduce_block = static_cast<std::uint8_t>(reduction.block);
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
