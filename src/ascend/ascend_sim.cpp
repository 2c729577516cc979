// The Ascend-style simulator's intrinsics and their checks.
#include "ascend_sim.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "bcast/ops.h"
#include "ascend_abi.h"
#include "reference_executor.h"

namespace bcast::ascend {

BlockContext::BlockContext(int block, const SimConfig& config, std::vector<GmRegion> gm, std::vector<int> sizes,
                           const BlockWork& work)
    : block_(block), config_(config), gm_(std::move(gm)), sizes_(std::move(sizes)), work_(work),
      ub_(static_cast<std::size_t>(config.ub_size)), queued_(sizes_.size()) {}

bool BlockContext::fail(const std::string& call, const std::string& what) {
  if (error_.empty()) error_ = fmt::format("ascend-sim block {}: {}: {}", block_, call, what);
  return false;
}

bool BlockContext::check_ub(const std::string& call, std::int64_t ub, std::int64_t bytes, bool aligned_length) {
  if (!error_.empty()) return false;
  if (ub % kAlign != 0) return fail(call, fmt::format("UB address {:#x} is not a multiple of {} bytes", ub, kAlign));
  if (aligned_length && bytes % kAlign != 0)
    return fail(call, fmt::format("length {} bytes at UB {:#x} is not a multiple of {}", bytes, ub, kAlign));
  if (ub < 0 || bytes < 0 || ub + bytes > config_.ub_size)
    return fail(call, fmt::format("UB range [{:#x}, {:#x}) overflows the {}-byte UB", ub, ub + bytes, config_.ub_size));
  counters_.ub_high_water = std::max(counters_.ub_high_water, ub + bytes);
  return true;
}

bool BlockContext::check_gm(const std::string& call, const char* gm, std::int64_t bytes, int operand) {
  if (!error_.empty()) return false;
  const std::string name = operand == kGmOut ? "out"
                           : work_.expression ? "x" + std::to_string(operand - 1)
                                              : std::string(1, static_cast<char>('a' + operand - 1));
  const GmRegion& r = gm_[static_cast<std::size_t>(operand)];
  if (gm < r.begin || gm + bytes > r.end)
    return fail(call, fmt::format("GM range [{}, {}) is outside operand {}'s buffer [{}, {}) ({} bytes past its end)",
                                  static_cast<const void*>(gm), static_cast<const void*>(gm + bytes), name,
                                  static_cast<const void*>(r.begin), static_cast<const void*>(r.end),
                                  std::max<std::int64_t>(0, gm + bytes - r.end)));
  return true;
}

void BlockContext::copy_in(std::int64_t ub_addr, const char* gm, std::int64_t count, std::int64_t stride,
                           int operand) {
  if (operand <= 0 || operand >= static_cast<int>(sizes_.size())) {
    fail("data_copy_gm_to_ub", fmt::format("no input operand {}", operand));
    return;
  }
  const std::int64_t in_size = sizes_[static_cast<std::size_t>(operand)];
  const std::int64_t bytes = count * in_size;
  const std::int64_t padded = (bytes + kAlign - 1) / kAlign * kAlign;
  const std::string call =
      fmt::format("data_copy_gm_to_ub({:#x}, {} elements, stride {})", ub_addr, count, stride);
  if (!check_ub(call, ub_addr, padded, true)) return;
  if (stride == 1) {
    if (!check_gm(call, gm, bytes, operand)) return;
    std::memcpy(ub(ub_addr), gm, static_cast<std::size_t>(bytes));
  } else {
    for (std::int64_t i = 0; i < count; ++i) {
      const char* src = gm + i * stride * in_size;
      if (!check_gm(call, src, in_size, operand)) return;
      std::memcpy(ub(ub_addr) + i * in_size, src, static_cast<std::size_t>(in_size));
    }
  }
  std::memset(ub(ub_addr) + bytes, 0, static_cast<std::size_t>(padded - bytes));
  counters_.gm_to_ub_bytes += bytes;
  ++counters_.copy_calls;
}

void BlockContext::copy_out(char* gm, std::int64_t ub_addr, std::int64_t count, std::int64_t stride) {
  const std::int64_t out_size = sizes_[kGmOut];
  const std::string call = fmt::format("data_copy_ub_to_gm({:#x}, {} elements, stride {})", ub_addr, count, stride);
  if (!check_ub(call, ub_addr, count * out_size, false)) return;
  if (stride == 1) {
    if (!check_gm(call, gm, count * out_size, kGmOut)) return;
    std::memcpy(gm, ub(ub_addr), static_cast<std::size_t>(count * out_size));
  } else {
    for (std::int64_t i = 0; i < count; ++i) {
      char* dst = gm + i * stride * out_size;
      if (!check_gm(call, dst, out_size, kGmOut)) return;
      std::memcpy(dst, ub(ub_addr) + i * out_size, static_cast<std::size_t>(out_size));
    }
  }
  counters_.ub_to_gm_bytes += count * out_size;
  ++counters_.copy_calls;
}

void BlockContext::vector_binary(std::int64_t dst, std::int64_t a, std::int64_t b, std::int64_t count) {
  const std::int64_t in_size = sizes_[kGmA], out_size = sizes_[kGmOut];
  const std::string call = fmt::format("vector_binary({:#x}, {:#x}, {:#x}, {} elements)", dst, a, b, count);
  if (!check_ub(call, dst, count * out_size, false) || !check_ub(call, a, count * in_size, false) ||
      !check_ub(call, b, count * in_size, false))
    return;
  // The reference kernel over one contiguous level: the same per-element
  // semantics as every other path, so results agree bit for bit.
  const std::int64_t extents[1] = {count}, strides[3] = {1, 1, 1}, spans[3] = {0, 0, 0};
  void* const data[3] = {ub(dst), ub(a), ub(b)};
  const KernelArgs args{data, extents, strides, spans, nullptr, 1, 1, nullptr};
  reference_kernel(static_cast<Op>(work_.op_code), static_cast<DType>(work_.dtype_code))(&args);
  counters_.vector_repeats += (std::max(count * in_size, count * out_size) + kRepeatBytes - 1) / kRepeatBytes;
}

void BlockContext::vector_node(int node, std::int64_t dst, const std::int64_t (&args)[3], std::int64_t count) {
  const std::string call = fmt::format("vector_node({}, {:#x}, {} elements)", node, dst, count);
  if (!error_.empty()) return;
  if (work_.expression == nullptr || node < 0 || node >= static_cast<int>(work_.expression->program().code.size())) {
    fail(call, "no such node in the block's expression");
    return;
  }
  const ExprProgram& program = work_.expression->program();
  const ExprInstr& instr = program.code[static_cast<std::size_t>(node)];
  const std::int64_t out_bytes = count * static_cast<std::int64_t>(dtype_size(instr.out));
  if (!check_ub(call, dst, out_bytes, false)) return;
  // Scalar arguments are repeated into a buffer of their own, off the UB.
  scalar_block_.resize(static_cast<std::size_t>(count) * instr.arity());
  const void* pointers[3] = {};
  std::int64_t widest = out_bytes;
  for (int a = 0; a < instr.arity(); ++a) {
    const int value = instr.args[a];
    const auto size = static_cast<std::int64_t>(dtype_size(program.dtype_of(value)));
    widest = std::max(widest, count * size);
    if (args[a] >= 0) {
      if (!check_ub(call, args[a], count * size, false)) return;
      pointers[a] = ub(args[a]);
      continue;
    }
    const std::int64_t j = kScalarArgument - args[a];
    if (j < 0 || j >= static_cast<std::int64_t>(program.scalars.size())) {
      fail(call, fmt::format("argument {} names no scalar", a));
      return;
    }
    auto* block = reinterpret_cast<char*>(scalar_block_.data() + a * count);
    const char* slot = static_cast<const char*>(work_.scalars) + j * 8;
    for (std::int64_t i = 0; i < count; ++i) std::memcpy(block + i * size, slot, static_cast<std::size_t>(size));
    pointers[a] = block;
  }
  work_.expression->run_node(static_cast<std::size_t>(node), count, ub(dst), pointers);
  counters_.vector_repeats += (widest + kRepeatBytes - 1) / kRepeatBytes;
}

void BlockContext::broadcast(std::int64_t dst, std::int64_t src, std::int64_t count, int operand) {
  const std::string call = fmt::format("broadcast_in_ub({:#x} <- {:#x}, {} elements)", dst, src, count);
  // The source is one element, read as a scalar: any address inside the UB.
  if (!error_.empty()) return;
  if (operand <= 0 || operand >= static_cast<int>(sizes_.size())) {
    fail(call, fmt::format("no input operand {}", operand));
    return;
  }
  const std::int64_t in_size = sizes_[static_cast<std::size_t>(operand)];
  if (src < 0 || src + in_size > config_.ub_size) {
    fail(call, fmt::format("source {:#x} is outside the {}-byte UB", src, config_.ub_size));
    return;
  }
  if (!check_ub(call, dst, count * in_size, false)) return;
  char value[8];
  std::memcpy(value, ub(src), static_cast<std::size_t>(in_size));
  for (std::int64_t i = 0; i < count; ++i) std::memcpy(ub(dst) + i * in_size, value, static_cast<std::size_t>(in_size));
  counters_.vector_repeats += (count * in_size + kRepeatBytes - 1) / kRepeatBytes;
}

void BlockContext::enque(int queue, int slot) {
  if (!error_.empty()) return;
  if (queue < 0 || queue >= static_cast<int>(queued_.size()) || slot < 0 || slot >= 2) {
    fail("enque", fmt::format("no queue {} slot {}", queue, slot));
    return;
  }
  if (queued_[queue][slot]) {
    fail(fmt::format("enque(queue {}, slot {})", queue, slot), "the slot is already queued");
    return;
  }
  queued_[queue][slot] = 1;
}

void BlockContext::deque(int queue, int slot) {
  if (!error_.empty()) return;
  if (queue < 0 || queue >= static_cast<int>(queued_.size()) || slot < 0 || slot >= 2 || !queued_[queue][slot]) {
    fail(fmt::format("deque(queue {}, slot {})", queue, slot), "nothing was enqueued there");
    return;
  }
  queued_[queue][slot] = 0;
}

void BlockContext::finish() {
  for (std::size_t q = 0; q < queued_.size(); ++q)
    for (std::size_t s = 0; s < 2; ++s)
      if (queued_[q][s]) fail("end of block", fmt::format("queue {} slot {} is still enqueued", q, s));
}

namespace {

BlockContext& ctx(void* c) { return *static_cast<BlockContext*>(c); }

}  // namespace

extern "C" {
// Declared from the shared prototypes (NOTE: [Ascend intrinsics]): a
// definition below that differs from its prototype does not compile.
#define BCAST_DECLARE_INTRINSIC(symbol, prototype) prototype symbol;
BCAST_ASCEND_INTRINSICS(BCAST_DECLARE_INTRINSIC)
#undef BCAST_DECLARE_INTRINSIC

void bcast_sim_copy_in(void* c, std::int64_t ub, const char* gm, std::int64_t count, std::int64_t stride,
                       std::int32_t operand) {
  ctx(c).copy_in(ub, gm, count, stride, operand);
}
void bcast_sim_copy_out(void* c, char* gm, std::int64_t ub, std::int64_t count, std::int64_t stride) {
  ctx(c).copy_out(gm, ub, count, stride);
}
void bcast_sim_vector_binary(void* c, std::int64_t dst, std::int64_t a, std::int64_t b, std::int64_t count) {
  ctx(c).vector_binary(dst, a, b, count);
}
void bcast_sim_vector_node(void* c, std::int32_t node, std::int64_t dst, std::int64_t x, std::int64_t y,
                           std::int64_t z, std::int64_t count) {
  ctx(c).vector_node(node, dst, {x, y, z}, count);
}
void bcast_sim_broadcast(void* c, std::int64_t dst, std::int64_t src, std::int64_t count, std::int32_t operand) {
  ctx(c).broadcast(dst, src, count, operand);
}
void bcast_sim_enque(void* c, std::int32_t queue, std::int32_t slot) { ctx(c).enque(queue, slot); }
void bcast_sim_deque(void* c, std::int32_t queue, std::int32_t slot) { ctx(c).deque(queue, slot); }
void bcast_sim_tile_done(void* c) { ctx(c).tile_done(); }
}

std::vector<JitSymbol> intrinsics() {
#define BCAST_INTRINSIC_SYMBOL(symbol, prototype) {#symbol, reinterpret_cast<void*>(&symbol)},
  return {BCAST_ASCEND_INTRINSICS(BCAST_INTRINSIC_SYMBOL)};
#undef BCAST_INTRINSIC_SYMBOL
}

}  // namespace bcast::ascend
