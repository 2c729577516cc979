// oneDNN's binary primitive as a peer: created beforehand, execute timed.
#include <omp.h>

#include <dnnl.hpp>

#include "peers.h"
#include "../timing.h"

namespace bcast::bench {
namespace {

std::optional<dnnl::memory::data_type> dnnl_type(DType d) {
  switch (d) {
    case DType::f32: return dnnl::memory::data_type::f32;
    case DType::f16: return dnnl::memory::data_type::f16;
    case DType::bf16: return dnnl::memory::data_type::bf16;
    case DType::i8: return dnnl::memory::data_type::s8;
    case DType::u8: return dnnl::memory::data_type::u8;
    case DType::i32: return dnnl::memory::data_type::s32;
    default: return std::nullopt;
  }
}

std::optional<dnnl::algorithm> dnnl_algorithm(Op op) {
  switch (op) {
    case Op::add: return dnnl::algorithm::binary_add;
    case Op::sub: return dnnl::algorithm::binary_sub;
    case Op::mul: return dnnl::algorithm::binary_mul;
    case Op::div: return dnnl::algorithm::binary_div;
    case Op::max: return dnnl::algorithm::binary_max;
    case Op::min: return dnnl::algorithm::binary_min;
    default: return std::nullopt;
  }
}

// A view as a oneDNN memory descriptor of rank `rank` (leading 1s), with its strides.
dnnl::memory::desc describe(const TensorView& x, int rank, dnnl::memory::data_type type) {
  dnnl::memory::dims dims(rank, 1), strides(rank, 0);
  const int lead = rank - x.rank();
  for (int d = 0; d < x.rank(); ++d) {
    dims[lead + d] = x.shape()[d];
    strides[lead + d] = x.strides()[d];
  }
  std::int64_t next = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (d < lead) strides[d] = next;
    next = std::max<std::int64_t>(next, strides[d] * dims[d]);
  }
  return {dims, type, strides};
}

}  // namespace

bool have_onednn() { return true; }

PeerResult time_onednn(Op op, const TensorView& a, const TensorView& b, const TensorView& out, int repeats,
                       int threads) {
  const auto type = dnnl_type(a.dtype());
  const auto algorithm = dnnl_algorithm(op);
  if (!type || !algorithm) return {std::nullopt, "no oneDNN equivalent"};
  try {
    // Debian's oneDNN runs on OpenMP: as many threads as the bcast column it stands beside.
    omp_set_num_threads(threads);
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const int rank = std::max(out.rank(), 1);
    const auto da = describe(a, rank, *type), db = describe(b, rank, *type), dout = describe(out, rank, *type);
    const dnnl::binary::primitive_desc pd(dnnl::binary::desc(*algorithm, da, db, dout), engine);  // oneDNN 2.x
    const std::string impl = pd.impl_info_str();
    dnnl::binary prim(pd);
    dnnl::memory ma(da, engine, a.data()), mb(db, engine, b.data()), mo(dout, engine, out.data());
    const std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC_0, ma}, {DNNL_ARG_SRC_1, mb}, {DNNL_ARG_DST, mo}};
    const double ns = median_ns([&] {
      prim.execute(stream, args);
      stream.wait();
    }, repeats);
    return {ns, impl};
  } catch (const dnnl::error& e) {
    return {std::nullopt, std::string("oneDNN: ") + e.what()};
  }
}

}  // namespace bcast::bench
