// Prepared calls and pre-generation.
#include "bcast/prepared.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <thread>

#include "bcast/runtime.h"
#include "ascend_dispatch.h"
#include "broadcast_plan.h"
#include "codegen_settings.h"
#include "config.h"
#include "error_messages.h"
#include "executor.h"
#include "jit/kernel_cache.h"
#include "kernel_key.h"
#include "kernel_abi.h"
#include "kernel_provider.h"
#include "validate_binary.h"

namespace bcast {

// NOTE: [Prepared fast path] What a call needs that depends only on the
// layouts is worked out once, in prepare(): the kernel's arguments (NOTE:
// [Direct call]) and each operand's byte reach for the overlap check. A
// one-chunk host call then checks the views against the prepared layouts,
// checks pointers and overlap with a few additions, and calls the kernel: no
// planning, allocation or lookup.
struct FastCall {
  DirectCall call;  // NOTE: [Direct call]; not usable: short-row fusion, blocked order, no kernel, no elements
  DataCheck data;
};

struct PreparedOp::Impl {
  Op op;
  DType dtype;
  Layout a, b, out;
  BroadcastPlan plan;
  std::optional<FusedRows> fused;
  SelectedKernel kernel;
  std::string type, key;
  FastCall fast;
};

namespace {

FastCall make_fast_call(const PreparedOp::Impl& p) {
  FastCall f;
  if (p.fused || !p.kernel.fn) return f;
  const DType out_dtype = result_dtype(p.op, p.dtype);
  f.call = DirectCall(p.plan, {dtype_size(out_dtype), dtype_size(p.dtype), dtype_size(p.dtype)});
  if (f.call.usable()) f.data = DataCheck(p.dtype, out_dtype, p.a, p.b, p.out);
  return f;
}

}  // namespace

PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b, const Layout& out) {
  const Shape shape = validate_input_layouts(op, dtype, a, dtype, b);
  validate_out_layout(op, dtype, a.shape, b.shape, result_dtype(op, dtype), out, shape);
  auto impl = std::make_shared<PreparedOp::Impl>();
  *impl = {op, dtype, a, b, out, plan_broadcast(out, a, b), {}, {}, "", "reference", {}};
  impl->fused = fuse_short_rows(impl->plan, dtype_size(dtype));
  impl->type = to_string(impl->plan.type);
  if (impl->plan.numel > 0) {
    impl->kernel = select_kernel(op, dtype, impl->plan);
    if (impl->kernel.jit)
      impl->key = call_kernel_key(Target::host, op, dtype, impl->plan).to_string();
  }
  impl->fast = make_fast_call(*impl);
  PreparedOp prepared;
  prepared.impl_ = std::move(impl);
  return prepared;
}

PreparedOp prepare(Op op, DType dtype, const Layout& a, const Layout& b) {
  return prepare(op, dtype, a, b, Layout::contiguous(validate_input_layouts(op, dtype, a, dtype, b)));
}

void PreparedOp::operator()(const TensorView& a, const TensorView& b, const TensorView& out) const {
  if (!impl_) detail::fail(ErrorKind::value, "PreparedOp: not prepared (default-constructed)");
  const Impl& p = *impl_;
  // Cheap and worth it: a view of another shape would make the kernel read
  // and write out of bounds.
  const auto check = [&](const TensorView& v, DType dtype, const Layout& layout, const char* operand) {
    if (v.dtype != dtype || v.layout != layout)
      detail::fail(ErrorKind::value, "{} (prepared): {} has dtype {} shape {} strides {}, prepared for {} {} {}",
                   op_name(p.op), operand, dtype_name(v.dtype), to_string(v.shape()), to_string(v.strides()),
                   dtype_name(dtype), to_string(layout.shape), to_string(layout.strides));
  };
  check(a, p.dtype, p.a, "a");
  check(b, p.dtype, p.b, "b");
  check(out, result_dtype(p.op, p.dtype), p.out, "out");
  const FastCall& f = p.fast;
  // stays_on_caller(), spelled out so that the thread count is read only for
  // calls over the grain (3 ns of a 16 ns call).
  if (f.call.usable() && (p.plan.numel < config::grain() || config::threads() <= 1) && !config::ascend_target() &&
      f.data.passes(a.data, b.data, out.data)) {
    f.call.run(p.kernel.fn, {out.data, a.data, b.data});
    return;
  }
  validate_data(p.op, a, b, out);
  // Under ascend-sim even an empty call goes to run_on_ascend, which records
  // in the trace why it did not reach the simulator.
  if (run_on_ascend(p.op, a, b, out, p.plan) || p.plan.numel == 0) return;
  if (p.fused) {
    run_on_host(p.op, a, b, out, p.plan, p.fused);  // NOTE: [Short rows]: two kernels, looked up per call
    return;
  }
  execute_plan(p.plan, p.kernel.fn, {out.data, a.data, b.data}, {out.element_size(), a.element_size(), b.element_size()},
               num_threads());
}

