// Where bcast's log lines go, for a host application that has its own
// logging (NOTE: [Logging]).
#pragma once

#include <array>
#include <functional>
#include <string_view>

namespace bcast {

// NOTE: [Logging] bcast writes through three spdlog loggers, registered in
// spdlog's registry under these names (spdlog::get("bcast.jit")):
//   bcast          the runtime: settings, threads, dispatch and fallbacks;
//   bcast.jit      the JIT: kernel keys and variants, cache outcomes, compiles;
//   bcast.verbose  BCAST_VERBOSE's lines, in their own format (docs/logging.md).
// The first two follow BCAST_LOG_LEVEL (set_log_level), the third
// BCAST_VERBOSE (set_verbose). By default every line goes to stderr. A host
// takes them over in one of two ways:
//   - set_log_handler(): every line, with its logger and level, goes to the
//     handler instead of stderr (for a host that logs with anything);
//   - spdlog's registry: a host built on spdlog finds the loggers by name and
//     adds sinks or changes their patterns; a logger of one of these names
//     that the host registered before bcast's first line is used as it is.
inline constexpr std::array<std::string_view, 3> kLoggerNames{"bcast", "bcast.jit", "bcast.verbose"};

enum class LogLevel { trace, debug, info, warn, error };

struct LogRecord {
  std::string_view logger;   // one of kLoggerNames
  LogLevel level;
  std::string_view message;  // one line, no trailing newline
};

using LogHandler = std::function<void(const LogRecord&)>;

// Sends every line of bcast's loggers to `handler` instead of stderr; an
// empty handler sends them back to stderr. The handler runs on the thread
// that logs, one line at a time (never two at once), and must not call bcast.
void set_log_handler(LogHandler handler);

}  // namespace bcast
