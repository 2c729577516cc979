// Compiles in a child process (NOTE: [Isolated compiles]).
#include "compile/isolated_compile.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "fault_injection.h"

namespace bcast::jit {
namespace {

// The reply: four length-prefixed fields, then code bytes and compile time.
void put(std::string& out, const void* data, std::size_t n) { out.append(static_cast<const char*>(data), n); }
void put_field(std::string& out, const char* data, std::size_t n) {
  const std::uint64_t size = n;
  put(out, &size, sizeof size);
  put(out, data, n);
}

std::string encode(const CompiledObject& o) {
  std::string out;
  put_field(out, o.error.data(), o.error.size());
  put_field(out, o.symbol.data(), o.symbol.size());
  put_field(out, o.object.data(), o.object.size());
  const std::uint64_t code_bytes = o.code_bytes;
  put(out, &code_bytes, sizeof code_bytes);
  put(out, &o.compile_ms, sizeof o.compile_ms);
  put(out, &o.phases, sizeof o.phases);
  return out;
}

bool decode(const std::string& in, CompiledObject& o) {
  std::size_t at = 0;
  const auto take = [&](void* data, std::size_t n) {
    if (in.size() - at < n) return false;
    std::memcpy(data, in.data() + at, n);
    at += n;
    return true;
  };
  const auto take_field = [&](auto& field) {
    std::uint64_t size = 0;
    if (!take(&size, sizeof size) || in.size() - at < size) return false;
    field.assign(in.data() + at, in.data() + at + size);
    at += size;
    return true;
  };
  std::uint64_t code_bytes = 0;
  if (!take_field(o.error) || !take_field(o.symbol) || !take_field(o.object) || !take(&code_bytes, sizeof code_bytes) ||
      !take(&o.compile_ms, sizeof o.compile_ms) || !take(&o.phases, sizeof o.phases) || at != in.size())
    return false;
  o.code_bytes = code_bytes;
  return true;
}

[[noreturn]] void run_child(int out, const KernelKey& key, const std::string& dump_dir) {
  if (fault::armed(fault::Fault::child_abort)) std::abort();  // as LLVM's fatal errors end a process
  const std::string reply = encode(compile_object(key, dump_dir));
  for (std::size_t at = 0; at < reply.size();) {
    const ssize_t n = ::write(out, reply.data() + at, reply.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(3);
    at += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

CompiledObject failed(std::string why) {
  CompiledObject o;
  o.error = "isolated compile: " + std::move(why);
  return o;
}

}  // namespace

CompiledObject compile_object_isolated(const KernelKey& key, const std::string& dump_dir) {
  const auto start = std::chrono::steady_clock::now();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return failed(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return failed(std::string("fork: ") + std::strerror(error));
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(fds[1], key, dump_dir);
  }
  ::close(fds[1]);
  std::string reply;
  bool timed_out = false;
  const auto deadline = start + std::chrono::milliseconds(kIsolatedCompileLimitMs);
  for (char buffer[65536];;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd p{fds[0], POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timed_out = true;
      ::kill(child, SIGKILL);
      break;
    }
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end: done or dead
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) return failed("the child ran past " + std::to_string(kIsolatedCompileLimitMs) + " ms and was killed");
  if (WIFSIGNALED(status))
    return failed("the child died of signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                  ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return failed("the child exited with status " + std::to_string(WEXITSTATUS(status)));
  CompiledObject object;
  if (!decode(reply, object)) return failed("the child's reply is malformed");
  if (object.error.empty())
    object.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return object;
}

}  // namespace bcast::jit
