// NOTE: [Kernel memory]: loaded kernels run from pages that are never
// writable, and a forked child keeps the kernels it inherited while it and
// its parent load new ones.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "compile/host_compiler.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "targets.h"

namespace bcast {
namespace {

struct Mapping {
  std::uintptr_t begin = 0, end = 0;
  std::string permissions, path;
};

std::vector<Mapping> mappings() {
  std::vector<Mapping> all;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    Mapping m;
    std::string range, offset, device, inode;
    fields >> range >> m.permissions >> offset >> device >> inode;
    std::getline(fields >> std::ws, m.path);
    const std::size_t dash = range.find('-');
    m.begin = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    all.push_back(m);
  }
  return all;
}

Mapping mapping_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  for (const Mapping& m : mappings())
    if (m.begin <= at && at < m.end) return m;
  return {};
}

// Whether this system maps a memory file for execution (else bcast uses
// LLVM's in-process mapper, NOTE: [Kernel memory]).
bool executable_memory_files() {
  const int fd = static_cast<int>(::memfd_create("probe", MFD_CLOEXEC));
  if (fd < 0) return false;
  const long page = ::sysconf(_SC_PAGESIZE);
  bool ok = ::ftruncate(fd, page) == 0;
  void* view =
      ok ? ::mmap(nullptr, static_cast<std::size_t>(page), PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) : MAP_FAILED;
  ok = view != MAP_FAILED;
  if (ok) ::munmap(view, static_cast<std::size_t>(page));
  ::close(fd);
  return ok;
}

std::shared_ptr<const jit::CompiledKernel> load(Op op) {
  const KernelKey key = make_kernel_key(target_for(TargetKind::host), op, DType::f32, BroadcastType{DimCode::same},
                                        provider::current_codegen_id());
  jit::CompileResult r = jit::compile_host_kernel(key);
  EXPECT_TRUE(r.kernel) << r.error;
  return r.kernel;
}

TEST(KernelMemory, KernelsRunFromPagesThatAreNeverWritable) {
  const auto kernel = load(Op::add);
  ASSERT_TRUE(kernel);
  const Mapping m = mapping_of(kernel->entry);
  EXPECT_EQ(m.permissions.substr(0, 3), "r-x") << m.path;
  for (const Mapping& other : mappings())
    EXPECT_FALSE(other.permissions[1] == 'w' && other.permissions[2] == 'x')
        << "writable and executable: " << std::hex << other.begin << "-" << other.end << " " << other.path;
}

TEST(KernelMemory, KernelsLiveInAMemoryFileWhereTheSystemAllowsOne) {
  if (!executable_memory_files())
    GTEST_SKIP() << "this system refuses executable memory files: kernels use LLVM's in-process mapper";
  const auto kernel = load(Op::sub);
  ASSERT_TRUE(kernel);
  EXPECT_NE(mapping_of(kernel->entry).path.find("memfd:bcast-kernels"), std::string::npos)
      << mapping_of(kernel->entry).path;
}

// out = op(x, y) by the kernel bcast selects, checked against the exact
// result (small integers in f32).
bool computes(Op op, const Tensor& x, const Tensor& y) {
  const Tensor out = binary(op, x, y);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const float a = x.data_as<const float>()[i], b = y.data_as<const float>()[i];
    const float expected = op == Op::add ? a + b : op == Op::sub ? a - b : a * b;
    if (out.data_as<const float>()[i] != expected) return false;
  }
  return true;
}

void send(int fd) {
  const char byte = 1;
  ASSERT_EQ(::write(fd, &byte, 1), 1);
}
void receive(int fd) {
  char byte = 0;
  ASSERT_EQ(::read(fd, &byte, 1), 1);
}

TEST(KernelMemory, AForkedChildKeepsItsKernelsWhileItAndItsParentLoadNewOnes) {
  // After fork both processes' JITs hold the same free space: without the
  // child's own file, the child's next kernel (sub) and the parent's (mul)
  // land at the same place of one file, and the parent's overwrites the
  // child's. The pipes order it: the child loads, then the parent, then the
  // child runs its kernel again.
  const JitMode mode = jit_mode();
  const int threads = num_threads();
  set_jit_mode(JitMode::sync);
  set_num_threads(1);
  Tensor x(DType::f32, {4096}), y(DType::f32, {4096});
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    x.data_as<float>()[i] = static_cast<float>(i % 251);
    y.data_as<float>()[i] = static_cast<float>(i % 13) - 6.0f;
  }
  clear_kernel_cache();
  ASSERT_TRUE(computes(Op::add, x, y));  // inherited by the child
  int to_child[2], to_parent[2];
  ASSERT_EQ(::pipe(to_child), 0);
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    bool ok = computes(Op::sub, x, y);
    const char byte = 1;
    ok = ok && ::write(to_parent[1], &byte, 1) == 1;
    char got = 0;
    ok = ok && ::read(to_child[0], &got, 1) == 1;
    ok = ok && computes(Op::sub, x, y) && computes(Op::add, x, y);
    ::_exit(ok ? 0 : 1);
  }
  receive(to_parent[0]);
  EXPECT_TRUE(computes(Op::mul, x, y));
  send(to_child[1]);
  EXPECT_TRUE(computes(Op::mul, x, y));
  EXPECT_TRUE(computes(Op::add, x, y));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child's kernels computed wrong results";
  for (int fd : {to_child[0], to_child[1], to_parent[0], to_parent[1]}) ::close(fd);
  set_jit_mode(mode);
  set_num_threads(threads);
}

}  // namespace
}  // namespace bcast
