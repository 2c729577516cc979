// The kernel cache's statistics as JSON.
#include "stats_json.h"

namespace bcast {

nlohmann::json cache_totals_json(const KernelCacheStats& s) {
  return {{"hits", s.hits},
          {"misses", s.misses},
          {"disk_hits", s.disk_hits},
          {"compiles", s.compiles},
          {"failures", s.failures},
          {"evictions", s.evictions},
          {"compile_ms", s.compile_ms},
          {"resident", s.resident},
          {"pending", s.pending},
          {"capacity", s.capacity},
          {"code_bytes", s.code_bytes},
          {"fallback_calls", s.fallback_calls},
          {"waits", s.waits},
          {"queued", s.queued},
          {"queue_peak", s.queue_peak},
          {"refused", s.refused},
          {"dropped", s.dropped},
          {"jit_mode", jit_mode() == JitMode::async ? "async" : "sync"}};
}

nlohmann::json cache_entries_json(const std::vector<KernelStats>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const KernelStats& s : entries)
    list.push_back({{"key", s.key}, {"hits", s.hits}, {"misses", s.misses}, {"disk_hits", s.disk_hits},
                    {"compiles", s.compiles}, {"failures", s.failures}, {"compile_ms", s.compile_ms},
                    {"fallback_calls", s.fallback_calls}, {"code_bytes", s.code_bytes}, {"resident", s.resident}});
  return list;
}

nlohmann::json phases_json(const CompilePhases& p) {
  return {{"setup_us", p.setup_us},       {"target_machine_us", p.target_machine_us},
          {"emit_ir_us", p.emit_ir_us},   {"verify_us", p.verify_us},
          {"optimise_us", p.optimise_us}, {"codegen_us", p.codegen_us},
          {"link_us", p.link_us},         {"read_us", p.read_us}};
}

}  // namespace bcast
