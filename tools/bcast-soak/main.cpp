// bcast-soak SECONDS: a long-running mix of what grows a process's memory
// (new expression structures, repeated ones, binary ops, prepared
// expressions, threads, evictions, cache clears, setting changes), every
// result checked; every few seconds it prints the RSS, the compile queue and
// the resident entries, and it fails past the bounds of docs/cache.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "bcast/bcast.h"
#include "bcast/config.h"
#include "cache/kernel_cache.h"
#include "codegen_settings.h"
#include "expr_kernel.h"
#include "manual_page.h"
#include "workload.h"

namespace bcast::tools::soak {
namespace {

constexpr int kExitOk = 0, kExitFailure = 1, kExitUsage = 2;

double rss_mib() {
  long pages = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1 << 20);
}

struct Snapshot {
  double seconds = 0, rss = 0;
  KernelCacheStats cache;
  std::size_t entries = 0, retired = 0, specs = 0, codegen = 0;  // retired: entries of keys not resident
};

Snapshot snapshot(double seconds) {
  Snapshot s{.seconds = seconds, .rss = rss_mib(), .cache = kernel_cache_stats()};
  // One listing for both counts: the cache moves on between two reads.
  const std::vector<KernelStats> entries = kernel_cache_entries();
  s.entries = entries.size();
  s.retired = static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(), [](const KernelStats& k) {
    return !k.resident;
  }));
  s.specs = registered_expr_kernels();
  s.codegen = registered_codegen_settings();
  return s;
}

// A stated bound: what is measured, its value and its limit.
struct Bound {
  std::string what;
  double value, limit;
  std::string why;
};

// The bounds of docs/cache.md for the largest settings the churn uses, with
// `threads` callers (each may compile or read the disk with a slot of its own).
std::vector<Bound> bounds(const Snapshot& s, double rss_baseline, double rss_growth, int threads) {
  const double pending = 2.0 * (kMaxQueue + 1) + 2.0 * threads;
  const double resident = kMaxCapacity + pending;
  std::vector<Bound> b{
      {"queued", double(s.cache.queued), kMaxQueue + 1.0, "BCAST_JIT_QUEUE's largest, and the running job"},
      {"pending", double(s.cache.pending), pending, "2 x (queue bound + 1) + 2 per calling thread"},
      {"resident", double(s.cache.resident), resident, "the largest capacity, and the pending"},
      {"entries of keys not resident", double(s.retired), double(bcast::jit::kRetiredKeyStats),
       "the 1,024 that left last"},
      {"specs", double(s.specs), 2.0 * (kSpareExprSpecs + resident + threads + 1),
       "2 x (pinned + 1,024 spare): NOTE: [Interned ids]"},
      {"codegen", double(s.codegen), 2.0 * (kSpareCodegenSettings + resident + 3), "2 x (pinned + 16 spare)"}};
  if (rss_baseline > 0)
    b.push_back({"rss MiB", s.rss, rss_baseline + rss_growth, fmt::format("{:.1f} after the warm-up, + {:.0f}",
                                                                          rss_baseline, rss_growth)});
  return b;
}

void print(const Snapshot& s, const Counts& c, double baseline) {
  std::printf("t=%5.0fs rss %6.1f MiB%s queued %3zu pending %3zu resident %4zu/%zu entries %4zu specs %4zu codegen %2zu"
              " | evals %llu new %llu binary %llu prepared %llu compiles %llu evictions %llu dropped %llu refused %llu"
              " clears %llu\n",
              s.seconds, s.rss, baseline > 0 ? fmt::format(" ({:+.1f})", s.rss - baseline).c_str() : "",
              s.cache.queued, s.cache.pending, s.cache.resident, s.cache.capacity, s.entries, s.specs, s.codegen,
              (unsigned long long)c.evaluations, (unsigned long long)c.new_structures,
              (unsigned long long)c.binary_calls, (unsigned long long)c.prepared_calls,
              (unsigned long long)(s.cache.compiles + c.cleared_compiles),
              (unsigned long long)(s.cache.evictions + c.cleared_evictions),
              (unsigned long long)(s.cache.dropped + c.cleared_dropped),
              (unsigned long long)(s.cache.refused + c.cleared_refused),
              (unsigned long long)c.clears.load());
  std::fflush(stdout);
}

struct Options {
  double seconds = 0, every = 5, warmup = -1, rss_growth = 64;
  int threads = 4, churn_ms = 700;
};

