// A stub of Ascend C's kernel_operator.h, written by bcast for its tests (not
// Huawei's): the types and calls that bcast's Ascend C writer uses, each one
// executed by the simulator's intrinsics (the ones the LLVM kernels call, with
// the same checks), so that a written kernel runs on the CPU, block by block,
// and leaves the same call trace as the LLVM kernel of its key.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ascend_abi.h"
#include "half.h"

#define __aicore__
#define __global__
#define __gm__

using GM_ADDR = std::uint8_t*;

// An operator project's tiling: the framework's macro, for a kernel whose
// tiling struct is BcastTilingData (the host filled it; the kernel copies it).
#define GET_TILING_DATA(name, tiling) \
  BcastTilingData name;               \
  std::memcpy(&name, tiling, sizeof(name))

extern "C" {
// The simulator's intrinsics (libbcast), declared from their shared prototypes.
#define BCAST_STUB_INTRINSIC(symbol, prototype) bcast::ascend::prototype symbol;
BCAST_ASCEND_INTRINSICS(BCAST_STUB_INTRINSIC)
#undef BCAST_STUB_INTRINSIC
}

namespace AscendC::stub {
// A 16-bit float as storage, converting as bcast does (round to nearest even,
// once from double): half and bfloat16_t.
template <float (*ToF32)(std::uint16_t), std::uint16_t (*FromF32)(float), std::uint16_t (*FromF64)(double)>
struct Float16 {
  std::uint16_t bits = 0;
  Float16() = default;
  Float16(float f) : bits(FromF32(f)) {}
  Float16(double d) : bits(FromF64(d)) {}
  template <class I, class = std::enable_if_t<std::is_integral_v<I>>>
  Float16(I i) : Float16(static_cast<double>(i)) {}
  operator float() const { return ToF32(bits); }
  Float16 operator-() const {
    Float16 h;
    h.bits = static_cast<std::uint16_t>(bits ^ 0x8000u);
    return h;
  }
};
}  // namespace AscendC::stub

using half = AscendC::stub::Float16<bcast::f16_to_f32, bcast::f32_to_f16, bcast::f64_to_f16>;
using bfloat16_t = AscendC::stub::Float16<bcast::bf16_to_f32, bcast::f32_to_bf16, bcast::f64_to_bf16>;

namespace AscendC {

namespace stub {
// The block being run: set by the test's entry before the kernel's.
inline thread_local void* ctx = nullptr;
inline thread_local std::int64_t block_idx = 0, block_num = 1;
inline thread_local int next_operand = 0;  // SetGlobalBuffer numbers operands in call order: out, x0, x1, ...
inline thread_local int next_queue = 1;    // TQues number themselves as they are made: x0's 1, x1's 2, ...
inline void enter(std::int64_t idx, std::int64_t num, void* context) {
  ctx = context, block_idx = idx, block_num = num, next_operand = 0, next_queue = 1;
}

template <class T>
constexpr bcast::DType dtype_of() {
  using bcast::DType;
  if constexpr (std::is_same_v<T, half>) return DType::f16;
  else if constexpr (std::is_same_v<T, bfloat16_t>) return DType::bf16;
  else if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return DType::i8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DType::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return DType::i64;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::u8;
  else if constexpr (std::is_same_v<T, std::uint16_t>) return DType::u16;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return DType::u32;
  else return DType::u64;
}

template <class T>
std::uint64_t bits_of(T v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
}  // namespace stub

inline std::int64_t GetBlockIdx() { return stub::block_idx; }
inline std::int64_t GetBlockNum() { return stub::block_num; }

enum class QuePosition { VECIN, VECOUT, VECCALC };
using TPosition = QuePosition;

enum class RoundMode { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };

// Pipes by the simulator's numbers: MTE2 0, V 1, MTE3 2, S 3.
enum class HardEvent { MTE2_V, V_MTE2, V_MTE3, MTE3_V, MTE2_S, S_MTE2, V_S, S_V, MTE3_MTE2 };
namespace stub {
constexpr int kEventPipes[][2] = {{0, 1}, {1, 0}, {1, 2}, {2, 1}, {0, 3}, {3, 0}, {1, 3}, {3, 1}, {2, 0}};
}
using event_t = std::int32_t;
using TEventID = std::int8_t;
template <HardEvent E>
void SetFlag(int event) {
  bcast_sim_flag(stub::ctx, 1, stub::kEventPipes[int(E)][0], stub::kEventPipes[int(E)][1], event);
}
template <HardEvent E>
void WaitFlag(int event) {
  bcast_sim_flag(stub::ctx, 0, stub::kEventPipes[int(E)][0], stub::kEventPipes[int(E)][1], event);
}

// ---- tensors ----

template <class T>
class GlobalTensor {
 public:
  void SetGlobalBuffer(__gm__ T* buffer, std::uint64_t = 0) {
    base_ = buffer;
    operand_ = stub::next_operand++;
  }
  GlobalTensor operator[](std::int64_t i) const {
    GlobalTensor g = *this;
    g.base_ = base_ + i;
    return g;
  }
  T* address() const { return base_; }
  int operand() const { return operand_; }

