// Every BCAST_* setting: one table (name, default, accepted values, help),
// read from the environment once, overridable through the API. The table is
// the only copy: docs/settings.md's is printed from it (`bcast-cache env
// --markdown`), and ctest's settings_table_in_docs fails when they differ.
#include "config.h"

#include <array>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>

#include "bcast/config.h"
#include "bcast/runtime.h"
#include "error_messages.h"
#include "isa.h"
#include "logging.h"
#include "target_kind.h"

namespace bcast {
namespace {

std::optional<std::int64_t> parse_int(std::string_view v) {
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
  return x;
}

template <std::int64_t Lo, std::int64_t Hi>
bool int_in(std::string_view v) {
  const auto x = parse_int(v);
  return x && *x >= Lo && *x <= Hi;
}

bool one_of(std::string_view v, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words)
    if (v == w) return true;
  return false;
}

bool log_level_ok(std::string_view v) { return one_of(v, {"off", "error", "warn", "info", "debug", "trace"}); }
bool isa_ok(std::string_view v) { return is_isa_level(v); }
bool target_ok(std::string_view v) { return parse_target(v).has_value(); }
bool ub_size_ok(std::string_view v) { return v == "auto" || (int_in<1024, (1 << 20)>(v) && *parse_int(v) % 32 == 0); }
// The products of src/kernel/ascend_product.cpp (settings sit below that
// layer; AscendTargets.SettingNamesEveryProduct checks the two agree).
bool product_ok(std::string_view v) { return one_of(v, {"910b", "310p"}); }
bool folder_ok(std::string_view v) { return !v.empty(); }
bool anything(std::string_view) { return true; }
bool jit_mode_ok(std::string_view v) { return one_of(v, {"async", "sync"}); }
bool profile_ok(std::string_view v) { return one_of(v, {"off", "perf", "gdb", "all"}); }
bool stream_ok(std::string_view v) { return v == "auto" || v == "off" || int_in<0, (std::int64_t{1} << 50)>(v); }

struct Variable {
  std::string_view name, default_value, accepted, help;
  bool (*valid)(std::string_view);
};

enum Index : std::size_t {
  kLogLevel, kVerbose, kJit, kJitMode, kJitIsolate, kJitQueue, kProfile, kOptLevel, kMaxIsa, kNumThreads, kGrain, kRowBlockBytes,
  kCacheCapacity, kCacheDir, kCacheMaxMb,
  kStreamMinBytes, kDumpDir, kTarget, kAscendProduct, kUbSize, kBlockNum, kDoubleBuffer, kCount
};

constexpr std::array<Variable, kCount> kVariables{{
    {"BCAST_LOG_LEVEL", "warn", "off error warn info debug trace",
     "level of the bcast and bcast.jit spdlog loggers: debug logs each kernel look-up (key, variants, cache "
     "outcome, compile phases) and each fallback with its reason; trace adds memory hits and how large calls are "
     "split across threads (docs/logging.md)",
     log_level_ok},
    {"BCAST_VERBOSE", "0", "0 1 2",
     "1: one bcast_verbose line on stderr per prepare and per call (op, dtypes, shapes, broadcast type, kernel key, "
     "cache outcome, threads, time); 2: also one per compile or disk load, with its phases (docs/logging.md)",
     int_in<0, 2>},
    {"BCAST_JIT", "1", "0 1",
     "0 runs every op on the reference executor",
     int_in<0, 1>},
    {"BCAST_JIT_MODE", "async", "async sync",
     "async: a call whose kernel is in no cache runs at once on the reference executor while a "
     "background thread compiles it (it waits only when that is faster); sync: the call compiles and "
     "waits",
     jit_mode_ok},
    {"BCAST_JIT_ISOLATE", "0", "0 1",
     "1 compiles each kernel in a child process, so that a crash in LLVM costs a fallback, not the "
     "process (about 2.5 ms more per compile)",
     int_in<0, 1>},
    {"BCAST_JIT_QUEUE", "256", "1 .. 1048576",
     "async: background compiles that may wait at once. A call whose kernel would queue past it takes the "
     "place of the oldest waiting compile that no call asked for again, else runs on the reference executor "
     "without queueing (a later call may queue it); docs/cache.md",
     int_in<1, (1 << 20)>},
    {"BCAST_PROFILE", "off", "off perf gdb all",
     "perf: write /tmp/perf-<pid>.map so that perf report names each kernel by its key; gdb: register "
     "kernels with gdb's JIT interface; all: both",
     profile_ok},
    {"BCAST_OPT_LEVEL", "2", "0 1 2 3",
     "0 LLVM O0 (no vectoriser); 1 scalar clean-up; 2 lean vectorising pipeline (~4.5 ms a kernel, and a "
     "1.7 ms first tier in async mode); 3 LLVM's full O3",
     int_in<0, 3>},
    {"BCAST_MAX_ISA", "all", "sse4.2 avx avx2 avx512 all",
     "the widest x86-64 vector extension kernels may use",
     isa_ok},
    {"BCAST_NUM_THREADS", "0", "0 .. 1024",
     "threads per op call; 0 is one per hardware thread",
     int_in<0, kMaxThreads>},
    {"BCAST_GRAIN", "262144", "1 .. 1099511627776",
     "output elements below which a call stays on one thread; also about the largest piece a split "
     "call hands a thread (at least four pieces per thread; a row or a tile longer than a grain stays "
     "whole)",
     int_in<1, (std::int64_t{1} << 40)>},
    {"BCAST_ROW_BLOCK_BYTES", "196608", "0 .. 1073741824",
     "an expression whose reductions keep its rows (softmax, layer norm) runs a block of rows at a time "
     "when an input has 2 MiB or more: about this many bytes of its operands a block, to stay in the "
     "core's L2 (docs/performance.md); 0 runs its passes over the whole call",
     int_in<0, (std::int64_t{1} << 30)>},
    {"BCAST_CACHE_CAPACITY", "1024", "0 .. 1048576",
     "kernels kept in memory (LRU); 0 keeps none",
     int_in<0, (1 << 20)>},
    {"BCAST_CACHE_DIR", "", "a folder, or off",
     "the persistent kernel cache; unset, $XDG_CACHE_HOME/bcast, else ~/.cache/bcast",
     folder_ok},
    {"BCAST_CACHE_MAX_MB", "256", "1 .. 1048576",
     "size bound of the disk cache; least recently used files go first",
     int_in<1, (1 << 20)>},
    {"BCAST_STREAM_MIN_BYTES", "auto", "auto, off, or 0 .. 2^50 bytes",
     "calls that move at least this many bytes (inputs read plus output written) write their output "
     "with non-temporal (streaming) stores, which skip reading each output line before writing it "
     "(x86-64, rows of 256 bytes or more); auto is 3/4 of the last-level cache the call's threads share, "
     "at most 16 MiB a CPU (`bcast-cache env` shows what it comes to and why)",
     stream_ok},
    {"BCAST_DUMP_DIR", "", "a folder",
     "write each compiled kernel's IR before and after optimisation (.ll, .opt.ll) and its assembly "
     "(.s)",
     anything},
    {"BCAST_TARGET", "host", "host ascend-sim",
     "where ops run: the host CPU, or the Ascend-style accelerator on its checking simulator",
     target_ok},
    {"BCAST_ASCEND_PRODUCT", "910b", "910b 310p",
     "ascend-sim: the product modelled: its UB, copy instructions (310p has no DataCopyPad), vector "
     "instructions' dtypes and cost figures (docs/ascend.md)",
     product_ok},
    {"BCAST_UB_SIZE", "auto", "auto, or 1024 .. 1048576, a multiple of 32",
     "ascend-sim: unified buffer bytes per block; auto is the product's (910b 196608, 310p 262144)",
     ub_size_ok},
    {"BCAST_BLOCK_NUM", "8", "1 .. 64",
     "ascend-sim: blocks (AI cores) per call",
     int_in<1, 64>},
    {"BCAST_DOUBLE_BUFFER", "1", "0 1",
     "ascend-sim: two slots per tile buffer, so copy-in of the next tile can overlap compute",
     int_in<0, 1>},
}};

std::optional<std::size_t> find_variable(std::string_view name) {
  for (std::size_t i = 0; i < kVariables.size(); ++i)
    if (kVariables[i].name == name) return i;
  return std::nullopt;
}

spdlog::level::level_enum spdlog_level(std::string_view v) {
  if (v == "off") return spdlog::level::off;
  if (v == "error") return spdlog::level::err;
  if (v == "info") return spdlog::level::info;
  if (v == "debug") return spdlog::level::debug;
  if (v == "trace") return spdlog::level::trace;
  return spdlog::level::warn;
}

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/bcast";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/bcast";
  return "";
}

