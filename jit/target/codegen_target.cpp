// The code generator targets: x86-64, and a generic one for other hosts.
#include "target/codegen_target.h"
#include "expr_kernel.h"
#include "function_table.h"

#include <llvm/IR/IntrinsicsX86.h>

#include <initializer_list>

#include "isa.h"

namespace bcast::jit {
namespace {

// Any architecture: a release fence orders the stores before it.
class GenericTarget : public CodegenTarget {
 public:
  void emit_store_fence(llvm::IRBuilder<>& b) const override { b.CreateFence(llvm::AtomicOrdering::Release); }
};

// Feature-name prefixes each ISA cap turns off (x86-64). Turning a base feature
// off also turns off, inside LLVM, every feature that implies it.
struct IsaCap {
  std::string_view isa;
  std::initializer_list<std::string_view> above;
};
const IsaCap kIsaCaps[] = {
    {kIsaLevels[0], {"avx", "fma", "f16c", "vaes", "vpclmulqdq", "amx", "evex512"}},
    {kIsaLevels[1], {"avx2", "avx512", "avxvnni", "avxifma", "avxneconvert", "fma", "amx", "evex512"}},
    {kIsaLevels[2], {"avx512", "amx", "evex512", "avx10"}},
};

class X86Target final : public CodegenTarget {
 public:
  // Non-temporal stores are weakly ordered: sfence makes them visible before
  // whoever waits for the kernel reads out.
  void emit_store_fence(llvm::IRBuilder<>& b) const override {
    b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {});
  }

  // NOTE: [Streaming stores], on x86-64: it has non-temporal stores of float, double
  // and integer vectors only. Where vectors of f16 are a legal type
  // (AVX512-FP16 hosts), instruction selection gives them a plain store, and
  // folds away any cast to integers first. A kernel that streams f16 is
  // therefore built without AVX512-FP16: it computes in f32 and stores the
  // halves as integers, as on every other x86-64 host (the same bits: f16
  // arithmetic through f32 is correctly rounded).
  CodegenSettings settings_for(const KernelKey& key, CodegenSettings settings) const override {
    if (key.stream && key.dtype == DType::f16)
      settings.features += settings.features.empty() ? "-avx512fp16" : ",-avx512fp16";
    // NOTE: [No SSE4a] AMD's SSE4a (extrq, insertq, movntss, movntsd) has
    // no VEX form: each is a legacy SSE instruction, and where it runs
    // while a ymm register's upper half is in use (any AVX kernel) it costs
    // what a state switch does. On the Zen 3 VM (2026-12-07) one insertq
    // took 112 ns after a ymm write, 1 ns without (2.6 with a vzeroupper
    // between): LLVM lowered a narrow u8 reduction's reversed 3-byte rows
    // with 8 insertq an item, and `mean(f32(img[:, :, ::-1]), axis=(0, 1))`
    // ran 33.6 ms where the same image forwards ran 0.6. Every shuffle has a
    // VEX lowering without them. Turned off for every AVX CPU: an AMD CPU's
    // name implies SSE4a even where its feature list does not say so.
    if (has_feature(settings.features, "avx")) settings.features += ",-sse4a";
    // NOTE: [Math vector width] LLVM tunes several AVX-512 CPUs (Intel's
    // from Skylake-X to Rocket Lake and later) to prefer 256-bit vectors,
    // for the clock speed that 512-bit instructions can cost. A kernel that
    // computes math functions is bound by its arithmetic, where twice the
    // lanes an instruction is worth more: on the 2-core Intel Xeon VM
    // (rocketlake tuning, 2026-12-04, one thread, 256 Ki elements in L2, two
    // alternated runs) 512-bit vectors took f32 exp 1.88/1.91 -> 2.65/2.51
    // elements per ns, log2 1.91/1.99 -> 2.43/2.39, tanh 1.77/1.87 ->
    // 2.14/2.11, f64 exp 0.82/0.85 -> 1.08/1.05, tan 0.17/0.18 -> 0.26/0.33.
    // The inexact functions without a C library name count too (three
    // alternated runs, 2026-12-04: f32 sigmoid 1.51-1.54 -> 1.75-1.79,
    // logaddexp 0.33-0.42 -> 0.42-0.55, f64 logaddexp2 0.12 -> 0.18).
    // Other kernels keep LLVM's choice: they are bound by memory.
    const ExprProgram& program = spec_of(key).program;
    const bool math = calls_math_function(program);
    if (settings.vector_width_bits == 0 && has_feature(settings.features, "avx512f") &&
        has_feature(settings.features, "evex512") && math)
      settings.vector_width_bits = 512;
    // NOTE: [Memory-bound vector width] On AMD's AVX-512 CPUs a kernel
    // that computes no math function runs on 256-bit registers: such a
    // kernel is bound by memory, and a 512-bit load or store that straddles
    // two cache lines costs it dearly there, where a 256-bit one that does
    // costs next to nothing. NumPy puts every array of a megabyte or more 16
    // bytes past a line, so each of a kernel's 512-bit accesses to one
    // straddles. On the Zen 5 VM (2026-12-07, one thread, f32 [4096, 4096],
    // NumPy's arrays, medians of 15, three processes of each in turn):
    // x + y 6.33-6.77 -> 4.89-5.25 ms, 2*x + y 5.15-5.23 -> 3.71-3.89,
    // sum(x, axis=0) 2.89-3.10 -> 2.34-2.43, sum(x, axis=1) 2.58-2.59 ->
    // 1.99-2.05, max(x, axis=1) 3.88-4.22 -> 2.61-2.67, sum(x*y) 5.43-5.57 ->
    // 4.54-4.63; arrays on a line did not slow (sum(x) 1.99-2.08 ->
    // 1.84-1.95, x + y 4.78-4.83 -> 4.68-4.80); a hand loop read f32 [4096,
    // 4096] 16 bytes past a line in 2.45 ms with 512-bit loads, 1.50 with
    // 256-bit ones, 1.45 on a line with either. The full tier's compile of
    // BM_ColdCompile's kernel went from 4.9 to 4.3-4.4 ms. Not kernels that
    // divide or take square roots, bound by the divider (the image case's
    // normalisation, (f32(img) - m) / sqrt(v) on short rows fused: 1.04 ->
    // 2.07 ms with 256 bits; a c64 abs, its parts widened to f64 for the
    // root: abs(z * w + 1j) on c64 [4096, 1024], one thread, three runs of
    // each in turn, 2026-12-07, 0.74-1.06 -> 1.16-1.79 elements per ns with
    // 512); nor those that shuffle a step's lanes into place: narrow column
    // reductions (NOTE: [Reduction order]; their blocks of 24 lanes), fixed
    // rows (NOTE: [Fixed rows]) and transposed tiles (NOTE: [Transposed
    // tiles], a register a side), whose shuffles were
    // chosen for the register they fill: with 256 bits, bcast-bench's cases
    // 14, 16, 19a-c and 20 (three runs of each in turn) read no better over
    // the STREAM add (19a 0.77-0.95 -> 0.76-0.79, 16 0.66-0.92 -> 0.56-0.67).
    // Intel's AVX-512 CPUs keep their tuning: not measured here.
    const bool shuffles_lanes = key.reduce == ReduceForm::narrow || key.fixed_row != 0 || key.transposed != 0;
    if (settings.vector_width_bits == 0 && has_feature(settings.features, "avx512f") && !math && !shuffles_lanes &&
        !divides(program) && settings.cpu.starts_with("znver"))
      settings.vector_width_bits = 256;
    // NOTE: [Tiers]: the quick first tier prefers 256-bit vectors on an
    // AVX-512 host: half the lanes per instruction, and code generation and
    // the vectoriser's planning take less time over 256-bit types.
    if (settings.quick && has_feature(settings.features, "avx512f") &&
        (settings.vector_width_bits == 0 || settings.vector_width_bits > 256))
      settings.vector_width_bits = 256;
    return settings;
  }

