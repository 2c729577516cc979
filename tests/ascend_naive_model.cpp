// The naive model of the Ascend-style instructions (see ascend_naive_model.h).
#include "ascend_naive_model.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "ascend_copy.h"
#include "ascend_vector.h"

namespace bcast::test {
namespace {

using namespace bcast::ascend;

constexpr std::int64_t kUb = 4096, kGm = 1024;

struct Bytes {
  const std::uint8_t* data;
  std::size_t size, pos = 0;
  std::uint8_t next() { return pos < size ? data[pos++] : 0; }
  std::int64_t upto(std::int64_t hi) { return static_cast<std::int64_t>(next()) % (hi + 1); }
};

// ---- element arithmetic, native ----

template <class T>
T load(const std::vector<char>& m, std::int64_t at) {
  T v;
  std::memcpy(&v, m.data() + at, sizeof(T));
  return v;
}
template <class T>
void store(std::vector<char>& m, std::int64_t at, T v) {
  std::memcpy(m.data() + at, &v, sizeof(T));
}

template <class T>
T extremum(bool max, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a != a) return a;
    if (b != b) return b;
    if (a == b) return (std::signbit(a) != max) ? a : b;
  }
  return (max ? a > b : a < b) ? a : b;
}

template <class T>
T arith(Instr instr, T a, T b) {
  using W = std::conditional_t<std::is_floating_point_v<T>, T, std::uint32_t>;
  switch (instr) {
    case Instr::Add: case Instr::Adds: return static_cast<T>(static_cast<W>(a) + static_cast<W>(b));
    case Instr::Sub: return static_cast<T>(static_cast<W>(a) - static_cast<W>(b));
    case Instr::Mul: case Instr::Muls: return static_cast<T>(static_cast<W>(a) * static_cast<W>(b));
    case Instr::Max: case Instr::Maxs: return extremum(true, a, b);
    case Instr::Min: case Instr::Mins: return extremum(false, a, b);
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (instr == Instr::And) return static_cast<T>(a & b);
    if (instr == Instr::Or) return static_cast<T>(a | b);
  }
  return a;
}

template <class T>
bool compares(CmpMode m, T a, T b) {
  switch (m) {
    case CmpMode::lt: return a < b;
    case CmpMode::gt: return a > b;
    case CmpMode::eq: return a == b;
    case CmpMode::le: return a <= b;
    case CmpMode::ge: return a >= b;
    case CmpMode::ne: return a != b;
  }
  return false;
}

// ---- the vector instructions, element by element ----

bool supported(Instr instr, DType t, std::uint8_t mode) {
  const bool i16 = t == DType::i16, u16 = t == DType::u16, i32 = t == DType::i32, f32 = t == DType::f32;
  switch (instr) {
    case Instr::And: case Instr::Or: return i16 || u16;
    case Instr::Duplicate: case Instr::Brcb: return i16 || u16 || i32 || f32;
    case Instr::Compare: return f32 || (i32 && mode == static_cast<std::uint8_t>(CmpMode::eq));
    case Instr::Select: return f32;
    default: return i16 || i32 || f32;
  }
}