class Store {
 public:
  Store() { read_environment(); }

  void read_environment() {
    std::vector<std::string> warnings;
    {
      const std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < kCount; ++i) {
        const Variable& var = kVariables[i];
        value_[i] = std::string(var.default_value);
        source_[i] = SettingSource::default_value;
        const char* env = std::getenv(std::string(var.name).c_str());
        if (env == nullptr) continue;
        if (var.valid(env)) {
          value_[i] = env;
          source_[i] = SettingSource::environment;
        } else {
          warnings.push_back(fmt::format("{}={} is not valid (accepted: {}); using the default {}", var.name, env,
                                         var.accepted, var.default_value.empty() ? "(none)" : var.default_value));
        }
      }
      publish();
    }
    for (const std::string& w : warnings) logging::core().warn("{}", w);
  }

  // Sets one value as the API; returns false (changing nothing) if invalid.
  // The default is always accepted, so that what get_setting() returned
  // before a change can be set back (BCAST_CACHE_DIR's default is "").
  bool set(std::size_t i, std::string_view value) {
    if (value != kVariables[i].default_value && !kVariables[i].valid(value)) return false;
    const std::lock_guard lock(mutex_);
    value_[i] = std::string(value);
    source_[i] = SettingSource::api;
    publish();
    return true;
  }

  std::string value(std::size_t i) const {
    const std::lock_guard lock(mutex_);
    return value_[i];
  }
  SettingSource source(std::size_t i) const {
    const std::lock_guard lock(mutex_);
    return source_[i];
  }
  std::string resolved_cache_dir() const {
    const std::lock_guard lock(mutex_);
    return cache_dir_;
  }

  std::atomic<bool> jit{true}, verbose{false}, ascend{false}, jit_async{true}, jit_isolate{false};
  std::atomic<int> threads{1}, opt_level{2};
  std::atomic<std::int64_t> grain{0}, row_block_bytes{0};
  std::atomic<std::size_t> capacity{0}, jit_queue{0};
  std::atomic<std::uint64_t> generation{0}, any_generation{0};
  std::atomic<std::uint64_t> max_bytes{0};
  std::atomic<std::uint64_t> stream_min_bytes{0};

 private:
  // Mirrors the text values into the typed fields. Called with mutex_ held.
  void publish() {
    const auto number = [&](Index i) { return *parse_int(value_[i]); };
    jit = number(kJit) == 1;
    jit_async = value_[kJitMode] == "async";
    jit_isolate = number(kJitIsolate) == 1;
    ascend = parse_target(value_[kTarget]) == TargetKind::ascend_sim;
    verbose = number(kVerbose) >= 1;
    logging::set_verbose_level(static_cast<int>(number(kVerbose)));
    const auto hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = number(kNumThreads) == 0 ? hardware : static_cast<int>(number(kNumThreads));
    grain = number(kGrain);
    row_block_bytes = number(kRowBlockBytes);
    capacity = static_cast<std::size_t>(number(kCacheCapacity));
    jit_queue = static_cast<std::size_t>(number(kJitQueue));
    max_bytes = static_cast<std::uint64_t>(number(kCacheMaxMb)) << 20;
    const std::string& stream_text = value_[kStreamMinBytes];
    const std::uint64_t stream = stream_text == "off"    ? config::kStreamOff
                                 : stream_text == "auto" ? config::kStreamAuto
                                                         : static_cast<std::uint64_t>(number(kStreamMinBytes));
    // The streaming threshold picks kernels too: a change must reach call memos.
    if (opt_level != number(kOptLevel) || isa_ != value_[kMaxIsa] || stream_min_bytes != stream) ++generation;
    stream_min_bytes = stream;
    opt_level = static_cast<int>(number(kOptLevel));
    isa_ = value_[kMaxIsa];
    cache_dir_ = value_[kCacheDir] == "off" ? "" : value_[kCacheDir].empty() ? default_cache_dir() : value_[kCacheDir];
    logging::set_level(spdlog_level(value_[kLogLevel]));
    any_generation.fetch_add(1, std::memory_order_release);
  }

  mutable std::mutex mutex_;
  std::array<std::string, kCount> value_;
  std::array<SettingSource, kCount> source_{};
  std::string isa_ = "all", cache_dir_;
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

