// Strict declarations of the Ascend C API subset that bcast's written kernels use.
//
// What it is: our own declarations (no bodies to speak of) of the public Ascend C
// calls that src/kernel/ascend_c_writer.cpp emits, for a syntax-only compile:
//
//   clang++-19 -fsyntax-only -std=c++17 -D__CCE_AICORE__=220 -I tests/ascend_c/strict kernel.cpp
//
// __CCE_AICORE__ picks the product: 220 = Atlas A2 (Ascend 910B), 200 = Atlas
// inference AI Core (Ascend 310P). Unlike the simulator stub one folder up, it is
// strict where the real compiler is: __gm__ is a real address space (a GM address
// cast to a plain pointer does not compile), and each instruction takes only the
// dtypes its documentation lists for the product (section "Product tables").
// It does not link and runs nothing.
//
// Written by us from the public documentation, not copied from Huawei's headers.
// Signatures were checked against the API reference pages in the public repository
// cann/asc-devkit (mirrors: mirror-cann/asc-devkit, cannmirror/asc-devkit), July 2026:
//   docs/zh/api/SIMD-API/基础API/Memory矢量计算/{基础算术,逻辑计算,数据填充,比较与选择,
//     类型转换,离散与聚合,数据搬运}/*.md   (Add ... Cast, Compare, Select, Gather, DataCopy*)
//   docs/zh/api/SIMD-API/基础API/资源管理/{TPipe,TQue,TBuf}/*.md, GetTPipePtr.md
//   docs/zh/api/SIMD-API/基础API/同步控制/核内同步/{SetFlag-WaitFlag(ISASI),核内同步能力概述}.md
//   docs/zh/api/SIMD-API/基础API/数据结构/{GlobalTensor,LocalTensor}/*.md, 内置数据类型.md
//   docs/zh/api/SIMD-API/基础API/辅助数据结构/{BinaryRepeatParams,UnaryRepeatParams,TPosition}.md
//   docs/api/SIMD-API/基础API/Memory矢量计算/归约计算/WholeReduce{Sum,Max,Min}.md (before
//     their rename to ReduceRepeat, see docs/zh/api/附录/接口变更说明.md)
//   docs/api/SIMD-API/基础API/Memory数据搬运/DataCopyPad(ISASI).md (the DataCopyParams forms)
// The online edition of the same reference is hiascend.com, "Ascend C API".
// Struct layouts and the HardEvent list, which the pages only link to, were read from
// include/basic_api/kernel_struct_{data_copy,brcb}.h and impl/basic_api/kernel_event.h
// there. What no page confirms is marked "unconfirmed:"; where a page contradicts the
// product's data-type page, a comment says which we follow.
// The pages' `__aicore__ inline` is written `__aicore__` here: a function declared
// inline and never defined draws -Wundefined-inline.
#pragma once

#include <cstdint>
#include <type_traits>

#if !defined(__CCE_AICORE__)
#error "strict kernel_operator.h: define __CCE_AICORE__ (220 = Atlas A2 / 910B, 200 = Atlas inference / 310P)"
#elif __CCE_AICORE__ != 220 && __CCE_AICORE__ != 200
#error "strict kernel_operator.h: __CCE_AICORE__ must be 220 (Atlas A2 / 910B) or 200 (Atlas inference / 310P)"
#endif

// ---------------------------------------------------------------------------
// Qualifiers and scalar types
// ---------------------------------------------------------------------------

#define __aicore__
#define __global__
#define __gm__ __attribute__((address_space(1)))  // Global Memory: not convertible to a plain pointer
using GM_ADDR = __gm__ std::uint8_t*;

// The compiler's 16-bit floats. half takes immediates implicitly (`half h = 18.0;`
// in the Duplicate page); bfloat16_t does not (内置数据类型.md: no immediate
// assignment or initialisation), so its conversion is explicit.
class half {
 public:
  half() = default;
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>
  half(A value);
  operator float() const;

 private:
  std::uint16_t bits_ = 0;
};

class bfloat16_t {
 public:
  bfloat16_t() = default;
  template <class A, class = std::enable_if_t<std::is_arithmetic_v<A>>>
  explicit bfloat16_t(A value);
  operator float() const;

 private:
  std::uint16_t bits_ = 0;
};

// unconfirmed: event_t is the compiler's own enum (EVENT_ID0.. in the documented
// examples, `static_cast<event_t>(...FetchEventID(...))` in SetCmpMask(ISASI).md).
enum event_t : int { EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };

