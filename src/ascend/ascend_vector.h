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

// NOTE: [Vector repeats] A vector instruction runs `repeat_times` repeats
// (0 .. 255). A repeat takes up to 256 bytes of its widest operand: eight
// 32-byte blocks, `per_repeat` = 256 / (widest element size) elements, the
// e-th element of block j being element j * (32 / size) + e. An operand's
// block j of repeat r starts at
//     address + r * rep_stride * 32 + j * blk_stride * 32
// (strides in blocks; a stride of 0 reads one block again and again). The
// mask says which of a repeat's elements take part: the first `count`
// (counter mode), or those whose bit is set in bits[0] (elements 0-63) and
// bits[1] (64-127). Repeats run in order, each reading before it writes.
struct Mask {
  bool by_bits = false;
  std::int64_t count = 0;
  std::uint64_t bits[2] = {0, 0};
  static Mask first(std::int64_t n) { return Mask{false, n, {0, 0}}; }
  static Mask of_bits(std::uint64_t low, std::uint64_t high) { return Mask{true, 0, {low, high}}; }
  bool has(std::int64_t element) const {
    if (!by_bits) return element < count;
    return element < 128 && ((bits[element / 64] >> (element % 64)) & 1u) != 0;
  }
};

// Ascend C's BinaryRepeatParams (UnaryRepeatParams: src1 unused), in blocks.
struct RepeatParams {
  std::int64_t dst_blk = 1, src0_blk = 1, src1_blk = 1;
  std::int64_t dst_rep = 8, src0_rep = 8, src1_rep = 8;
};

// One vector instruction with every parameter, as a kernel issues it.
//   binary (Add .. Or):      dst = src0 op src1
//   scalar form (Adds ..):   dst = src0 op scalar
//   Duplicate:               dst = scalar
//   Brcb:                    repeat r's block j of dst (blk and rep strides
//                            dst's) is filled with src0's element 8 * r + j
//                            (src0 contiguous); no mask
//   Compare:                 bit i of repeat r of dst (a bit array, repeats
//                            packed back to back) = src0 mode src1
//   Select:                  dst = bit of `sel` ? src0 : src1
//                            (tensor_tensor) or scalar (tensor_scalar); `sel`
//                            is a bit array packed as Compare writes it
//   Cast:                    dst (dtype) = src0 (src_dtype) rounded by mode
// Scalars are the dtype's bits in the low bytes. `count` >= 0 asks for the
// count form instead (Ascend C's `Add(dst, src0, src1, count)`): count
// contiguous elements as full repeats and a masked last one, the mask,
// repeats and strides then ignored.
struct VectorCall {
  Instr instr = Instr::Add;
  DType dtype = DType::f32;      // the operands' element type; dst's for Cast
  DType src_dtype = DType::f32;  // Cast's source type
  std::int64_t dst = 0, src0 = 0, src1 = 0, sel = 0;
  std::uint64_t scalar = 0;
  Mask mask = Mask::first(0);
  std::int64_t repeat_times = 0;
  RepeatParams params;
  std::uint8_t mode = 0;  // CmpMode, SelMode or RoundMode
  std::int64_t count = -1;
};

// What an instruction did.
struct VectorIssue {
  std::string error;         // the first rule it broke (then nothing was written), or empty
  std::int64_t repeats = 0;  // repeats run: its cost (NOTE: [Ascend cost model])
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
