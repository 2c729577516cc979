// The vector instructions' semantics and checks (NOTE: [Vector repeats]).
#include "ascend_vector.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "half.h"
#include "reference_executor.h"

namespace bcast::ascend {
namespace {

// ---- the elementwise meaning of each instruction ----

// The bcast op whose per-element semantics an instruction has.
Op op_of(Instr instr) {
  switch (instr) {
    case Instr::Add: case Instr::Adds: return Op::add;
    case Instr::Sub: return Op::sub;
    case Instr::Mul: case Instr::Muls: return Op::mul;
    case Instr::Div: return Op::div;
    case Instr::Max: case Instr::Maxs: return Op::max;
    case Instr::Min: case Instr::Mins: return Op::min;
    case Instr::And: return Op::bit_and;
    case Instr::Or: return Op::bit_or;
    default: return Op::add;
  }
}

Op op_of(CmpMode m) {
  constexpr Op ops[] = {Op::lt, Op::gt, Op::eq, Op::le, Op::ge, Op::ne};
  return ops[static_cast<std::size_t>(m)];
}

bool is_binary(Instr i) { return i >= Instr::Add && i <= Instr::Or; }
bool is_scalar_form(Instr i) { return i >= Instr::Adds && i <= Instr::Mins; }
bool is_whole_reduce(Instr i) { return i >= Instr::WholeReduceSum && i <= Instr::WholeReduceMin; }

// Runs op over n contiguous elements: out[i] = a[i] op b[i].
void run_op(Op op, DType dtype, void* out, const void* a, const void* b, std::int64_t n) {
  const std::int64_t extents[1] = {n}, strides[3] = {1, 1, 1}, spans[3] = {0, 0, 0};
  void* const data[3] = {out, const_cast<void*>(a), const_cast<void*>(b)};
  const KernelArgs args{data, extents, strides, spans, nullptr, 1, 1, nullptr};
  reference_kernel(op, dtype)(&args);
}

// ---- Cast ----

double round_integer(double x, RoundMode mode) {
  switch (mode) {
    case RoundMode::floor: return std::floor(x);
    case RoundMode::ceil: return std::ceil(x);
    case RoundMode::round: return std::round(x);  // half away from zero
    case RoundMode::trunc: return std::trunc(x);
    case RoundMode::odd: {  // to odd: an inexact result takes the odd one of its two neighbours
      const double t = std::trunc(x);
      return t == x || std::fmod(t, 2.0) != 0 ? t : t + std::copysign(1.0, x);
    }
    default: return std::nearbyint(x);  // none and rint: to nearest, ties to even
  }
}

// x rounded to a float format with `digits` significand bits and smallest
// normal exponent `min_exp` (that of 1.0 * 2^min_exp), by `mode`; the caller
// encodes the result, which the format represents exactly or overflows.
double round_to_format(double x, int digits, int min_exp, double max_finite, RoundMode mode) {
  if (x == 0 || !std::isfinite(x)) return x;
  const int exp = std::max(std::ilogb(x), min_exp);
  const double quantum = std::ldexp(1.0, exp - (digits - 1));
  const double r = round_integer(x / quantum, mode) * quantum;
  if (std::fabs(r) <= max_finite) return r;
  // Overflow: the modes that round towards zero stop at the largest finite value.
  const bool to_infinity = mode == RoundMode::none || mode == RoundMode::rint || mode == RoundMode::round ||
                           (mode == RoundMode::ceil && x > 0) || (mode == RoundMode::floor && x < 0);
  return to_infinity ? std::copysign(HUGE_VAL, x) : std::copysign(max_finite, x);
}

double load_as_double(DType t, const char* p) {
  switch (t) {
    case DType::f16: { std::uint16_t v; std::memcpy(&v, p, 2); return f16_to_f32(v); }
    case DType::bf16: { std::uint16_t v; std::memcpy(&v, p, 2); return bf16_to_f32(v); }
    case DType::f32: { float v; std::memcpy(&v, p, 4); return v; }
    case DType::i8: return static_cast<std::int8_t>(*p);
    case DType::u8: case DType::boolean: return static_cast<std::uint8_t>(*p);
    case DType::i16: { std::int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::u16: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::i32: { std::int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::u32: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::i64: { std::int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::u64: { std::uint64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case DType::f64: { double v; std::memcpy(&v, p, 8); return v; }
    case DType::c64: case DType::c128: break;  // the AI core has no complex type (ascend_type_name)
  }
  return 0;
}

template <class T>
void store_integer(char* p, double x) {
  // Saturating, NaN to 0, as the AI core converts.
  T v = 0;
  if (x >= static_cast<double>(std::numeric_limits<T>::max())) v = std::numeric_limits<T>::max();
  else if (x <= static_cast<double>(std::numeric_limits<T>::lowest())) v = std::numeric_limits<T>::lowest();
  else if (x == x) v = static_cast<T>(x);
  std::memcpy(p, &v, sizeof(T));
}

// One element of Cast: src (of type `from`) into dst (of type `to`).
// A float cast to its own type rounds to an integral value (vconv's
// f32-to-f32 form).
void cast_element(DType from, DType to, RoundMode mode, const char* src, char* dst) {
  double x = load_as_double(from, src);
  if (from == to && is_floating(to) && std::isfinite(x)) x = std::copysign(round_integer(x, mode), x);
  switch (to) {
    case DType::f16: {
      const double r = round_to_format(x, 11, -14, 65504.0, mode);
      const std::uint16_t h = x != x ? f32_to_f16(static_cast<float>(x)) : f32_to_f16(static_cast<float>(r));
      std::memcpy(dst, &h, 2);
      return;
    }
    case DType::bf16: {
      const double r = round_to_format(x, 8, -126, 0x1.fep127, mode);
      const std::uint16_t h = f32_to_bf16(static_cast<float>(r));
      std::memcpy(dst, &h, 2);
      return;
    }
    case DType::f32: {
      const auto f = static_cast<float>(round_to_format(x, 24, -126, std::numeric_limits<float>::max(), mode));
      std::memcpy(dst, &f, 4);
      return;
    }
    default: break;
  }
  const double i = x != x ? 0 : round_integer(x, mode);
  switch (to) {
    case DType::i8: store_integer<std::int8_t>(dst, i); return;
    case DType::u8: case DType::boolean: store_integer<std::uint8_t>(dst, i); return;
    case DType::i16: store_integer<std::int16_t>(dst, i); return;
    case DType::u16: store_integer<std::uint16_t>(dst, i); return;
    case DType::i32: store_integer<std::int32_t>(dst, i); return;
    case DType::u32: store_integer<std::uint32_t>(dst, i); return;
    case DType::i64: store_integer<std::int64_t>(dst, i); return;
    case DType::u64: store_integer<std::uint64_t>(dst, i); return;
    default: return;
  }
}

// ---- addressing ----

// Where one operand of a repeat lives: NOTE: [Vector repeats].
struct Operand {
  std::int64_t address = 0, size = 0, blk = 1, rep = 8;
  std::int64_t at(std::int64_t r, std::int64_t i) const {
    const std::int64_t per_block = kBlockBytes / size;
    return address + r * rep * kBlockBytes + (i / per_block) * blk * kBlockBytes + (i % per_block) * size;
  }
};

// A normalised call: the count form made into repeats (see plan_repeats).
struct Shape {
  Mask mask;
  std::int64_t repeats = 0;
  RepeatParams params;
  std::int64_t last_count = -1;  // the count form: the last repeat's elements
};

class Checker {
 public:
  Checker(UbBytes ub, const VectorCall& call) : ub_(ub), call_(call) {}
  bool fail(std::string what) {
    if (error.empty()) error = fmt::format("{}: {}", describe(call_), what);
    return false;
  }
  bool aligned(const char* name, std::int64_t address) {
    if (address % kBlockBytes == 0) return true;
    return fail(fmt::format("{} address {:#x} is not a multiple of {} bytes", name, address, kBlockBytes));
  }
  // The operand's bytes over the repeats, for the elements the shape keeps:
  // addresses grow with the repeat and the element (strides are never
  // negative), so the last kept element of the last two repeats ends it.
  bool inside(const char* name, const Operand& o, const Shape& s, std::int64_t per_repeat, UbRange& footprint) {
    std::int64_t end = o.address;
    for (std::int64_t r = std::max<std::int64_t>(0, s.repeats - 2); r < s.repeats; ++r) {
      const std::int64_t n = s.last_count >= 0 && r + 1 == s.repeats ? s.last_count : per_repeat;
      for (std::int64_t i = n - 1; i >= 0; --i)
        if (s.mask.has(i)) {
          end = std::max(end, o.at(r, i) + o.size);
          break;
        }
    }
    footprint = {o.address, end};
    if (o.address >= 0 && end <= static_cast<std::int64_t>(ub_.size())) return true;
    return fail(fmt::format("{} range [{:#x}, {:#x}) overflows the {}-byte UB", name, footprint.begin, footprint.end,
                            ub_.size()));
  }
  std::string error;

 private:
  UbBytes ub_;
  const VectorCall& call_;
};

std::int64_t widest(const VectorCall& c) {
  if (c.instr == Instr::Cast) return std::max(dtype_size(c.dtype), dtype_size(c.src_dtype));
  return static_cast<std::int64_t>(dtype_size(c.dtype));
}

// The count form as repeats: every repeat full but the last.
Shape plan_repeats(const VectorCall& c, std::int64_t per_repeat) {
  if (c.count < 0) return Shape{c.mask, c.repeat_times, c.params, -1};
  Shape s;
  s.repeats = (c.count + per_repeat - 1) / per_repeat;
  s.mask = Mask::first(per_repeat);
  s.last_count = c.count - (s.repeats - 1) * per_repeat;
  const std::int64_t dst_blocks = per_repeat * static_cast<std::int64_t>(dtype_size(c.dtype)) / kBlockBytes;
  const std::int64_t src_blocks =
      per_repeat * static_cast<std::int64_t>(dtype_size(c.instr == Instr::Cast ? c.src_dtype : c.dtype)) / kBlockBytes;
  s.params = {1, 1, 1, dst_blocks, src_blocks, src_blocks};
  return s;
}

bool check_shape(Checker& check, const VectorCall& c, const Shape& s, std::int64_t per_repeat, bool uses_src0,
                 bool uses_src1) {
  if (c.count < 0) {
    if (s.repeats < 0 || s.repeats > kMaxRepeatTimes)
      return check.fail(fmt::format("repeat times {} is outside 0 .. {}", s.repeats, kMaxRepeatTimes));
    if (!s.mask.by_bits && (s.mask.count < 1 || s.mask.count > per_repeat))
      return check.fail(fmt::format("mask {} is outside 1 .. {} (the elements of one repeat)", s.mask.count, per_repeat));
    if (s.mask.by_bits && per_repeat > 128)
      return check.fail(fmt::format("a bit mask covers 128 elements; a repeat of this dtype has {}", per_repeat));
    if (s.mask.by_bits && per_repeat < 128 &&
        (s.mask.bits[1] != 0 || (per_repeat < 64 && (s.mask.bits[0] >> per_repeat) != 0)))
      return check.fail(fmt::format("mask bits above element {} are set, but a repeat of this dtype has {} elements",
                                    per_repeat - 1, per_repeat));
    // The strides of the operands the instruction has (Brcb reads src0 contiguously).
    const RepeatParams& p = s.params;
    const bool src0 = uses_src0 && c.instr != Instr::Brcb;
    for (const std::int64_t v : {p.dst_blk, p.dst_rep, src0 ? p.src0_blk : 0, src0 ? p.src0_rep : 0,
                                 uses_src1 ? p.src1_blk : 0, uses_src1 ? p.src1_rep : 0})
      if (v < 0 || v > 255) return check.fail(fmt::format("stride {} is outside 0 .. 255 blocks", v));
  }
  return true;
}

bool check_product(Checker& check, const Product& product, const VectorCall& c) {
  if (c.instr == Instr::Cast) {
    if (c.mode < kNumRoundModes && product.can_cast(c.src_dtype, c.dtype, c.mode)) return true;
    return check.fail(fmt::format("{} has no Cast from {} to {} with {}", product.name,
                                  ascend_type_name(c.src_dtype).value_or(dtype_name(c.src_dtype)),
                                  ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)),
                                  c.mode < kNumRoundModes ? round_mode_name(static_cast<RoundMode>(c.mode)) : "mode ?"));
  }
  if (c.instr == Instr::Compare && c.dtype == DType::i32 && product.has(c.instr, c.dtype) &&
      c.mode != static_cast<std::uint8_t>(CmpMode::eq))
    return check.fail(fmt::format("{} compares int32_t only for EQ", product.name));
  if (product.has(c.instr, c.dtype)) return true;
  return check.fail(fmt::format("{} has no {} for {}", product.name, instr_name(c.instr),
                                ascend_type_name(c.dtype).value_or(dtype_name(c.dtype))));
}

// ---- the instructions ----

// Runs repeat by repeat: gathers each operand's elements of the repeat,
// computes them contiguously, and writes back those the mask keeps.
class Runner {
 public:
  Runner(UbBytes ub, const Shape& s, std::int64_t per_repeat) : ub_(ub), s_(s), per_repeat_(per_repeat) {}

  bool kept(std::int64_t r, std::int64_t i) const {
    if (!s_.mask.has(i)) return false;
    return s_.last_count < 0 || r + 1 < s_.repeats || i < s_.last_count;
  }
  void gather(const Operand& o, std::int64_t r, char* to) const {
    for (std::int64_t i = 0; i < per_repeat_; ++i)
      if (kept(r, i)) std::memcpy(to + i * o.size, ub_.data() + o.at(r, i), static_cast<std::size_t>(o.size));
  }
  void scatter(const Operand& o, std::int64_t r, const char* from) const {
    for (std::int64_t i = 0; i < per_repeat_; ++i)
      if (kept(r, i)) std::memcpy(ub_.data() + o.at(r, i), from + i * o.size, static_cast<std::size_t>(o.size));
  }
  bool bit(std::int64_t address, std::int64_t r, std::int64_t i) const {
    const std::int64_t n = r * per_repeat_ + i;
    return ((static_cast<unsigned char>(ub_[static_cast<std::size_t>(address + n / 8)]) >> (n % 8)) & 1u) != 0;
  }
  void set_bit(std::int64_t address, std::int64_t r, std::int64_t i, bool v) const {
    const std::int64_t n = r * per_repeat_ + i;
    auto& byte = reinterpret_cast<unsigned char&>(ub_[static_cast<std::size_t>(address + n / 8)]);
    byte = static_cast<unsigned char>(v ? byte | (1u << (n % 8)) : byte & ~(1u << (n % 8)));
  }

 private:
  UbBytes ub_;
  const Shape& s_;
  std::int64_t per_repeat_;
};

}  // namespace

std::int64_t elements_per_repeat(const VectorCall& call) { return kRepeatBytes / widest(call); }

std::string describe(const VectorCall& c) {
  if (c.instr == Instr::Gather)
    return fmt::format("Gather<{}>(dst {:#x}, src0 {:#x}, offsets {:#x}, count {})",
                       ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)), c.dst, c.src0, c.src1, c.count);
  if (c.instr == Instr::CreateVecIndex)
    return fmt::format("CreateVecIndex<{}>(dst {:#x}, first {}, count {})",
                       ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)), c.dst,
                       static_cast<std::int32_t>(c.scalar), c.count);
  if (is_whole_reduce(c.instr))
    return fmt::format(
        "{}<{}>(dst {:#x}, src0 {:#x}, mask {}, repeat {}, dst rep {}, src blk {}, src rep {}{})", instr_name(c.instr),
        ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)), c.dst, c.src0,
        c.mask.by_bits ? fmt::format("{:#x}:{:#x}", c.mask.bits[1], c.mask.bits[0]) : std::to_string(c.mask.count),
        c.repeat_times, c.params.dst_rep, c.params.src0_blk, c.params.src0_rep,
        c.instr == Instr::WholeReduceSum ? "" : ", ORDER_ONLY_VALUE");
  const std::string type = c.instr == Instr::Cast
                               ? fmt::format("{}, {}", ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)),
                                             ascend_type_name(c.src_dtype).value_or(dtype_name(c.src_dtype)))
                               : std::string(ascend_type_name(c.dtype).value_or(dtype_name(c.dtype)));
  std::string args = fmt::format("dst {:#x}", c.dst);
  if (c.instr != Instr::Duplicate) args += fmt::format(", src0 {:#x}", c.src0);
  if (is_binary(c.instr) || c.instr == Instr::Compare ||
      (c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::tensor_tensor)))
    args += fmt::format(", src1 {:#x}", c.src1);
  if (c.instr == Instr::Select) args += fmt::format(", sel {:#x}", c.sel);
  if (is_scalar_form(c.instr) || c.instr == Instr::Duplicate ||
      (c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::tensor_scalar)))
    args += fmt::format(", scalar {:#x}", c.scalar);
  if (c.instr == Instr::Compare) args += fmt::format(", {}", cmp_mode_name(static_cast<CmpMode>(c.mode)));
  if (c.instr == Instr::Cast) args += fmt::format(", {}", round_mode_name(static_cast<RoundMode>(c.mode)));
  if (c.count >= 0) return fmt::format("{}<{}>({}, count {})", instr_name(c.instr), type, args, c.count);
  const std::string mask = c.mask.by_bits ? fmt::format("mask {:#x}:{:#x}", c.mask.bits[1], c.mask.bits[0])
                                          : fmt::format("mask {}", c.mask.count);
  // The strides of the operands the instruction has: dst's, then its sources'.
  const RepeatParams& p = c.params;
  std::string blk = std::to_string(p.dst_blk), rep = std::to_string(p.dst_rep);
  if (c.instr != Instr::Duplicate && c.instr != Instr::Brcb) blk += fmt::format("/{}", p.src0_blk), rep += fmt::format("/{}", p.src0_rep);
  if (is_binary(c.instr) || c.instr == Instr::Compare ||
      (c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::tensor_tensor)))
    blk += fmt::format("/{}", p.src1_blk), rep += fmt::format("/{}", p.src1_rep);
  return fmt::format("{}<{}>({}, {}, repeat {}, blk {}, rep {})", instr_name(c.instr), type, args,
                     c.instr == Instr::Brcb ? std::string("no mask") : mask, c.repeat_times, blk, rep);
}