namespace AscendC {

// ---------------------------------------------------------------------------
// Enums and parameter structs
// ---------------------------------------------------------------------------

enum class TPosition : std::uint8_t {
  GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, SPM, SHM = SPM, TSCM,
  C2PIPE2GM, C2PIPE2LOCAL, MAX,
};
using QuePosition = TPosition;

// <source pipe>_<destination pipe>: the destination waits for the source.
enum class HardEvent : std::uint8_t {
  MTE2_MTE1, MTE1_MTE2, MTE1_M, M_MTE1, MTE2_V, V_MTE2, MTE3_V, V_MTE3, M_V, V_M, V_V, MTE3_MTE1, MTE1_MTE3,
  MTE1_V, MTE2_M, M_MTE2, V_MTE1, M_FIX, FIX_M, MTE3_MTE2, MTE2_MTE3, S_V, V_S, S_MTE2, MTE2_S, S_MTE3, MTE3_S,
  MTE2_FIX, FIX_MTE2, FIX_S, M_S, FIX_MTE3, MTE1_FIX, FIX_MTE1, FIX_FIX, MAX,
};
using TEventID = std::int8_t;  // ids 0-7 on both products

enum class RoundMode : std::uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : std::uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : std::uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };
enum class ReduceOrder : std::uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

// DataCopy: lengths and gaps in 32-byte blocks. srcStride/dstStride are the
// older names of srcGap/dstGap (both spell the same field).
struct DataCopyParams {
  __aicore__ DataCopyParams() {}
  __aicore__ DataCopyParams(const std::uint16_t count, const std::uint16_t len, const std::uint16_t srcStrideIn,
                            const std::uint16_t dstStrideIn);
  std::uint16_t blockCount = 1;
  std::uint16_t blockLen = 0;
  union {
    std::uint16_t srcGap = 0;
    std::uint16_t srcStride;
  };
  union {
    std::uint16_t dstGap = 0;
    std::uint16_t dstStride;
  };
};

// DataCopyPad: blockLen in bytes; the GM side's stride in bytes, the UB side's in blocks.
struct DataCopyExtParams {
  __aicore__ DataCopyExtParams() {}
  __aicore__ DataCopyExtParams(const std::uint16_t count, const std::uint32_t len, const std::uint32_t srcStrideIn,
                               const std::uint32_t dstStrideIn, const std::uint32_t rsvIn);
  std::uint16_t blockCount = 1;
  std::uint32_t blockLen = 0;
  std::uint32_t srcStride = 0;
  std::uint32_t dstStride = 0;
  std::uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  __aicore__ DataCopyPadExtParams() {}
  __aicore__ DataCopyPadExtParams(const bool isPadValue, const std::uint8_t leftPadValue,
                                  const std::uint8_t rightPadValue, T padValue);
  bool isPad = false;
  std::uint8_t leftPadding = 0;
  std::uint8_t rightPadding = 0;
  T paddingValue{};
};

// The padding of the DataCopyParams form of DataCopyPad.
struct DataCopyPadParams {
  __aicore__ DataCopyPadParams() {}
  __aicore__ DataCopyPadParams(const bool isPadValue, const std::uint8_t leftPadValue,
                               const std::uint8_t rightPadValue, const std::uint64_t padValue);
  bool isPad = false;
  std::uint8_t leftPadding = 0;
  std::uint8_t rightPadding = 0;
  std::uint64_t paddingValue = 0;
};

// Strides of the level-0 (mask, repeatTime) forms, in 32-byte blocks (the
// fields the pages call reserved are left out).
struct BinaryRepeatParams {
  __aicore__ BinaryRepeatParams() {}
  __aicore__ BinaryRepeatParams(const std::uint8_t dstBlkStrideIn, const std::uint8_t src0BlkStrideIn,
                                const std::uint8_t src1BlkStrideIn, const std::uint8_t dstRepStrideIn,
                                const std::uint8_t src0RepStrideIn, const std::uint8_t src1RepStrideIn);
  std::uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  std::uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
};

