// oneDNN's binary primitive as a peer: created beforehand, execute timed.
#include <omp.h>

#include <dnnl.hpp>

#include "../timing.h"
#include "peers.h"
#include "reductions.h"

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

// ---- reductions (bcast-bench --reductions) ----

namespace bcast::bench {

PeerResult time_onednn_reduction(Reduction r, std::span<const TensorView> in, const TensorView& out, int repeats,
                                 int threads) {
  if (r == Reduction::dot || r == Reduction::squared_distance || r == Reduction::image)
    return {std::nullopt, "no single primitive (an elementwise step before the reduction)"};
  try {
    omp_set_num_threads(threads);
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::dims dims{in[0].shape()[0], in[0].shape()[1]};
    const dnnl::memory::desc src(dims, f32, dnnl::memory::format_tag::ab);
    dnnl::memory ms(src, engine, in[0].data());
    const auto timed = [&](dnnl::primitive prim, const std::unordered_map<int, dnnl::memory>& args,
                           const std::string& impl) {
      return PeerResult{median_ns(
                            [&] {
                              prim.execute(stream, args);
                              stream.wait();
                            },
                            repeats),
                        impl};
    };
    if (r == Reduction::softmax) {
      const dnnl::softmax_forward::primitive_desc pd(
          dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, src, 1), engine);
      dnnl::memory mo(src, engine, out.data());
      return timed(dnnl::softmax_forward(pd), {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mo}}, pd.impl_info_str());
    }
    if (r == Reduction::layer_norm) {
      const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
      const dnnl::layer_normalization_forward::primitive_desc pd(
          dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, src, 1e-5f, flags), engine);
      const dnnl::memory::desc row({dims[1]}, f32, dnnl::memory::format_tag::a);
      dnnl::memory mo(src, engine, out.data()), mg(row, engine, in[1].data()), mb(row, engine, in[2].data());
      return timed(dnnl::layer_normalization_forward(pd),
                   {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mo}, {DNNL_ARG_SCALE, mg}, {DNNL_ARG_SHIFT, mb}},
                   pd.impl_info_str());
    }
    const dnnl::memory::dims kept = r == Reduction::sum_all       ? dnnl::memory::dims{1, 1}
                                    : r == Reduction::sum_columns ? dnnl::memory::dims{1, dims[1]}
                                                                  : dnnl::memory::dims{dims[0], 1};
    const dnnl::memory::desc dst(kept, f32, dnnl::memory::format_tag::ab);
    const dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(dnnl::algorithm::reduction_sum, src, dst, 0.f, 0.f),
                                             engine);
    dnnl::memory mo(dst, engine, out.data());
    return timed(dnnl::reduction(pd), {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mo}}, pd.impl_info_str());
  } catch (const dnnl::error& e) {
    return {std::nullopt, std::string("oneDNN: ") + e.what()};
  }
}

}  // namespace bcast::bench