// Prints each bound `s` breaks; how many.
int check(const Snapshot& s, double baseline, const Options& o) {
  int broken = 0;
  for (const Bound& b : bounds(s, baseline, o.rss_growth, o.threads))
    if (b.value > b.limit) {
      std::printf("  BOUND BROKEN: %s %.1f > %.1f (%s)\n", b.what.c_str(), b.value, b.limit, b.why.c_str());
      ++broken;
    }
  return broken;
}

// Runs the soak; the number of bounds broken and wrong results.
int soak(const Options& o) {
  std::atomic<bool> stop{false};
  Counts counts;
  std::vector<std::thread> threads;
  for (int t = 0; t < o.threads; ++t) threads.emplace_back([&, t] { work(t + 1, stop, counts); });
  threads.emplace_back([&] { churn(o.churn_ms, stop, counts); });
  const auto start = std::chrono::steady_clock::now();
  const double warmup = o.warmup >= 0 ? o.warmup : std::min(30.0, o.seconds / 10);
  double baseline = 0, peak = 0;
  int broken = 0;
  for (double next = o.every;; next += o.every) {
    const double t = std::min(next, o.seconds);
    std::this_thread::sleep_until(start + std::chrono::duration<double>(t));
    const Snapshot s = snapshot(t);
    if (baseline == 0 && t >= warmup) baseline = s.rss;
    peak = std::max(peak, s.rss);
    print(s, counts, baseline);
    broken += check(s, baseline, o);
    if (t >= o.seconds) break;
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  wait_for_compiles();
  const Snapshot end = snapshot(o.seconds);
  broken += check(end, baseline, o);  // the queue drained: its kernels in
  std::printf("done after %.0f s: rss %.1f MiB at the end, %.1f at most, %.1f after the %.0f s warm-up; "
              "%llu evaluations (%llu new structures), %llu binary and %llu prepared calls, %llu wrong; "
              "%llu compiles, %llu evictions, %llu compiles dropped, %llu refused; "
              "%llu clears, %llu setting changes; %d bounds broken\n",
              o.seconds, end.rss, peak, baseline, warmup, (unsigned long long)counts.evaluations,
              (unsigned long long)counts.new_structures, (unsigned long long)counts.binary_calls,
              (unsigned long long)counts.prepared_calls, (unsigned long long)counts.wrong,
              (unsigned long long)(end.cache.compiles + counts.cleared_compiles),
              (unsigned long long)(end.cache.evictions + counts.cleared_evictions),
              (unsigned long long)(end.cache.dropped + counts.cleared_dropped),
              (unsigned long long)(end.cache.refused + counts.cleared_refused), (unsigned long long)counts.clears,
              (unsigned long long)counts.setting_changes, broken);
  if (counts.wrong > 0) std::printf("  first wrong result: %s\n", counts.first_wrong.c_str());
  return broken + static_cast<int>(counts.wrong > 0);
}

}  // namespace
}  // namespace bcast::tools::soak

int main(int argc, char** argv) {
  using namespace bcast::tools::soak;
  Options o;
  CLI::App app{"bcast-soak: runs new and repeated expressions, binary ops and prepared expressions on several threads "
               "while the cache is cleared and its settings change, checks every result, prints the RSS, the compile "
               "queue and the resident entries every few seconds, and fails past the bounds of docs/cache.md",
               "bcast-soak"};
  app.add_option("seconds", o.seconds, "how long to run")->required()->check(CLI::PositiveNumber);
  app.add_option("--threads", o.threads, "worker threads")->check(CLI::Range(1, 64));
  app.add_option("--every", o.every, "seconds between reports")->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "seconds before the RSS baseline is taken (default: a tenth, at most 30)");
  app.add_option("--rss-growth-mib", o.rss_growth, "the most the RSS may grow past the baseline");
  app.add_option("--churn-ms", o.churn_ms, "milliseconds between cache clears and setting changes")
      ->check(CLI::Range(1, 100000));
  app.footer(bcast::tools::manual_line("reliability.md"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  // The disk cache stays out of the user's folder: a fresh one of our own.
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / fmt::format("bcast-soak-{}", ::getpid());
  bcast::set_cache_dir(folder.string());
  const int failures = soak(o);
  std::error_code ec;
  std::filesystem::remove_all(folder, ec);
  return failures == 0 ? kExitOk : kExitFailure;
}
