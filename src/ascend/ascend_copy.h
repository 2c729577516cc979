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
