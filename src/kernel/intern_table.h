// A bounded registry of interned values: an id for each value, the value for
// each id, freed once nothing pins it (NOTE: [Interned ids]).
#pragma once

#include <algorithm>
#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace bcast {

// NOTE: [Interned ids] A KernelKey names its expression spec and its codegen
// settings by ids (expr_kernel.h, codegen_settings.h), so that a key stays
// small and trivially copyable. The registries behind the ids are bounded:
//  - an id names one value for the life of the process and is never reused,
//    so a stale key (a retired entry of the cache's statistics) can never
//    name another value: looking a freed id up finds nothing;
//  - a value stays registered while anything pins it, that is holds the
//    shared_ptr that intern() or find() returned: the call that made a key,
//    until it has its kernel and has run it; each slot of the kernel cache
//    whose key names it, resident or pending; each queued compile job; a
//    compile in flight; the provider's current codegen settings;
//  - of the values nothing pins, the `spare` most recently used stay as well
//    (a key made without a pin, as a parsed one, stays good while fewer than
//    `spare` other values were interned since), and the rest are freed.
// A value is unpinned when the table holds the only reference (use_count 1,
// read under the table's mutex: nobody can copy it then without the mutex).
// The sweep that frees values runs when the table has doubled since the
// last sweep: amortised O(1) per intern, and at most 2 x (pinned + spare)
// values registered at any time.
template <class T, class Id>
class InternTable {
 public:
  struct Interned {
    Id id{};
    std::shared_ptr<const T> value;  // the pin
  };

  InternTable(std::size_t spare, Id first_id) : next_(first_id), spare_(spare), sweep_at_(2 * spare + 2) {}

  // The id of the value whose identity is `identity`, registering `make()`
  // (called outside the lock) on first sight; equal identities get equal
  // ids while the value is registered.
  template <class Make>
  Interned intern(const std::string& identity, Make&& make) {
    {
      const std::lock_guard lock(mutex_);
      if (Interned found = find_locked(identity); found.value) return found;
    }
    std::shared_ptr<const T> made = make();
    const std::lock_guard lock(mutex_);
    if (Interned found = find_locked(identity); found.value) return found;  // another thread was first
    const Id id = next_++;
    lru_.push_front(id);
    Entry& e = entries_.emplace(id, Entry{std::move(made), identity, lru_.begin()}).first->second;
    ids_.emplace(std::string_view(e.identity), id);
    if (entries_.size() >= sweep_at_) sweep();
    return {id, e.value};
  }

  // The value of `id` (a pin), or null when it was never interned or was freed.
  std::shared_ptr<const T> find(Id id) {
    const std::lock_guard lock(mutex_);
    const auto it = entries_.find(id);
    if (it == entries_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second.value;
  }

  std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::shared_ptr<const T> value;
    std::string identity;                     // ids_ keys view it (map nodes never move)
    typename std::list<Id>::iterator lru;     // position in lru_
  };

  Interned find_locked(const std::string& identity) {
    const auto it = ids_.find(std::string_view(identity));
    if (it == ids_.end()) return {};
    Entry& e = entries_.at(it->second);
    lru_.splice(lru_.begin(), lru_, e.lru);
    return {it->second, e.value};
  }

  // Frees the unpinned values beyond the `spare` most recently used.
  void sweep() {
    std::size_t unpinned = 0;
    for (auto it = lru_.begin(); it != lru_.end();) {
      const auto e = entries_.find(*it);
      if (e->second.value.use_count() > 1 || ++unpinned <= spare_) {
        ++it;
        continue;
      }
      ids_.erase(std::string_view(e->second.identity));
      entries_.erase(e);
      it = lru_.erase(it);
    }
    sweep_at_ = 2 * std::max(entries_.size(), spare_ + 1);
  }

  mutable std::mutex mutex_;
  std::unordered_map<Id, Entry> entries_;
  std::unordered_map<std::string_view, Id> ids_;  // by identity
  std::list<Id> lru_;                             // most recently used first
  Id next_;
  std::size_t spare_, sweep_at_;
};

}  // namespace bcast
