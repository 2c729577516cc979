// bcast-cache: inspect and manage the persistent kernel cache.
//   list [--wide] | show KEY|KEY-START|HASH [--ir|--opt-ir|--asm|--ascend-c] | stats | clear | verify | warm | env
#include <CLI/CLI.hpp>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ascend_c_writer.h"
#include "bcast/bcast.h"
#include "bcast/config.h"
#include "cache/disk_cache.h"
#include "codegen_settings.h"
#include "compile/host_compiler.h"
#include "config.h"
#include "isa.h"
#include "kernel_key.h"
#include "kernel_lookup.h"
#include "key_codec.h"
#include "name_lists.h"
#include "manual_page.h"
#include "text_table.h"
#include "warm_run.h"

namespace bcast::tools {
namespace {

using nlohmann::json;
// docs/cache.md, "Exit status".
constexpr int kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitAmbiguous = 3;

std::string when(std::int64_t unix_seconds) {
  if (unix_seconds <= 0) return "-";
  const std::time_t t = unix_seconds;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%d %H:%M:%S}", tm);
}

// A file as list and show print it: its header's fields (less the object's
// size and checksum, which listings do not read) and the file's own.
json entry_json(const jit::DiskFile& f) {
  json j{{"file", f.path}, {"bytes", f.bytes}, {"last_used", when(f.last_used_unix)}};
  if (!f.entry) {
    j["problem"] = f.problem;
    return j;
  }
  json header = json::parse(jit::header_text(*f.entry));
  header.erase("object_bytes");
  header.erase("object_xxh3");
  j.update(header);
  j.update({{"created", when(f.entry->created_unix)}, {"hits", f.hits}});
  return j;
}

// `list --memory FILE`: a process's in-memory cache, from write_kernel_cache_dump.
int list_memory(const std::string& file, bool as_json) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << "bcast-cache: " << file << " does not exist or cannot be read\n";
    return kExitFailure;
  }
  const json dump = json::parse(in, nullptr, false);
  if (dump.is_discarded() || !dump.contains("entries")) {
    std::cerr << "bcast-cache: " << file << " is not a kernel cache dump\n";
    return kExitFailure;
  }
  if (as_json) {
    std::cout << dump.dump(1) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:>8} {:>7} {:>5} {:>8} {:>8} {:>8} {:>6} {:>8}  {}\n", "hits", "misses", "disk", "compiles",
                           "fallback", "compile", "code", "resident", "key");
  for (const json& e : dump["entries"])
    std::cout << fmt::format("{:>8} {:>7} {:>5} {:>8} {:>8} {:>6.1f}ms {:>6} {:>8}  {}\n", e["hits"].get<std::uint64_t>(),
                             e["misses"].get<std::uint64_t>(), e["disk_hits"].get<std::uint64_t>(),
                             e["compiles"].get<std::uint64_t>(), e.value("fallback_calls", std::uint64_t{0}),
                             e["compile_ms"].get<double>(), e["code_bytes"].get<std::uint64_t>(),
                             e["resident"].get<bool>() ? "yes" : "no", e["key"].get<std::string>());
  std::cout << fmt::format("{} kernels in the memory of process {}\n", dump["entries"].size(), dump["process"].dump());
  // NOTE: [Tiers]: calls that ran on the fallback while their kernel compiled, and the compile queue.
  if (dump.contains("totals")) {
    const json& t = dump["totals"];
    std::cout << fmt::format("JIT mode {}: calls run on the fallback while their kernel compiled: {}; calls that "
                             "waited for it: {}; compile queue: {} now, {} at most\n",
                             t.value("jit_mode", "?"), t.value("fallback_calls", 0), t.value("waits", 0),
                             t.value("queued", 0), t.value("queue_peak", 0));
  }
  return kExitOk;
}