 private:
  T* base_ = nullptr;
  int operand_ = 0;
};

template <class T>
class LocalTensor {
 public:
  LocalTensor() = default;
  LocalTensor(std::int64_t address, int slot) : address_(address), slot_(slot) {}
  LocalTensor operator[](std::int64_t i) const { return LocalTensor(address_ + i * std::int64_t(sizeof(T)), slot_); }
  T GetValue(std::int64_t i) const {
    const std::uint64_t b = bcast_sim_get_value(stub::ctx, address_ + i * std::int64_t(sizeof(T)), int(sizeof(T)));
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
  }
  std::int64_t address() const { return address_; }
  int slot() const { return slot_; }

 private:
  std::int64_t address_ = 0;
  int slot_ = 0;
};

template <QuePosition P, int Depth>
class TQue {
 public:
  // Numbered as they are made (the kernel's members, in order; out's VECOUT
  // queue 0), so a queue a kernel leaves uninitialised shifts no other.
  TQue() : id_(P == QuePosition::VECOUT ? 0 : stub::next_queue++) {}
  void init(int num, const std::int64_t* addresses) {
    num_ = num;
    for (int s = 0; s < num; ++s) address_[s] = addresses[s];
  }
  template <class T>
  LocalTensor<T> AllocTensor() {
    return take<T>(bcast::ascend::QueueOp::alloc, next_alloc_);
  }
  template <class T>
  void EnQue(const LocalTensor<T>& t) {
    step(bcast::ascend::QueueOp::enque, t.slot());
  }
  template <class T>
  LocalTensor<T> DeQue() {
    return take<T>(bcast::ascend::QueueOp::deque, next_deque_);
  }
  template <class T>
  void FreeTensor(const LocalTensor<T>& t) {
    step(bcast::ascend::QueueOp::free, t.slot());
  }

 private:
  // Slots go round: AllocTensor and DeQue each take the next in turn.
  template <class T>
  LocalTensor<T> take(bcast::ascend::QueueOp op, int& next) {
    const int s = next;
    next = (next + 1) % num_;
    step(op, s);
    return LocalTensor<T>(address_[s], s);
  }
  void step(bcast::ascend::QueueOp op, int slot) { bcast_sim_queue(stub::ctx, int(op), id_, slot); }

  int id_ = 0, num_ = 1, next_alloc_ = 0, next_deque_ = 0;
  std::int64_t address_[Depth] = {};
};

template <QuePosition P = QuePosition::VECCALC>
class TBuf {
 public:
  void init(std::int64_t address) { address_ = address; }
  template <class T>
  LocalTensor<T> Get() const {
    return LocalTensor<T>(address_, 0);
  }

