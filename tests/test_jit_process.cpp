// The JIT and the process around it: compiles in a child process, so that
// LLVM aborting costs a fallback (NOTE: [Isolated compiles]), and what
// profilers and debuggers see of the kernels (NOTE: [Profilers]). Results
// are checked against the oracle (oracle.cpp).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "bcast/bcast.h"
#include "broadcast_plan.h"
#include "compile/host_compiler.h"
#include "dispatch.h"
#include "fault_injection.h"
#include "log_capture.h"
#include "logging.h"
#include "oracle.h"
#include "test_support.h"

// gdb's JIT interface (the GDB manual's "JIT Compilation Interface"): the
// descriptor gdb reads, __jit_debug_descriptor, which LLVM's registrar fills;
// found at run time, wherever LLVM is linked.
struct jit_code_entry {
  jit_code_entry* next_entry;
  jit_code_entry* prev_entry;
  const char* symfile_addr;
  std::uint64_t symfile_size;
};
struct jit_descriptor {
  std::uint32_t version;
  std::uint32_t action_flag;
  jit_code_entry* relevant_entry;
  jit_code_entry* first_entry;
};

namespace bcast {
namespace {

// Each test compiles in sync mode, with an empty memory cache (no disk:
// ctest sets BCAST_CACHE_DIR=off).
class JitProcess : public ::testing::Test {
 protected:
  void SetUp() override { clear_kernel_cache(); }
  void TearDown() override {
    set_setting("BCAST_JIT_ISOLATE", "0");
    set_setting("BCAST_PROFILE", "off");
  }
  // [64,7] + [7] in f32 with exact values, checked against the oracle.
  std::string run_and_check() {
    for (std::int64_t i = 0; i < a.numel(); ++i) test::set(a, i, static_cast<double>(i % 13));
    for (std::int64_t i = 0; i < b.numel(); ++i) test::set(b, i, 0.5 * static_cast<double>(i));
    return test::oracle_mismatch(Op::add, a, b, add(a, b));
  }
  // The kernel a call takes now.
  SelectedKernel kernel_now() const {
    const Tensor out(DType::f32, {64, 7});
    return select_kernel(Op::add, DType::f32, plan_broadcast(out.layout(), a.layout(), b.layout()));
  }
  Tensor a{DType::f32, {64, 7}}, b{DType::f32, {7}};
};

TEST_F(JitProcess, AnIsolatedCompileGivesAWorkingKernel) {
  set_setting("BCAST_JIT_ISOLATE", "1");
  EXPECT_EQ(run_and_check(), "");
  EXPECT_TRUE(kernel_now().jit);
  EXPECT_EQ(kernel_cache_stats().compiles, 1u);
  EXPECT_EQ(kernel_cache_stats().failures, 0u);
}

TEST_F(JitProcess, AnIsolatedChildThatAbortsIsAFailedCompileNotACrash) {
  set_setting("BCAST_JIT_ISOLATE", "1");
  test::LogCapture log(logging::jit());
  {
    const fault::Armed abort_child(fault::Fault::child_abort);
    EXPECT_EQ(run_and_check(), "");  // on the fallback
  }
  EXPECT_EQ(kernel_now().outcome, Outcome::failed);
  EXPECT_EQ(kernel_cache_stats().failures, 1u);
  EXPECT_EQ(log.count("the child died of signal 6"), 1) << log.text();
}

// The run writes perf's map, naming each kernel by its key at the address
// calls jump to.
TEST_F(JitProcess, PerfProfilingNamesEachKernelInTheMapFile) {
  std::remove(jit::perf_map_path().c_str());
  set_setting("BCAST_PROFILE", "perf");
  EXPECT_EQ(run_and_check(), "");
  const SelectedKernel k = kernel_now();
  ASSERT_TRUE(k.jit);
  const std::string key = kernel_key_for(Op::add, DType::f32, Layout::contiguous({64, 7}), a.layout(), b.layout());
  std::ifstream map(jit::perf_map_path());
  ASSERT_TRUE(map) << jit::perf_map_path();
  int lines = 0;
  for (std::string line; std::getline(map, line);) {
    std::istringstream fields(line);
    unsigned long long address = 0, size = 0;
    std::string name;
    fields >> std::hex >> address >> size >> name;
    if (name != key) continue;
    ++lines;
    EXPECT_EQ(address, reinterpret_cast<std::uintptr_t>(k.fn)) << line;
    EXPECT_GT(size, 16u) << line;
  }
  EXPECT_EQ(lines, 1) << "lines for " << key;
  std::remove(jit::perf_map_path().c_str());
}

// With gdb on, each kernel's object is in gdb's JIT list, naming the kernel.
TEST_F(JitProcess, GdbProfilingRegistersEachKernelWithGdbsJitInterface) {
  set_setting("BCAST_PROFILE", "gdb");
  test::LogCapture log(logging::jit());
  EXPECT_EQ(run_and_check(), "");
  ASSERT_TRUE(kernel_now().jit);
  EXPECT_EQ(log.count("cannot be registered"), 0) << log.text();
  const std::string key = kernel_key_for(Op::add, DType::f32, Layout::contiguous({64, 7}), a.layout(), b.layout());
  const auto* descriptor = static_cast<const jit_descriptor*>(::dlsym(RTLD_DEFAULT, "__jit_debug_descriptor"));
  ASSERT_NE(descriptor, nullptr);
  bool found = false;
  for (const jit_code_entry* e = descriptor->first_entry; e != nullptr && !found; e = e->next_entry)
    found = std::string_view(e->symfile_addr, e->symfile_size).find(key) != std::string_view::npos;
  EXPECT_TRUE(found) << "no object in gdb's JIT list names " << key;
}

}  // namespace
}  // namespace bcast