// The UB after `c`, or nullopt when the documentation forbids it.
template <class T>
std::optional<std::vector<char>> naive_vector(std::vector<char> ub, const VectorCall& c) {
  const std::int64_t size = sizeof(T), per_block = 32 / size, per_repeat = 8 * per_block;
  const RepeatParams& p = c.params;
  const bool brcb = c.instr == Instr::Brcb, dup = c.instr == Instr::Duplicate;
  const bool cmp = c.instr == Instr::Compare, sel = c.instr == Instr::Select;
  const bool scalar_form = c.instr >= Instr::Adds && c.instr <= Instr::Mins;
  const bool tensor_scalar = sel && c.mode == static_cast<std::uint8_t>(SelMode::tensor_scalar);
  const bool two_sources = !brcb && !dup && !scalar_form && !tensor_scalar;
  if (!supported(c.instr, c.dtype, c.mode)) return std::nullopt;
  if (c.repeat_times > 255) return std::nullopt;
  if (brcb && (p.dst_blk > 255 || p.dst_rep > 255)) return std::nullopt;
  if (!brcb) {
    if (!c.mask.by_bits && (c.mask.count < 1 || c.mask.count > per_repeat)) return std::nullopt;
    if (c.mask.by_bits)
      for (int bit = static_cast<int>(per_repeat); bit < 128; ++bit)
        if ((c.mask.bits[bit / 64] >> (bit % 64)) & 1u) return std::nullopt;
    if (p.dst_blk > 255 || p.dst_rep > 255) return std::nullopt;
    if (!dup && (p.src0_blk > 255 || p.src0_rep > 255)) return std::nullopt;
    if (two_sources && (p.src1_blk > 255 || p.src1_rep > 255)) return std::nullopt;
  }
  if (c.dst % 32 != 0 || (!dup && c.src0 % 32 != 0) || (two_sources && c.src1 % 32 != 0) || (sel && c.sel % 32 != 0))
    return std::nullopt;
  if (sel && c.mode == 0) return std::nullopt;
  if (brcb && c.src0 == c.dst) return std::nullopt;
  auto lane = [&](std::int64_t i) { return c.mask.by_bits ? ((c.mask.bits[i / 64] >> (i % 64)) & 1u) != 0 : i < c.mask.count; };
  auto in_ub = [](std::int64_t at, std::int64_t n) { return at >= 0 && at + n <= kUb; };

  if (brcb) {
    const std::int64_t blk = p.dst_blk == 0 ? 1 : p.dst_blk;
    for (std::int64_t r = 0; r < c.repeat_times; ++r)
      for (std::int64_t j = 0; j < 8; ++j)
        if (!in_ub(c.dst + (r * p.dst_rep + j * blk) * 32, 32) || !in_ub(c.src0 + (r * 8 + j) * size, size))
          return std::nullopt;
    for (std::int64_t r = 0; r < c.repeat_times; ++r)
      for (std::int64_t j = 0; j < 8; ++j) {
        const T v = load<T>(ub, c.src0 + (r * 8 + j) * size);
        for (std::int64_t e = 0; e < per_block; ++e) store<T>(ub, c.dst + (r * p.dst_rep + j * blk) * 32 + e * size, v);
      }
    return ub;
  }
  auto address = [&](std::int64_t base, std::int64_t rep, std::int64_t blk, std::int64_t r, std::int64_t j,
                     std::int64_t e) { return base + (r * rep + j * blk) * 32 + e * size; };
  const std::int64_t bit_bytes = (c.repeat_times * per_repeat + 7) / 8;
  if (cmp && !in_ub(c.dst, bit_bytes)) return std::nullopt;
  if (sel && !in_ub(c.sel, bit_bytes)) return std::nullopt;
  for (std::int64_t r = 0; r < c.repeat_times; ++r)
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t e = 0; e < per_block; ++e) {
        if (!lane(j * per_block + e)) continue;
        if (!cmp && !in_ub(address(c.dst, p.dst_rep, p.dst_blk, r, j, e), size)) return std::nullopt;
        if (!dup && !in_ub(address(c.src0, p.src0_rep, p.src0_blk, r, j, e), size)) return std::nullopt;
        if (two_sources && !in_ub(address(c.src1, p.src1_rep, p.src1_blk, r, j, e), size)) return std::nullopt;
      }
  T scalar;
  std::memcpy(&scalar, &c.scalar, sizeof(T));
  for (std::int64_t r = 0; r < c.repeat_times; ++r) {
    std::vector<T> result(static_cast<std::size_t>(per_repeat));
    std::vector<bool> bits(static_cast<std::size_t>(per_repeat));
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t e = 0; e < per_block; ++e) {
        const std::int64_t i = j * per_block + e;
        if (!lane(i)) continue;
        const T a = dup ? scalar : load<T>(ub, address(c.src0, p.src0_rep, p.src0_blk, r, j, e));
        const T b = two_sources ? load<T>(ub, address(c.src1, p.src1_rep, p.src1_blk, r, j, e)) : scalar;
        if (cmp) bits[i] = compares(static_cast<CmpMode>(c.mode), a, b);
        else if (sel) result[i] = ((ub[c.sel + (r * per_repeat + i) / 8] >> ((r * per_repeat + i) % 8)) & 1) ? a : b;
        else if (dup) result[i] = a;
        else result[i] = arith(c.instr, a, b);
      }
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t e = 0; e < per_block; ++e) {
        const std::int64_t i = j * per_block + e, n = r * per_repeat + i;
        if (!lane(i)) continue;
        if (cmp) {
          auto& byte = reinterpret_cast<unsigned char&>(ub[c.dst + n / 8]);
          byte = static_cast<unsigned char>(bits[i] ? byte | (1u << (n % 8)) : byte & ~(1u << (n % 8)));
        } else {
          store<T>(ub, address(c.dst, p.dst_rep, p.dst_blk, r, j, e), result[i]);
        }
      }
  }
  return ub;
}