 private:
  std::int64_t address_ = 0;
};

// The UB from its start, 32 bytes at a time, in InitBuffer order
// (NOTE: [Ascend UB layout]).
class TPipe {
 public:
  // An event ID free now: the written kernels hold none, so always the first.
  TEventID FetchEventID(HardEvent) const { return 0; }
  template <QuePosition P, int Depth>
  void InitBuffer(TQue<P, Depth>& q, int num, std::int64_t bytes) {
    std::int64_t addresses[Depth] = {};
    for (int s = 0; s < num; ++s) addresses[s] = take(bytes);
    q.init(num, addresses);
  }
  template <QuePosition P>
  void InitBuffer(TBuf<P>& b, std::int64_t bytes) {
    b.init(take(bytes));
  }

 private:
  std::int64_t take(std::int64_t bytes) {
    const std::int64_t at = next_;
    next_ += (bytes + 31) / 32 * 32;
    return at;
  }
  std::int64_t next_ = 0;
};

// ---- copies ----

struct DataCopyParams {
  std::uint16_t blockCount = 1, blockLen = 0, srcStride = 0, dstStride = 0;
};
struct DataCopyExtParams {
  std::uint16_t blockCount = 1;
  std::uint32_t blockLen = 0, srcStride = 0, dstStride = 0, rsv = 0;
};
template <class T>
struct DataCopyPadExtParams {
  bool isPad = false;
  std::uint8_t leftPadding = 0, rightPadding = 0;
  T paddingValue{};
};

namespace stub {
template <class T>
void copy(bcast::ascend::Instr instr, bool in, std::int64_t ub, const GlobalTensor<T>& gm, std::int64_t count,
          std::int64_t len, std::int64_t src_gap, std::int64_t dst_gap, bool pad = false, std::int64_t left = 0,
          std::int64_t right = 0, std::uint64_t pad_value = 0) {
  bcast::ascend::CopyCall c;
  c.instr = instr;
  c.dir = in ? bcast::ascend::CopyDir::gm_to_ub : bcast::ascend::CopyDir::ub_to_gm;
  c.ub = ub;
  c.gm = reinterpret_cast<const char*>(gm.address());
  c.operand = gm.operand();
  c.element_bytes = std::int64_t(sizeof(T));
  c.block_count = count, c.block_len = len, c.src_gap = src_gap, c.dst_gap = dst_gap;
  c.pad = pad, c.left_pad = left, c.right_pad = right, c.pad_value = pad_value;
  bcast_sim_copy(ctx, &c);
}
}  // namespace stub

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p) {
  stub::copy(bcast::ascend::Instr::DataCopy, true, dst.address(), src, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p) {
  stub::copy(bcast::ascend::Instr::DataCopy, false, src.address(), dst, p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}
template <class T>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                 const DataCopyPadExtParams<T>& pad) {
  stub::copy(bcast::ascend::Instr::DataCopyPad, true, dst.address(), src, p.blockCount, p.blockLen, p.srcStride,
             p.dstStride, pad.isPad, pad.leftPadding, pad.rightPadding, stub::bits_of(pad.paddingValue));
}
template <class T>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p) {
  stub::copy(bcast::ascend::Instr::DataCopyPad, false, src.address(), dst, p.blockCount, p.blockLen, p.srcStride,
             p.dstStride);
}

// ---- vector instructions ----

struct BinaryRepeatParams {
  BinaryRepeatParams() = default;
  BinaryRepeatParams(std::uint8_t db, std::uint8_t s0b, std::uint8_t s1b, std::uint8_t dr, std::uint8_t s0r,
                     std::uint8_t s1r)
      : dstBlkStride(db), src0BlkStride(s0b), src1BlkStride(s1b), dstRepStride(dr), src0RepStride(s0r),
        src1RepStride(s1r) {}
  std::uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  std::uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
};
struct UnaryRepeatParams {
  UnaryRepeatParams() = default;
  UnaryRepeatParams(std::uint16_t db, std::uint16_t sb, std::uint8_t dr, std::uint8_t sr)
      : dstBlkStride(db), srcBlkStride(sb), dstRepStride(dr), srcRepStride(sr) {}
  std::uint16_t dstBlkStride = 1, srcBlkStride = 1;
  std::uint8_t dstRepStride = 8, srcRepStride = 8;
};
struct BrcbRepeatParams {
  BrcbRepeatParams(std::uint16_t db, std::uint16_t dr) : dstBlkStride(db), dstRepStride(dr) {}
  std::uint16_t dstBlkStride = 1, dstRepStride = 8;
};

namespace stub {
inline void vector(bcast::ascend::VectorCall c) { bcast_sim_vector(ctx, &c); }
template <class T>
bcast::ascend::VectorCall call(bcast::ascend::Instr instr, const LocalTensor<T>& dst) {
  bcast::ascend::VectorCall c;
  c.instr = instr;
  c.dtype = dtype_of<T>();
  c.dst = dst.address();
  return c;
}
inline void level0(bcast::ascend::VectorCall& c, std::uint64_t mask, std::uint8_t repeat) {
  c.mask = bcast::ascend::Mask::first(std::int64_t(mask));
  c.repeat_times = repeat;
}
}  // namespace stub

#define BCAST_STUB_BINARY(Name)                                                                                       \
  template <class T>                                                                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, std::int64_t count) {  \
    auto c = stub::call(bcast::ascend::Instr::Name, dst);                                                             \
    c.src0 = src0.address(), c.src1 = src1.address(), c.count = count;                                                \
    stub::vector(c);                                                                                                  \
  }                                                                                                                   \
  template <class T>                                                                                                  \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, std::uint64_t mask,    \
            std::uint8_t repeat, const BinaryRepeatParams& p) {                                                       \
    auto c = stub::call(bcast::ascend::Instr::Name, dst);                                                             \
    c.src0 = src0.address(), c.src1 = src1.address();                                                                 \
    stub::level0(c, mask, repeat);                                                                                    \
    c.params = {p.dstBlkStride, p.src0BlkStride, p.src1BlkStride, p.dstRepStride, p.src0RepStride, p.src1RepStride}; \
    stub::vector(c);                                                                                                  \
  }
