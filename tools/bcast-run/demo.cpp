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

// "3 compiles", "1 compile", or `none`.
std::string count(std::uint64_t n, std::string_view one, std::string_view many, std::string_view none = "none") {
  if (n == 0) return std::string(none);
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// Whether a key is a quick first version's (NOTE: [Tiers]: its level ends
// in q, "...znver5.O2q.74404425").
bool quick_tier(const std::string& key) {
  const std::size_t level = key.rfind(".O");
  return level != std::string::npos && level + 3 < key.size() && key[level + 3] == 'q';
}

// What this run did to get its kernels, in words: how many it compiled (a
// quick first version of each counts with it) and loaded from the disk
// cache, the calls that found theirs in memory, the first calls that ran on
// the fallback meanwhile (NOTE: [Tiers]), and the failures, if any.
std::string kernel_summary() {
  const KernelCacheStats cache = kernel_cache_stats();
  std::uint64_t compiled = 0, quick = 0;
  for (const KernelStats& k : kernel_cache_entries()) (quick_tier(k.key) ? quick : compiled) += k.compiles;
  const auto number = [](std::uint64_t n) { return n == 0 ? std::string("none") : std::to_string(n); };
  std::string text = fmt::format("Kernels: {} compiled", number(compiled));
  if (quick > 0)
    text += quick == compiled ? " (after a quick first version of each)"
                              : fmt::format(" (and {})", count(quick, "quick first version", "quick first versions"));
  if (get_setting("BCAST_CACHE_DIR") == "off")
    text += ", the disk cache off";
  else
    text += fmt::format(", {} loaded from the disk cache{}", number(cache.disk_hits),
                        cache.disk_hits > 0 ? " (filled by earlier runs)" : "");
  text += fmt::format("; {:.1f} ms in all, {} bytes of code. ", cache.compile_ms, cache.code_bytes);
  text += count(cache.hits, "call found its kernel in memory", "calls found their kernel in memory",
               "No calls found their kernel in memory") + ". ";
  const char* how = cache.compiles == 0 ? "loaded" : cache.disk_hits == 0 ? "compiled" : "compiled or loaded";
  if (cache.fallback_calls == 1)
    text += fmt::format("1 first call ran on the fallback while its kernel {}", how);
  else if (cache.fallback_calls > 1)
    text += fmt::format("{} first calls ran on the fallback while their kernels {}", cache.fallback_calls, how);
  else
    text += "No call ran on the fallback";
  text += fmt::format(" ({} JIT mode).", jit_mode() == JitMode::async ? "async" : "sync");
  if (cache.failures > 0)
    text += fmt::format(" {} failed; their calls ran on the reference executor.", count(cache.failures, "compile", "compiles"));
  return text;
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
  const auto matching = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.ok; });
  std::cout << fmt::format("\n{} of {} cases match. {}\n", matching, rows.size(), kernel_summary());
  return all_ok ? 0 : 1;
}

}  // namespace bcast::tools
