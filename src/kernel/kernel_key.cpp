// KernelKey construction and hashing; its text is key_codec.cpp's.
#define XXH_INLINE_ALL
#include "kernel_key.h"

#include <xxhash.h>

#include <cstring>

#include "expr_kernel.h"
#include "key_codec.h"

namespace bcast {
std::array<InnerStride, kMaxOperands> inner_strides(const BroadcastPlan& plan) {
  std::array<InnerStride, kMaxOperands> inner{};
  if (plan.rank() == 0) return inner;
  const int last = plan.rank() - 1;
  for (int k = 0; k < plan.operands(); ++k) {
    const bool repeated = k > 0 && repeats(plan.type[last], k - 1);
    const std::int64_t stride = plan.strides[k][last];
    inner[k] = repeated       ? InnerStride::zero
               : stride == 1  ? InnerStride::unit
               : stride == -1 ? InnerStride::reversed
                              : InnerStride::strided;
  }
  return inner;
}

std::string KernelKey::to_string() const { return key_to_string(*this); }
std::string KernelKey::layout_code() const { return bcast::layout_code(*this); }

std::uint64_t KernelKey::hash() const {
  // Hash the fields, not the object: padding bytes are not part of the key.
  constexpr std::size_t kSmall = 13;
  std::array<std::uint8_t, kSmall + 2 * kMaxOperands> bytes{static_cast<std::uint8_t>(target),
                                                            model,
                                                            static_cast<std::uint8_t>(dtype),
                                                            rank,
                                                            operands,
                                                            fixed_row,
                                                            transposed,
                                                            static_cast<std::uint8_t>(stream),
                                                            static_cast<std::uint8_t>(reduce),
                                                            static_cast<std::uint8_t>(combine),
                                                            static_cast<std::uint8_t>(accumulator),
                                                            reduce_width,
                                                            reduce_block};
  for (int k = 0; k < kMaxOperands; ++k) {
    bytes[kSmall + k] = static_cast<std::uint8_t>(inner[k]);
    bytes[kSmall + kMaxOperands + k] = row_step[k];
  }
  std::array<std::uint64_t, 2 + (bytes.size() + 7) / 8> words{codegen, expr};
  std::memcpy(&words[2], bytes.data(), bytes.size());
  return XXH3_64bits(words.data(), sizeof words);
}

KernelKey make_kernel_key(const Target& target, Op op, DType dtype, const BroadcastPlan& plan, std::uint32_t codegen,
                          std::uint64_t stream_min_bytes, ExprSpecPin* pin) {
  ExprSpecPin own;
  ExprSpecPin& held = pin != nullptr ? *pin : own;
  const std::uint64_t id = intern_binary_spec(op, dtype, plan.type, &held);  // NOTE: [Binary spec memo]
  return key_for_spec(target, id, *held, plan, codegen, stream_min_bytes);
}

KernelKey make_kernel_key(const Target& target, Op op, DType dtype, const BroadcastType& type, std::uint32_t codegen) {
  BroadcastPlan plan;
  plan.type = type;
  plan.extents.assign(type.size(), 2);
  for (int k = 0; k < kNumOperands; ++k) plan.strides[k].assign(type.size(), 1);
  return make_kernel_key(target, op, dtype, plan, codegen);
}

std::vector<BroadcastType> types_of_rank(int rank) {
  if (rank == 0) return {BroadcastType{}};
  std::vector<BroadcastType> types;
  for (DimCode first : {DimCode::same, DimCode::expand_a, DimCode::expand_b}) types.push_back({first});
  for (int level = 1; level < rank; ++level) {
    std::vector<BroadcastType> longer;
    for (const BroadcastType& t : types)
      for (DimCode next : {DimCode::same, DimCode::expand_a, DimCode::expand_b})
        if (next != t.back()) {
          longer.push_back(t);
          longer.back().push_back(next);
        }
    types = std::move(longer);
  }
  return types;
}

BroadcastPlan contiguous_plan(const BroadcastType& type, const std::vector<std::int64_t>& extents) {
  BroadcastPlan plan;
  plan.type = type;
  plan.extents = extents;
  for (int k = 0; k < kNumOperands; ++k) {
    plan.strides[k].assign(type.size(), 0);
    std::int64_t stride = 1;
    for (std::size_t l = type.size(); l-- > 0;) {
      const bool repeats = (k == kA && type[l] == DimCode::expand_a) || (k == kB && type[l] == DimCode::expand_b);
      if (repeats) continue;
      plan.strides[k][l] = stride;
      stride *= extents[l];
    }
  }
  return plan;
}

}  // namespace bcast