BCAST_STUB_BINARY(Add)
BCAST_STUB_BINARY(Sub)
BCAST_STUB_BINARY(Mul)
BCAST_STUB_BINARY(Div)
BCAST_STUB_BINARY(Max)
BCAST_STUB_BINARY(Min)
BCAST_STUB_BINARY(And)
BCAST_STUB_BINARY(Or)
#undef BCAST_STUB_BINARY

#define BCAST_STUB_SCALAR_FORM(Name)                                                                            \
  template <class T>                                                                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, std::int64_t count) {              \
    auto c = stub::call(bcast::ascend::Instr::Name, dst);                                                       \
    c.src0 = src.address(), c.scalar = stub::bits_of(scalar), c.count = count;                                  \
    stub::vector(c);                                                                                            \
  }                                                                                                             \
  template <class T>                                                                                            \
  void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar, std::uint64_t mask, std::uint8_t repeat, \
            const UnaryRepeatParams& p) {                                                                       \
    auto c = stub::call(bcast::ascend::Instr::Name, dst);                                                       \
    c.src0 = src.address(), c.scalar = stub::bits_of(scalar);                                                   \
    stub::level0(c, mask, repeat);                                                                              \
    c.params = {p.dstBlkStride, p.srcBlkStride, 1, p.dstRepStride, p.srcRepStride, 8};                          \
    stub::vector(c);                                                                                            \
  }
BCAST_STUB_SCALAR_FORM(Adds)
BCAST_STUB_SCALAR_FORM(Muls)
BCAST_STUB_SCALAR_FORM(Maxs)
BCAST_STUB_SCALAR_FORM(Mins)
#undef BCAST_STUB_SCALAR_FORM