struct UnaryRepeatParams {
  __aicore__ UnaryRepeatParams() {}
  __aicore__ UnaryRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t srcBlkStrideIn,
                               const std::uint8_t dstRepStrideIn, const std::uint8_t srcRepStrideIn);
  __aicore__ UnaryRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t srcBlkStrideIn,
                               const std::uint8_t dstRepStrideIn, const std::uint8_t srcRepStrideIn,
                               const bool halfBlockIn);
  std::uint16_t dstBlkStride = 1, srcBlkStride = 1;
  std::uint8_t dstRepStride = 8, srcRepStride = 8;
  bool halfBlock = false;
};

// Brcb reads its source contiguously; only the destination has strides.
struct BrcbRepeatParams {
  __aicore__ BrcbRepeatParams() {}
  __aicore__ BrcbRepeatParams(const std::uint16_t dstBlkStrideIn, const std::uint16_t dstRepStrideIn);
  std::uint16_t dstRepStride = 8, dstBlkStride = 1;
};

// ---------------------------------------------------------------------------
// Product tables: which dtypes each instruction takes (each page's 数据类型
// section, per product). A call outside them fails to compile with
// "static assertion failed due to requirement 'supports<Instr, T...>::value'".
// Runtime arguments (round modes, CMPMODE) cannot be checked here: their limits
// are in comments.
// ---------------------------------------------------------------------------