// ---- the copies, block by block ----

struct Memories {
  std::vector<char> ub, gm;
};

std::optional<Memories> naive_copy(Memories m, const CopyCall& c, std::int64_t gm_offset) {
  const bool pad_copy = c.instr == Instr::DataCopyPad, in = c.dir == CopyDir::gm_to_ub;
  const std::int64_t len = pad_copy ? c.block_len : c.block_len * 32;
  const std::int64_t gm_gap = in ? c.src_gap : c.dst_gap, ub_gap = in ? c.dst_gap : c.src_gap;
  const std::int64_t left = c.left_pad * c.element_bytes, right = c.right_pad * c.element_bytes;
  const std::int64_t ub_block = pad_copy ? (left + len + right + 31) / 32 * 32 : len;
  const std::int64_t gm_pitch = len + (pad_copy ? gm_gap : gm_gap * 32), ub_pitch = ub_block + ub_gap * 32;
  if (c.block_count < 1 || c.block_count > 4095 || c.block_len < 1 || c.block_len > 65535 || c.ub % 32 != 0)
    return std::nullopt;
  if ((c.pad || left > 0 || right > 0) && (!in || !pad_copy)) return std::nullopt;
  if (left > 32 || right > 32 || (pad_copy && len % c.element_bytes != 0)) return std::nullopt;
  for (std::int64_t i = 0; i < c.block_count; ++i) {
    const std::int64_t g = gm_offset + i * gm_pitch, u = c.ub + i * ub_pitch;
    if (g < 0 || g + len > kGm || u < 0 || u + ub_block > kUb) return std::nullopt;
  }
  for (std::int64_t i = 0; i < c.block_count; ++i) {
    const std::int64_t g = gm_offset + i * gm_pitch, u = c.ub + i * ub_pitch;
    for (std::int64_t k = 0; k < len; ++k) {
      if (in) m.ub[u + left + k] = m.gm[g + k];
      else m.gm[g + k] = m.ub[u + k];
    }
    if (!in || !pad_copy) continue;
    for (std::int64_t k = 0; k < ub_block; ++k) {
      const bool left_pad = k < left, after = k >= left + len;
      const bool dummy = k >= left + len + right;
      if (c.pad && (left_pad || after))
        m.ub[u + k] = static_cast<char>((c.pad_value >> (8 * (k % c.element_bytes))) & 0xff);
      else if (!c.pad && dummy)
        m.ub[u + k] = m.ub[u + left + (k % c.element_bytes)];
    }
  }
  return m;
}

// ---- decoding and comparing ----

std::string first_difference(const std::vector<char>& got, const std::vector<char>& want, const char* what) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return fmt::format("{} byte {:#x}: simulator {:#04x}, model {:#04x}", what, i, static_cast<unsigned char>(got[i]),
                         static_cast<unsigned char>(want[i]));
  return "";
}

std::int64_t address(Bytes& in) {
  const std::int64_t a = in.upto(127) * 32;
  return in.upto(15) == 0 ? a + 4 : a;  // now and then misaligned
}

