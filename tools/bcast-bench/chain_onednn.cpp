// oneDNN as the chains' peer: one binary primitive with the rest of the
// chain as post-ops, where oneDNN can express it (chains.h).
#include <omp.h>

#include <dnnl.hpp>

#include "chains.h"
#include "../timing.h"

namespace bcast::bench {
namespace {

using dt = dnnl::memory::data_type;

dnnl::memory::desc plain(dnnl::memory::dims dims, dt type) {
  return {dims, type, dnnl::memory::format_tag::ab};
}

}  // namespace

PeerResult time_onednn_chain(int chain, std::span<const TensorView> in, const TensorView& out, int repeats) {
  try {
    omp_set_num_threads(1);
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    const dnnl::memory::dim cols = out.shape().back(), rows = out.numel() / cols;
    const dnnl::memory::dims full{rows, cols}, row{1, cols}, column{rows, 1};
    // The primitive's two sources, then each binary post-op's operand.
    struct Operand {
      const TensorView* view;
      dnnl::memory::dims dims;
      dt type;
    };
    dnnl::algorithm first;
    std::vector<Operand> sources;
    dnnl::post_ops post;
    std::vector<Operand> post_sources;
    switch (chain) {
      case 1:
        first = dnnl::algorithm::binary_sub;
        sources = {{&in[0], full, dt::u8}, {&in[1], row, dt::f32}};
        post.append_binary(dnnl::algorithm::binary_div, plain(row, dt::f32));
        post_sources = {{&in[2], row, dt::f32}};
        break;
      case 2:
        first = dnnl::algorithm::binary_sub;
        sources = {{&in[0], full, dt::f32}, {&in[1], column, dt::f32}};
        post.append_binary(dnnl::algorithm::binary_mul, plain(column, dt::f32));
        post.append_binary(dnnl::algorithm::binary_mul, plain(row, dt::f32));
        post.append_binary(dnnl::algorithm::binary_add, plain(row, dt::f32));
        post_sources = {{&in[2], column, dt::f32}, {&in[3], row, dt::f32}, {&in[4], row, dt::f32}};
        break;
      case 3:
        first = dnnl::algorithm::binary_add;
        sources = {{&in[0], full, dt::f32}, {&in[1], row, dt::f32}};
        post.append_binary(dnnl::algorithm::binary_add, plain(full, dt::f32));
        post.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        post_sources = {{&in[2], full, dt::f32}};
        break;
      case 4:
        first = dnnl::algorithm::binary_mul;
        sources = {{&in[0], column, dt::f32}, {&in[1], row, dt::f32}};
        post.append_binary(dnnl::algorithm::binary_add, plain(full, dt::f32));
        post_sources = {{&in[2], full, dt::f32}};
        break;
      default: return {std::nullopt, "no such chain"};
    }
    dnnl::primitive_attr attr;
    attr.set_post_ops(post);
    const auto d0 = plain(sources[0].dims, sources[0].type), d1 = plain(sources[1].dims, sources[1].type);
    const auto dout = plain(full, dt::f32);
    const dnnl::binary::primitive_desc pd(dnnl::binary::desc(first, d0, d1, dout), attr, engine);  // oneDNN 2.x
    dnnl::binary prim(pd);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_0, dnnl::memory(d0, engine, sources[0].view->data())},
        {DNNL_ARG_SRC_1, dnnl::memory(d1, engine, sources[1].view->data())},
        {DNNL_ARG_DST, dnnl::memory(dout, engine, out.data())}};
    for (std::size_t i = 0, binary = 0; i < static_cast<std::size_t>(post.len()); ++i) {
      if (post.kind(static_cast<int>(i)) != dnnl::primitive::kind::binary) continue;
      const Operand& p = post_sources[binary++];
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1,
                   dnnl::memory(plain(p.dims, p.type), engine, p.view->data()));
    }
    const double ns = median_ns([&] {
      prim.execute(stream, args);
      stream.wait();
    }, repeats);
    return {ns, std::string(pd.impl_info_str()) + " with post-ops"};
  } catch (const dnnl::error& e) {
    return {std::nullopt, std::string("oneDNN cannot: ") + e.what()};
  }
}

}  // namespace bcast::bench