// `list`'s columns; a longer cell ends in "..." unless --wide (an expression's
// op and dtypes are as long as it). The key is last and whole: it is what
// `show` takes.
const std::vector<TextColumn> kListColumns = {
    {"op", 14},      {"dtype", 10},        {"broadcast type", 36},   {"target", 15}, {"code", 6, true},
    {"compile", 8, true}, {"created", 19}, {"last used", 19}, {"hits", 5, true},   {"key", 0}};

int list(const jit::DiskCache& cache, bool as_json, bool wide) {
  const std::vector<jit::DiskFile> files = cache.list();
  if (as_json) {
    json all = json::array();
    for (const jit::DiskFile& f : files) all.push_back(entry_json(f));
    std::cout << all.dump(1) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  std::string bad;
  for (const jit::DiskFile& f : files) {
    if (!f.entry) {
      bad += fmt::format("BAD {}: {}\n", f.path, f.problem);
      continue;
    }
    const jit::DiskEntry& e = *f.entry;
    rows.push_back({e.op, e.dtype, e.broadcast_type, e.target, std::to_string(e.code_bytes),
                    fmt::format("{:.1f}ms", e.compile_ms), when(e.created_unix), when(f.last_used_unix),
                    std::to_string(f.hits), e.key});
  }
  std::cout << format_text_table(kListColumns, rows, wide) << bad;
  std::cout << fmt::format("{} files in {}\n", files.size(), cache.folder());
  return kExitOk;
}

// The key of a file: from its header, with the settings it was made with.
std::optional<KernelKey> key_of(const jit::DiskFile& f) {
  return parse_kernel_key(f.entry->key, intern_codegen_settings(f.entry->settings));
}

// A key no file holds, by parsing it with this host's settings at the key's
// opt level and each ISA level (key_codec.h).
std::optional<KernelKey> key_this_host_builds(const std::string& text) {
  const std::optional<KeyFields> fields = split_kernel_key(text);
  if (!fields) return std::nullopt;
  for (const std::string_view isa : kIsaLevels)
    if (auto key = parse_kernel_key(text, intern_codegen_settings(jit::host_codegen_settings(fields->opt_level, isa))))
      return key;
  return std::nullopt;
}

// An argument that names several files: their hashes and keys, and exit 3.
int list_candidates(const jit::DiskCache& cache, const std::string& arg,
                    const std::vector<const jit::DiskFile*>& named, bool as_json) {
  std::cerr << fmt::format("bcast-cache: '{}' names {} kernels in {}; show one by its key or file hash:\n", arg,
                           named.size(), cache.folder());
  json candidates = json::array();
  for (const jit::DiskFile* f : named) {
    candidates.push_back({{"file_hash", file_hash(*f)}, {"key", f->entry->key}});
    if (!as_json) std::cout << file_hash(*f) << "  " << f->entry->key << "\n";
  }
  if (as_json) std::cout << json{{"ambiguous", arg}, {"candidates", candidates}}.dump(1) << "\n";
  return kExitAmbiguous;
}

int show(const jit::DiskCache& cache, const std::string& arg, const std::string& what, std::string_view form,
         bool as_json) {
  const std::vector<jit::DiskFile> files = cache.list();
  const std::vector<const jit::DiskFile*> named = files_named_by(files, arg);
  if (named.size() > 1) return list_candidates(cache, arg, named, as_json);
  const std::optional<KernelKey> key = named.empty() ? key_this_host_builds(arg) : key_of(*named.front());
  if (!key && !named.empty()) {
    std::cerr << "bcast-cache: " << named.front()->path << ": its key " << named.front()->entry->key
              << " does not parse with the settings its header records\n";
    return kExitFailure;
  }
  if (!key) {
    std::cerr << "bcast-cache: no kernel in " << cache.folder() << " is named '" << arg
              << "' (by its key or the start of one, its file hash or its tuning hash), and it is not a key this "
                 "host can build\n";
    return kExitFailure;
  }
  const std::string key_text = key->to_string();
  if (what == "ascend-c") {
    // NOTE: [Target models]: an ascend-sim key names its product.
    if (key->target != TargetKind::ascend_sim) {
      std::cerr << "bcast-cache: " << key_text << " is a host kernel; --ascend-c writes ascend-sim kernels\n";
      return kExitFailure;
    }
    std::string why = fmt::format("no entry form named '{}'", form);
    const std::optional<ascend::AscendCForm> entry = ascend::ascend_c_form_named(form);
    const std::optional<std::string> source =
        entry ? ascend::write_ascend_c(*key, ascend::products()[key->model - 1u], why, *entry) : std::nullopt;
    if (!source) {
      std::cerr << "bcast-cache: " << key_text << ": no Ascend C source: " << why << "\n";
      return kExitFailure;
    }
    std::cout << *source;
  } else if (what == "ir" || what == "opt-ir") {
    std::cout << jit::kernel_ir(*key, what == "opt-ir");
  } else if (what == "asm") {
    std::cout << jit::kernel_assembly(*key);
  } else {
    if (!named.empty()) {
      const json j = entry_json(*named.front());
      if (as_json) std::cout << j.dump(1) << "\n";
      else
        for (const auto& [name, value] : j.items())
          std::cout << fmt::format("{:<15} {}\n", name, value.is_string() ? value.get<std::string>() : value.dump());
      return kExitOk;
    }
    std::cout << (as_json ? json{{"key", key->to_string()}, {"on_disk", false}}.dump()
                          : "key " + key->to_string() + " (not on disk)")
              << "\n";
  }
  return kExitOk;
}

int stats(const jit::DiskCache& cache, bool as_json) {
  const std::vector<jit::DiskFile> files = cache.list();
  const auto bad = std::count_if(files.begin(), files.end(), [](const jit::DiskFile& f) { return !f.entry; });
  const json j{{"folder", cache.folder()}, {"files", files.size()}, {"bad_files", bad},
               {"bytes", cache.total_bytes()}, {"max_bytes", cache.max_bytes()}};
  if (as_json) std::cout << j.dump() << "\n";
  else
    std::cout << fmt::format("{}: {} kernels ({} bad), {} bytes of {} allowed\n", cache.folder(), files.size(), bad,
                             cache.total_bytes(), cache.max_bytes());
  return kExitOk;
}

int verify(const jit::DiskCache& cache, bool as_json) {
  const std::vector<jit::DiskFile> files = cache.list();
  json bad = json::array();
  for (const jit::DiskFile& f : files)
    if (!f.entry) bad.push_back({{"file", f.path}, {"problem", f.problem}});
  const std::size_t removed = cache.remove_bad();
  if (as_json) {
    std::cout << json{{"checked", files.size()}, {"bad", bad}, {"removed", removed}}.dump() << "\n";
  } else {
    for (const json& b : bad) std::cout << "bad: " << b["file"].get<std::string>() << ": " << b["problem"].get<std::string>() << "\n";
    std::cout << fmt::format("{} files checked, {} bad, {} removed\n", files.size(), bad.size(), removed);
  }
  return kExitOk;
}

// docs/settings.md's table of settings, printed from the settings table itself.
int env_markdown() {
  std::cout << "| variable | default | accepted | meaning |\n|---|---|---|---|\n";
  for (const SettingInfo& s : effective_settings())
    std::cout << fmt::format("| `{}` | {} | `{}` | {} |\n", s.name,
                             s.default_value.empty() ? "(unset)" : "`" + s.default_value + "`", s.accepted, s.help);
  return kExitOk;
}

int env(bool as_json) {
  json all = json::array();
  const RuntimeInfo info = runtime_info();
  for (const SettingInfo& s : effective_settings()) {
    all.push_back({{"name", s.name}, {"value", s.value}, {"default", s.default_value},
                   {"source", std::string(setting_source_name(s.source))}, {"accepted", s.accepted}, {"help", s.help}});
    if (s.name == "BCAST_STREAM_MIN_BYTES")  // NOTE: [Streaming threshold]: what the value comes to here
      all.back()["resolved"] = {{"bytes", info.stream_min_bytes}, {"decision", info.stream_decision}};
  }
  if (as_json) {
    std::cout << all.dump(1) << "\n";
    return kExitOk;
  }
  for (const json& s : all) {
    std::cout << fmt::format("{:<21} {:<32} {:<12} accepted: {}\n", s["name"].get<std::string>(),
                             s["value"].get<std::string>().empty() ? "(none)" : s["value"].get<std::string>(),
                             s["source"].get<std::string>(), s["accepted"].get<std::string>());
    if (s.contains("resolved"))
      std::cout << fmt::format("{:<21} = {}\n", "", s["resolved"]["decision"].get<std::string>());
  }
  return kExitOk;
}

}  // namespace
}  // namespace bcast::tools