namespace product {

template <class T, class... Us>
inline constexpr bool one_of = (std::is_same_v<T, Us> || ...);

// Instruction tags, named as the calls are.
struct Add; struct Sub; struct Mul; struct Div; struct Max; struct Min; struct And; struct Or;
struct Adds; struct Muls; struct Maxs; struct Mins; struct Duplicate; struct Brcb; struct CreateVecIndex;
struct Gather; struct Compare; struct Select; struct Cast; struct WholeReduce;
struct DataCopy; struct DataCopyPad;

template <class Instr, class... T>
struct supports : std::false_type {};

// Both products.
template <class T>
inline constexpr bool arithmetic = one_of<T, std::int16_t, half, std::int32_t, float>;
template <class T> struct supports<Add, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Sub, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Mul, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Max, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Min, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Adds, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Muls, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Maxs, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Mins, T> : std::bool_constant<arithmetic<T>> {};
template <class T> struct supports<Div, T> : std::bool_constant<one_of<T, half, float>> {};
template <class T> struct supports<And, T> : std::bool_constant<one_of<T, std::int16_t, std::uint16_t>> {};
template <class T> struct supports<Or, T> : std::bool_constant<one_of<T, std::int16_t, std::uint16_t>> {};
// Select: T the data, U the mask's element.
template <class T, class U>
struct supports<Select, T, U>
    : std::bool_constant<one_of<T, half, float> &&
                         one_of<U, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>> {};
// WholeReduceSum/Max/Min: dst and src of one type. 310P's Max/Min take only
// ORDER_VALUE_INDEX and ORDER_INDEX_VALUE.
template <class T, class U>
struct supports<WholeReduce, T, U> : std::bool_constant<one_of<T, half, float> && std::is_same_v<T, U>> {};

#if __CCE_AICORE__ == 220  // Atlas A2 (910B)
template <class T>
inline constexpr bool moves = one_of<T, std::int16_t, std::uint16_t, half, bfloat16_t, std::int32_t, std::uint32_t, float>;
template <class T>
inline constexpr bool copies = one_of<T, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, half, bfloat16_t,
                                      std::int32_t, std::uint32_t, float, std::int64_t, std::uint64_t, double>;
template <class T> struct supports<Duplicate, T> : std::bool_constant<moves<T>> {};
template <class T> struct supports<Brcb, T> : std::bool_constant<moves<T>> {};
template <class T> struct supports<Gather, T> : std::bool_constant<moves<T>> {};
template <class T> struct supports<CreateVecIndex, T> : std::bool_constant<one_of<T, std::int16_t, half, std::int32_t, float>> {};
template <class T> struct supports<DataCopy, T> : std::bool_constant<copies<T>> {};
template <class T> struct supports<DataCopyPad, T> : std::bool_constant<copies<T>> {};
// Compare: T the sources, U the bit mask's element. int32_t only with CMPMODE::EQ.
template <class T, class U>
struct supports<Compare, T, U>
    : std::bool_constant<one_of<T, half, float, std::int32_t> && one_of<U, std::int8_t, std::uint8_t>> {};
#else  // Atlas inference AI Core (310P): no bfloat16_t anywhere (内置数据类型.md), no DataCopyPad
template <class T>
inline constexpr bool moves = one_of<T, std::int16_t, std::uint16_t, half, std::int32_t, std::uint32_t, float>;
template <class T>
inline constexpr bool copies = one_of<T, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, half, std::int32_t,
                                      std::uint32_t, float, std::int64_t, std::uint64_t, double>;
// The Duplicate page also lists bfloat16_t here; the data-type page and the
// product's implementation (dav_m200) do not, so neither do we.
template <class T> struct supports<Duplicate, T> : std::bool_constant<moves<T>> {};
template <class T> struct supports<Brcb, T> : std::bool_constant<moves<T>> {};  // reserves 8 KB of UB
template <class T> struct supports<Gather, T> : std::bool_constant<moves<T>> {};
// unconfirmed: the CreateVecIndex page lists the product but no dtypes; these are the 910B's.
template <class T> struct supports<CreateVecIndex, T> : std::bool_constant<one_of<T, std::int16_t, half, std::int32_t, float>> {};
template <class T> struct supports<DataCopy, T> : std::bool_constant<copies<T>> {};
template <class T, class U>
struct supports<Compare, T, U> : std::bool_constant<one_of<T, half, float> && one_of<U, std::int8_t, std::uint8_t>> {};
#endif

// Cast, a row a documented (source, destination) pair; the comment gives its
// round modes (NONE RINT FLOOR CEIL ROUND TRUNC ODD). int4b_t rows are left out.
template <class Src, class Dst>
struct cast_pair {};
template <class... Pairs>
struct cast_table {
  template <class Src, class Dst>
  static constexpr bool has = (std::is_same_v<cast_pair<Src, Dst>, Pairs> || ...);
};
#if __CCE_AICORE__ == 220
using casts = cast_table<
    cast_pair<std::int8_t, half>,           // NONE
    cast_pair<std::uint8_t, half>,          // NONE
    cast_pair<std::int16_t, half>,          // NONE RINT FLOOR CEIL ROUND TRUNC
    cast_pair<std::int16_t, float>,         // NONE
    cast_pair<half, std::int8_t>,           // NONE RINT FLOOR CEIL ROUND TRUNC
    cast_pair<half, std::uint8_t>,          // NONE RINT FLOOR CEIL ROUND TRUNC
    cast_pair<half, std::int16_t>,          // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<half, std::int32_t>,          // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<half, float>,                 // NONE
    cast_pair<bfloat16_t, std::int32_t>,    // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<bfloat16_t, float>,           // NONE
    cast_pair<std::int32_t, std::int16_t>,  // NONE
    cast_pair<std::int32_t, half>,          // mode ignored: scales by SetDeqScale
    cast_pair<std::int32_t, float>,         // NONE RINT FLOOR CEIL ROUND TRUNC
    cast_pair<std::int32_t, std::int64_t>,  // NONE
    cast_pair<float, std::int16_t>,         // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<float, half>,                 // NONE RINT FLOOR CEIL ROUND TRUNC ODD
    cast_pair<float, bfloat16_t>,           // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<float, std::int32_t>,         // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<float, float>,                // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<float, std::int64_t>,         // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<std::int64_t, std::int32_t>,  // NONE
    cast_pair<std::int64_t, float>>;        // RINT FLOOR CEIL ROUND TRUNC
#else
using casts = cast_table<
    cast_pair<std::int8_t, half>,           // NONE
    cast_pair<std::uint8_t, half>,          // NONE
    cast_pair<std::int16_t, half>,          // NONE
    cast_pair<half, std::int8_t>,           // NONE FLOOR CEIL ROUND TRUNC (no RINT)
    cast_pair<half, std::uint8_t>,          // NONE FLOOR CEIL ROUND TRUNC (no RINT)
    cast_pair<half, std::int16_t>,          // RINT only
    cast_pair<half, std::int32_t>,          // RINT FLOOR CEIL ROUND TRUNC
    cast_pair<half, float>,                 // NONE
    cast_pair<std::int32_t, std::int16_t>,  // NONE
    cast_pair<std::int32_t, half>,          // mode ignored: scales by SetDeqScale
    cast_pair<std::int32_t, float>,         // NONE
    cast_pair<float, half>,                 // NONE ODD
    cast_pair<float, std::int64_t>>;        // RINT FLOOR CEIL ROUND TRUNC
#endif
template <class Dst, class Src>
struct supports<Cast, Dst, Src> : std::bool_constant<casts::has<Src, Dst>> {};

// The gate every templated call's return type goes through.
template <class Instr, class... T>
struct check {
  static_assert(supports<Instr, T...>::value,
                "the Ascend C documentation lists no such dtype for this instruction on this product "
                "(__CCE_AICORE__); see the product tables in tests/ascend_c/strict/kernel_operator.h");
  using type = void;
};
template <class Instr, class... T>
using checked_t = typename check<Instr, T...>::type;

}  // namespace product