std::string vector_case(Bytes& in, std::vector<char> ub) {
  constexpr Instr kInstrs[] = {Instr::Add,  Instr::Sub,  Instr::Mul,  Instr::Max,       Instr::Min,
                               Instr::And,  Instr::Or,   Instr::Adds, Instr::Muls,      Instr::Maxs,
                               Instr::Mins, Instr::Duplicate, Instr::Brcb, Instr::Compare, Instr::Select};
  constexpr DType kTypes[] = {DType::i16, DType::u16, DType::i32, DType::f32, DType::i8};
  VectorCall c;
  c.instr = kInstrs[in.upto(14)];
  c.dtype = kTypes[in.upto(4)];
  c.dst = address(in);
  c.src0 = address(in);
  c.src1 = address(in);
  c.sel = address(in);
  for (int k = 0; k < 4; ++k) c.scalar |= std::uint64_t{in.next()} << (8 * k);
  if (in.upto(1) == 0) c.mask = Mask::first(in.upto(130));
  else c.mask = Mask::of_bits(in.next() * 0x0101010101010101ull ^ in.next(), in.upto(3) == 0 ? in.next() : 0);
  c.repeat_times = in.upto(31) == 0 ? 256 : in.upto(6);
  auto stride = [&](std::int64_t usual) { return in.upto(31) == 0 ? 256 : in.upto(usual); };
  c.params = {stride(3), stride(3), stride(3), stride(12), stride(12), stride(12)};
  c.mode = static_cast<std::uint8_t>(c.instr == Instr::Compare ? in.upto(5) : 1 + in.upto(1));
  const Product& product = *find_product("910b");
  std::vector<char> sim = ub;
  const VectorIssue issue = execute(sim, product, c);
  std::optional<std::vector<char>> want;
  switch (c.dtype) {
    case DType::i16: want = naive_vector<std::int16_t>(ub, c); break;
    case DType::u16: want = naive_vector<std::uint16_t>(ub, c); break;
    case DType::i32: want = naive_vector<std::int32_t>(ub, c); break;
    case DType::f32: want = naive_vector<float>(ub, c); break;
    default: break;
  }
  const std::string call = describe(c);
  if (!want) return issue.error.empty() ? call + ": the model refuses it, the simulator ran it" : "";
  if (!issue.error.empty()) return call + ": the simulator refused it (" + issue.error + "), the model ran it";
  if (c.instr == Instr::Select) {
    // Documented: on 910B Select's tensor modes work through the UB's top
    // 8 KB, whose bytes they leave unspecified.
    const std::size_t scratch = std::min<std::size_t>(8 * 1024, want->size());
    std::copy(sim.end() - static_cast<std::ptrdiff_t>(scratch), sim.end(),
              want->end() - static_cast<std::ptrdiff_t>(scratch));
  }
  const std::string diff = first_difference(sim, *want, "UB");
  return diff.empty() ? "" : call + ": " + diff;
}

std::string copy_case(Bytes& in, std::vector<char> ub) {
  std::vector<char> gm(kGm);
  for (char& b : gm) b = static_cast<char>(in.next() ^ 0x3c);
  CopyCall c;
  const int kind = static_cast<int>(in.upto(2));
  c.instr = kind == 2 ? Instr::DataCopyPad : Instr::DataCopy;
  c.dir = kind == 1 ? CopyDir::ub_to_gm : CopyDir::gm_to_ub;
  c.ub = address(in);
  const std::int64_t gm_offset = in.upto(40) * 8;
  c.gm = gm.data() + gm_offset;
  c.operand = 1;
  c.element_bytes = in.upto(1) == 0 ? 2 : 4;
  c.block_count = in.upto(5);
  c.block_len = kind == 2 ? in.upto(40) * 2 : in.upto(4);
  c.src_gap = in.upto(3);
  c.dst_gap = in.upto(3);
  if (kind == 2) {
    c.pad = in.upto(1) == 0;
    c.left_pad = in.upto(3) == 0 ? in.upto(9) : 0;
    c.right_pad = in.upto(2) == 0 ? in.upto(9) : 0;
    c.pad_value = in.next() * 0x0101010101010101ull;
  }
  Memories sim{ub, gm};
  c.gm = sim.gm.data() + gm_offset;
  const CopyIssue issue = execute(sim.ub, *find_product("910b"), c,
                                  {{}, {sim.gm.data(), sim.gm.data() + kGm}}, {"out", "a"});
  const std::optional<Memories> want = naive_copy(Memories{ub, gm}, c, gm_offset);
  const std::string call = describe(c, "a", gm_offset);
  if (!want) return issue.error.empty() ? call + ": the model refuses it, the simulator ran it" : "";
  if (!issue.error.empty()) return call + ": the simulator refused it (" + issue.error + "), the model ran it";
  std::string diff = first_difference(sim.ub, want->ub, "UB");
  if (diff.empty()) diff = first_difference(sim.gm, want->gm, "GM");
  return diff.empty() ? "" : call + ": " + diff;
}

}  // namespace

std::string compare_ascend_with_naive_model(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  const bool copy = in.upto(3) == 0;
  std::vector<char> ub(kUb);
  // The UB from the input's tail: raw bits, NaNs and extremes included.
  for (std::size_t i = 0; i < ub.size(); ++i) ub[i] = static_cast<char>(size > 0 ? data[(i * 7 + 3) % size] ^ i : i);
  return copy ? copy_case(in, ub) : vector_case(in, ub);
}

}  // namespace bcast::test