namespace config {
bool jit() { return store().jit.load(std::memory_order_relaxed); }
bool verbose() { return store().verbose.load(std::memory_order_relaxed); }
bool jit_async() { return store().jit_async.load(std::memory_order_relaxed); }
bool jit_isolate() { return store().jit_isolate.load(std::memory_order_relaxed); }
std::string profile() { return store().value(kProfile); }
int threads() { return store().threads.load(std::memory_order_relaxed); }
std::int64_t grain() { return store().grain.load(std::memory_order_relaxed); }
std::int64_t row_block_bytes() { return store().row_block_bytes.load(std::memory_order_relaxed); }
std::size_t cache_capacity() { return store().capacity.load(std::memory_order_relaxed); }
std::size_t jit_queue() { return store().jit_queue.load(std::memory_order_relaxed); }
int opt_level() { return store().opt_level.load(std::memory_order_relaxed); }
std::uint64_t codegen_generation() { return store().generation.load(std::memory_order_acquire); }
std::uint64_t generation() { return store().any_generation.load(std::memory_order_acquire); }
std::string max_isa() { return store().value(kMaxIsa); }
std::string cache_dir() { return store().resolved_cache_dir(); }
std::uint64_t cache_max_bytes() { return store().max_bytes.load(std::memory_order_relaxed); }
std::uint64_t stream_min_bytes() { return store().stream_min_bytes.load(std::memory_order_relaxed); }
std::string dump_dir() { return store().value(kDumpDir); }
bool ascend_target() { return store().ascend.load(std::memory_order_relaxed); }
std::int64_t ub_size() {
  const std::string v = store().value(kUbSize);
  return v == "auto" ? 0 : *parse_int(v);
}
std::string ascend_product() { return store().value(kAscendProduct); }
int block_num() { return static_cast<int>(*parse_int(store().value(kBlockNum))); }
bool double_buffer() { return store().value(kDoubleBuffer) == "1"; }

void reload_from_environment() { store().read_environment(); }
}  // namespace config