// ---------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------

template <typename T>
class LocalTensor {
 public:
  __aicore__ LocalTensor() {}
  __aicore__ LocalTensor operator[](const std::uint32_t offset) const;
  __aicore__ T GetValue(const std::uint32_t index) const;
  template <typename T1>
  __aicore__ void SetValue(const std::uint32_t index, const T1 value) const;
};

template <typename T>
class GlobalTensor {
 public:
  __aicore__ GlobalTensor() {}
  __aicore__ void SetGlobalBuffer(__gm__ T* buffer, std::uint64_t bufferSize);
  __aicore__ void SetGlobalBuffer(__gm__ T* buffer);
  __aicore__ GlobalTensor operator[](const std::uint64_t offset) const;
  __aicore__ T GetValue(const std::uint64_t offset) const;
  __aicore__ void SetValue(const std::uint64_t offset, T value);
};

// ---------------------------------------------------------------------------
// Resources: queues, buffers, the pipe
// ---------------------------------------------------------------------------

template <TPosition pos, std::int32_t depth, auto mask = 0>
class TQue {
 public:
  __aicore__ TQue() {}
  template <typename T>
  __aicore__ LocalTensor<T> AllocTensor();
  template <typename T>
  __aicore__ void AllocTensor(LocalTensor<T>& tensor);
  template <typename T>
  __aicore__ bool EnQue(const LocalTensor<T>& tensor);
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  __aicore__ bool EnQue(const LocalTensor<T>& tensor);
  template <typename T>
  __aicore__ LocalTensor<T> DeQue();
  template <typename T>
  __aicore__ void DeQue(LocalTensor<T>& tensor);
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  __aicore__ LocalTensor<T> DeQue();
  template <typename T>
  __aicore__ void FreeTensor(LocalTensor<T>& tensor);  // an lvalue: the tensor DeQue gave
};

template <TPosition pos = TPosition::LCM>
class TBuf {
 public:
  __aicore__ TBuf() {}
  template <typename T>
  __aicore__ LocalTensor<T> Get();
  template <typename T>
  __aicore__ LocalTensor<T> Get(std::uint32_t len);  // len in elements
};

class TPipe {
 public:
  __aicore__ TPipe();
  template <class T>
  __aicore__ bool InitBuffer(T& que, std::uint8_t num, std::uint32_t len);  // len in bytes
  template <TPosition bufPos>
  __aicore__ bool InitBuffer(TBuf<bufPos>& buf, std::uint32_t len);
  // An id to use at once: nothing is held, so two SetFlags of one event in flight need AllocEventID.
  template <HardEvent evt>
  __aicore__ TEventID FetchEventID();
  __aicore__ TEventID FetchEventID(HardEvent evt);
  // An id held until ReleaseEventID.
  template <HardEvent evt>
  __aicore__ TEventID AllocEventID();
  template <HardEvent evt>
  __aicore__ void ReleaseEventID(TEventID id);
};

__aicore__ std::int64_t GetBlockIdx();
__aicore__ std::int64_t GetBlockNum();

// ---------------------------------------------------------------------------
// Synchronisation between pipes: the pair must match in event and id.
// ---------------------------------------------------------------------------

template <HardEvent event>
__aicore__ void SetFlag(std::int32_t eventID);
template <HardEvent event>
__aicore__ void WaitFlag(std::int32_t eventID);

// ---------------------------------------------------------------------------
// Copies between GM and UB
// ---------------------------------------------------------------------------

template <typename T>
__aicore__ product::checked_t<product::DataCopy, T> DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                                                    const std::uint32_t count);
template <typename T>
__aicore__ product::checked_t<product::DataCopy, T> DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                                                    const std::uint32_t count);
template <typename T>
__aicore__ product::checked_t<product::DataCopy, T> DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                                                                    const DataCopyParams& repeatParams);
template <typename T>
__aicore__ product::checked_t<product::DataCopy, T> DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                                                                    const DataCopyParams& repeatParams);

