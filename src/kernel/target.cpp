// Target names.
#include "target.h"

namespace bcast {

std::string_view target_name(TargetKind kind) { return kind == TargetKind::host ? "host" : "ascend-sim"; }

std::optional<TargetKind> parse_target(std::string_view name) {
  if (name == "host") return TargetKind::host;
  if (name == "ascend-sim") return TargetKind::ascend_sim;
  return std::nullopt;
}

}  // namespace bcast
