// bcast-jit-bench: what the JIT costs and what it buys (Google Benchmark).
//   cold compile time per kernel; a cached call on tiny tensors, plain API and
//   prepared; the JIT against the reference executor on large cases (1 thread).
#include <benchmark/benchmark.h>

#include <array>

#include <atomic>
#include <filesystem>
#include <unistd.h>
#include <random>

#include "bcast/bcast.h"
#include "codegen_settings.h"
#include "compile/host_compiler.h"
#include "compile/isolated_compile.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "targets.h"

namespace bcast {
namespace {

// Each iteration compiles one key again, from IR emission to executable code,
// bypassing the caches: a warm process's cold compile.
// The counters are NOTE: [Compile phases], in microseconds per kernel.
// BM_ColdCompile's loop for the settings `s`, each phase's time per kernel.
void BM_ColdCompileWith(benchmark::State& state, const CodegenSettings& s) {
  const BroadcastType type{DimCode::expand_b, DimCode::same, DimCode::expand_a};
  CompilePhases sum;
  const KernelKey key = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32, type, intern_codegen_settings(s));
  for (auto _ : state) {
    const jit::CompileResult r = jit::compile_host_kernel(key);
    if (!r.kernel) {
      state.SkipWithError(r.error.c_str());
      break;
    }
    const CompilePhases& p = r.kernel->phases;
    sum.setup_us += p.setup_us, sum.target_machine_us += p.target_machine_us, sum.emit_ir_us += p.emit_ir_us;
    sum.verify_us += p.verify_us, sum.optimise_us += p.optimise_us, sum.codegen_us += p.codegen_us;
    sum.link_us += p.link_us;
    benchmark::DoNotOptimize(r.kernel);
  }
  const auto per_kernel = [&](double us) { return benchmark::Counter(us, benchmark::Counter::kAvgIterations); };
  state.counters["setup_us"] = per_kernel(sum.setup_us);
  state.counters["tm_us"] = per_kernel(sum.target_machine_us);
  state.counters["ir_us"] = per_kernel(sum.emit_ir_us);
  state.counters["verify_us"] = per_kernel(sum.verify_us);
  state.counters["opt_us"] = per_kernel(sum.optimise_us);
  state.counters["codegen_us"] = per_kernel(sum.codegen_us);
  state.counters["link_us"] = per_kernel(sum.link_us);
}

void BM_ColdCompile(benchmark::State& state) {
  CodegenSettings s = jit::host_codegen_settings(2);
  s.quick = state.range(0) != 0;
  BM_ColdCompileWith(state, s);
}
// Arg 0: the full compile; 1: the quick first tier (NOTE: [Tiers]).
BENCHMARK(BM_ColdCompile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(40)->Repetitions(3)->ReportAggregatesOnly();

// BM_ColdCompile's kernel generated for a named CPU with that CPU's own
// features (LLVM generates for any CPU on any host; the code is linked, not
// run): arg 0 the CPU (kNamedCpus), arg 1 the tier. Issue 33's AVX-512 hosts
// beside an AVX2 one.
constexpr std::array<const char*, 3> kNamedCpus{"znver5", "sapphirerapids", "alderlake"};
void BM_ColdCompileFor(benchmark::State& state) {
  // The CPU's own features, spelled out as a host with that CPU reports
  // them: the rules that read features (NOTE: [Tiers], NOTE: [Math vector
  // width]) see what they would see there.
  CodegenSettings s = jit::named_cpu_codegen_settings(2, kNamedCpus[static_cast<std::size_t>(state.range(0))]);
  s.quick = state.range(1) != 0;
  state.SetLabel(s.cpu);
  BM_ColdCompileWith(state, s);
}
BENCHMARK(BM_ColdCompileFor)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(40)
    ->Repetitions(3)
    ->ReportAggregatesOnly();

// NOTE: [Isolated compiles]: BM_ColdCompile/0 in a child process (fork, the
// object through a pipe), then loaded here.
void BM_IsolatedCompile(benchmark::State& state) {
  const KernelKey key = make_kernel_key(target_for(TargetKind::host), Op::add, DType::f32,
                                        BroadcastType{DimCode::expand_b, DimCode::same, DimCode::expand_a},
                                        intern_codegen_settings(jit::host_codegen_settings(2)));
  jit::compile_host_kernel(key);  // this process's JIT set up, as for BM_ColdCompile
  for (auto _ : state) {
    const jit::CompiledObject object = jit::compile_object_isolated(key, "");
    if (!object.error.empty()) {
      state.SkipWithError(object.error.c_str());
      break;
    }
    benchmark::DoNotOptimize(jit::load_object(object).kernel);
  }
}
BENCHMARK(BM_IsolatedCompile)->Unit(benchmark::kMillisecond)->Iterations(40)->Repetitions(3)->ReportAggregatesOnly();

// The first call of a key found in no cache, in a warm process, on
// [64,1,7] + [1,33,7] f32 (14,784 elements): arg 1, async (the call runs on
// the fallback at once); arg 0, sync (the call compiles first).
void BM_FirstCallNewKey(benchmark::State& state) {
  set_cache_dir("off");
  set_num_threads(1);
  const Tensor a(DType::f32, {64, 1, 7}), b(DType::f32, {1, 33, 7});
  Tensor out = add(a, b);  // LLVM and the JIT set up: a warm process
  wait_for_compiles();
  set_jit_mode(state.range(0) != 0 ? JitMode::async : JitMode::sync);
  for (auto _ : state) {
    state.PauseTiming();
    clear_kernel_cache();  // the same key is new again
    state.ResumeTiming();
    add(a, b, out);
    state.PauseTiming();
    wait_for_compiles();
    state.ResumeTiming();
  }
  set_jit_mode(JitMode::sync);
}
BENCHMARK(BM_FirstCallNewKey)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->Iterations(30)->Repetitions(3)
    ->ReportAggregatesOnly();

// Each iteration loads one kernel from a warm disk cache into an empty memory
// cache (read, check, link, record the use) and runs a tiny call: compare
// with BM_ColdCompile. Unloading the last iteration's kernel is not timed.
void BM_DiskLoad(benchmark::State& state) {
  const std::string folder = "/tmp/bcast-bench-disk-" + std::to_string(::getpid());
  set_cache_dir(folder);
  const Tensor a(DType::f32, {2, 3}), b(DType::f32, {3});
  Tensor out = add(a, b);  // compiled once, written to disk
  for (auto _ : state) {
    state.PauseTiming();
    clear_kernel_cache();
    // The last iteration's kernel, still held by the call's memo, unloaded
    // here: a fallback call drops it, so the timed call only loads.
    set_jit_enabled(false);
    add(a, b, out);
    set_jit_enabled(true);
    state.ResumeTiming();
    add(a, b, out);
  }
  if (kernel_cache_stats().compiles != 0 || kernel_cache_stats().disk_hits != 1)
    state.SkipWithError("the kernel did not come from the disk cache");
  // NOTE: [Compile phases] of the last load, in microseconds.
  for (const KernelStats& k : kernel_cache_entries())
    if (k.disk_hits == 1) {
      state.counters["read_us"] = k.phases.read_us;
      state.counters["link_us"] = k.phases.link_us;
    }
  set_cache_dir("off");
  std::filesystem::remove_all(folder);
}
BENCHMARK(BM_DiskLoad)->Unit(benchmark::kMicrosecond)->Repetitions(3)->ReportAggregatesOnly();

void fill(const Tensor& t) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data_as<float>()[i] = d(rng);
}

// A call whose kernel is already cached: end-to-end cost on tiny tensors.
void cached_call(benchmark::State& state, Shape sa, Shape sb, bool prepared) {
  set_num_threads(1);
  const Tensor a(DType::f32, sa), b(DType::f32, sb);
  Tensor out = add(a, b);  // compiles the kernel
  const PreparedOp k = prepare(Op::add, DType::f32, a.layout(), b.layout());
  for (auto _ : state) {
    if (prepared) k(a, b, out);
    else add(a, b, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(cached_call, plain_16_16, Shape{16}, Shape{16}, false);
BENCHMARK_CAPTURE(cached_call, plain_4x4_1x4, Shape{4, 4}, Shape{1, 4}, false);
BENCHMARK_CAPTURE(cached_call, prepared_16_16, Shape{16}, Shape{16}, true);
BENCHMARK_CAPTURE(cached_call, prepared_4x4_1x4, Shape{4, 4}, Shape{1, 4}, true);

// An expression's call whose kernel is already cached, on [16] f32: the
// same Expr evaluated again (NOTE: [Expression memo]) or prepared. Both run
// on NOTE: [Dispatch]'s one path, as a binary call does.
void cached_expression(benchmark::State& state, bool prepared) {
  set_num_threads(1);
  const Tensor a(DType::f32, {16}), b(DType::f32, {16});
  const Expr e = Expr(a) + Expr(b) * 2.0;
  Tensor out = evaluate(e);  // compiles the kernel
  const PreparedExpr p = prepare(e);
  const std::vector<TensorView> inputs{a, b};
  for (auto _ : state) {
    if (prepared)
      p(inputs, out);
    else
      evaluate(e, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(cached_expression, evaluate_16, false);
BENCHMARK_CAPTURE(cached_expression, prepared_16, true);

// Two ops in turn on tiny tensors: each call misses the call memo (NOTE:
// [Call memo]: one call a thread), so it plans, makes its key and finds the
// kernel in the cache. Time per pair of calls.
void alternating_calls(benchmark::State& state) {
  set_num_threads(1);
  const Tensor a(DType::f32, {16}), b(DType::f32, {16});
  Tensor out = add(a, b);
  mul(a, b, out);  // both kernels compiled
  for (auto _ : state) {
    add(a, b, out);
    mul(a, b, out);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(alternating_calls);

// Large f32 adds, one thread, JIT or reference executor; bytes = distinct
// elements read and written, so the rate is the effective GB/s.
void large(benchmark::State& state, Shape sa, Shape sb, bool jit) {
  set_num_threads(1);
  set_jit_enabled(jit);
  const Tensor a(DType::f32, sa), b(DType::f32, sb);
  fill(a);
  fill(b);
  Tensor out = add(a, b);
  for (auto _ : state) {
    add(a, b, out);
    benchmark::ClobberMemory();
  }
  set_jit_enabled(true);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(a.nbytes() + b.nbytes() + out.nbytes()));
}
#define BCAST_LARGE_CASE(name, a, b)                                        \
  BENCHMARK_CAPTURE(large, name##_jit, Shape a, Shape b, true)->Unit(benchmark::kMillisecond); \
  BENCHMARK_CAPTURE(large, name##_reference, Shape a, Shape b, false)->Unit(benchmark::kMillisecond)
BCAST_LARGE_CASE(c1_same_4096x4096, ({4096, 4096}), ({4096, 4096}));
BCAST_LARGE_CASE(c2_row_4096x4096, ({4096, 4096}), ({1, 4096}));
BCAST_LARGE_CASE(c3_col_4096x4096, ({4096, 4096}), ({4096, 1}));
BCAST_LARGE_CASE(c4_scalar_4096x4096, ({4096, 4096}), ({1}));
BCAST_LARGE_CASE(c5_outer_4096, ({4096, 1}), ({1, 4096}));
BCAST_LARGE_CASE(c6_mid_64x256x1024, ({64, 256, 1024}), ({64, 1, 1024}));
BCAST_LARGE_CASE(c7_inner3, ({5592405, 3}), ({1, 3}));
BCAST_LARGE_CASE(c8_inner4_col, ({4194304, 4}), ({4194304, 1}));
BCAST_LARGE_CASE(c9_nchw_bias, ({32, 64, 56, 56}), ({1, 64, 1, 1}));
BCAST_LARGE_CASE(c10_5d_mixed, ({8, 1, 32, 1, 512}), ({1, 16, 1, 64, 1}));

}  // namespace
}  // namespace bcast

// Benchmarks run in sync JIT mode (NOTE: [Tiers]): they time kernels, not the
// fallback that runs while a kernel compiles; BM_FirstCallNewKey sets each mode.
int main(int argc, char** argv) {
  bcast::set_jit_mode(bcast::JitMode::sync);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
