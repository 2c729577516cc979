// bcast's loggers and the sink that routes their lines (NOTE: [Logging]).
#include "logging.h"

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "bcast/logging.h"

namespace bcast::logging {
namespace {

LogLevel level_of(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return LogLevel::trace;
    case spdlog::level::debug: return LogLevel::debug;
    case spdlog::level::info: return LogLevel::info;
    case spdlog::level::warn: return LogLevel::warn;
    default: return LogLevel::error;
  }
}

// The one sink of the three loggers, so that their lines never interleave
// mid-line: each line goes to the host's handler when one is set, else to
// stderr as "[logger] level: message" (a verbose line as it is).
class RoutingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void set_handler(LogHandler handler) {
    const std::lock_guard lock(mutex_);
    handler_ = std::move(handler);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string_view logger(msg.logger_name.data(), msg.logger_name.size());
    const std::string_view text(msg.payload.data(), msg.payload.size());
    if (handler_) {
      handler_(LogRecord{logger, level_of(msg.level), text});
      return;
    }
    std::string line;
    if (logger != kLoggerNames[2]) {
      const spdlog::string_view_t level = spdlog::level::to_string_view(msg.level);
      line = fmt::format("[{}] {}: ", logger, std::string_view(level.data(), level.size()));
    }
    line.append(text).push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  LogHandler handler_;
};

struct Loggers {
  std::shared_ptr<RoutingSink> sink = std::make_shared<RoutingSink>();
  std::shared_ptr<spdlog::logger> core = make(kLoggerNames[0], spdlog::level::warn);
  std::shared_ptr<spdlog::logger> jit = make(kLoggerNames[1], spdlog::level::warn);
  std::shared_ptr<spdlog::logger> verbose = make(kLoggerNames[2], spdlog::level::off);

  // The host's logger of that name when it registered one first, else ours,
  // registered.
  std::shared_ptr<spdlog::logger> make(std::string_view name, spdlog::level::level_enum level) {
    if (std::shared_ptr<spdlog::logger> host = spdlog::get(std::string(name))) return host;
    auto logger = std::make_shared<spdlog::logger>(std::string(name), sink);
    logger->set_level(level);
    try {
      spdlog::register_logger(logger);
    } catch (const spdlog::spdlog_ex&) {
      // Registered by another thread since the look-up: ours still logs, unregistered.
    }
    return logger;
  }
};

Loggers& loggers() {
  static Loggers l;
  return l;
}

}  // namespace

spdlog::logger& core() { return *loggers().core; }
spdlog::logger& jit() { return *loggers().jit; }
spdlog::logger& verbose() { return *loggers().verbose; }

void set_level(spdlog::level::level_enum level) {
  loggers().core->set_level(level);
  loggers().jit->set_level(level);
}

void set_verbose_level(int level) {
  loggers().verbose->set_level(level <= 0 ? spdlog::level::off : level == 1 ? spdlog::level::info : spdlog::level::debug);
}

std::string verbose_line(std::string_view event, std::initializer_list<std::string_view> fields) {
  std::string line = "bcast_verbose;";
  line += event;
  for (std::string_view f : fields) {
    line += ';';
    for (char c : f) line += c == ';' ? ',' : c;
  }
  return line;
}

}  // namespace bcast::logging

namespace bcast {

void set_log_handler(LogHandler handler) { logging::loggers().sink->set_handler(std::move(handler)); }

}  // namespace bcast