// Any length in bytes. Not on 310P: every form fails the product check there.
template <typename T>
__aicore__ product::checked_t<product::DataCopyPad, T> DataCopyPad(const LocalTensor<T>& dst,
                                                                          const GlobalTensor<T>& src,
                                                                          const DataCopyExtParams& dataCopyParams,
                                                                          const DataCopyPadExtParams<T>& padParams);
template <typename T>
__aicore__ product::checked_t<product::DataCopyPad, T> DataCopyPad(const GlobalTensor<T>& dst,
                                                                          const LocalTensor<T>& src,
                                                                          const DataCopyExtParams& dataCopyParams);
template <typename T>
__aicore__ product::checked_t<product::DataCopyPad, T> DataCopyPad(const LocalTensor<T>& dst,
                                                                          const GlobalTensor<T>& src,
                                                                          const DataCopyParams& dataCopyParams,
                                                                          const DataCopyPadParams& padParams);
template <typename T>
__aicore__ product::checked_t<product::DataCopyPad, T> DataCopyPad(const GlobalTensor<T>& dst,
                                                                          const LocalTensor<T>& src,
                                                                          const DataCopyParams& dataCopyParams);

// ---------------------------------------------------------------------------
// Vector instructions. Each has a count form (the first `count` elements) and
// level-0 forms (mask as a count or as bits, repeatTime repeats of 256 bytes,
// strides). isSetMask = false means the caller set the mask with SetVectorMask.
// ---------------------------------------------------------------------------

#define BCAST_STRICT_BINARY(Name)                                                                                \
  template <typename T>                                                                                         \
  __aicore__ product::checked_t<product::Name, T> Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, \
                                                              const LocalTensor<T>& src1, const std::int32_t& count); \
  template <typename T, bool isSetMask = true>                                                                  \
  __aicore__ product::checked_t<product::Name, T> Name(                                                  \
      const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, std::uint64_t mask[],  \
      const std::uint8_t repeatTime, const BinaryRepeatParams& repeatParams);                                   \
  template <typename T, bool isSetMask = true>                                                                  \
  __aicore__ product::checked_t<product::Name, T> Name(                                                  \
      const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, std::uint64_t mask,    \
      const std::uint8_t repeatTime, const BinaryRepeatParams& repeatParams);
BCAST_STRICT_BINARY(Add)
BCAST_STRICT_BINARY(Sub)
BCAST_STRICT_BINARY(Mul)
BCAST_STRICT_BINARY(Div)  // the DivConfig forms are not on either product
BCAST_STRICT_BINARY(Max)
BCAST_STRICT_BINARY(Min)
BCAST_STRICT_BINARY(And)
BCAST_STRICT_BINARY(Or)
#undef BCAST_STRICT_BINARY

// Tensor and scalar. The scalar is a T (or a U that is T): `Adds(h, h, 2.0f, n)`
// on half does not deduce, as with the real compiler.
#define BCAST_STRICT_SCALAR(Name)                                                                                   \
  template <typename T, bool isSetMask = true>                                                                     \
  __aicore__ product::checked_t<product::Name, T> Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, \
                                                              const T& scalarValue, const std::int32_t& count);    \
  template <typename T, bool isSetMask = true>                                                                     \
  __aicore__ product::checked_t<product::Name, T> Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, \
                                                              const T& scalarValue, std::uint64_t mask[],          \
                                                              const std::uint8_t repeatTime,                       \
                                                              const UnaryRepeatParams& repeatParams);              \
  template <typename T, bool isSetMask = true>                                                                     \
  __aicore__ product::checked_t<product::Name, T> Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, \
                                                              const T& scalarValue, std::uint64_t mask,            \
                                                              const std::uint8_t repeatTime,                       \
                                                              const UnaryRepeatParams& repeatParams);              \
  template <typename T, typename U, bool isSetMask = true,                                                         \
            typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>                                 \
  __aicore__ product::checked_t<product::Name, T> Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, \
                                                              const U& scalarValue, const std::int32_t& count);
BCAST_STRICT_SCALAR(Adds)
BCAST_STRICT_SCALAR(Muls)
BCAST_STRICT_SCALAR(Maxs)
BCAST_STRICT_SCALAR(Mins)
#undef BCAST_STRICT_SCALAR

// One value into every element.
template <typename T>
__aicore__ product::checked_t<product::Duplicate, T> Duplicate(const LocalTensor<T>& dst, const T& scalarValue,
                                                                      const std::int32_t& count);
