// bcast-run's built-in demo.
#include "demo.h"

#include <fmt/format.h>

#include <functional>
#include <iostream>
#include <random>
#include <vector>

#include "bcast/bcast.h"
#include "run_support.h"

namespace bcast::tools {
namespace {

// One op call of the demo. `make_a` may turn the freshly filled a into a view
// of it (a transpose, a reversed slice) to show views going straight through.
struct DemoCase {
  std::string name;
  Op op;
  DType dtype;
  Shape a, b;
  std::function<TensorView(const TensorView&)> make_a = [](const TensorView& x) { return x; };
};

struct Row {
  std::string name, shapes, type;
  double ns;
  std::int64_t bytes;
  bool ok;
};

const std::vector<DemoCase>& demo_cases() {
  static const std::vector<DemoCase> cases{
      {"same shape", Op::add, DType::f32, {1 << 22}, {1 << 22}},
      {"row", Op::add, DType::f32, {1024, 1024}, {1024}},
      {"column", Op::sub, DType::f32, {1024, 1024}, {1024, 1}},
      {"scalar", Op::mul, DType::f32, {1 << 20}, {}},
      {"outer product", Op::mul, DType::f32, {2048, 1}, {1, 2048}},
      {"NCHW channel bias", Op::add, DType::f32, {8, 64, 56, 56}, {1, 64, 1, 1}},
      {"5-D mixed", Op::max, DType::f32, {8, 1, 32, 1, 64}, {1, 16, 1, 64, 1}},
      {"transposed a", Op::add, DType::f32, {1024, 1024}, {1024, 1024},
       [](const TensorView& x) { return transpose(x); }},
      {"reversed rows", Op::add, DType::f64, {512, 1024}, {1024},
       [](const TensorView& x) { return index(x, parse_index_expression("[::-1, :]")); }},
      {"compare row", Op::gt, DType::f32, {1024, 1024}, {1024}},
      {"f16 row", Op::add, DType::f16, {1024, 1024}, {1024}},
      {"i32 floor div column", Op::floor_div, DType::i32, {1024, 1024}, {1024, 1}},
  };
  return cases;
}

// Times one call into a preallocated out and checks it against the naive executor.
Row run_call(const std::string& name, Op op, const TensorView& a, const TensorView& b, int repeats) {
  Tensor out = binary(op, a, b);
  wait_for_compiles();  // NOTE: [Tiers]: time the kernel, not the fallback that ran while it compiled
  const double ns = median_ns([&] { binary(op, a, b, out); }, repeats);
  const Tensor expected = expected_result(op, a, b);
  return {name,
          fmt::format("{} {} {} {}", to_string(a.shape()), op_name(op), to_string(b.shape()), dtype_name(a.dtype())),
          broadcast_type_of(out.layout(), a.layout(), b.layout()),
          ns,
          unique_bytes(a) + unique_bytes(b) + unique_bytes(out),
          !first_difference(out, expected).has_value()};
}

// An HWC image normalised per channel, (img - mean) / std: two calls.
std::vector<Row> image_normalise(std::mt19937_64& rng, int repeats) {
  Tensor img(DType::f32, {1080, 1920, 3}), mean(DType::f32, {3}), stddev(DType::f32, {3});
  fill_random(img, rng);
  float* m = mean.data_as<float>();
  float* s = stddev.data_as<float>();
  m[0] = 0.485f, m[1] = 0.456f, m[2] = 0.406f;
  s[0] = 0.229f, s[1] = 0.224f, s[2] = 0.225f;
  Row centre = run_call("HWC image - mean", Op::sub, img, mean, repeats);
  const Tensor centred = sub(img, mean);
  Row scale = run_call("HWC image / std", Op::div, centred, stddev, repeats);
  return {centre, scale};
}

}  // namespace

int run_demo(int repeats) {
  const RuntimeInfo info = runtime_info();
  std::cout << fmt::format("bcast {} demo: {}, {} thread(s), host {} (LLVM {})\n", info.version,
                           jit_enabled() ? "JIT-compiled kernels" : "reference executor (JIT off)", num_threads(),
                           info.host_cpu, info.llvm_version);
  std::cout << "every result is checked bit for bit against the naive executor (no planner, no loop nest)\n\n";

  std::mt19937_64 rng(2026);
  std::vector<Row> rows;
  for (const DemoCase& c : demo_cases()) {
    Tensor a(c.dtype, c.a), b(c.dtype, c.b);
    fill_random(a, rng);
    fill_random(b, rng);
    rows.push_back(run_call(c.name, c.op, c.make_a(a), b, repeats));
  }
  for (Row& r : image_normalise(rng, repeats)) rows.push_back(std::move(r));

  std::cout << fmt::format("{:<22} {:<44} {:<48} {:>10} {:>7}  {}\n", "case", "shapes", "broadcast type", "time",
                           "GB/s", "check");
  bool all_ok = true;
  for (const Row& r : rows) {
    all_ok = all_ok && r.ok;
    std::cout << fmt::format("{:<22} {:<44} {:<48} {:>7.3f} ms {:>7.2f}  {}\n", r.name, r.shapes, r.type, r.ns / 1e6,
                             static_cast<double>(r.bytes) / r.ns, r.ok ? "ok" : "MISMATCH");
  }
  const KernelCacheStats cache = kernel_cache_stats();
  std::cout << fmt::format("\n{} of {} cases match; kernels: {} compiled, {} from the disk cache ({:.1f} ms in all, {} "
                           "bytes of code), {} memory hits, {} compile failures, {} first calls ran on the fallback while their kernel "
                           "compiled ({} JIT mode)\n",
                           std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.ok; }), rows.size(),
                           cache.compiles, cache.disk_hits, cache.compile_ms, cache.code_bytes, cache.hits,
                           cache.failures, cache.fallback_calls, jit_mode() == JitMode::async ? "async" : "sync");
  return all_ok ? 0 : 1;
}

}  // namespace bcast::tools
