// The vector instructions of the Ascend-style target as Ascend C documents
// them (docs/ascend.md lists each with its parameters and checks): binary
// ops, their scalar forms, Duplicate, Brcb, Compare, Select and Cast, each
// with its mask, repeat times and block and repeat strides, checked against
// the product's instruction table and the UB's rules.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "ascend_isa.h"
#include "ascend_product.h"

namespace bcast::ascend {

// A block's unified buffer as the instructions see it: addresses are byte
// offsets from its start.
using UbBytes = std::span<char>;

// A byte range of the UB that an instruction reads or writes: its footprint,
// for the pipes' hazard check (NOTE: [Ascend pipes]).
struct UbRange {
  std::int64_t begin = 0, end = 0;  // [begin, end); empty when equal
  bool empty() const { return begin >= end; }
  bool overlaps(const UbRange& o) const { return !empty() && !o.empty() && begin < o.end && o.begin < end; }
};

// What an instruction did.
struct VectorIssue {
  std::string error;         // the first rule it broke (then nothing was written), or empty
  std::int64_t repeats = 0;       // repeats run: its cost (NOTE: [Ascend cost model])
  std::int64_t instructions = 1;  // instructions issued (the count form: one per 255 repeats)
  std::array<UbRange, 2> writes;  // dst's bytes, and any scratch the instruction clobbers
  std::array<UbRange, 3> reads;   // src0's, src1's, and Select's bits
};

// Runs `call` on `ub` as `product` would, or says which rule it breaks: an
// instruction the product lacks for that dtype (naming both), a misaligned
// or out-of-range address, too many repeats, a mask or stride out of range.
VectorIssue execute(UbBytes ub, const Product& product, const VectorCall& call);

// The call as one line, for errors and traces:
// "Add<float>(dst 0x100, src0 0x0, src1 0x80, mask 64, repeat 4, blk 1/1/1, rep 8/8/8)".
std::string describe(const VectorCall& call);

// Elements one repeat of `call` covers (256 bytes of its widest operand).
std::int64_t elements_per_repeat(const VectorCall& call);

}  // namespace bcast::ascend