std::string_view setting_source_name(SettingSource source) {
  constexpr std::string_view kNames[] = {"default", "environment", "api"};  // in SettingSource's order
  return kNames[static_cast<std::size_t>(source)];
}

std::vector<SettingInfo> effective_settings() {
  std::vector<SettingInfo> out;
  for (std::size_t i = 0; i < kCount; ++i) {
    const Variable& v = kVariables[i];
    std::string value = store().value(i);
    if (i == kCacheDir) value = config::cache_dir().empty() ? "off" : config::cache_dir();
    out.push_back({std::string(v.name), value, std::string(v.default_value), std::string(v.accepted),
                   std::string(v.help), store().source(i)});
  }
  return out;
}

void config::set(std::string_view name, std::string_view value) {
  const std::optional<std::size_t> i = find_variable(name);
  if (!i) detail::fail(ErrorKind::value, "set_setting: unknown setting '{}'", name);
  if (!store().set(*i, value))
    detail::fail(ErrorKind::value, "set_setting: {}={} is not valid (accepted: {})", name, value,
                 kVariables[*i].accepted);
}

std::string get_setting(std::string_view name) {
  const std::optional<std::size_t> i = find_variable(name);
  if (!i) detail::fail(ErrorKind::value, "get_setting: unknown setting '{}'", name);
  return store().value(*i);
}

int num_threads() { return config::threads(); }
bool jit_enabled() { return config::jit(); }
JitMode jit_mode() { return config::jit_async() ? JitMode::async : JitMode::sync; }
std::size_t kernel_cache_capacity() { return config::cache_capacity(); }

}  // namespace bcast
