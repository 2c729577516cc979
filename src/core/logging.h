// bcast's spdlog loggers: "bcast" for the runtime, "bcast.jit" for the JIT.
// Created together, on first use; their level follows BCAST_LOG_LEVEL.
#pragma once

#include <spdlog/spdlog.h>

namespace bcast::logging {

spdlog::logger& core();
spdlog::logger& jit();
void set_level(spdlog::level::level_enum level);

}  // namespace bcast::logging