namespace {

// Gather and CreateVecIndex: count forms only, each lane on its own.
VectorIssue execute_indexed(UbBytes ub, const Product& product, const VectorCall& c) {
  VectorIssue issue;
  Checker check(ub, c);
  const auto size = static_cast<std::int64_t>(dtype_size(c.dtype));
  const auto top = static_cast<std::int64_t>(ub.size());
  auto fail = [&](const std::string& why) {
    check.fail(why);
    issue.error = check.error;
    return issue;
  };
  if (!product.has(c.instr, c.dtype))
    return fail(fmt::format("{} has no {} for {}", product.name, instr_name(c.instr),
                            ascend_type_name(c.dtype).value_or(dtype_name(c.dtype))));
  if (c.count < 0) return fail("only the count form is modelled");
  if (!check.aligned("dst", c.dst) || (c.instr == Instr::Gather && (!check.aligned("src0", c.src0) || !check.aligned("offsets", c.src1))))
    return issue.error = check.error, issue;
  issue.writes[0] = {c.dst, c.dst + c.count * size};
  if (c.dst < 0 || issue.writes[0].end > top)
    return fail(fmt::format("dst range [{:#x}, {:#x}) overflows the {}-byte UB", c.dst, issue.writes[0].end, top));
  if (c.instr == Instr::CreateVecIndex) {
    const auto first = static_cast<std::uint32_t>(c.scalar);
    for (std::int64_t i = 0; i < c.count; ++i) {
      const std::uint32_t v = first + static_cast<std::uint32_t>(i);  // int32_t, wrapping
      std::memcpy(ub.data() + c.dst + 4 * i, &v, 4);
    }
  } else {
    issue.reads[1] = {c.src1, c.src1 + 4 * c.count};
    if (c.src1 < 0 || issue.reads[1].end > top)
      return fail(fmt::format("offsets [{:#x}, {:#x}) overflow the {}-byte UB", c.src1, issue.reads[1].end, top));
    std::vector<char> gathered(static_cast<std::size_t>(c.count * size));
    std::int64_t lo = top, hi = 0;
    for (std::int64_t i = 0; i < c.count; ++i) {
      std::uint32_t offset = 0;
      std::memcpy(&offset, ub.data() + c.src1 + 4 * i, 4);
      const std::int64_t at = c.src0 + offset;
      if (offset % size != 0 || at + size > top)
        return fail(fmt::format("offset {} of lane {} is not a whole element inside the UB", offset, i));
      std::memcpy(gathered.data() + i * size, ub.data() + at, static_cast<std::size_t>(size));
      lo = std::min(lo, at), hi = std::max(hi, at + size);
    }
    if (c.count > 0) issue.reads[0] = {lo, hi};
    std::memcpy(ub.data() + c.dst, gathered.data(), gathered.size());
  }
  issue.repeats = (c.count * size + kRepeatBytes - 1) / kRepeatBytes;
  issue.instructions = std::max<std::int64_t>(1, (issue.repeats + kMaxRepeatTimes - 1) / kMaxRepeatTimes);
  return issue;
}

// WholeReduceSum/Max/Min: each repeat's kept elements of src0 to one
// element of dst (ascend_isa.h says in what order).
VectorIssue execute_whole_reduce(UbBytes ub, const Product& product, const VectorCall& c) {
  VectorIssue issue;
  Checker check(ub, c);
  const std::int64_t per_repeat = elements_per_repeat(c);
  const auto size = static_cast<std::int64_t>(dtype_size(c.dtype));
  const Shape s{c.mask, c.repeat_times, c.params, -1};
  const auto done = [&] { return issue.error = check.error, issue; };
  if (c.count >= 0) return check.fail("only the level-0 form (mask, repeat times, strides) is modelled"), done();
  if (!check_product(check, product, c) || !check_shape(check, c, s, per_repeat, true, false) ||
      !check.aligned("src0", c.src0))
    return done();
  if (c.instr != Instr::WholeReduceSum && c.mode != static_cast<std::uint8_t>(ReduceOrder::only_value))
    return check.fail("only ReduceOrder::ORDER_ONLY_VALUE is modelled"), done();
  if (c.dst % size != 0)
    return check.fail(fmt::format("dst address {:#x} is not a multiple of the element's {} bytes", c.dst, size)),
           done();
  const Operand src0{c.src0, size, s.params.src0_blk, s.params.src0_rep};
  if (!check.inside("src0", src0, s, per_repeat, issue.reads[0])) return done();
  const std::int64_t dst_end = c.dst + ((s.repeats - 1) * s.params.dst_rep + 1) * size;
  if (s.repeats > 0) issue.writes[0] = {c.dst, dst_end};
  if (c.dst < 0 || dst_end > static_cast<std::int64_t>(ub.size()))
    return check.fail(fmt::format("dst range [{:#x}, {:#x}) overflows the {}-byte UB", c.dst, dst_end, ub.size())),
           done();

  const Op op = c.instr == Instr::WholeReduceSum ? Op::add : c.instr == Instr::WholeReduceMax ? Op::max : Op::min;
  const Runner run(ub, s, per_repeat);
  char a[kRepeatBytes];
  for (std::int64_t r = 0; r < s.repeats; ++r) {
    run.gather(src0, r, a);
    std::int64_t n = 0;  // the kept elements, packed (a sum's dropped lanes are zeros in the tree)
    for (std::int64_t i = 0; i < per_repeat; ++i) {
      if (run.kept(r, i))
        std::memmove(a + n * size, a + i * size, static_cast<std::size_t>(size));
      else if (op == Op::add)
        std::memset(a + n * size, 0, static_cast<std::size_t>(size));
      else
        continue;
      ++n;
    }
    for (; n > 1; n = (n + 1) / 2) {  // neighbours pair up; an odd last one goes up as it is
      for (std::int64_t i = 0; i + 1 < n; i += 2)
        run_op(op, c.dtype, a + i / 2 * size, a + i * size, a + (i + 1) * size, 1);
      if (n % 2 == 1) std::memmove(a + (n / 2) * size, a + (n - 1) * size, static_cast<std::size_t>(size));
    }
    if (n == 1) std::memcpy(ub.data() + c.dst + r * s.params.dst_rep * size, a, static_cast<std::size_t>(size));
  }
  issue.repeats = s.repeats;
  return issue;
}

}  // namespace

