// The instruction set of the Ascend-style target, by name: the copy and vector
// instructions bcast models (after Ascend C's basic API), the pipe each one
// runs on, and the Ascend C spelling of each dtype. Shared by the product
// profiles, the simulator, the lowering and the Ascend C writer; what each
// instruction does is src/ascend/ascend_copy.h's and ascend_vector.h's.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "bcast/dtype.h"
#include "dtype_set.h"

namespace bcast::ascend {

// NOTE: [Ascend pipes] An AI core's scalar unit issues each instruction to the
// queue of the unit that runs it; the queues run independently, each in
// order, and meet only at flags (SetFlag / WaitFlag, which a TQue's EnQue /
// DeQue / AllocTensor / FreeTensor issue):
//   MTE2  copies from global memory (GM) into the unified buffer (UB);
//   V     the vector unit: every instruction that computes on the UB;
//   MTE3  copies from the UB back to GM;
//   S     the scalar unit itself (reading a UB value into a register).
enum class Pipe : std::uint8_t { mte2, vector, mte3, scalar };
inline constexpr int kNumPipes = 4;
inline constexpr std::array<std::string_view, kNumPipes> kPipeNames{"MTE2", "V", "MTE3", "S"};
inline std::string_view pipe_name(Pipe p) { return kPipeNames[static_cast<std::size_t>(p)]; }

// X(name, pipe) for every modelled instruction, in Ascend C's spelling.
// clang-format off
#define BCAST_ASCEND_INSTRUCTIONS(X)                                                                  \
  X(DataCopy, mte2) X(DataCopyPad, mte2)                                                              \
  X(Add, vector) X(Sub, vector) X(Mul, vector) X(Div, vector) X(Max, vector) X(Min, vector)           \
  X(And, vector) X(Or, vector)                                                                        \
  X(Adds, vector) X(Muls, vector) X(Maxs, vector) X(Mins, vector)                                     \
  X(Duplicate, vector) X(Brcb, vector) X(Compare, vector) X(Select, vector) X(Cast, vector)           \
  X(Gather, vector) X(CreateVecIndex, vector)                                                         \
  X(WholeReduceSum, vector) X(WholeReduceMax, vector) X(WholeReduceMin, vector) X(GetValue, scalar)
// clang-format on

enum class Instr : std::uint8_t {
#define BCAST_ASCEND_INSTR_ENUM(name, pipe) name,
  BCAST_ASCEND_INSTRUCTIONS(BCAST_ASCEND_INSTR_ENUM)
#undef BCAST_ASCEND_INSTR_ENUM
};
inline constexpr int kNumInstrs = 0
#define BCAST_ASCEND_INSTR_COUNT(name, pipe) +1
    BCAST_ASCEND_INSTRUCTIONS(BCAST_ASCEND_INSTR_COUNT)
#undef BCAST_ASCEND_INSTR_COUNT
    ;

inline constexpr std::array<std::string_view, kNumInstrs> kInstrNames{
#define BCAST_ASCEND_INSTR_NAME(name, pipe) #name,
    BCAST_ASCEND_INSTRUCTIONS(BCAST_ASCEND_INSTR_NAME)
#undef BCAST_ASCEND_INSTR_NAME
};
inline std::string_view instr_name(Instr i) { return kInstrNames[static_cast<std::size_t>(i)]; }

// The pipe an instruction's queue belongs to. DataCopy and DataCopyPad are
// MTE2's from GM to the UB and MTE3's back (copy_pipe says which).
inline constexpr std::array<Pipe, kNumInstrs> kInstrPipes{
#define BCAST_ASCEND_INSTR_PIPE(name, pipe) Pipe::pipe,
    BCAST_ASCEND_INSTRUCTIONS(BCAST_ASCEND_INSTR_PIPE)
#undef BCAST_ASCEND_INSTR_PIPE
};
inline Pipe instr_pipe(Instr i) { return kInstrPipes[static_cast<std::size_t>(i)]; }

// Where a copy goes.
enum class CopyDir : std::uint8_t { gm_to_ub, ub_to_gm };
inline Pipe copy_pipe(CopyDir d) { return d == CopyDir::gm_to_ub ? Pipe::mte2 : Pipe::mte3; }

// The UB's geometry (NOTE: [Ascend model]): addresses and copy lengths in
// 32-byte blocks; a vector instruction's repeat covers 256 bytes, eight
// blocks; an instruction runs at most 255 repeats.
inline constexpr std::int64_t kBlockBytes = 32;
inline constexpr std::int64_t kRepeatBytes = 256;
inline constexpr std::int64_t kBlocksPerRepeat = kRepeatBytes / kBlockBytes;
inline constexpr std::int64_t kMaxRepeatTimes = 255;

// Compare's modes (CMPMODE), Select's (SELMODE) and Cast's rounding
// (RoundMode), numbered as Ascend C numbers them. CAST_NONE rounds to nearest
// even where the conversion loses precision; CAST_ROUND rounds half away from
// zero; CAST_ODD rounds an inexact result to its odd neighbour.
enum class CmpMode : std::uint8_t { lt, gt, eq, le, ge, ne };
// WholeReduceMax/Min's ReduceOrder, numbered as Ascend C numbers it (only
// ORDER_ONLY_VALUE is modelled: the value, no index).
enum class ReduceOrder : std::uint8_t { value_index, index_value, only_value, only_index };
enum class SelMode : std::uint8_t { cmpmask_spr, tensor_scalar, tensor_tensor };
enum class RoundMode : std::uint8_t { none, rint, floor, ceil, round, trunc, odd };
inline constexpr int kNumRoundModes = 7;
inline std::string_view cmp_mode_name(CmpMode m) {
  constexpr std::array<std::string_view, 6> names{"LT", "GT", "EQ", "LE", "GE", "NE"};
  return names[static_cast<std::size_t>(m)];
}
inline std::string_view round_mode_name(RoundMode m) {
  constexpr std::array<std::string_view, kNumRoundModes> names{"CAST_NONE",  "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                                               "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return names[static_cast<std::size_t>(m)];
}

// Ascend C's name of the element type a bcast dtype is stored as (bool is
// stored as uint8_t), or nullopt where the AI core has none (f64, c64, c128).
inline std::optional<std::string_view> ascend_type_name(DType t) {
  constexpr std::array<std::string_view, kNumDTypes> names{"half",     "bfloat16_t", "float",   "",        "int8_t",
                                                           "int16_t",  "int32_t",    "int64_t", "uint8_t", "uint16_t",
                                                           "uint32_t", "uint64_t",   "uint8_t",  "",
                                                           ""};
  const std::string_view n = names[static_cast<std::size_t>(t)];
  if (n.empty()) return std::nullopt;
  return n;
}

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
//   Gather (count form only): dst[i] = the element at byte src0 + src1[i],
//                            src1 a uint32_t tensor of byte offsets
//   CreateVecIndex (count form only): dst[i] = scalar + i
//   WholeReduceSum, WholeReduceMax, WholeReduceMin (level-0 form only):
//                            element r of dst (dst_rep elements apart) =
//                            the sum (largest, smallest) of repeat r's
//                            elements of src0 that the mask keeps. A sum
//                            adds in a binary tree, pairs of neighbours
//                            first (lanes 2i and 2i+1, then pairs of those),
//                            a lane the mask drops counting as zero; Max and
//                            Min take a NaN over any number (mode:
//                            ReduceOrder, ORDER_ONLY_VALUE for them).
// Scalars are the dtype's bits in the low bytes. `count` >= 0 asks for the
// count form instead (Ascend C's `Add(dst, src0, src1, count)`): count
// contiguous elements as full repeats and a masked last one, the mask,
// repeats and strides then ignored; it issues an instruction per 255 repeats.
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

}  // namespace bcast::ascend
