// KernelKey: everything a generated kernel depends on, and nothing else.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bcast/dtype.h"
#include "bcast/ops.h"
#include "broadcast_plan.h"

namespace bcast {

enum class Target : std::uint8_t { host, ascend_sim };
std::string_view target_name(Target target);  // "host", "ascend-sim"
std::optional<Target> parse_target(std::string_view name);

// How an operand moves along the innermost level, which the kernel's inner
// loop is specialised for.
enum class InnerStride : std::uint8_t {
  unit,     // stride 1: contiguous, vectorised loads and stores
  zero,     // the operand repeats along the level (an expand code): loaded once
  strided,  // any other stride, a run-time value (0 included, for a broadcast view)
};

// Extents and strides are run-time arguments, so one kernel serves every shape
// of its broadcast type. A key is small and trivially copyable so that the
// cache's hit path builds and hashes one without allocating.
struct KernelKey {
  Target target = Target::host;
  Op op = Op::add;
  DType dtype = DType::f32;
  std::uint8_t rank = 0;                       // levels of the broadcast type
  std::array<InnerStride, kNumOperands> inner{};  // out, a, b
  std::uint32_t codegen = 0;                   // intern_codegen_settings id
  std::array<std::uint64_t, 2> codes{};        // level l's DimCode in bits [2l, 2l+2)
  // NOTE: [Fixed rows] For a rank-2 type whose rows are short (at most
  // kFixedRowMax elements): the row length, and each operand's step from one
  // row to the next, when all are compile-time constants; 0 otherwise.
  std::uint8_t fixed_row = 0;
  std::array<std::uint8_t, kNumOperands> row_step{};  // 0, 1 or fixed_row
  // NOTE: [Streaming stores] The inner loop writes out a cache line at a time
  // with non-temporal stores.
  bool stream = false;
  // NOTE: [Transposed tiles] kA or kB when that input runs along out's rows
  // with a stride and along its columns with stride 1 (a transposed view,
  // rows and columns being the last two levels): read in square tiles
  // transposed in registers. 0 otherwise.
  std::uint8_t transposed = 0;

  DimCode code(int level) const;
  BroadcastType type() const;

  // Stable and readable; the LLVM module name and the kernel's symbol:
  //   add.f32.[expand_b,same].uuz.host.znver5.O2.1a2b3c4d
  // (inner strides of out, a, b: u unit, z zero, s strided; then the target,
  // CPU, opt level and a hash of the CPU features and vector width).
  std::string to_string() const;
  std::string inner_code() const;  // "uuz": the inner strides of out, a, b
  // inner_code(), then ".r4-4-4-1" for fixed rows, ".nt" for streaming, ".ta" or ".tb" for a transposed input
  std::string layout_code() const;
  std::uint64_t hash() const;

  friend bool operator==(const KernelKey&, const KernelKey&) = default;
};

inline constexpr int kFixedRowMax = 16;

struct KernelKeyHash {
  std::size_t operator()(const KernelKey& key) const { return key.hash(); }
};

// NOTE: [Streaming stores] A store to a line that is not in cache first reads
// the line (read-for-ownership), so an output far larger than the cache costs
// twice its size in traffic. Non-temporal stores write whole lines without that
// read: for a write-mostly call such as [4096,1] + [1,4096] they are worth a
// quarter to a half more bandwidth. The kernel peels elements until out is
// line-aligned, stores one line per vector step, finishes the row with scalar
// stores, and ends with a store fence. They pay only where the output cannot
// stay in cache: calls that move (read plus write) at least
// BCAST_STREAM_MIN_BYTES, by default the last-level cache's size, on rows long
// enough for the peeling not to dominate.
inline constexpr std::int64_t kStreamMinRowBytes = 256;
inline constexpr std::int64_t kLineBytes = 64;  // a cache line: what one streaming store writes
inline constexpr std::uint64_t kNeverStream = ~std::uint64_t{0};

// NOTE: [Transposed tiles] The input (kA or kB) that `plan` reads in
// transposed blocks, or 0: strided along the rows (the last level), stepping
// 1 between them, with out contiguous and the other input unit or repeated
// along the rows. The key's `transposed` for host kernels other than fixed
// rows; the executor's square tiles for the same plans.
int transposed_operand(const BroadcastPlan& plan);

// The key of a planned call; a host call that moves at least stream_min_bytes
// bytes gets streaming stores where its layout allows them.
// Plans of rank above 64 levels cannot occur (layouts are limited to kMaxRank dims).
KernelKey make_kernel_key(Target target, Op op, DType dtype, const BroadcastPlan& plan, std::uint32_t codegen,
                          std::uint64_t stream_min_bytes = kNeverStream);

// A key from its printed parts, as the disk cache's header keeps them:
// op "add", dtype "f32", type "[expand_b,same]", inner "uuz" (or a
// layout_code() such as "uuz.r4-4-4-1", "uuz.nt" or "usu.ta"). nullopt if any
// part does not parse.
std::optional<KernelKey> make_kernel_key(Target target, std::string_view op, std::string_view dtype,
                                         std::string_view type, std::string_view inner, std::uint32_t codegen);

// The same from a broadcast type alone, for pre-generation: operands are
// contiguous, so a `same` innermost level streams both inputs.
KernelKey make_kernel_key(Target target, Op op, DType dtype, const BroadcastType& type, std::uint32_t codegen);

}  // namespace bcast