template <typename T, bool isSetMask = true>
__aicore__ product::checked_t<product::Duplicate, T> Duplicate(const LocalTensor<T>& dst, const T& scalarValue,
                                                                      std::uint64_t mask[], const std::uint8_t repeatTime,
                                                                      const std::uint16_t dstBlockStride,
                                                                      const std::uint8_t dstRepeatStride);
template <typename T, bool isSetMask = true>
__aicore__ product::checked_t<product::Duplicate, T> Duplicate(const LocalTensor<T>& dst, const T& scalarValue,
                                                                      std::uint64_t mask, const std::uint8_t repeatTime,
                                                                      const std::uint16_t dstBlockStride,
                                                                      const std::uint8_t dstRepeatStride);

// Each of 8 source elements a repeat fills one 32-byte block of dst.
template <typename T>
__aicore__ product::checked_t<product::Brcb, T> Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                            const std::uint8_t repeatTime,
                                                            const BrcbRepeatParams& repeatParams);

// firstValue, firstValue + 1, ... The count form takes dst by value, the level-0 forms by reference.
template <typename T>
__aicore__ product::checked_t<product::CreateVecIndex, T> CreateVecIndex(LocalTensor<T> dst, const T& firstValue,
                                                                                std::uint32_t count);
template <typename T>
__aicore__ product::checked_t<product::CreateVecIndex, T> CreateVecIndex(LocalTensor<T>& dst, const T& firstValue,
                                                                                std::uint64_t mask[],
                                                                                std::uint8_t repeatTime,
                                                                                std::uint16_t dstBlkStride,
                                                                                std::uint8_t dstRepStride);
template <typename T>
__aicore__ product::checked_t<product::CreateVecIndex, T> CreateVecIndex(LocalTensor<T>& dst, const T& firstValue,
                                                                                std::uint64_t mask,
                                                                                std::uint8_t repeatTime,
                                                                                std::uint16_t dstBlkStride,
                                                                                std::uint8_t dstRepStride);

// dst[i] = the element at byte offset srcOffset[i] - srcBaseAddr of src.
template <typename T>
__aicore__ product::checked_t<product::Gather, T> Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                                const LocalTensor<std::uint32_t>& srcOffset,
                                                                const std::uint32_t srcBaseAddr,
                                                                const std::uint32_t count);
template <typename T>
__aicore__ product::checked_t<product::Gather, T> Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                                const LocalTensor<std::uint32_t>& srcOffset,
                                                                const std::uint32_t srcBaseAddr,
                                                                const std::uint64_t mask[],
                                                                const std::uint8_t repeatTime,
                                                                const std::uint16_t dstRepStride);
template <typename T>
__aicore__ product::checked_t<product::Gather, T> Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                                                const LocalTensor<std::uint32_t>& srcOffset,
                                                                const std::uint32_t srcBaseAddr,
                                                                const std::uint64_t mask,
                                                                const std::uint8_t repeatTime,
                                                                const std::uint16_t dstRepStride);

// A bit an element into dst (U = uint8_t or int8_t). The count form computes
// only whole 256-byte pieces: count * sizeof(T) must be a multiple of 256. On
// both products the level-0 form's mask is reserved (has no effect); its
// bit-mask (mask[2]) overload is left out, as are Select's.
template <typename T, typename U>
__aicore__ product::checked_t<product::Compare, T, U> Compare(const LocalTensor<U>& dst,
                                                                     const LocalTensor<T>& src0,
                                                                     const LocalTensor<T>& src1, CMPMODE cmpMode,
                                                                     std::uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ product::checked_t<product::Compare, T, U> Compare(const LocalTensor<U>& dst,
                                                                     const LocalTensor<T>& src0,
                                                                     const LocalTensor<T>& src1, CMPMODE cmpMode,
                                                                     const std::uint64_t mask, std::uint8_t repeatTime,
                                                                     const BinaryRepeatParams& repeatParams);

// src0 where selMask's bit is set, else src1. Modes 1 (tensor-scalar) and 2
// (tensor-tensor) reserve 8 KB of UB on both products.
template <typename T, typename U>
__aicore__ product::checked_t<product::Select, T, U> Select(const LocalTensor<T>& dst,
                                                                   const LocalTensor<U>& selMask,
                                                                   const LocalTensor<T>& src0, T src1,
                                                                   SELMODE selMode, std::uint32_t count);
template <typename T, typename U>
__aicore__ product::checked_t<product::Select, T, U> Select(const LocalTensor<T>& dst,
                                                                   const LocalTensor<U>& selMask,
                                                                   const LocalTensor<T>& src0,
                                                                   const LocalTensor<T>& src1, SELMODE selMode,
                                                                   std::uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ product::checked_t<product::Select, T, U> Select(const LocalTensor<T>& dst,
                                                                   const LocalTensor<U>& selMask,
                                                                   const LocalTensor<T>& src0, T src1,
                                                                   SELMODE selMode, std::uint64_t mask,
                                                                   std::uint8_t repeatTime,
                                                                   const BinaryRepeatParams& repeatParams);

// dst (T) from src (U); the pair must be in the product's cast table.
template <typename T, typename U>
__aicore__ product::checked_t<product::Cast, T, U> Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                               const RoundMode& roundMode, const std::uint32_t count);
template <typename T, typename U, bool isSetMask = true>
__aicore__ product::checked_t<product::Cast, T, U> Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                               const RoundMode& roundMode, const std::uint64_t mask[],
                                                               const std::uint8_t repeatTime,
                                                               const UnaryRepeatParams& repeatParams);
