// bcast's loggers.
#include "logging.h"

#include <spdlog/sinks/stdout_sinks.h>

namespace bcast::logging {
namespace {

struct Loggers {
  std::shared_ptr<spdlog::logger> core, jit;
  Loggers() {
    // One sink, so lines from both loggers never interleave mid-line.
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    core = std::make_shared<spdlog::logger>("bcast", sink);
    jit = std::make_shared<spdlog::logger>("bcast.jit", sink);
    for (auto* l : {&core, &jit}) {
      (*l)->set_level(spdlog::level::warn);
      (*l)->set_pattern("[%n] %l: %v");
    }
  }
};

Loggers& loggers() {
  static Loggers l;
  return l;
}

}  // namespace

spdlog::logger& core() { return *loggers().core; }
spdlog::logger& jit() { return *loggers().jit; }

void set_level(spdlog::level::level_enum level) {
  loggers().core->set_level(level);
  loggers().jit->set_level(level);
}

}  // namespace bcast::logging
