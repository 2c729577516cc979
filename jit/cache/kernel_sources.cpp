// Where a missed kernel comes from: the disk cache or a compile.
#include "cache/kernel_sources.h"

#include <llvm/Config/llvm-config.h>

#include <chrono>

#include "codegen_settings.h"
#include "compile/isolated_compile.h"
#include "key_codec.h"
#include "logging.h"

namespace bcast::jit {
namespace {

// The kernel from the disk cache, when a valid entry is there (NOTE: [Disk
// cache file]); a file that failed NOTE: [Disk cache trust] is a warning,
// any other reason to ignore one goes to the debug log.
std::optional<Obtained> load_from_disk(const DiskCache& disk, const KernelKey& key) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = key.to_string();
  DiskCache::Refusal refusal;
  if (std::optional<DiskEntry> entry = disk.load(name, codegen_settings(key.codegen), refusal)) {
    CompiledObject object;
    object.object = std::move(entry->object);
    object.symbol = entry->symbol;
    object.code_bytes = entry->code_bytes;
    object.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    object.phases.read_us = object.compile_ms * 1e3;
    Obtained got{load_object(object), Source::disk};
    if (got.result.kernel) {
      disk.touch(name);
      return got;
    }
    refusal.why = "cannot load: " + got.result.error;
  }
  if (refusal.untrusted)
    logging::jit().warn("disk cache: refusing {}/{} for {}: it {}; compiling the kernel afresh", disk.folder(),
                        DiskCache::file_name(name), name, refusal.why);
  else if (!refusal.why.empty())
    logging::jit().debug("disk cache: ignoring {}/{} for {}: {}", disk.folder(), DiskCache::file_name(name), name,
                         refusal.why);
  return std::nullopt;
}

// "setup=0.6,target_machine=0.2,...": a compile's phases in microseconds.
std::string phases_text(const CompilePhases& p) {
  return fmt::format("setup={:.1f},target_machine={:.1f},emit_ir={:.1f},verify={:.1f},optimise={:.1f},codegen={:.1f},"
                     "link={:.1f},read={:.1f}",
                     p.setup_us, p.target_machine_us, p.emit_ir_us, p.verify_us, p.optimise_us, p.codegen_us,
                     p.link_us, p.read_us);
}

}  // namespace

DiskCaches& disk_caches() {
  static DiskCaches d;
  return d;
}

// A compiled kernel, stored on disk when the disk cache is on.
Obtained compile_and_store(const KernelKey& key, const CacheOptions& options, const DiskCache* disk) {
  CompiledObject object =
      options.isolate ? compile_object_isolated(key, options.dump_dir) : compile_object(key, options.dump_dir);
  if (!object.error.empty()) return {{nullptr, object.error}, Source::compiled};
  Obtained got{load_object(object), Source::compiled};
  if (got.result.kernel && disk != nullptr) {
    // The header names the key by the codec's fields (NOTE: [Disk cache file]).
    const std::string name = key.to_string();
    const KeyFields fields = split_kernel_key(name).value();
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    DiskEntry entry{.key = name,
                    .symbol = object.symbol,
                    .llvm_version = LLVM_VERSION_STRING,
                    .generator = kGeneratorRevision,
                    .settings = codegen_settings(key.codegen),
                    .op = fields.op,
                    .dtype = fields.dtype,
                    .broadcast_type = fields.type,
                    .inner = fields.layout,
                    .target = fields.target,
                    .created_unix = std::chrono::duration_cast<std::chrono::seconds>(now).count(),
                    .compile_ms = object.compile_ms,
                    .code_bytes = object.code_bytes,
                    .object = std::move(object.object)};
    std::string why;
    if (!disk->store(entry, why)) disk_caches().mark_unwritable(*disk, why);
  }
  return got;
}

// A finished compile or disk load: the debug log's line and, at
// BCAST_VERBOSE=2, the compile line of NOTE: [Verbose lines]. Outside the
// cache's lock: a host's log handler may take its time.
void report_obtained(const KernelKey& key, const Obtained& got) {
  const bool debug = logging::jit().should_log(spdlog::level::debug);
  const bool line = logging::verbose().should_log(spdlog::level::debug);
  if (!debug && !line) return;
  const std::string name = key.to_string();
  const std::string_view source = got.source == Source::disk ? "disk" : "compiled";
  const CompiledKernel* k = got.result.kernel.get();
  const std::string phases = k != nullptr ? phases_text(k->phases) : "";
  const double total_us = k != nullptr ? k->phases.total_us() : 0;
  if (debug) {
    if (k == nullptr)
      logging::jit().debug("{}: {} failed: {}", name, source == "disk" ? "loading" : "compiling", got.result.error);
    else
      logging::jit().debug("{}: {} in {:.1f} us ({}), {} bytes of code", name,
                           source == "disk" ? "loaded from disk" : "compiled", total_us, phases, k->code_bytes);
  }
  if (line)
    logging::verbose().debug(logging::verbose_line(
        "compile", {source, name, k != nullptr ? "ok" : "failed", fmt::format("{:.1f}", total_us), phases,
                    k != nullptr ? "" : got.result.error}));
}

// load_from_disk(), a failure to read being no entry.
std::optional<Obtained> try_disk(const DiskCache& disk, const KernelKey& key) {
  try {
    return load_from_disk(disk, key);
  } catch (const std::exception& e) {
    logging::jit().debug("disk cache: cannot read {} for {}: {}", disk.folder(), key.to_string(), e.what());
    return std::nullopt;
  }
}

}  // namespace bcast::jit
