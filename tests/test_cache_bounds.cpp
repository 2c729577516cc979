// The bounds of a process that runs for days (NOTE: [Queue bound], NOTE:
// [Bounded cache], NOTE: [Interned ids]): the compile queue, the pending
// slots, the counters per key and the registries of expression specs and
// codegen settings stay bounded however many distinct kernels are asked for;
// an id is never reused; what a live key names stays registered. Every
// result is checked against the chain computed in double (exact in f32).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "async_jit_fixture.h"
#include "bcast/bcast.h"
#include "broadcast_plan.h"
#include "cache/compile_queue.h"
#include "cache/kernel_cache.h"
#include "codegen_settings.h"
#include "compile/host_compiler.h"
#include "expr_kernel.h"
#include "fault_injection.h"
#include "intern_table.h"
#include "kernel_provider.h"
#include "targets.h"
#include "test_support.h"

namespace bcast {
namespace {

constexpr int kChainOps = 7;  // 3^7 = 2187 distinct chains
constexpr char kOps[] = {'+', '-', '*'};

// x, then `ops` ops with y and x in turn, op k being digit k of n in base
// 3: distinct n below 3^ops give distinct structures.
std::string chain_of(int n, int ops, const std::string& x, const std::string& y) {
  std::string text = x;
  for (int k = 0; k < ops; ++k, n /= 3) text = "(" + text + kOps[n % 3] + (k % 2 == 0 ? y : x) + ")";
  return text;
}
// Chain n, to evaluate with operands x and y.
std::string chain_text(int n) { return chain_of(n, kChainOps, "x", "y"); }
// A key's structure text (NOTE: [Expression kernels]): leaves x0 and x1.
std::string structure_text(int n, int ops) { return chain_of(n, ops, "x0", "x1"); }

// The oracle: chain n on one element, in double. Inputs 1..8 and 2..9 keep
// every value below 2^24, so f32 computes it exactly.
double chain_value(int n, double x, double y) {
  double v = x;
  for (int k = 0; k < kChainOps; ++k, n /= 3) {
    const double w = k % 2 == 0 ? y : x;
    v = n % 3 == 0 ? v + w : n % 3 == 1 ? v - w : v * w;
  }
  return v;
}

struct Inputs {
  Tensor x{DType::f32, {8}}, y{DType::f32, {8}};
  Inputs() {
    for (std::int64_t i = 0; i < 8; ++i) {
      test::set(x, i, static_cast<double>(i + 1));
      test::set(y, i, static_cast<double>(i + 2));
    }
  }
};

// Evaluates chain n; "" when every element matches the oracle, else the first bad one.
std::string run_chain(const Inputs& in, int n) {
  const Tensor got = evaluate(parse_expression(chain_text(n), {{"x", in.x}, {"y", in.y}}));
  for (std::int64_t i = 0; i < 8; ++i) {
    const double want = chain_value(n, static_cast<double>(i + 1), static_cast<double>(i + 2));
    if (test::get(got, i) != want)
      return "chain " + std::to_string(n) + " " + chain_text(n) + ": element " + std::to_string(i) + " is " +
             std::to_string(test::get(got, i)) + ", want " + std::to_string(want);
  }
  return "";
}

// Full kernels compiled (first tiers, "O2q" keys, left out).
std::uint64_t full_compiles() {
  std::uint64_t n = 0;
  for (const KernelStats& k : kernel_cache_entries())
    if (k.key.find("q.") == std::string::npos) n += k.compiles;
  return n;
}

class CacheBounds : public test::AsyncJitTest {};

TEST_F(CacheBounds, AFullQueueDropsTheOldestCompileNobodyAskedForAgainElseRefuses) {
  const Inputs in;
  const test::ScopedSetting bound("BCAST_JIT_QUEUE", "2");
  std::optional<fault::Armed> hold(fault::Fault::hold_compile);
  EXPECT_EQ(run_chain(in, 0), "");
  jit::compile_queue().wait_taken();  // chain 0's job runs, held
  EXPECT_EQ(run_chain(in, 1), "");
  EXPECT_EQ(run_chain(in, 2), "");
  ASSERT_EQ(jit::compile_queue().waiting(), 2u);
  EXPECT_EQ(run_chain(in, 1), "");  // chain 1 is wanted again
  EXPECT_EQ(run_chain(in, 3), "");  // full: chain 2's job (unwanted) makes room
  KernelCacheStats s = kernel_cache_stats();
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.refused, 0u);
  EXPECT_EQ(jit::compile_queue().waiting(), 2u);
  EXPECT_EQ(run_chain(in, 3), "");  // chain 3 is wanted again
  EXPECT_EQ(run_chain(in, 4), "");  // full of wanted jobs: refused
  s = kernel_cache_stats();
  EXPECT_EQ(s.dropped, 1u);
  EXPECT_EQ(s.refused, 1u);
  EXPECT_EQ(jit::compile_queue().waiting(), 2u);
  EXPECT_EQ(s.pending, 6u) << "chains 0, 1 and 3: each a full kernel and its first tier";
  EXPECT_EQ(s.fallback_calls, 7u) << "every call ran the evaluator";
  hold.reset();
  wait_for_compiles();
  EXPECT_EQ(full_compiles(), 3u) << "chains 0, 1 and 3";
  // A dropped or refused key queues at a later call.
  EXPECT_EQ(run_chain(in, 2), "");
  EXPECT_EQ(run_chain(in, 4), "");
  wait_for_compiles();
  EXPECT_EQ(full_compiles(), 5u);
  EXPECT_EQ(kernel_cache_stats().pending, 0u);
}

TEST_F(CacheBounds, PendingCompilesNeverPushFinishedKernelsOut) {
  const Inputs in;
  set_kernel_cache_capacity(2);
  set_jit_mode(JitMode::sync);
  EXPECT_EQ(run_chain(in, 10), "");
  EXPECT_EQ(run_chain(in, 11), "");
  set_jit_mode(JitMode::async);
  std::optional<fault::Armed> hold(fault::Fault::hold_compile);
  EXPECT_EQ(run_chain(in, 12), "");  // pending: its kernel and its first tier
  set_kernel_cache_capacity(2);      // told again: the cache fits itself to it
  KernelCacheStats s = kernel_cache_stats();
  EXPECT_EQ(s.evictions, 0u) << "the two finished kernels fit; the pending slots do not count";
  EXPECT_EQ(s.resident, 4u);
  EXPECT_EQ(s.pending, 2u);
  hold.reset();
  wait_for_compiles();
  s = kernel_cache_stats();
  EXPECT_EQ(s.pending, 0u);
  EXPECT_EQ(s.evictions, 3u) << "chains 10 and 11 for chain 12's two tiers, then its first tier for its full kernel";
  EXPECT_EQ(s.resident, 1u) << "chain 12's full kernel";
  set_kernel_cache_capacity(1024);
}

TEST_F(CacheBounds, CountersAndSpecsOfKeysThatLeftAreBounded) {
  // NOTE: [Queue bound]: with one held job and room for one more, each new
  // chain takes the place of the one before (nobody asks for it again): its
  // key leaves the cache at once, as after an eviction.
  const Inputs in;
  const test::ScopedSetting bound("BCAST_JIT_QUEUE", "1");
  const fault::Armed hold(fault::Fault::hold_compile);
  EXPECT_EQ(run_chain(in, 0), "");
  jit::compile_queue().wait_taken();
  const int chains = 2 * static_cast<int>(kSpareExprSpecs) + 100;  // enough to make the spec registry sweep
  ASSERT_LT(chains, 2187) << "distinct chains: 3^kChainOps";
  int wrong = 0;
  for (int n = 1; n <= chains; ++n)
    if (const std::string why = run_chain(in, n); !why.empty() && wrong++ < 3) ADD_FAILURE() << why;
  const KernelCacheStats s = kernel_cache_stats();
  EXPECT_EQ(s.dropped, static_cast<std::uint64_t>(chains - 1));
  EXPECT_EQ(s.resident, 4u) << "the held job's two slots, the waiting one's two";
  EXPECT_LE(kernel_cache_entries().size(), s.resident + jit::kRetiredKeyStats) << "the resident keys and the last to leave";
  EXPECT_GE(kernel_cache_entries().size(), jit::kRetiredKeyStats);
  // NOTE: [Interned ids]: at most 2 x (pinned + spare) specs.
  EXPECT_LE(registered_expr_kernels(), 2 * (kSpareExprSpecs + s.resident + 1));
}

TEST_F(CacheBounds, ACachedKeysSpecOutlivesAnySweep) {
  // The cache's slot pins the spec its key names: thousands of specs
  // interned since and swept do not free it, so the same expression finds
  // its kernel again instead of a new id and a second compile.
  const Inputs in;
  set_jit_mode(JitMode::sync);
  EXPECT_EQ(run_chain(in, 5), "");
  ASSERT_EQ(full_compiles(), 1u);
  const Layout one = Layout::contiguous({8});
  const BroadcastPlan plan = plan_broadcast(one, std::vector<const Layout*>{&one, &one});
  const std::vector<LeafType> f32s(2, LeafType{ScalarKind::strong, DType::f32});
  for (int n = 0; n < 3 * static_cast<int>(kSpareExprSpecs); ++n)  // unpinned once made: swept
    make_expr_kernel_key(target_for(TargetKind::host), structure_text(n, kChainOps + 1), f32s, {}, plan,
                         provider::current_codegen_id());
  EXPECT_EQ(run_chain(in, 5), "");
  EXPECT_EQ(full_compiles(), 1u) << "chain 5's key was found again: its spec kept its id";
  EXPECT_LE(registered_expr_kernels(), 2 * (kSpareExprSpecs + 2));
}

TEST(InternedIds, UnpinnedValuesGoPinnedOnesStayAndIdsAreNeverReused) {
  InternTable<std::string, std::uint64_t> table(2, 1);
  const auto make = [](std::string v) { return [v] { return std::make_shared<const std::string>(v); }; };
  const auto pinned = table.intern("p", make("p"));
  const std::uint64_t first = table.intern("a", make("a")).id;  // its pin dropped at once
  std::uint64_t last = first;
  for (int i = 0; i < 100; ++i) {
    const auto got = table.intern("v" + std::to_string(i), make("v" + std::to_string(i)));
    EXPECT_EQ(*got.value, "v" + std::to_string(i));
    EXPECT_GT(got.id, last);
    last = got.id;
    EXPECT_LE(table.size(), 2u * (1 + 2 + 1)) << "at most 2 x (pinned + spare + 1)";
  }
  EXPECT_EQ(table.find(pinned.id), pinned.value) << "a pinned value stays, the same object";
  EXPECT_EQ(table.find(first), nullptr) << "an unpinned one was freed";
  const auto again = table.intern("a", make("a"));
  EXPECT_GT(again.id, last) << "re-interned after it was freed: a new id, never an old one";
  EXPECT_EQ(table.intern("p", make("p")).id, pinned.id);
}

TEST(InternedIds, ThreadsInterningWhileOthersSweepAlwaysGetTheirOwnValue) {
  InternTable<std::string, std::uint64_t> table(4, 1);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<InternTable<std::string, std::uint64_t>::Interned> kept;  // every 10th value, pinned
      for (int i = 0; i < 2000; ++i) {
        const std::string v = std::to_string(t) + ":" + std::to_string(i % 300);
        auto got = table.intern(v, [&] { return std::make_shared<const std::string>(v); });
        if (*got.value != v) ++wrong;
        if (const auto found = table.find(got.id); found != got.value) ++wrong;  // pinned: found, itself
        if (i % 10 == 0) kept.push_back(std::move(got));
      }
      for (const auto& k : kept)
        if (table.find(k.id) != k.value) ++wrong;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(InternedIds, TheCodegenRegistryIsBoundedAndTheCurrentSettingsStay) {
  clear_kernel_cache();  // its slots pin settings too
  const std::uint32_t current = provider::current_codegen_id();
  CodegenSettings s = jit::host_codegen_settings(2);
  for (int i = 0; i < 300; ++i) {
    s.vector_width_bits = 200000 + i;
    intern_codegen_settings(s);
  }
  EXPECT_LE(registered_codegen_settings(), 2 * (kSpareCodegenSettings + 2 + 1)) << "current and first tier pinned";
  EXPECT_EQ(provider::current_codegen_id(), current);
  EXPECT_NO_THROW(codegen_settings(current));
  const Tensor a = test::make(DType::f32, {4}, {1, 2, 3, 4}), b = test::make(DType::f32, {4}, {10, 20, 30, 40});
  const Tensor c = add(a, b);  // compiles with the current settings
  EXPECT_EQ(test::get(c, 3), 44.0);
  EXPECT_EQ(kernel_cache_stats().failures, 0u);
}

}  // namespace
}  // namespace bcast
