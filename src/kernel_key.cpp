// KernelKey construction, naming and hashing.
#define XXH_INLINE_ALL
#include "kernel_key.h"

#include <xxhash.h>

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "codegen_settings.h"

namespace bcast {
namespace {

void set_code(KernelKey& key, int level, DimCode code) {
  key.codes[level / 32] |= static_cast<std::uint64_t>(code) << (2 * (level % 32));
}

char stride_letter(InnerStride s) {
  switch (s) {
    case InnerStride::unit: return 'u';
    case InnerStride::zero: return 'z';
    case InnerStride::strided: return 's';
  }
  return '?';
}

InnerStride classify(std::int64_t stride, bool repeated) {
  if (repeated) return InnerStride::zero;
  return stride == 1 ? InnerStride::unit : InnerStride::strided;
}

// How out, a and b move along the plan's innermost level.
std::array<InnerStride, kNumOperands> inner_strides(const BroadcastPlan& plan) {
  if (plan.rank() == 0) return {};
  const int inner = plan.rank() - 1;
  const DimCode code = plan.type[inner];
  return {classify(plan.strides[kOut][inner], false), classify(plan.strides[kA][inner], code == DimCode::expand_a),
          classify(plan.strides[kB][inner], code == DimCode::expand_b)};
}

// NOTE: [Streaming stores] with NOTE: [Fixed rows]: out's rows are back to
// back, so a line of out is L / m whole rows (L elements of out to a line, m
// dividing L); each input must give those rows as one vector: contiguous rows
// (unit, stepping m), one row for all (unit, stepping 0), one value per row
// (zero, stepping 1) or one value for all (zero, stepping 0).
bool fixed_rows_can_stream(const KernelKey& key) {
  const auto out_size = static_cast<std::int64_t>(dtype_size(result_dtype(key.op, key.dtype)));
  const auto lanes = static_cast<int>(kLineBytes / out_size);
  const int m = key.fixed_row;
  if (lanes % m != 0) return false;
  for (const int k : {kA, kB}) {
    const int step = key.row_step[k];
    const bool ok = key.inner[k] == InnerStride::unit ? step == m || step == 0 : step <= 1;
    if (!ok) return false;
  }
  return true;
}

// NOTE: [Streaming stores]: host kernels on x86-64 (the kernel ends with
// sfence); out contiguous along the row and each input contiguous or repeated,
// so that one vector step reads and writes whole vectors; or a transposed
// input (NOTE: [Transposed tiles]) of 4 or 8 bytes, out's element size, whose
// blocks store one line of out per row.
bool layout_can_stream(const KernelKey& key) {
#if defined(__x86_64__)
  if (key.target != Target::host || key.rank == 0 || key.inner[kOut] != InnerStride::unit) return false;
  if (key.fixed_row != 0) return fixed_rows_can_stream(key);
  if (key.transposed != 0)
    return dtype_size(key.dtype) >= 4 && dtype_size(result_dtype(key.op, key.dtype)) == dtype_size(key.dtype);
  return key.inner[kA] != InnerStride::strided && key.inner[kB] != InnerStride::strided;
#else
  (void)key;
  return false;
#endif
}

// NOTE: [Transposed tiles]: rows and columns (the last two levels), out
// contiguous along its rows, input t strided along them (and, in a plan,
// stepping 1 between rows), the other input unit or zero stride along them.
bool inner_can_transpose(const std::array<InnerStride, kNumOperands>& inner, int t) {
  const int other = t == kA ? kB : kA;
  return inner[kOut] == InnerStride::unit && inner[t] == InnerStride::strided && inner[other] != InnerStride::strided;
}

bool layout_can_transpose(const KernelKey& key, int t) {
  return key.target == Target::host && key.rank >= 2 && key.fixed_row == 0 && inner_can_transpose(key.inner, t);
}

// The bytes a call moves: out written once, each input's distinct elements
// read once (a repeated input is read once per element it holds).
std::uint64_t bytes_moved(const BroadcastPlan& plan, const std::array<std::size_t, kNumOperands>& sizes) {
  std::uint64_t total = 0;
  for (int k = 0; k < kNumOperands; ++k) {
    std::uint64_t elements = 1;
    for (int l = 0; l < plan.rank(); ++l)
      if (plan.strides[k][l] != 0) elements *= static_cast<std::uint64_t>(plan.extents[l]);
    total += elements * sizes[k];
  }
  return total;
}

bool streams_output(const KernelKey& key, const BroadcastPlan& plan, const std::array<std::size_t, kNumOperands>& sizes,
                    std::uint64_t stream_min_bytes) {
  if (!layout_can_stream(key)) return false;
  // Fixed rows are back to back in out: one long row.
  const bool long_rows =
      key.fixed_row != 0 || plan.extents.back() * static_cast<std::int64_t>(sizes[kOut]) >= kStreamMinRowBytes;
  return long_rows && bytes_moved(plan, sizes) >= stream_min_bytes;
}

}  // namespace

int transposed_operand(const BroadcastPlan& plan) {
  if (plan.rank() < 2) return 0;
  const std::array<InnerStride, kNumOperands> inner = inner_strides(plan);
  for (const int t : {kA, kB})
    if (inner_can_transpose(inner, t) && plan.strides[t][plan.rank() - 2] == 1) return t;
  return 0;
}

std::string_view target_name(Target target) { return target == Target::host ? "host" : "ascend-sim"; }

std::optional<Target> parse_target(std::string_view name) {
  if (name == "host") return Target::host;
  if (name == "ascend-sim") return Target::ascend_sim;
  return std::nullopt;
}

DimCode KernelKey::code(int level) const {
  return static_cast<DimCode>((codes[level / 32] >> (2 * (level % 32))) & 3u);
}

BroadcastType KernelKey::type() const {
  BroadcastType t(rank);
  for (int l = 0; l < rank; ++l) t[l] = code(l);
  return t;
}

std::string KernelKey::inner_code() const {
  return {stride_letter(inner[kOut]), stride_letter(inner[kA]), stride_letter(inner[kB])};
}

std::string KernelKey::layout_code() const {
  std::string code = inner_code();
  if (fixed_row != 0) code += fmt::format(".r{}-{}-{}-{}", fixed_row, row_step[kOut], row_step[kA], row_step[kB]);
  if (transposed != 0) code += transposed == kA ? ".ta" : ".tb";
  if (stream) code += ".nt";
  return code;
}

std::string KernelKey::to_string() const {
  const CodegenSettings settings = codegen_settings(codegen);
  const std::string tuning = settings.features + "/" + std::to_string(settings.vector_width_bits);
  const auto tuning_hash = static_cast<std::uint32_t>(XXH3_64bits(tuning.data(), tuning.size()));
  // Fixed rows print as ".r4-4-4-1": row length, then each operand's row step.
  return fmt::format("{}.{}.{}.{}.{}.{}.O{}.{:08x}", op_name(op), dtype_name(dtype), bcast::to_string(type()),
                     layout_code(), target_name(target), settings.cpu, settings.opt_level, tuning_hash);
}

std::uint64_t KernelKey::hash() const {
  // Hash the fields, not the object: padding bytes are not part of the key.
  std::array<std::uint8_t, 8> small{static_cast<std::uint8_t>(target), static_cast<std::uint8_t>(op),
                                    static_cast<std::uint8_t>(dtype),   rank,
                                    static_cast<std::uint8_t>(inner[0]), static_cast<std::uint8_t>(inner[1]),
                                    static_cast<std::uint8_t>(inner[2]), fixed_row};
  const std::uint64_t flags = (stream ? 1 : 0) | (std::uint64_t{transposed} << 1);
  std::array<std::uint64_t, 4> words{};
  std::memcpy(&words[0], small.data(), small.size());
  words[1] = codegen | (std::uint64_t{row_step[0]} << 32) | (std::uint64_t{row_step[1]} << 40) |
             (std::uint64_t{row_step[2]} << 48) | (flags << 56);
  words[2] = codes[0];
  words[3] = codes[1];
  return XXH3_64bits(words.data(), sizeof words);
}

KernelKey make_kernel_key(Target target, Op op, DType dtype, const BroadcastPlan& plan, std::uint32_t codegen,
                          std::uint64_t stream_min_bytes) {
  KernelKey key;
  key.target = target;
  key.op = op;
  key.dtype = dtype;
  key.codegen = codegen;
  key.rank = static_cast<std::uint8_t>(plan.rank());
  for (int l = 0; l < plan.rank(); ++l) set_code(key, l, plan.type[l]);
  key.inner = inner_strides(plan);
  // NOTE: [Fixed rows]: host kernels of rank 2 with short rows whose operands
  // step by 0, 1 or a whole row from one row to the next.
  if (target == Target::host && plan.rank() == 2 && plan.extents[1] <= kFixedRowMax &&
      !plan.extents.empty() && key.inner[kOut] == InnerStride::unit) {
    const std::int64_t m = plan.extents[1];
    bool fixed = key.inner[kA] != InnerStride::strided && key.inner[kB] != InnerStride::strided;
    for (int k = 0; k < kNumOperands && fixed; ++k) {
      const std::int64_t step = plan.strides[k][0];
      fixed = step == 0 || step == 1 || step == m;
      key.row_step[k] = static_cast<std::uint8_t>(step);
    }
    fixed = fixed && plan.strides[kOut][0] == m;
    if (fixed) key.fixed_row = static_cast<std::uint8_t>(m);
    else key.row_step = {};
  }
  const std::array<std::size_t, kNumOperands> sizes{dtype_size(result_dtype(op, dtype)), dtype_size(dtype),
                                                    dtype_size(dtype)};
  if (target == Target::host && key.fixed_row == 0) key.transposed = static_cast<std::uint8_t>(transposed_operand(plan));
  key.stream = streams_output(key, plan, sizes, stream_min_bytes);
  return key;
}

std::optional<KernelKey> make_kernel_key(Target target, std::string_view op, std::string_view dtype,
                                         std::string_view type, std::string_view inner, std::uint32_t codegen) {
  const std::optional<Op> o = parse_op(op);
  const std::optional<DType> d = parse_dtype(dtype);
  // "uuz", then ".r<m>-<out>-<a>-<b>" (fixed rows) or ".ta" / ".tb" (a transposed
  // input), then ".nt" (streaming stores), each optional.
  int rows[4] = {0, 0, 0, 0};
  int transposed = 0;
  const bool stream = inner.size() > 3 && inner.ends_with(".nt");
  if (stream) inner.remove_suffix(3);
  if (inner.size() > 3) {
    const std::string suffix(inner.substr(3));
    if (suffix == ".ta" || suffix == ".tb") {
      transposed = suffix == ".ta" ? kA : kB;
    } else if (std::sscanf(suffix.c_str(), ".r%d-%d-%d-%d", &rows[0], &rows[1], &rows[2], &rows[3]) != 4 ||
               suffix != fmt::format(".r{}-{}-{}-{}", rows[0], rows[1], rows[2], rows[3]) || rows[0] < 1 ||
               rows[0] > kFixedRowMax) {
      return std::nullopt;
    }
    inner = inner.substr(0, 3);
  }
  if (!o || !d || inner.size() != 3 || type.size() < 2 || type.front() != '[' || type.back() != ']')
    return std::nullopt;
  BroadcastType codes;
  for (std::string_view rest = type.substr(1, type.size() - 2); !rest.empty();) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    if (name == "same") codes.push_back(DimCode::same);
    else if (name == "expand_a") codes.push_back(DimCode::expand_a);
    else if (name == "expand_b") codes.push_back(DimCode::expand_b);
    else return std::nullopt;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  if (codes.size() > static_cast<std::size_t>(kMaxRank)) return std::nullopt;
  KernelKey key = make_kernel_key(target, *o, *d, codes, codegen);
  for (int k = 0; k < kNumOperands; ++k) {
    switch (inner[k]) {
      case 'u': key.inner[k] = InnerStride::unit; break;
      case 'z': key.inner[k] = InnerStride::zero; break;
      case 's': key.inner[k] = InnerStride::strided; break;
      default: return std::nullopt;
    }
  }
  if (transposed != 0) {
    if (!layout_can_transpose(key, transposed)) return std::nullopt;
    key.transposed = static_cast<std::uint8_t>(transposed);
  }
  if (rows[0] > 0) {
    if (key.rank != 2) return std::nullopt;
    key.fixed_row = static_cast<std::uint8_t>(rows[0]);
    for (int k = 0; k < kNumOperands; ++k) {
      if (rows[k + 1] != 0 && rows[k + 1] != 1 && rows[k + 1] != rows[0]) return std::nullopt;
      key.row_step[k] = static_cast<std::uint8_t>(rows[k + 1]);
    }
  }
  if (stream) {
    if (!layout_can_stream(key)) return std::nullopt;
    key.stream = true;
  }
  return key;
}

KernelKey make_kernel_key(Target target, Op op, DType dtype, const BroadcastType& type, std::uint32_t codegen) {
  BroadcastPlan plan;
  plan.type = type;
  plan.extents.assign(type.size(), 2);
  for (int k = 0; k < kNumOperands; ++k) plan.strides[k].assign(type.size(), 1);
  return make_kernel_key(target, op, dtype, plan, codegen);
}

}  // namespace bcast