Tensor PreparedOp::operator()(const TensorView& a, const TensorView& b) const {
  Tensor out(out_dtype(), out_shape());
  (*this)(a, b, out);
  return out;
}

const Shape& PreparedOp::out_shape() const { return impl_->out.shape; }
DType PreparedOp::out_dtype() const { return result_dtype(impl_->op, impl_->dtype); }
const std::string& PreparedOp::broadcast_type() const { return impl_->type; }
const std::string& PreparedOp::kernel_key() const { return impl_->key; }

std::string kernel_key_for(Op op, DType dtype, const Layout& out, const Layout& a, const Layout& b) {
  const Shape shape = validate_input_layouts(op, dtype, a, dtype, b);
  validate_out_layout(op, dtype, a.shape, b.shape, result_dtype(op, dtype), out, shape);
  if (!jit_enabled()) return "reference";
  return call_kernel_key(current_target(), op, dtype, plan_broadcast(out, a, b)).to_string();
}

namespace {

// Types of rank r: a first code, then each next code one of the two others.
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

}  // namespace

// The plan of contiguous operands for `type` with the given extents: each
// operand's stride on a level is the product of the extents inside it that
// the operand spans (0 where it repeats).
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

std::vector<std::string> broadcast_types_of_rank(int rank) {
  std::vector<std::string> names;
  for (const BroadcastType& t : types_of_rank(rank)) names.push_back(to_string(t));
  return names;
}

std::size_t pregenerate(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank, int threads) {
  // Rank r has 3 * 2^(r-1) types: 12 is already 6,144 kernels per op and dtype.
  constexpr int kMaxPregenerateRank = 12;
  if (max_rank < 0 || max_rank > kMaxPregenerateRank)
    detail::fail(ErrorKind::value, "pregenerate: max_rank {} is outside 0..{}", max_rank, kMaxPregenerateRank);
  const Target target = current_target();
  const std::uint32_t codegen = current_codegen_id();
  // NOTE: [Streaming stores]: unless they are off, a large call selects the
  // streaming kernel of its type; rows of 4096 elements are long enough for any dtype.
  const bool streaming = target == Target::host && config::stream_min_bytes() != kNeverStream;
  std::vector<KernelKey> keys;
  auto add_keys = [&](Op op, DType dtype, const BroadcastPlan& plan) {
    const KernelKey key = make_kernel_key(target, op, dtype, plan, codegen);
    keys.push_back(key);
    if (!streaming) return;
    const KernelKey streamed = make_kernel_key(target, op, dtype, plan, codegen, /*stream_min_bytes=*/0);
    if (streamed.stream) keys.push_back(streamed);
  };
  for (Op op : ops)
    for (DType dtype : dtypes)
      if (op_supports(op, dtype))
        for (int rank = 0; rank <= max_rank; ++rank)
          for (const BroadcastType& type : types_of_rank(rank)) {
            std::vector<std::int64_t> extents(type.size(), 2);
            if (rank > 0) extents.back() = 4096;
            add_keys(op, dtype, contiguous_plan(type, extents));
            // NOTE: [Fixed rows]: rank 2 with rows of up to kFixedRowMax elements
            // gets kernels of its own, one per row length.
            if (rank == 2 && target == Target::host)
              for (std::int64_t m = 1; m <= kFixedRowMax; ++m) add_keys(op, dtype, contiguous_plan(type, {2, m}));
          }
  std::atomic<std::size_t> next{0}, ready{0};
  auto work = [&] {
    for (std::size_t i = next++; i < keys.size(); i = next++)
      if (jit::kernel_cache().get(keys[i])) ++ready;  // get() reports failures, never throws them
  };
  const int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  {
    std::vector<std::jthread> pool;
    for (int t = 1; t < workers; ++t) pool.emplace_back(work);
    work();
  }
  return ready.load();
}

}  // namespace bcast
