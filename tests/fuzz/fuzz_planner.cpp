// Fuzz target: the broadcast planner. Bytes -> two input shapes and strided
// views (any strides, 0 and overlaps included) and a non-overlapping output
// view; the planned nest must visit every output element once, with the
// input offsets that naive NumPy indexing gives.
#include <cstdio>
#include <cstdlib>

#include "broadcast_plan.h"
#include "fuzz_input.h"
#include "plan_walk.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace bcast;
  fuzz::FuzzBytes in(data, size);
  const auto [sa, sb] = fuzz::decode_shape_pair(in);
  Shape out_shape;
  try {
    out_shape = broadcast_infer_shape(sa, sb);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::shape) std::abort();
    return 0;
  }
  if (Layout::contiguous(out_shape).numel() > 4096) return 0;
  const fuzz::FuzzView a = fuzz::decode_view(in, DType::f32, sa, false);
  const fuzz::FuzzView b = fuzz::decode_view(in, DType::f32, sb, false);
  const fuzz::FuzzView out = fuzz::decode_view(in, DType::f32, out_shape, true);
  const BroadcastPlan plan = plan_broadcast(out.view.layout(), a.view.layout(), b.view.layout());
  const std::string diff = test::compare_walks(plan, out.view.layout(), a.view.layout(), b.view.layout());
  if (!diff.empty()) {
    std::fprintf(stderr, "%s = %s op %s (strides %s, %s, %s), plan %s: %s\n", to_string(out_shape).c_str(),
                 to_string(sa).c_str(), to_string(sb).c_str(), to_string(out.view.strides()).c_str(),
                 to_string(a.view.strides()).c_str(), to_string(b.view.strides()).c_str(),
                 to_string(plan.type).c_str(), diff.c_str());
    std::abort();
  }
  return 0;
}