  std::string cap_features(const std::string& features, std::string_view max_isa) const override {
    const IsaCap* cap = nullptr;
    for (const IsaCap& c : kIsaCaps)
      if (c.isa == max_isa) cap = &c;
    if (cap == nullptr) return features;
    std::string out;
    for (std::size_t start = 0; start < features.size();) {
      std::size_t end = features.find(',', start);
      if (end == std::string::npos) end = features.size();
      const std::string_view name = std::string_view(features).substr(start + 1, end - start - 1);
      bool off = false;
      for (std::string_view prefix : cap->above) off = off || name.starts_with(prefix);
      out += (out.empty() ? "" : ",") + std::string(off ? "-" : "+") + std::string(name);
      start = end + 1;
    }
    return out;
  }

  // The x86-64 vector ABI's letters: b SSE2 (128 bits), c AVX (256, no FMA),
  // d AVX2 (256, FMA), e AVX-512 (512).
  std::vector<VectorAbiIsa> vector_abi_isas(std::string_view features) const override {
    auto has = [&](std::string_view name) { return has_feature(features, name); };
    std::vector<VectorAbiIsa> isas;
    if (has("avx512f") && has("evex512")) isas.push_back({'e', 512, true});
    if (has("avx2") && has("fma")) isas.push_back({'d', 256, true});
    if (has("avx")) isas.push_back({'c', 256, false});
    if (has("sse2")) isas.push_back({'b', 128, false});
    return isas;
  }
};

}  // namespace

const CodegenTarget& codegen_target(const llvm::Triple& triple) {
  static const X86Target x86;
  static const GenericTarget generic;
  if (triple.getArch() == llvm::Triple::x86_64) return x86;
  return generic;
}

}  // namespace bcast::jit