template <typename T, typename U, bool isSetMask = true>
__aicore__ product::checked_t<product::Cast, T, U> Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src,
                                                               const RoundMode& roundMode, const std::uint64_t mask,
                                                               const std::uint8_t repeatTime,
                                                               const UnaryRepeatParams& repeatParams);

// A repeat's elements to one value, level-0 only. The pages' mask-count forms
// take an int32_t mask. Max and Min write value and index as `order` says.
// (Renamed ReduceRepeat in the newest reference; both products still document them.)
template <typename T, bool isSetMask = true, typename U = T>
__aicore__ product::checked_t<product::WholeReduce, T, U> WholeReduceSum(
    const LocalTensor<U>& dst, const LocalTensor<T>& src, const std::uint64_t mask[], const std::int32_t repeatTime,
    const std::int32_t dstRepStride, const std::int32_t srcBlkStride, const std::int32_t srcRepStride);
template <typename T, bool isSetMask = true, typename U = T>
__aicore__ product::checked_t<product::WholeReduce, T, U> WholeReduceSum(
    const LocalTensor<U>& dst, const LocalTensor<T>& src, const std::int32_t mask, const std::int32_t repeatTime,
    const std::int32_t dstRepStride, const std::int32_t srcBlkStride, const std::int32_t srcRepStride);
#define BCAST_STRICT_WHOLE_REDUCE(Name)                                                                        \
  template <typename T, bool isSetMask = true>                                                                \
  __aicore__ product::checked_t<product::WholeReduce, T, T> Name(                                      \
      const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::uint64_t mask[],                       \
      const std::int32_t repeatTime, const std::int32_t dstRepStride, const std::int32_t srcBlkStride,        \
      const std::int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);                   \
  template <typename T, bool isSetMask = true>                                                                \
  __aicore__ product::checked_t<product::WholeReduce, T, T> Name(                                      \
      const LocalTensor<T>& dst, const LocalTensor<T>& src, const std::int32_t mask, const std::int32_t repeatTime, \
      const std::int32_t dstRepStride, const std::int32_t srcBlkStride, const std::int32_t srcRepStride,      \
      ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX);
BCAST_STRICT_WHOLE_REDUCE(WholeReduceMax)
BCAST_STRICT_WHOLE_REDUCE(WholeReduceMin)
#undef BCAST_STRICT_WHOLE_REDUCE

}  // namespace AscendC

// The pipe the kernel's TPipe registered (global, as in kernel_common.h; the
// SetCmpMask page spells it AscendC::GetTPipePtr(), so both resolve).
__aicore__ AscendC::TPipe* GetTPipePtr();
namespace AscendC {
using ::GetTPipePtr;
}

// In an operator project the framework generates GET_TILING_DATA from the
// registered tiling struct. Ours: the written kernel defines
// `struct BcastTilingData` first; the macro declares one and fills it from GM.
template <class Tiling>
__aicore__ void BcastLoadTiling(Tiling& dst, GM_ADDR tilingGm);  // unconfirmed: our own helper
#define GET_TILING_DATA(name, tilingGm) \
  BcastTilingData name;                 \
  BcastLoadTiling(name, tilingGm)
