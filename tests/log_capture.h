// Captures what one of bcast's spdlog loggers writes, for a scope: the tests
// count and read the lines without parsing stderr.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

namespace bcast::test {

class LogCapture {
 public:
  explicit LogCapture(spdlog::logger& logger)
      : logger_(logger), sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    sink_->set_pattern("[%n] %l: %v");
    logger_.sinks().push_back(sink_);
  }
  ~LogCapture() { std::erase(logger_.sinks(), sink_); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::string text() const { return text_.str(); }
  // Lines that contain `part`.
  int count(std::string_view part) const {
    std::istringstream in(text());
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find(part) != std::string::npos;
    return n;
  }

 private:
  spdlog::logger& logger_;
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

}  // namespace bcast::test