int main(int argc, char** argv) {
  using namespace bcast::tools;
  CLI::App app{"bcast-cache: inspect and manage bcast's persistent kernel cache", "bcast-cache"};
  app.footer(bcast::tools::manual_line("cache.md"));
  app.require_subcommand(1);
  std::string dir;
  bool as_json = false;
  app.add_option("--dir", dir, "cache folder (default: BCAST_CACHE_DIR's effective value)");
  app.add_flag("--json", as_json, "JSON output");
  auto* list_cmd = app.add_subcommand("list", "every kernel in the disk cache, or in a process's memory (--memory)");
  std::string memory_dump;
  list_cmd->add_option("--memory", memory_dump, "a dump written by bcast-run --dump-cache or write_kernel_cache_dump()");
  bool wide = false;
  list_cmd->add_flag("--wide", wide, "columns as wide as their longest cell (else long ones end in ...)");
  auto* show_cmd = app.add_subcommand("show", "one kernel: header, or --ir / --opt-ir / --asm / --ascend-c (regenerated from its key)");
  std::string show_arg, show_what = "header";
  show_cmd->add_option("key", show_arg,
                       "a key or its start, a file's hash or the tuning hash that ends every key (4 hex digits or "
                       "more of either); one that names several kernels lists them (exit 3)")
      ->required();
  show_cmd->add_flag_callback("--ir", [&] { show_what = "ir"; }, "IR before optimisation");
  show_cmd->add_flag_callback("--opt-ir", [&] { show_what = "opt-ir"; }, "IR after optimisation");
  show_cmd->add_flag_callback("--asm", [&] { show_what = "asm"; }, "assembly");
  show_cmd->add_flag_callback("--ascend-c", [&] { show_what = "ascend-c"; },
                              "an ascend-sim kernel as Ascend C source (docs/ascend.md)");
  std::string ascend_c_form = "direct";
  show_cmd
      ->add_option("--ascend-c-form", ascend_c_form,
                   "--ascend-c's entry point: direct (out, inputs, tiling) or operator (an operator project's inputs, "
                   "out, workspace, tiling and GET_TILING_DATA)")
      ->check(CLI::IsMember(
          std::vector<std::string>(bcast::ascend::kAscendCFormNames.begin(), bcast::ascend::kAscendCFormNames.end())));
  auto* stats_cmd = app.add_subcommand("stats", "files, bytes and the size bound");
  auto* clear_cmd = app.add_subcommand("clear", "delete every kernel file");
  auto* verify_cmd = app.add_subcommand("verify", "check every file; report and remove bad ones");
  auto* warm_cmd = app.add_subcommand("warm", "pre-generate every broadcast type up to a rank, in parallel");
  bcast::tools::WarmRequest warm{.ops = {"add", "sub", "mul", "div"}, .dtypes = {"f32"}};
  CLI::Option* warm_ops = warm_cmd->add_option("--ops", warm.ops, "ops (default add,sub,mul,div)")->delimiter(',');
  CLI::Option* warm_dtypes = warm_cmd->add_option("--dtypes", warm.dtypes, "dtypes (default f32)")->delimiter(',');
  CLI::Option* warm_rank = warm_cmd->add_option("--max-rank", warm.max_rank, "largest rank (default 3)")
                               ->check(CLI::Range(0, bcast::kMaxPregenerateRank));
  warm_cmd->add_option("--threads", warm.threads, "compiling threads (0: all cores)")->check(CLI::NonNegativeNumber);
  auto* env_cmd = app.add_subcommand("env", "every BCAST_* setting: effective value and where it came from");
  bool markdown = false;
  env_cmd->add_flag("--markdown", markdown, "the settings table (defaults, accepted values, meanings) as docs/settings.md has it");
  // The common options go before or after the subcommand.
  for (CLI::App* sub : {list_cmd, show_cmd, stats_cmd, verify_cmd, warm_cmd, env_cmd})
    sub->add_flag("--json", as_json, "JSON output");
  for (CLI::App* sub : {list_cmd, show_cmd, stats_cmd, clear_cmd, verify_cmd, warm_cmd, env_cmd})
    sub->add_option("--dir", dir, "cache folder (default: BCAST_CACHE_DIR's effective value)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  try {
    if (!dir.empty()) bcast::set_cache_dir(dir);
    if (*env_cmd) return markdown ? env_markdown() : env(as_json);
    if (*list_cmd && !memory_dump.empty()) return list_memory(memory_dump, as_json);
    const std::string folder = bcast::config::cache_dir();
    if (folder.empty()) {
      std::cerr << "bcast-cache: the disk cache is off (BCAST_CACHE_DIR=off); pass --dir\n";
      return kExitUsage;
    }
    // Only warm makes the folder: reading one that is not there is an error.
    if (!*warm_cmd && !std::filesystem::is_directory(folder)) {
      std::cerr << "bcast-cache: the cache folder " << folder
                << " does not exist (no kernel was ever cached there; bcast-cache warm --dir makes it)\n";
      return kExitFailure;
    }
    // NOTE: [Disk cache trust]: the tool reads only a folder the library would.
    std::string why;
    const std::unique_ptr<bcast::jit::DiskCache> opened =
        bcast::jit::DiskCache::open(folder, bcast::config::cache_max_bytes(), why, warm_cmd->parsed());
    if (!opened) {
      std::cerr << "bcast-cache: refusing the cache folder: " << why << "\n";
      return kExitFailure;
    }
    const bcast::jit::DiskCache& cache = *opened;
    if (*list_cmd) return list(cache, as_json, wide);
    if (*show_cmd) return show(cache, show_arg, show_what, ascend_c_form, as_json);
    if (*stats_cmd) return stats(cache, as_json);
    if (*verify_cmd) return verify(cache, as_json);
    if (*clear_cmd) {
      std::cout << fmt::format("removed {} files from {}\n", cache.clear(), folder);
      return kExitOk;
    }
    if (*warm_cmd) {
      warm.ops_given = warm_ops->count() > 0;
      warm.dtypes_given = warm_dtypes->count() > 0;
      warm.rank_given = warm_rank->count() > 0;
      const std::size_t n = bcast::tools::run_warm(warm, as_json ? std::cerr : std::cout);
      const bcast::KernelCacheStats s = bcast::kernel_cache_stats();
      if (as_json)
        std::cout << json{{"kernels", n}, {"compiled", s.compiles}, {"from_disk", s.disk_hits}, {"failed", s.failures}}.dump() << "\n";
      else
        std::cout << fmt::format("{} kernels ready in {} ({} compiled, {} already on disk, {} failed)\n", n, folder,
                                 s.compiles, s.disk_hits, s.failures);
      return s.failures == 0 ? kExitOk : kExitFailure;
    }
  } catch (const bcast::Error& e) {
    std::cerr << "bcast-cache: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitUsage;
}