VectorIssue execute(UbBytes ub, const Product& product, const VectorCall& c) {
  if (c.instr == Instr::Gather || c.instr == Instr::CreateVecIndex) return execute_indexed(ub, product, c);
  if (is_whole_reduce(c.instr)) return execute_whole_reduce(ub, product, c);
  VectorIssue issue;
  Checker check(ub, c);
  const std::int64_t per_repeat = elements_per_repeat(c);
  Shape s = plan_repeats(c, per_repeat);
  if (c.instr == Instr::Brcb) {
    s.mask = Mask::first(kBlocksPerRepeat);           // eight source elements a repeat, no mask
    s.params.dst_blk = std::max<std::int64_t>(s.params.dst_blk, 1);  // documented: a block stride of 0 acts as 1
  }
  const auto size = static_cast<std::int64_t>(dtype_size(c.dtype));
  const auto src_size = static_cast<std::int64_t>(dtype_size(c.instr == Instr::Cast ? c.src_dtype : c.dtype));
  Operand dst{c.dst, size, s.params.dst_blk, s.params.dst_rep};
  Operand src0{c.src0, src_size, s.params.src0_blk, s.params.src0_rep};
  Operand src1{c.src1, size, s.params.src1_blk, s.params.src1_rep};
  const bool uses_src0 = c.instr != Instr::Duplicate;
  const bool uses_src1 = is_binary(c.instr) || c.instr == Instr::Compare ||
                         (c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::tensor_tensor));

  bool ok = check_product(check, product, c) && check_shape(check, c, s, per_repeat, uses_src0, uses_src1) && check.aligned("dst", c.dst) &&
            (!uses_src0 || check.aligned("src0", c.src0)) && (!uses_src1 || check.aligned("src1", c.src1)) &&
            (c.instr != Instr::Select || check.aligned("sel", c.sel));
  if (ok && c.instr == Instr::Brcb && c.dst == c.src0) ok = check.fail("Brcb's src0 and dst must not be the same");
  if (ok && c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::cmpmask_spr))
    ok = check.fail("Select's mode 0 (the compare register) is not modelled; use mode 1 or 2");
  if (ok && c.instr == Instr::Compare && c.count >= 0 && c.count * size % kRepeatBytes != 0)
    ok = check.fail(
        fmt::format("Compare's 256-byte rule: its count form computes whole {}-byte repeats, and {} "
                    "elements of {} are {} bytes (the hardware would leave the last {} uncomputed)",
                    kRepeatBytes, c.count, dtype_name(c.dtype), c.count * size, c.count % (kRepeatBytes / size)));
  if (ok && c.instr == Instr::Compare) {  // dst is a bit array
    const std::int64_t bytes = (s.repeats * per_repeat + 7) / 8;
    issue.writes[0] = {c.dst, c.dst + bytes};
    if (c.dst < 0 || issue.writes[0].end > static_cast<std::int64_t>(ub.size()))
      ok = check.fail(fmt::format("dst bits [{:#x}, {:#x}) overflow the {}-byte UB", c.dst, issue.writes[0].end, ub.size()));
  } else if (ok && c.instr == Instr::Brcb) {
    // dst: repeat r's block j, whole; src0: 8 contiguous elements a repeat.
    const std::int64_t last = c.dst + (s.repeats - 1) * s.params.dst_rep * kBlockBytes +
                              (kBlocksPerRepeat - 1) * s.params.dst_blk * kBlockBytes + kBlockBytes;
    if (s.repeats > 0) issue.writes[0] = {c.dst, last};
    issue.reads[0] = {c.src0, c.src0 + s.repeats * kBlocksPerRepeat * size};
    if (s.repeats > 0 && (last > static_cast<std::int64_t>(ub.size()) ||
                          issue.reads[0].end > static_cast<std::int64_t>(ub.size())))
      ok = check.fail(fmt::format("Brcb's range overflows the {}-byte UB", ub.size()));
  } else if (ok) {
    ok = check.inside("dst", dst, s, per_repeat, issue.writes[0]);
  }
  if (ok && uses_src0 && c.instr != Instr::Brcb) ok = check.inside("src0", src0, s, per_repeat, issue.reads[0]);
  if (ok && uses_src1) ok = check.inside("src1", src1, s, per_repeat, issue.reads[1]);
  if (ok && c.instr == Instr::Select) {
    issue.reads[2] = {c.sel, c.sel + (s.repeats * per_repeat + 7) / 8};
    if (issue.reads[2].end > static_cast<std::int64_t>(ub.size()))
      ok = check.fail(fmt::format("sel bits overflow the {}-byte UB", ub.size()));
  }
  if (!ok) {
    issue.error = check.error;
    return issue;
  }

  const auto top = static_cast<std::int64_t>(ub.size());
  if (const std::int64_t scratch = std::min(product.scratch(c.instr), top); scratch > 0) {
    // The instruction works through scratch at the UB's top: whatever a
    // kernel kept there is gone (BlockContext fails a kernel that keeps any).
    std::memset(ub.data() + top - scratch, 0x5a, static_cast<std::size_t>(scratch));
    issue.writes[1] = {top - scratch, top};
  }
  const Runner run(ub, s, per_repeat);
  char a[kRepeatBytes], b[kRepeatBytes], out[kRepeatBytes];
  for (std::int64_t r = 0; r < s.repeats; ++r) {
    if (c.instr == Instr::Brcb) {
      for (std::int64_t j = 0; j < kBlocksPerRepeat; ++j) {
        const char* value = ub.data() + c.src0 + (r * kBlocksPerRepeat + j) * size;
        std::memcpy(a, value, static_cast<std::size_t>(size));
        char* block = ub.data() + c.dst + r * s.params.dst_rep * kBlockBytes + j * s.params.dst_blk * kBlockBytes;
        for (std::int64_t e = 0; e < kBlockBytes / size; ++e) std::memcpy(block + e * size, a, static_cast<std::size_t>(size));
      }
      continue;
    }
    if (uses_src0) run.gather(src0, r, a);
    if (uses_src1) run.gather(src1, r, b);
    if (is_scalar_form(c.instr) || c.instr == Instr::Duplicate ||
        (c.instr == Instr::Select && c.mode == static_cast<std::uint8_t>(SelMode::tensor_scalar)))
      for (std::int64_t i = 0; i < per_repeat; ++i) std::memcpy(b + i * size, &c.scalar, static_cast<std::size_t>(size));
    if (is_binary(c.instr) || is_scalar_form(c.instr)) {
      run_op(op_of(c.instr), c.dtype, out, a, b, per_repeat);
    } else if (c.instr == Instr::Duplicate) {
      std::memcpy(out, b, static_cast<std::size_t>(per_repeat * size));
    } else if (c.instr == Instr::Compare) {
      unsigned char result[kRepeatBytes];
      run_op(op_of(static_cast<CmpMode>(c.mode)), c.dtype, result, a, b, per_repeat);
      for (std::int64_t i = 0; i < per_repeat; ++i)
        if (run.kept(r, i)) run.set_bit(c.dst, r, i, result[i] != 0);
      continue;
    } else if (c.instr == Instr::Select) {
      for (std::int64_t i = 0; i < per_repeat; ++i)
        std::memcpy(out + i * size, (run.bit(c.sel, r, i) ? a : b) + i * size, static_cast<std::size_t>(size));
    } else if (c.instr == Instr::Cast) {
      for (std::int64_t i = 0; i < per_repeat; ++i)
        if (run.kept(r, i)) cast_element(c.src_dtype, c.dtype, static_cast<RoundMode>(c.mode), a + i * src_size, out + i * size);
    }
    run.scatter(dst, r, out);
  }
  issue.repeats = s.repeats;
  // The count form is Ascend C's level-2 API: it issues an instruction per 255 repeats.
  issue.instructions = c.count >= 0 ? std::max<std::int64_t>(1, (s.repeats + kMaxRepeatTimes - 1) / kMaxRepeatTimes) : 1;
  return issue;
}

}  // namespace bcast::ascend
