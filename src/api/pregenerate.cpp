// Pre-generation: every broadcast type up to a rank, compiled or loaded
// before the first call, with each variant's kernels (NOTE: [Loop variants]).
#include "bcast/prepared.h"
#include "function_table.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "config.h"
#include "error_messages.h"
#include "expr_kernel.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "targets.h"
#include "thread_pool.h"
#include "variant.h"

namespace bcast {
namespace {

// A key to compile and its spec's pin: a set of thousands of keys names more
// specs than the registry keeps unpinned (NOTE: [Interned ids]).
struct PinnedKey {
  KernelKey key;
  ExprSpecPin spec;
};

// The keys of one type: every variant row's plans at every row's thresholds.
void add_keys(std::vector<PinnedKey>& keys, std::unordered_set<KernelKey, KernelKeyHash>& seen, const Target& target,
              Op op, DType dtype, const BroadcastType& type, std::uint32_t codegen) {
  PregenerationSet set{.target = target, .type = type, .stream_min_bytes = stream_threshold(target)};
  for (const VariantRow& row : variant_table())
    if (row.pregenerate != nullptr) row.pregenerate(set);
  for (const BroadcastPlan& plan : set.plans)
    for (const std::uint64_t threshold : set.thresholds) {
      ExprSpecPin spec;
      const KernelKey key = make_kernel_key(target, op, dtype, plan, codegen, threshold, &spec);
      if (provider::emits(spec->program) && seen.insert(key).second) keys.push_back({key, std::move(spec)});
    }
}

}  // namespace

std::vector<std::string> broadcast_types_of_rank(int rank) {
  std::vector<std::string> names;
  for (const BroadcastType& t : types_of_rank(rank)) names.push_back(to_string(t));
  return names;
}

namespace {

// Every key of the set, each once.
std::vector<PinnedKey> pregeneration_keys(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank) {
  if (max_rank < 0 || max_rank > kMaxPregenerateRank)
    detail::fail(ErrorKind::value, "pregenerate: max_rank {} is outside 0..{}", max_rank, kMaxPregenerateRank);
  const Target& target = current_target();
  const std::uint32_t codegen = provider::current_codegen_id();
  std::vector<PinnedKey> keys;
  std::unordered_set<KernelKey, KernelKeyHash> seen;
  for (Op op : ops)
    for (DType dtype : dtypes)
      if (detail::supports(op, dtype))
        for (int rank = 0; rank <= max_rank; ++rank)
          for (const BroadcastType& type : types_of_rank(rank)) add_keys(keys, seen, target, op, dtype, type, codegen);
  return keys;
}

}  // namespace

std::size_t pregenerate_size(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank) {
  return pregeneration_keys(ops, dtypes, max_rank).size();
}

std::size_t pregenerate(const std::vector<Op>& ops, const std::vector<DType>& dtypes, int max_rank, int threads,
                        const PregenerateProgress& progress) {
  const std::vector<PinnedKey> keys = pregeneration_keys(ops, dtypes, max_rank);
  const Target& target = current_target();
  std::atomic<std::size_t> ready{0};
  std::size_t done = 0;
  std::mutex reporting;
  const int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // kernel_for() reports failures, never throws them; pre-generation always
  // compiles and waits (kWaitAlways), in either JIT mode.
  ThreadPool::long_jobs().run(std::min(workers, kMaxThreads), static_cast<std::int64_t>(keys.size()),
                             [&](std::int64_t i) {
                               if (provider::kernel_for(keys[i].key, target).entry != nullptr) ++ready;
                               if (!progress) return;
                               const std::lock_guard lock(reporting);
                               progress(++done, keys.size());
                             });
  return ready.load();
}

}  // namespace bcast
