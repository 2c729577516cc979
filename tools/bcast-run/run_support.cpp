// Helpers shared by bcast-run's modes.
#include "run_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <fstream>
#include <iostream>
#include <vector>

#include "ascend_c_writer.h"
#include "ascend_product.h"
#include "half.h"
#include "kernel_provider.h"
#include "key_codec.h"
#include "naive_executor.h"
#include "stats_json.h"

namespace bcast::tools {
namespace {

// Calls visit(byte offset) for every element of x in C order.
template <class Visit>
void for_each_offset(const TensorView& x, Visit visit) {
  std::vector<std::int64_t> index(x.rank(), 0);
  const auto size = static_cast<std::int64_t>(x.element_size());
  for (std::int64_t i = 0, n = x.numel(); i < n; ++i) {
    std::int64_t offset = 0;
    for (int d = 0; d < x.rank(); ++d) offset += index[d] * x.strides()[d];
    visit(i, offset * size);
    for (int d = x.rank() - 1; d >= 0 && ++index[d] == x.shape()[d]; --d) index[d] = 0;
  }
}

template <class T>
void store(char* p, T v) { std::memcpy(p, &v, sizeof v); }

}  // namespace

namespace {

// splitmix64: 64 fresh bits a step in a few instructions, seeded once a call
// from the run's generator (mt19937_64, one draw an element, took a third of
// a large literal's run).
class FastBits {
 public:
  explicit FastBits(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Every element of x from `value(bits)`: a dense block in one loop, any other
// view element by element.
template <class T, class F>
void fill_with(const TensorView& x, FastBits& bits, F value) {
  if (x.layout().is_contiguous()) {
    T* p = static_cast<T*>(x.data());
    for (std::int64_t i = 0, n = x.numel(); i < n; ++i) p[i] = value(bits.next());
    return;
  }
  auto* base = static_cast<char*>(x.data());
  for_each_offset(x, [&](std::int64_t, std::int64_t offset) { store(base + offset, value(bits.next())); });
}

}  // namespace

void fill_random(const TensorView& x, std::mt19937_64& rng) {
  FastBits bits(rng());
  // Floats (and each part of a complex number) uniform in [-10, 10); signed
  // integers in [-100, 100], unsigned in [0, 255], bools 0 or 1.
  const auto real = [](std::uint64_t b) { return static_cast<double>(b >> 11) * 0x1p-53 * 20.0 - 10.0; };
  const auto small = [](std::uint64_t b) { return static_cast<int>(b % 201) - 100; };
  switch (x.dtype()) {
    case DType::f16: return fill_with<std::uint16_t>(x, bits, [&](auto b) { return f32_to_f16(static_cast<float>(real(b))); });
    case DType::bf16: return fill_with<std::uint16_t>(x, bits, [&](auto b) { return f32_to_bf16(static_cast<float>(real(b))); });
    case DType::f32: return fill_with<float>(x, bits, [&](auto b) { return static_cast<float>(real(b)); });
    case DType::f64: return fill_with<double>(x, bits, real);
    case DType::i8: return fill_with<std::int8_t>(x, bits, [&](auto b) { return static_cast<std::int8_t>(small(b)); });
    case DType::i16: return fill_with<std::int16_t>(x, bits, [&](auto b) { return static_cast<std::int16_t>(small(b)); });
    case DType::i32: return fill_with<std::int32_t>(x, bits, [&](auto b) { return static_cast<std::int32_t>(small(b)); });
    case DType::i64: return fill_with<std::int64_t>(x, bits, [&](auto b) { return static_cast<std::int64_t>(small(b)); });
    case DType::u8: return fill_with<std::uint8_t>(x, bits, [](auto b) { return static_cast<std::uint8_t>(b & 255u); });
    case DType::u16: return fill_with<std::uint16_t>(x, bits, [](auto b) { return static_cast<std::uint16_t>(b & 255u); });
    case DType::u32: return fill_with<std::uint32_t>(x, bits, [](auto b) { return static_cast<std::uint32_t>(b & 255u); });
    case DType::u64: return fill_with<std::uint64_t>(x, bits, [](auto b) { return static_cast<std::uint64_t>(b & 255u); });
    case DType::boolean: return fill_with<std::uint8_t>(x, bits, [](auto b) { return static_cast<std::uint8_t>(b & 1u); });
    case DType::c64:
      return fill_with<std::complex<float>>(x, bits, [&](auto b) {
        return std::complex<float>(static_cast<float>(real(b)), static_cast<float>(real(bits.next())));
      });
    case DType::c128:
      return fill_with<std::complex<double>>(x, bits, [&](auto b) { return std::complex<double>(real(b), real(bits.next())); });
  }
}

std::int64_t unique_bytes(const TensorView& x) {
  std::int64_t n = 1;
  for (int d = 0; d < x.rank(); ++d)
    if (x.strides()[d] != 0) n *= x.shape()[d];
  if (x.numel() == 0) n = 0;
  return n * static_cast<std::int64_t>(x.element_size());
}

std::string json_text(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

nlohmann::json spread_json(const Spread& s) {
  return {{"median_ns", s.median}, {"min_ns", s.min}, {"q1_ns", s.q1}, {"q3_ns", s.q3}, {"max_ns", s.max},
          {"runs", s.runs}};
}

std::optional<std::int64_t> first_difference(const TensorView& x, const TensorView& y) {
  std::vector<std::int64_t> y_offsets;
  y_offsets.reserve(static_cast<std::size_t>(y.numel()));
  for_each_offset(y, [&](std::int64_t, std::int64_t offset) { y_offsets.push_back(offset); });
  std::optional<std::int64_t> first;
  const auto* xb = static_cast<const char*>(x.data());
  const auto* yb = static_cast<const char*>(y.data());
  for_each_offset(x, [&](std::int64_t i, std::int64_t offset) {
    if (!first && std::memcmp(xb + offset, yb + y_offsets[i], x.element_size()) != 0) first = i;
  });
  return first;
}

Tensor expected_result(Op op, const TensorView& a, const TensorView& b) {
  Tensor out(result_dtype(op, a.dtype()), broadcast_infer_shape(a.shape(), b.shape()));
  run_naive(op, a, b, out);
  return out;
}

// --trace: the Ascend-style simulator's tiling of the last call and, per
// block, its traffic and the pipe schedule's estimate.
void print_trace() {
  const AscendTrace t = last_ascend_trace();
  if (t.kernel.empty()) {  // the host target, or ascend-sim saying why not (an empty output, the JIT off)
    std::cout << "trace: the call did not run on the ascend-sim target" << (t.fallback.empty() ? "" : ": ")
              << t.fallback << "\n";
    return;
  }
  std::string fetch;
  for (std::size_t k = 0; k < t.fetch.size(); ++k) fetch += fmt::format("{}x{} {}", k ? ", " : "", k, t.fetch[k]);
  std::cout << fmt::format("trace: kernel {} on {}\n  tile {} x {} elements (UB pitch {}), {} tiles, {} slot(s), {} "
                           "bytes of UB; inputs: {}\n  estimated {:.1f} us (the slowest block, at {} GHz)\n",
                           t.kernel, t.product, t.rows, t.cols, t.pitch, t.tiles, t.slots, t.ub_bytes, fetch,
                           t.estimated_us(), t.clock_ghz);
  if (!t.fallback.empty()) std::cout << "  fell back to the host: " << t.fallback << "\n";
  std::cout << fmt::format("  {:>5} {:>6} {:>11} {:>11} {:>6} {:>7} {:>7} {:>8} {:>9}  {:>5} {:>5} {:>5} {:>5}  {}\n",
                           "block", "tiles", "GM->UB B", "UB->GM B", "copies", "vector", "repeats", "UB peak",
                           "cycles", "MTE2%", "V%", "MTE3%", "S%", "critical");
  for (std::size_t i = 0; i < t.blocks.size(); ++i) {
    const AscendBlockTrace& c = t.blocks[i];
    auto share = [&c](int p) { return c.cycles > 0 ? 100.0 * static_cast<double>(c.busy[p]) / static_cast<double>(c.cycles) : 0.0; };
    std::cout << fmt::format("  {:>5} {:>6} {:>11} {:>11} {:>6} {:>7} {:>7} {:>8} {:>9}  {:>5.0f} {:>5.0f} {:>5.0f} {:>5.0f}  {}\n",
                             i, c.tiles, c.gm_to_ub_bytes, c.ub_to_gm_bytes, c.copy_calls, c.vector_calls,
                             c.vector_repeats, c.ub_high_water, c.cycles, share(0), share(1), share(2), share(3),
                             c.critical);
    for (const std::string& h : c.hazards) std::cout << "        hazard: " << h << "\n";
  }
}

nlohmann::json trace_json() {
  const AscendTrace t = last_ascend_trace();
  nlohmann::json blocks = nlohmann::json::array();
  for (const AscendBlockTrace& c : t.blocks)
    blocks.push_back({{"tiles", c.tiles},
                      {"gm_to_ub_bytes", c.gm_to_ub_bytes},
                      {"ub_to_gm_bytes", c.ub_to_gm_bytes},
                      {"copy_calls", c.copy_calls},
                      {"vector_calls", c.vector_calls},
                      {"vector_repeats", c.vector_repeats},
                      {"ub_high_water", c.ub_high_water},
                      {"cycles", c.cycles},
                      {"busy", {{"MTE2", c.busy[0]}, {"V", c.busy[1]}, {"MTE3", c.busy[2]}, {"S", c.busy[3]}}},
                      {"critical", c.critical},
                      {"hazards", c.hazards}});
  return {{"kernel", t.kernel},     {"fallback", t.fallback}, {"product", t.product},
          {"clock_ghz", t.clock_ghz}, {"rows", t.rows},       {"cols", t.cols},
          {"pitch", t.pitch},       {"tiles", t.tiles},       {"slots", t.slots},
          {"ub_bytes", t.ub_bytes}, {"fetch", t.fetch},       {"shared_granules", t.shared_granules},
          {"estimated_us", t.estimated_us()}, {"blocks", blocks}};
}

bool write_ascend_c_source(const std::string& file, std::string_view form) {
  // Source only for a kernel that ran on the simulator: a call that fell
  // back, at whatever step, says why and writes nothing.
  const AscendTrace t = last_ascend_trace();
  if (t.kernel.empty() || !t.fallback.empty()) {
    std::cerr << "bcast-run: --emit-ascend-c: the call did not run on ascend-sim"
              << (t.fallback.empty() ? std::string(" (use --target ascend-sim)") : ": " + t.fallback) << "\n";
    return false;
  }
  const std::optional<KernelKey> key = parse_kernel_key(t.kernel, provider::current_codegen_id());
  const std::optional<ascend::AscendCForm> entry = ascend::ascend_c_form_named(form);
  std::string why = !entry ? fmt::format("no entry form named '{}'", form)
                           : fmt::format(
                                 "{} is not a JIT kernel's key (the simulator runs its reductions with a kernel "
                                 "of its own: docs/ascend.md, \"Reductions\"); only JIT kernels are written",
                                 t.kernel);
  const std::optional<std::string> source =
      key && entry ? ascend::write_ascend_c(*key, ascend::products()[key->model - 1u], why, *entry) : std::nullopt;
  if (!source) {  // nothing written, not even an empty file
    std::cerr << "bcast-run: --emit-ascend-c " << file << ": " << why << "\n";
    return false;
  }
  std::ofstream out(file);
  if (!(out << *source)) {
    std::cerr << "bcast-run: --emit-ascend-c " << file << ": cannot write the file\n";
    return false;
  }
  return true;
}

nlohmann::json cache_json() {
  nlohmann::json j = cache_totals_json(kernel_cache_stats());
  // NOTE: [Compile phases] of each key this process compiled or loaded.
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelStats& k : kernel_cache_entries())
    if (k.compiles + k.disk_hits > 0)
      kernels.push_back({{"key", k.key}, {"compile_ms", k.compile_ms}, {"phases", phases_json(k.phases)}});
  j["kernels"] = std::move(kernels);
  return j;
}

}  // namespace bcast::tools
