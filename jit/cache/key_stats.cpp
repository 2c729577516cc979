// The kernel cache's counters per key (NOTE: [Bounded cache]).
#include "cache/key_stats.h"

namespace bcast::jit {

KernelStats& KeyStatsTable::at(const KernelKey& key) {
  auto [it, made] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (made) {
    e.stats.key = key.to_string();
    touch_retired(key, e);
  } else if (e.retired) {
    touch_retired(key, e);
  }
  // touch_retired may have trimmed others, never the entry it just put first.
  return e.stats;
}

KernelStats& KeyStatsTable::make_resident(const KernelKey& key) {
  KernelStats& s = at(key);
  Entry& e = entries_.at(key);
  if (e.retired) {
    retired_.erase(*e.retired);
    e.retired.reset();
  }
  s.resident = true;
  return s;
}

void KeyStatsTable::retire(const KernelKey& key) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return;
  it->second.stats.resident = false;
  it->second.stats.code_bytes = 0;
  touch_retired(key, it->second);
}

void KeyStatsTable::forget_retired() {
  for (const KernelKey& key : retired_) entries_.erase(key);
  retired_.clear();
}

void KeyStatsTable::touch_retired(const KernelKey& key, Entry& e) {
  if (e.retired) retired_.erase(*e.retired);
  retired_.push_front(key);
  e.retired = retired_.begin();
  while (retired_.size() > retired_bound_) {
    entries_.erase(retired_.back());
    retired_.pop_back();
  }
}

}  // namespace bcast::jit
