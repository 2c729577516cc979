// The key codec: one table of fields, each printed and parsed in one place.
#define XXH_INLINE_ALL
#include "key_codec.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "ascend_product.h"
#include "codegen_settings.h"
#include "expr_kernel.h"
#include "variant.h"

namespace bcast {
namespace {

// ---- inner strides: one letter each, both ways ----

constexpr std::array<std::pair<InnerStride, char>, 4> kStrideLetters{
    {{InnerStride::unit, 'u'}, {InnerStride::zero, 'z'}, {InnerStride::strided, 's'}, {InnerStride::reversed, 'r'}}};

char stride_letter(InnerStride s) {
  for (const auto& [stride, letter] : kStrideLetters)
    if (stride == s) return letter;
  return '?';
}

std::optional<InnerStride> stride_of(char c) {
  for (const auto& [stride, letter] : kStrideLetters)
    if (letter == c) return stride;
  return std::nullopt;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// ---- the spec: op, dtype and broadcast type ----

// NOTE: [Expression kernels]: a binary op's spec (the one-node op(x0, x1),
// binary_spec) prints as the op it is, "add" and "f32"; any other as its
// structure and its leaves' types, "expr[x0*x1+s0]" and "u8,f32,~float".
std::string print_op(const KernelKey& key) {
  const ExprKernelSpec& spec = spec_of(key);
  if (const std::optional<Op> op = binary_op_of(spec)) return std::string(op_name(*op));
  return "expr[" + spec.structure + "]";
}

std::string print_dtype(const KernelKey& key) {
  const ExprKernelSpec& spec = spec_of(key);
  if (binary_op_of(spec)) return std::string(dtype_name(spec.inputs[0].dtype));
  return spec.leaf_types();
}

std::string print_type(const KernelKey& key) { return to_string(spec_of(key).type); }

// The spec that the op, dtype and type fields name, its leaves all in
// `inputs` (the layout says how many are inputs); nullopt when one does not
// parse.
std::optional<ExprKernelSpec> parse_spec_fields(const KeyFields& fields) {
  ExprKernelSpec spec;
  if (fields.op.starts_with("expr[") && fields.op.ends_with("]")) {
    spec.structure = fields.op.substr(5, fields.op.size() - 6);
    for (std::string_view name : split(fields.dtype, ',')) {
      const std::optional<LeafType> t = parse_leaf_type(name);
      if (!t) return std::nullopt;
      spec.inputs.push_back(*t);
    }
  } else {
    const std::optional<Op> op = parse_op(fields.op);
    const std::optional<DType> dtype = parse_dtype(fields.dtype);
    if (!op || !dtype) return std::nullopt;
    spec = binary_spec(*op, *dtype, {});
  }
  const std::string_view type = fields.type;
  if (type.size() < 2 || type.front() != '[' || type.back() != ']') return std::nullopt;
  if (type.size() > 2)
    for (std::string_view name : split(type.substr(1, type.size() - 2), ',')) {
      const std::optional<DimCode> c = parse_dim_class(name);
      if (!c || spec.type.size() == static_cast<std::size_t>(kMaxRank)) return std::nullopt;
      spec.type.push_back(*c);
    }
  return spec;
}

// ---- the layout, target and codegen ----

std::string print_layout(const KernelKey& key) {
  std::string code;
  for (int k = 0; k < key.operands; ++k) code += stride_letter(key.inner[k]);
  for (const VariantRow& row : variant_table())
    if (row.in_key != nullptr && row.in_key(key)) code += "." + row.print(key);
  return code;
}

// "uuz" (a letter for each of key.operands), then suffixes in the order of
// the table's rows, each read by the first row after the previous one whose
// tag starts it.
bool parse_layout(std::string_view text, KernelKey& key) {
  const std::vector<std::string_view> fields = split(text, '.');
  if (fields[0].size() != key.operands) return false;
  for (int k = 0; k < key.operands; ++k) {
    const std::optional<InnerStride> s = stride_of(fields[0][k]);
    if (!s) return false;
    key.inner[k] = *s;
  }
  const std::span<const VariantRow> rows = variant_table();
  std::size_t next_row = 0;
  for (std::size_t f = 1; f < fields.size(); ++f) {
    while (next_row < rows.size() &&
           (rows[next_row].parse == nullptr || !fields[f].starts_with(rows[next_row].tag)))
      ++next_row;
    if (next_row == rows.size() || !rows[next_row].parse(fields[f], key)) return false;
    ++next_row;
  }
  return true;
}

// NOTE: [Target models] A target's model follows its name: "ascend-sim-310p"
// is model 2 of ascend-sim (1 + its index in ascend::products()).
std::string print_target(const KernelKey& key) {
  std::string text(target_name(key.target));
  if (key.model > 0) text += "-" + std::string(ascend::products()[key.model - 1u].name);
  return text;
}
bool parse_target_field(std::string_view text, KernelKey& key) {
  key.model = 0;
  for (std::size_t m = 0; m < ascend::products().size(); ++m) {
    const std::string suffix = "-" + std::string(ascend::products()[m].name);
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      text.remove_suffix(suffix.size());
      key.model = static_cast<std::uint8_t>(m + 1);
      break;
    }
  }
  const std::optional<TargetKind> target = parse_target(text);
  if (target) key.target = *target;
  return target.has_value() && (key.model == 0) == (key.target == TargetKind::host);
}

// "cpu.O<level>.<hash of features and vector width>": settings cannot be read
// back from it, so parsing checks that the given ones print the same.
std::string print_codegen(const KernelKey& key) {
  const CodegenSettings settings = codegen_settings(key.codegen);
  const std::string tuning = settings.features + "/" + std::to_string(settings.vector_width_bits);
  const auto tuning_hash = static_cast<std::uint32_t>(XXH3_64bits(tuning.data(), tuning.size()));
  return fmt::format("{}.O{}{}.{:08x}", settings.cpu, settings.opt_level, settings.quick ? "q" : "", tuning_hash);
}
bool parse_codegen(std::string_view text, KernelKey& key) { return print_codegen(key) == text; }

struct KeyField {
  std::string_view name;
  std::string KeyFields::*text;
  std::string (*print)(const KernelKey&);
  bool (*parse)(std::string_view, KernelKey&);  // null: the spec's, parsed together (parse_spec_fields)
};

// In printing order. Parsing goes in the order of the table, after the
// spec: the layout's variants check themselves against the target.
constexpr std::array<KeyField, 6> kFields{{
    {"op", &KeyFields::op, print_op, nullptr},
    {"dtype", &KeyFields::dtype, print_dtype, nullptr},
    {"broadcast type", &KeyFields::type, print_type, nullptr},
    {"target", &KeyFields::target, print_target, parse_target_field},
    {"layout", &KeyFields::layout, print_layout, parse_layout},
    {"codegen", &KeyFields::codegen, print_codegen, parse_codegen},
}};
// Where each field stands in the text (the target goes after the layout).
constexpr std::array<int, 6> kPrintPosition{0, 1, 2, 4, 3, 5};

}  // namespace

std::string key_to_string(const KernelKey& key) {
  std::array<std::string, kFields.size()> parts;
  for (std::size_t i = 0; i < kFields.size(); ++i) parts[kPrintPosition[i]] = kFields[i].print(key);
  std::string text = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) text += "." + parts[i];
  return text;
}

