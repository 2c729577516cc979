// The kernel provider: settings in, kernels out, jit/ behind it.
#include "kernel_provider.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include "cache/kernel_cache.h"
#include "compile/host_compiler.h"
#include "ir/complex_coverage.h"
#include "config.h"
#include "expr_kernel.h"
#include "function_table.h"
#include "logging.h"
#include "target/host_description.h"

namespace bcast::provider {
namespace {

std::atomic<std::uint64_t> g_told{~std::uint64_t{0}};  // config::generation() the cache was last told
std::mutex g_telling;

void tell_cache() {
  const std::lock_guard lock(g_telling);
  const std::uint64_t now = config::generation();
  if (g_told.load(std::memory_order_acquire) == now) return;  // another thread told it meanwhile
  const std::string profile = config::profile();
  jit::kernel_cache().configure({.capacity = config::cache_capacity(),
                                 .queue_bound = config::jit_queue(),
                                 .disk_folder = config::cache_dir(),
                                 .disk_max_bytes = config::cache_max_bytes(),
                                 .dump_dir = config::dump_dir(),
                                 .isolate = config::jit_isolate(),
                                 .perf_map = profile == "perf" || profile == "all",
                                 .gdb = profile == "gdb" || profile == "all"});
  g_told.store(now, std::memory_order_release);
}

// The cache, told the current settings.
jit::KernelCache& cache() {
  if (g_told.load(std::memory_order_acquire) != config::generation()) tell_cache();
  return jit::kernel_cache();
}

// A target's symbols reach the JIT once per kind.
void learn_symbols(const Target& target) {
  static std::once_flag once[kNumTargetKinds];
  std::call_once(once[static_cast<int>(target.kind())], [&] {
    const std::vector<JitSymbol> symbols = target.jit_symbols();
    if (symbols.empty()) return;
    if (const std::string error = jit::define_symbols(symbols); !error.empty())
      logging::jit().error("the {} target's symbols could not be defined: {}", target.name(), error);
  });
}

KernelSource source_of(jit::CacheOutcome outcome) {
  constexpr KernelSource kSources[] = {KernelSource::memory, KernelSource::disk, KernelSource::compiled,
                                       KernelSource::failed, KernelSource::pending};  // in CacheOutcome's order
  return kSources[static_cast<std::size_t>(outcome)];
}

Kernel kernel_of(std::shared_ptr<const jit::CompiledKernel> kernel, KernelSource source) {
  return {.fn = kernel->fn,
          .entry = kernel->entry,
          .keep_alive = kernel,
          .memo_hits = &kernel->memo_hits,
          .source = source};
}

// NOTE: [Interned ids]: the codegen settings that new keys name now (the
// current ones and their first tier) stay registered until they change.
void keep_registered(CodegenPin pin, bool first_tier) {
  static std::mutex mutex;
  static CodegenPin current, quick;
  const std::lock_guard lock(mutex);
  (first_tier ? quick : current) = std::move(pin);
}

// The codegen settings id of `codegen`'s first tier, or `codegen` itself
// when it has none; remembered for the last id asked (every async call asks).
std::uint32_t first_tier_codegen(std::uint32_t codegen) {
  static std::atomic<std::uint64_t> last{~std::uint64_t{0}};  // (codegen << 32) | its first tier's id
  const std::uint64_t known = last.load(std::memory_order_acquire);
  if ((known >> 32) == codegen) return static_cast<std::uint32_t>(known);
  CodegenSettings settings = codegen_settings(codegen);
  std::uint32_t quick = codegen;
  if (!settings.quick && settings.opt_level >= 1) {
    settings.quick = true;
    CodegenPin pin;
    quick = intern_codegen_settings(settings, &pin);
    keep_registered(std::move(pin), true);
  }
  last.store((std::uint64_t{codegen} << 32) | quick, std::memory_order_release);
  return quick;
}

// NOTE: [Tiers]: the quick first tier of a host kernel compiled at a level
// that has one (the lean pipelines; a key of ascend-sim is compiled and
// waited for, never tiered).
std::optional<KernelKey> first_tier_of(const KernelKey& key) {
  if (key.target != TargetKind::host) return std::nullopt;
  const std::uint32_t quick = first_tier_codegen(key.codegen);
  if (quick == key.codegen) return std::nullopt;
  KernelKey tier = key;
  tier.codegen = quick;
  return tier;
}

// BCAST_LOG_LEVEL=debug: where a look-up found its kernel (trace for memory
// hits, the common case).
void log_look_up(const KernelKey& key, jit::CacheOutcome how, const jit::Patience& patience) {
  const spdlog::level::level_enum level =
      how == jit::CacheOutcome::memory_hit ? spdlog::level::trace : spdlog::level::debug;
  if (!logging::jit().should_log(level)) return;
  std::string what;
  switch (how) {
    case jit::CacheOutcome::memory_hit: what = "in memory"; break;
    case jit::CacheOutcome::disk_hit: what = "not in memory; loaded from the disk cache"; break;
    case jit::CacheOutcome::compiled: what = "in neither cache; compiled on the calling thread"; break;
    case jit::CacheOutcome::failed: what = "no kernel: its compile failed"; break;
    case jit::CacheOutcome::pending:
      what = fmt::format("compiling in the background (async; the call would wait at most {:.0f} us)", patience.wait_us);
      break;
  }
  logging::jit().log(level, "look-up {}: {}", key.to_string(), what);
}

}  // namespace

Kernel kernel_for(const KernelKey& key, const Target& target, double wait_us, Use use) {
  learn_symbols(target);
  jit::CacheOutcome how = jit::CacheOutcome::failed;
  jit::Patience patience{.async = config::jit_async() && wait_us < kWaitAlways, .wait_us = wait_us, .first_tier = {}};
  if (patience.async) patience.first_tier = first_tier_of(key);
  std::shared_ptr<const jit::CompiledKernel> kernel = cache().get(key, patience, &how);
  log_look_up(key, how, patience);
  if (!kernel && how == jit::CacheOutcome::pending) {
    if (patience.first_tier)
      if (std::shared_ptr<const jit::CompiledKernel> quick = cache().find_ready(*patience.first_tier))
        return kernel_of(std::move(quick), KernelSource::quick);
    if (use == Use::call) cache().record_fallback(key);
    return {.source = KernelSource::pending};
  }
  if (!kernel) return {.source = KernelSource::failed};
  return kernel_of(std::move(kernel), source_of(how));
}

bool emits(const ExprProgram& program) {
  return std::all_of(program.code.begin(), program.code.end(), [](const ExprInstr& s) {
    return !(is_complex(s.in) || is_complex(s.out)) || jit::has_complex_ir(s);
  });
}

void apply_settings() { cache(); }

void wait_for_compiles() { cache().wait_for_compiles(); }

std::uint32_t current_codegen_id() {
  // (generation << 32 | id): re-interned only after a setting that changes code changed.
  static std::atomic<std::uint64_t> cached{~std::uint64_t{0}};
  const std::uint64_t generation = config::codegen_generation();
  std::uint64_t c = cached.load(std::memory_order_acquire);
  if ((c >> 32) != (generation & 0xffffffffu)) {
    CodegenPin pin;
    const std::uint32_t id =
        intern_codegen_settings(jit::host_codegen_settings(config::opt_level(), config::max_isa()), &pin);
    keep_registered(std::move(pin), false);
    c = (generation << 32) | id;
    cached.store(c, std::memory_order_release);
  }
  return static_cast<std::uint32_t>(c);
}

std::uint64_t epoch() { return cache().epoch(); }
const HostDescription& host_description() { return jit::host_description(); }
const std::string& llvm_version() { return jit::llvm_version(); }
KernelCacheStats stats() { return cache().stats(); }
std::vector<KernelStats> entries() { return cache().entries(); }
void clear() { cache().clear(); }

}  // namespace bcast::provider
