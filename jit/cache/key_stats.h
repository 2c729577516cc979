// The kernel cache's counters per key, bounded: every resident key's, and
// those of the keys that left most recently (NOTE: [Bounded cache]).
#pragma once

#include <cstddef>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "bcast/runtime.h"
#include "kernel_key.h"

namespace bcast::jit {

// Not thread-safe: the cache calls it under its lock. Entries never move, so
// a slot may keep a pointer to its key's entry while the key is resident.
class KeyStatsTable {
 public:
  explicit KeyStatsTable(std::size_t retired_bound) : retired_bound_(retired_bound) {}

  // The entry of `key`, made with its text on first sight. A key without a
  // slot (its calls ran the fallback, or it left) counts as retired: it is
  // kept among the most recently used retired_bound ones.
  KernelStats& at(const KernelKey& key);
  // A slot opened for `key`: its entry stays while it is resident.
  KernelStats& make_resident(const KernelKey& key);
  // `key`'s slot left (evicted, cleared, given up): resident false, no code.
  void retire(const KernelKey& key);
  // Forgets every entry of a key without a slot (clear()).
  void forget_retired();

  std::size_t size() const { return entries_.size(); }
  std::size_t retired() const { return retired_.size(); }
  // Every entry, resident or retired.
  template <class F>
  void for_each(F&& f) const {
    for (const auto& [key, e] : entries_) f(key, e.stats);
  }

 private:
  struct Entry {
    KernelStats stats;
    std::optional<std::list<KernelKey>::iterator> retired;  // its place in retired_, when it has no slot
  };
  void touch_retired(const KernelKey& key, Entry& e);  // to the front of retired_, trimming the oldest

  std::unordered_map<KernelKey, Entry, KernelKeyHash> entries_;
  std::list<KernelKey> retired_;  // keys without a slot, most recently used first
  std::size_t retired_bound_;
};

}  // namespace bcast::jit
