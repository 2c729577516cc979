// The products the Ascend-style target models (BCAST_ASCEND_PRODUCT): each
// one's unified buffer, copy instructions, the dtypes of each vector
// instruction, and the figures its cost model uses. One table row a product
// (ascend_product.cpp), each figure with where it comes from.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "ascend_isa.h"

namespace bcast::ascend {

// NOTE: [Ascend cost model] Time is counted in cycles of the AI core's clock.
//   A copy costs setup + the sum over its blocks of block_setup + bytes /
//   bandwidth, where a block's bytes are rounded up to 32 (the smallest move)
//   and its bandwidth is cut to unaligned_efficiency when its GM address is
//   not a multiple of aligned_gm_bytes. So small copies pay the setup for
//   little data, and unaligned ones pay the documented share (Ascend C's best
//   practices: about 16 KB a copy reaches full bandwidth; on Atlas A2,
//   32-byte aligned GM addresses reach about 70% of 512-byte aligned ones).
//   A vector instruction costs issue + repeats * cycles_per_repeat of its
//   instruction (Div and Cast take more than Add).
//   GetValue, a scalar read of the UB, costs scalar_read cycles.
// The public documentation gives no absolute bandwidth, latency or clock:
// those figures are estimates (ascend_product.cpp says which), so the model
// ranks schedules (double buffering, copy sizes, repeats); it does not
// promise a time.
struct CopyEngine {
  double bytes_per_cycle = 0;            // one core's engine, on aligned GM
  std::int64_t setup = 0;                // cycles an instruction pays once
  std::int64_t block_setup = 0;          // cycles each block of a strided copy pays
  std::int64_t aligned_gm_bytes = 512;   // GM alignment of full bandwidth
  double unaligned_efficiency = 1.0;     // the bandwidth's share off that alignment
};

// One vector instruction on one product: the dtypes it takes and its cost.
struct VectorForm {
  DTypeSet dtypes;
  std::int64_t cycles_per_repeat = 1;
  std::int64_t scratch = 0;  // UB bytes at the UB's top it works through (a kernel leaves them free)
};

// One conversion of Cast: its types and the RoundModes it takes (a bit per
// mode, RoundMode's numbering).
struct CastForm {
  DType from, to;
  std::uint8_t modes;
};

struct Product {
  std::string_view name;   // BCAST_ASCEND_PRODUCT's value: "910b"
  std::string_view title;  // "Atlas A2 training series (Ascend 910B)"
  int aicore = 0;          // its Ascend C compiler's __CCE_AICORE__ (910B: 220)
  std::int64_t ub_bytes = 0;
  int vector_cores = 0;    // AI cores with a vector unit: the natural block_num
  double clock_ghz = 0;
  bool has_data_copy_pad = false;
  bool has_bf16 = false;  // bfloat16_t at all (310P has none: the data-type page)
  CopyEngine mte2, mte3;
  std::int64_t vector_issue = 0;  // cycles every vector instruction pays once
  std::int64_t scalar_read = 0;   // cycles of a GetValue
  std::array<VectorForm, kNumInstrs> forms;  // vector instructions only; an empty set: not on this product
  std::span<const CastForm> casts;

  // Whether `instr` exists on this product for dtype `t` (DataCopy: every
  // dtype the AI core has; DataCopyPad: the same where has_data_copy_pad;
  // GetValue: any dtype).
  bool has(Instr instr, DType t) const;
  // Whether Cast converts `from` to `to` with round mode `mode` (RoundMode's number).
  bool can_cast(DType from, DType to, int mode) const;
  const VectorForm& form(Instr instr) const { return forms[static_cast<std::size_t>(instr)]; }
  // The UB bytes at the top that `instr` uses as scratch (a kernel must
  // leave them free); 0 for most.
  std::int64_t scratch(Instr instr) const { return form(instr).scratch; }
};

// Every modelled product, in BCAST_ASCEND_PRODUCT's order ("910b", "310p").
std::span<const Product> products();
// The product named `name`, or null.
const Product* find_product(std::string_view name);
// The names, space-separated: "910b 310p".
std::string product_names();

}  // namespace bcast::ascend
