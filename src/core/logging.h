// bcast's spdlog loggers (NOTE: [Logging] in bcast/logging.h): "bcast" for
// the runtime, "bcast.jit" for the JIT, "bcast.verbose" for BCAST_VERBOSE's
// lines. Created together on first use and registered with spdlog; their
// lines go to stderr, or to the host's handler (set_log_handler).
#pragma once

#include <spdlog/spdlog.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace bcast::logging {

spdlog::logger& core();
spdlog::logger& jit();
spdlog::logger& verbose();

// BCAST_LOG_LEVEL: the level of core() and jit().
void set_level(spdlog::level::level_enum level);
// BCAST_VERBOSE: 0 turns verbose() off, 1 prints its info lines (one per
// prepare and per call), 2 its debug lines too (compile details).
void set_verbose_level(int level);

// NOTE: [Verbose lines] One format for every BCAST_VERBOSE line, so that
// tools can parse them as oneDNN's: "bcast_verbose;<event>;<field>;...",
// each event with its fields in a fixed order (docs/logging.md). A ';' inside
// a field becomes ',', so that splitting on ';' always gives the fields.
std::string verbose_line(std::string_view event, std::initializer_list<std::string_view> fields);

}  // namespace bcast::logging