template <class T>
void Duplicate(const LocalTensor<T>& dst, T scalar, std::int64_t count) {
  auto c = stub::call(bcast::ascend::Instr::Duplicate, dst);
  c.scalar = stub::bits_of(scalar), c.count = count;
  stub::vector(c);
}

template <class T>
void Duplicate(const LocalTensor<T>& dst, T scalar, std::uint64_t mask, std::uint8_t repeat, std::uint16_t dst_blk,
               std::uint8_t dst_rep) {
  auto c = stub::call(bcast::ascend::Instr::Duplicate, dst);
  c.scalar = stub::bits_of(scalar);
  stub::level0(c, mask, repeat);
  c.params = {dst_blk, 1, 1, dst_rep, 8, 8};
  stub::vector(c);
}

template <class T>
void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint8_t repeat, const BrcbRepeatParams& p) {
  auto c = stub::call(bcast::ascend::Instr::Brcb, dst);
  c.src0 = src.address(), c.repeat_times = repeat;
  c.params = {p.dstBlkStride, 1, 1, p.dstRepStride, 8, 8};
  stub::vector(c);
}

template <class D, class S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, std::int64_t count) {
  auto c = stub::call(bcast::ascend::Instr::Cast, dst);
  c.src_dtype = stub::dtype_of<S>(), c.src0 = src.address(), c.mode = std::uint8_t(mode), c.count = count;
  stub::vector(c);
}
template <class D, class S>
void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, std::uint64_t mask, std::uint8_t repeat,
          const UnaryRepeatParams& p) {
  auto c = stub::call(bcast::ascend::Instr::Cast, dst);
  c.src_dtype = stub::dtype_of<S>(), c.src0 = src.address(), c.mode = std::uint8_t(mode);
  stub::level0(c, mask, repeat);
  c.params = {p.dstBlkStride, p.srcBlkStride, 1, p.dstRepStride, p.srcRepStride, 8};
  stub::vector(c);
}

enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_CMPMASK_SPR, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

// Bit i of dst = src0[i] mode src1[i] (count form).
template <class U, class T>
void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
             std::uint32_t count) {
  bcast::ascend::VectorCall c;
  c.instr = bcast::ascend::Instr::Compare;
  c.dtype = stub::dtype_of<T>();
  c.dst = dst.address(), c.src0 = src0.address(), c.src1 = src1.address();
  c.mode = std::uint8_t(mode), c.count = count;
  stub::vector(c);
}

// dst[i] = bit i of sel ? src0[i] : scalar (count form, VSEL_TENSOR_SCALAR_MODE).
template <class T, class U>
void Select(const LocalTensor<T>& dst, const LocalTensor<U>& sel, const LocalTensor<T>& src0, T scalar, SELMODE mode,
            std::uint32_t count) {
  auto c = stub::call(bcast::ascend::Instr::Select, dst);
  c.sel = sel.address(), c.src0 = src0.address(), c.scalar = stub::bits_of(scalar);
  c.mode = std::uint8_t(mode), c.count = count;
  stub::vector(c);
}

// dst[i] = the element at byte offsets[i] from src (count form).
template <class T>
void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<std::uint32_t>& offsets,
            std::uint32_t base, std::uint32_t count) {
  auto c = stub::call(bcast::ascend::Instr::Gather, dst);
  c.src0 = src.address() + base, c.src1 = offsets.address(), c.count = count;
  stub::vector(c);
}

// dst[i] = first + i (count form).
template <class T>
void CreateVecIndex(const LocalTensor<T>& dst, T first, std::uint32_t count) {
  auto c = stub::call(bcast::ascend::Instr::CreateVecIndex, dst);
  c.scalar = stub::bits_of(first), c.count = count;
  stub::vector(c);
}

}  // namespace AscendC
