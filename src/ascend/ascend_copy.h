// The copy instructions of the Ascend-style target as Ascend C documents
// them: DataCopy (lengths and gaps in 32-byte blocks) on every product, and
// DataCopyPad (lengths in bytes, the UB side padded to 32 bytes) where the
// product has it; each checked against the UB's rules and the GM buffer it
// names, and priced by the product's copy engine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ascend_isa.h"
#include "ascend_product.h"
#include "ascend_vector.h"

namespace bcast::ascend {

// The GM buffer of an operand: what a kernel may touch through it.
struct GmRegion {
  const char* begin = nullptr;
  const char* end = nullptr;  // one past the last byte
};

// NOTE: [Copy parameters] A copy moves block_count blocks. Block i of the
// source starts block i * (len + src_gap) after the first, and lands
// i * (len + dst_gap) after the first of the destination, where
//   DataCopy:     len, src_gap and dst_gap count 32-byte blocks on both
//                 sides (DataCopyParams' blockLen, srcStride, dstStride);
//   DataCopyPad:  len counts bytes; the GM side's gap counts bytes, the UB
//                 side's 32-byte blocks, and each block occupies len rounded
//                 up to 32 bytes of the UB (DataCopyExtParams). From GM, the
//                 UB holds left_pad elements, the len bytes, right_pad
//                 elements, then up to the 32-byte boundary; pads hold
//                 pad_value when `pad` is set (DataCopyPadExtParams' isPad,
//                 paddingValue); without it the fill up to the boundary is a
//                 copy of the block's first element (the documented dummy)
//                 and left and right pads are left as they were.
// The UB address is 32-byte aligned; GM addresses need no alignment, but an
// unaligned one costs bandwidth (NOTE: [Ascend cost model]).
struct CopyCall {
  Instr instr = Instr::DataCopy;  // DataCopy or DataCopyPad
  CopyDir dir = CopyDir::gm_to_ub;
  std::int64_t ub = 0;
  const char* gm = nullptr;  // written through when dir is ub_to_gm
  int operand = 0;           // the operand whose buffer gm points into
  std::int64_t element_bytes = 1;  // the tensor's element size (pad_value's width)
  std::int64_t block_count = 1, block_len = 0, src_gap = 0, dst_gap = 0;
  bool pad = false;
  std::int64_t left_pad = 0, right_pad = 0;  // elements, 32 bytes at most each
  std::uint64_t pad_value = 0;
};

struct CopyIssue {
  std::string error;             // the first broken rule (nothing was moved), or empty
  std::int64_t bytes = 0;        // valid bytes moved
  std::int64_t cycles = 0;       // its cost on the product's engine
  UbRange ub;                    // the UB bytes read or written
  std::vector<std::pair<const char*, const char*>> gm;  // the GM byte ranges, one per block
};

// Runs `call` between `ub` and GM as `product` would. `regions` holds each
// operand's GM buffer; `names` each operand's name for messages ("out", "a").
CopyIssue execute(UbBytes ub, const Product& product, const CopyCall& call, const std::vector<GmRegion>& regions,
                  const std::vector<std::string>& names);

// "DataCopy(ub 0x0 <- a+0x40, 4 x 2 blocks, gaps 0/0)", for errors and traces.
std::string describe(const CopyCall& call, const std::string& operand_name, std::ptrdiff_t gm_offset);

}  // namespace bcast::ascend