std::string layout_code(const KernelKey& key) { return print_layout(key); }

std::optional<KeyFields> split_kernel_key(std::string_view text) {
  // op, dtype and type are one dot-free token each; target, cpu, O<level>
  // and tuning the last four; the layout is what lies between.
  const std::vector<std::string_view> tokens = split(text, '.');
  if (tokens.size() < 8) return std::nullopt;
  const std::size_t n = tokens.size();
  KeyFields f;
  f.op = tokens[0];
  f.dtype = tokens[1];
  f.type = tokens[2];
  for (std::size_t i = 3; i + 4 < n; ++i) f.layout += (i == 3 ? "" : ".") + std::string(tokens[i]);
  f.target = tokens[n - 4];
  f.cpu = tokens[n - 3];
  f.codegen = fmt::format("{}.{}.{}", tokens[n - 3], tokens[n - 2], tokens[n - 1]);
  const std::string_view level = tokens[n - 2];
  const bool quick = level.size() == 3 && level[2] == 'q';  // NOTE: [Tiers]
  if ((level.size() != 2 && !quick) || level[0] != 'O' || level[1] < '0' || level[1] > '3') return std::nullopt;
  f.opt_level = level[1] - '0';
  return f;
}

std::optional<KernelKey> parse_kernel_key(const KeyFields& fields, std::uint32_t codegen) {
  std::optional<ExprKernelSpec> spec = parse_spec_fields(fields);
  if (!spec) return std::nullopt;
  // The layout has a letter for out and each input: the leaves after the
  // inputs are the scalars, and no dim class repeats an input past them.
  const std::size_t operands = std::min(fields.layout.find('.'), fields.layout.size());
  std::vector<LeafType>& leaves = spec->inputs;
  if (operands < 1 || operands > static_cast<std::size_t>(kMaxOperands) || leaves.size() < operands - 1)
    return std::nullopt;
  spec->scalars.assign(leaves.begin() + static_cast<std::ptrdiff_t>(operands - 1), leaves.end());
  leaves.resize(operands - 1);
  for (const DimCode c : spec->type)
    if (static_cast<unsigned>(c) >> leaves.size() != 0) return std::nullopt;
  KernelKey key;
  key.codegen = codegen;
  key.rank = static_cast<std::uint8_t>(spec->type.size());
  key.operands = static_cast<std::uint8_t>(operands);
  ExprSpecPin pin;  // NOTE: [Interned ids]: while the layout's rows read it
  try {
    key.expr = intern_expr_kernel(*spec, &pin);
  } catch (const std::exception&) {
    return std::nullopt;  // a structure that does not parse or lower
  }
  key.dtype = pin->program.out_dtype;
  for (const KeyField& field : kFields)
    if (field.parse != nullptr && !field.parse(fields.*field.text, key)) return std::nullopt;
  return key;
}

std::optional<KernelKey> parse_kernel_key(std::string_view text, std::uint32_t codegen) {
  const std::optional<KeyFields> fields = split_kernel_key(text);
  if (!fields) return std::nullopt;
  std::optional<KernelKey> key = parse_kernel_key(*fields, codegen);
  if (key && key->to_string() != text) return std::nullopt;
  return key;
}

}  // namespace bcast
