// The product table (NOTE: [Ascend cost model]). Instruction and dtype
// support follow the public Ascend C API reference (hiascend.com, "Ascend C
// operator API", each instruction's supported-products table; the Cast
// pairs follow the vector unit's vconv list); docs/ascend.md cites each page.
// Bandwidths, setups and the clock are not published: they are estimates,
// marked as such below.
#include "ascend_product.h"

#include <algorithm>

namespace bcast::ascend {
namespace {

using enum DType;

constexpr std::uint8_t modes(std::initializer_list<RoundMode> list) {
  std::uint8_t bits = 0;
  for (RoundMode m : list) bits = static_cast<std::uint8_t>(bits | (1u << static_cast<unsigned>(m)));
  return bits;
}
constexpr std::uint8_t kExact = modes({RoundMode::none});
constexpr std::uint8_t kRounding =
    modes({RoundMode::rint, RoundMode::round, RoundMode::floor, RoundMode::ceil, RoundMode::trunc});
constexpr std::uint8_t kNoneOrRounding = kExact | kRounding;

// Conversions both products have with the same modes.
// clang-format off
#define BCAST_COMMON_CASTS                                                                                        \
  CastForm{f16, f32, kExact}, CastForm{f32, i64, kRounding}, CastForm{f16, i32, kRounding},                      \
  CastForm{u8, f16, kExact}, CastForm{i8, f16, kExact}
// clang-format on
// 910B's vconv list has the float conversions with every rounding mode.
constexpr CastForm k910bCasts[] = {BCAST_COMMON_CASTS,
                                   CastForm{f16, i16, kRounding},
                                   CastForm{f16, i8, kNoneOrRounding},
                                   CastForm{f16, u8, kNoneOrRounding},
                                   CastForm{i16, f16, kNoneOrRounding},
                                   CastForm{f32, f16, kNoneOrRounding | modes({RoundMode::odd})},
                                   CastForm{f32, i32, kRounding},
                                   CastForm{f32, i16, kRounding},
                                   CastForm{i32, f32, kNoneOrRounding},
                                   CastForm{i64, f32, kRounding},
                                   CastForm{f32, f32, kRounding},
                                   CastForm{bf16, f32, kExact},
                                   CastForm{f32, bf16, kRounding},
                                   CastForm{bf16, i32, kRounding}};
// 310P's is narrower (the Cast page's Atlas inference table): f32 to f16
// only with CAST_NONE and CAST_ODD, i32 to f32 and i16 to f16 only with
// CAST_NONE, f16 to i16 only with CAST_RINT, f16 to i8 and u8 with every
// mode but CAST_RINT, and no f32 to i32, i16 or f32 (its rounding in place)
// and no i64 to f32.
constexpr std::uint8_t k310pToBytes =
    modes({RoundMode::none, RoundMode::floor, RoundMode::ceil, RoundMode::round, RoundMode::trunc});
constexpr CastForm k310pCasts[] = {BCAST_COMMON_CASTS,
                                   CastForm{f16, i16, modes({RoundMode::rint})},
                                   CastForm{f16, i8, k310pToBytes},
                                   CastForm{f16, u8, k310pToBytes},
                                   CastForm{i16, f16, kExact},
                                   CastForm{f32, f16, kExact | modes({RoundMode::odd})},
                                   CastForm{i32, f32, kExact}};
#undef BCAST_COMMON_CASTS

constexpr DTypeSet kArithmetic{f16, i16, i32, f32};  // Add Sub Mul Max Min and the scalar forms
constexpr DTypeSet kFloat{f16, f32};
constexpr DTypeSet kBitwise{i16, u16};
constexpr DTypeSet k16And32Bit{u16, i16, f16, u32, i32, f32};  // Duplicate, Brcb

// The vector instructions' table of one product.
constexpr std::array<VectorForm, kNumInstrs> vector_forms(bool bf16_moves, bool int32_compare, bool whole_reduce,
                                                          std::int64_t brcb_scratch) {
  std::array<VectorForm, kNumInstrs> f{};
  auto set = [&f](Instr i, DTypeSet types, std::int64_t cycles, std::int64_t scratch = 0) {
    f[static_cast<std::size_t>(i)] = {types, cycles, scratch};
  };
  // Cycles per repeat (estimates): one for the simple ALU ops, more for
  // division and conversions.
  for (Instr i : {Instr::Add, Instr::Sub, Instr::Max, Instr::Min}) set(i, kArithmetic, 1);
  set(Instr::Mul, kArithmetic, 1);
  set(Instr::Div, kFloat, 4);
  for (Instr i : {Instr::And, Instr::Or}) set(i, kBitwise, 1);
  for (Instr i : {Instr::Adds, Instr::Muls, Instr::Maxs, Instr::Mins}) set(i, kArithmetic, 1);
  const DTypeSet moves = bf16_moves ? k16And32Bit | DTypeSet{bf16} : k16And32Bit;
  set(Instr::Duplicate, moves, 1);
  set(Instr::Brcb, moves, 1, brcb_scratch);
  set(Instr::Compare, int32_compare ? kFloat | DTypeSet{i32} : kFloat, 1);
  set(Instr::Select, kFloat, 1, 8 * 1024);  // documented: both tensor modes reserve 8 KB on both products
  set(Instr::Cast, DTypeSet{}, 2);  // its pairs are Product::casts
  // Gather reads an element a lane from anywhere in the UB (estimate: eight
  // cycles a repeat); CreateVecIndex writes 0, 1, 2, ... (int32_t here).
  set(Instr::Gather, DTypeSet{u16, i16, f16, u32, i32, f32}, 8);
  set(Instr::CreateVecIndex, DTypeSet{i32}, 1);
  // A repeat's elements to one value (estimate: two cycles a repeat, the
  // tree's depth). Their pages list Atlas A2/A3 only, half and float.
  if (whole_reduce)
    for (Instr i : {Instr::WholeReduceSum, Instr::WholeReduceMax, Instr::WholeReduceMin}) set(i, kFloat, 2);
  return f;
}

constexpr Product kProducts[] = {
    {
        .name = "910b",
        .title = "Atlas A2 training series (Ascend 910B)",
        .aicore = 220,
        .ub_bytes = 192 * 1024,
        .vector_cores = 40,  // 910B3: 20 AI cores of one cube and two vector units
        .clock_ghz = 1.8,    // estimate
        .has_data_copy_pad = true,
        .has_bf16 = true,
        // Estimates: 32 B/cycle (58 GB/s at 1.8 GHz) a core; 16 KB a copy
        // reaches 89% of it. The 70% off 512-byte alignment is documented.
        .mte2 = {.bytes_per_cycle = 32, .setup = 60, .block_setup = 4, .aligned_gm_bytes = 512,
                 .unaligned_efficiency = 0.7},
        .mte3 = {.bytes_per_cycle = 32, .setup = 60, .block_setup = 4, .aligned_gm_bytes = 512,
                 .unaligned_efficiency = 0.7},
        .vector_issue = 8,  // estimate
        .scalar_read = 20,  // estimate
        .forms = vector_forms(true, true, true, 0),
        .casts = k910bCasts,
    },
    {
        .name = "310p",
        .title = "Atlas inference series AI Core (Ascend 310P)",
        .aicore = 200,
        .ub_bytes = 256 * 1024,
        .vector_cores = 8,
        .clock_ghz = 1.0,  // estimate
        .has_data_copy_pad = false,
        // Estimates: LPDDR at about 16 B/cycle a core; no alignment figure is
        // published for this product.
        .mte2 = {.bytes_per_cycle = 16, .setup = 80, .block_setup = 4, .aligned_gm_bytes = 512,
                 .unaligned_efficiency = 1.0},
        .mte3 = {.bytes_per_cycle = 16, .setup = 80, .block_setup = 4, .aligned_gm_bytes = 512,
                 .unaligned_efficiency = 1.0},
        .vector_issue = 8,
        .scalar_read = 20,
        .forms = vector_forms(false, false, false, 8 * 1024),  // documented: Brcb needs 8 KB here
        .casts = k310pCasts,
    },
};

}  // namespace

bool Product::has(Instr instr, DType t) const {
  if (instr == Instr::GetValue) return true;
  if (instr == Instr::DataCopy || instr == Instr::DataCopyPad)
    return (instr == Instr::DataCopy || has_data_copy_pad) && ascend_type_name(t).has_value() &&
           (t != DType::bf16 || has_bf16);
  return form(instr).dtypes.contains(t);
}

bool Product::can_cast(DType from, DType to, int mode) const {
  return std::any_of(casts.begin(), casts.end(), [&](const CastForm& c) {
    return c.from == from && c.to == to && ((c.modes >> mode) & 1u) != 0;
  });
}

std::span<const Product> products() { return kProducts; }

const Product* find_product(std::string_view name) {
  for (const Product& p : kProducts)
    if (p.name == name) return &p;
  return nullptr;
}

std::string product_names() {
  std::string names;
  for (const Product& p : kProducts) names += (names.empty() ? "" : " ") + std::string(p.name);
  return names;
}

}  // namespace bcast::ascend
