// The host back end: emit the nest, optimise with the target's pipeline,
// generate an object file, load it into one process-wide LLJIT.
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ExecutionEngine/JITLink/EHFrameSupport.h>
#include <llvm/ExecutionEngine/Orc/Debugging/DebuggerSupport.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/MapperJITLinkMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/MemoryMapper.h>
#include <llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/X86TargetParser.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>

#include <llvm/Support/FileSystem.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "compile/host_compiler.h"
#include "compile/kernel_memory.h"
#include "emit/ascend_emitter.h"
#include "emit/expression_emitter.h"
#include "expr_kernel.h"
#include "expr_program.h"
#include "fault_injection.h"
#include "function_table.h"
#include "ir/loop_constants.h"
#include "ir/rare_lanes.h"
#include "logging.h"
#include "math_library.h"
#include "target/codegen_target.h"
#include "target/host_description.h"

namespace bcast::jit {
namespace {

std::string message(llvm::Error error) { return llvm::toString(std::move(error)); }

// Microseconds since the last lap (NOTE: [Compile phases]).
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double us = std::chrono::duration<double, std::micro>(now - last_).count();
    last_ = now;
    return us;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

void initialise_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 3: return llvm::CodeGenOptLevel::Aggressive;
    default: return llvm::CodeGenOptLevel::Default;
  }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> make_target_machine(const CodegenSettings& s) {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(host_description().triple)};
  builder.setCPU(s.cpu);
  llvm::SubtargetFeatures features;
  llvm::SmallVector<llvm::StringRef, 64> names;
  llvm::StringRef(s.features).split(names, ',', -1, false);
  for (llvm::StringRef f : names) features.AddFeature(f.drop_front(), f.front() == '+');
  builder.addFeatures(features.getFeatures());
  builder.setCodeGenOptLevel(s.quick ? llvm::CodeGenOptLevel::None : codegen_level(s.opt_level));
  return builder.createTargetMachine();
}

// NOTE: [Compile phases] A TargetMachine costs ~0.15 ms to make: each thread
// keeps the few it used last, by codegen settings id. TargetMachine is not
// safe to share between threads that emit code at once.
//
// NOTE: [Object pipeline] Each kept TargetMachine keeps its pipeline of code
// generation passes for object files, built once (addPassesToEmitFile) and
// run on kernel after kernel into a buffer of its own, cleared between
// them: building and tearing down the ~150 passes cost about a quarter of a
// small kernel's code generation. A pipeline finishes each module it runs
// (the streamer, the MC context and the machine module info are reset), so
// a kernel's object has the bits a new pipeline gives it
// (tests/test_jit.cpp, GeneratedCode.AReusedObjectPipelineGivesANewOnesBytes).
// bcast-jit-bench BM_ColdCompile on the Zen 5 VM (2026-12-07, three rounds
// of the builds in turn, ms): the full tier 5.77-5.83 -> 4.53-5.27 (code
// generation 4.02-4.10 -> 3.00-3.45), the quick tier 1.58-1.64 ->
// 1.35-1.50 (0.65-0.66 -> 0.44-0.50); 3,000 compiles held the process at
// the same resident size (99-100 MB) with and without.
struct ObjectPipeline {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream{buffer};
  llvm::legacy::PassManager passes;
};
struct KeptMachine {
  std::uint32_t codegen = 0;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<ObjectPipeline> objects;  // made at the first object; goes before tm
};
thread_local std::vector<KeptMachine> kept_machines;

llvm::Expected<KeptMachine*> kept_machine_for(std::uint32_t codegen) {
  for (KeptMachine& m : kept_machines)
    if (m.codegen == codegen) return &m;
  auto tm = make_target_machine(codegen_settings(codegen));
  if (!tm) return tm.takeError();
  if (kept_machines.size() == 4) kept_machines.erase(kept_machines.begin());
  kept_machines.push_back({.codegen = codegen, .tm = std::move(*tm), .objects = nullptr});
  return &kept_machines.back();
}

// NOTE: [Vector math]: the symbols of SLEEF's two libraries, each resolved
// by its own handle (math_library.h loaded them RTLD_LOCAL). Nothing when
// SLEEF is not in use: kernels then name only the C library.
void add_math_library_generators(llvm::orc::JITDylib& dylib, char prefix) {
  const math::Library& lib = math::library();
  auto add = [&](void* handle, std::string_view stem) {
    if (handle == nullptr) return;
    auto allow = [stem](const llvm::orc::SymbolStringPtr& name) { return (*name).starts_with(stem); };
    dylib.addGenerator(std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(llvm::sys::DynamicLibrary(handle),
                                                                                 prefix, std::move(allow)));
  };
  add(lib.scalar, "Sleef_");
  add(lib.vector, "_ZGV");
}

// NOTE: [Compile phases]: JIT memory in slabs of 16 MiB, mapped by NOTE:
// [Kernel memory] where the system allows it, else by LLVM's in-process
// mapper (mprotect per segment).
llvm::Expected<std::unique_ptr<llvm::orc::MapperJITLinkMemoryManager>> make_memory_manager() {
  constexpr std::size_t kSlabBytes = std::size_t{16} << 20;
  std::string why;
  if (std::unique_ptr<llvm::orc::MemoryMapper> mapper = make_kernel_memory_mapper(why))
    return std::make_unique<llvm::orc::MapperJITLinkMemoryManager>(kSlabBytes, std::move(mapper));
  logging::jit().debug("kernel memory: LLVM's in-process mapper (mprotect per segment): {}", why);
  return llvm::orc::MapperJITLinkMemoryManager::CreateWithMapper<llvm::orc::InProcessMemoryMapper>(kSlabBytes);
}

// The process-wide JIT, created on first use. Kernels hold a reference, so it
// lives as long as any of them.
class HostJit {
 public:
  static bool ready() { return ready_.load(std::memory_order_acquire); }

  static llvm::Expected<std::shared_ptr<HostJit>> get() {
    static std::mutex mutex;
    // Never destroyed (see kernel_cache()); kernels hold their own references.
    static auto* instance_holder = new std::shared_ptr<HostJit>;
    std::shared_ptr<HostJit>& instance = *instance_holder;
    const std::lock_guard lock(mutex);
    if (!instance) {
      initialise_llvm();
      // NOTE: [Compile phases] Linking a kernel, from disk or fresh, is most
      // of a disk hit: JIT memory comes from slabs reserved 16 MiB at a time
      // (no mmap per kernel), and unwind tables are registered in process.
      auto jit = llvm::orc::LLJITBuilder()
                     .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession& session, const llvm::Triple&)
                                                       -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                       auto memory = make_memory_manager();
                       if (!memory) return memory.takeError();
                       auto layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(session, std::move(*memory));
                       layer->addPlugin(std::make_unique<llvm::orc::EHFrameRegistrationPlugin>(
                           session, std::make_unique<llvm::jitlink::InProcessEHFrameRegistrar>()));
                       return layer;
                     })
                     .create();
      if (!jit) return jit.takeError();
      // SLEEF's functions from its own libraries (NOTE: [Vector math]), looked
      // up first: libmvec, if the process loaded it, defines the same _ZGV names.
      add_math_library_generators((*jit)->getMainJITDylib(), (*jit)->getDataLayout().getGlobalPrefix());
      // Kernels may call the C library (pow) and compiler runtime helpers.
      auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
      if (!process) return process.takeError();
      (*jit)->getMainJITDylib().addGenerator(std::move(*process));
      // The compiler runtime's helpers (__truncdfhf2: f64 to f16) from its
      // own library: a Python extension's libraries are not in the process's
      // global scope.
      std::string error;
      llvm::sys::DynamicLibrary runtime = llvm::sys::DynamicLibrary::getPermanentLibrary("libgcc_s.so.1", &error);
      if (runtime.isValid())
        (*jit)->getMainJITDylib().addGenerator(std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(
            runtime, (*jit)->getDataLayout().getGlobalPrefix()));
      instance.reset(new HostJit(std::move(*jit)));
      ready_.store(true, std::memory_order_release);
    }
    return instance;
  }

  llvm::orc::LLJIT& lljit() { return *jit_; }

  // NOTE: [Profilers]: from the next kernel loaded on, objects are
  // registered with gdb's JIT interface.
  void enable_gdb() {
    const std::lock_guard lock(mutex_);
    if (gdb_) return;
    gdb_ = true;
    if (llvm::Error e = llvm::orc::enableDebuggerSupport(*jit_))
      logging::jit().warn("BCAST_PROFILE: kernels cannot be registered with gdb: {}", message(std::move(e)));
  }

  // NOTE: [Kernel dylibs]: an empty dylib for the next kernel, from the
  // spares or new.
  llvm::Expected<llvm::orc::JITDylib&> take_dylib() {
    {
      const std::lock_guard lock(mutex_);
      if (!spare_dylibs_.empty()) {
        llvm::orc::JITDylib* dylib = spare_dylibs_.back();
        spare_dylibs_.pop_back();
        return *dylib;
      }
    }
    auto dylib = jit_->getExecutionSession().createJITDylib("bcast.kernel." + std::to_string(dylibs_++));
    if (!dylib) return dylib.takeError();
    dylib->addToLinkOrder(jit_->getMainJITDylib());  // the C library and compiler runtime
    return *dylib;
  }

  // A dylib whose kernel was unloaded, kept for the next one; past
  // kSpareDylibs, removed.
  void give_back(llvm::orc::JITDylib& dylib) {
    {
      const std::lock_guard lock(mutex_);
      if (spare_dylibs_.size() < kSpareDylibs) {
        spare_dylibs_.push_back(&dylib);
        return;
      }
    }
    llvm::consumeError(jit_->getExecutionSession().removeJITDylib(dylib));
  }

  // Defines each symbol not defined yet in the dylib every kernel links.
  llvm::Error define(const std::vector<JitSymbol>& symbols) {
    const std::lock_guard lock(mutex_);
    llvm::orc::SymbolMap map;
    for (const JitSymbol& s : symbols)
      if (defined_.insert(s.name).second)
        map[jit_->mangleAndIntern(s.name)] = {llvm::orc::ExecutorAddr::fromPtr(s.address),
                                              llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    if (map.empty()) return llvm::Error::success();
    return jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(map)));
  }

 private:
  static constexpr std::size_t kSpareDylibs = 64;
  std::mutex mutex_;
  std::vector<llvm::orc::JITDylib*> spare_dylibs_;
  std::atomic<std::uint64_t> dylibs_{0};
  std::set<std::string> defined_;
  bool gdb_ = false;
  static inline std::atomic<bool> ready_{false};
  explicit HostJit(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

std::atomic<bool> g_perf_map{false}, g_gdb{false};

// NOTE: [Profilers]: one line per loaded kernel, appended under a lock.
void append_to_perf_map(const void* address, std::size_t bytes, const std::string& name) {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  if (std::FILE* f = std::fopen(perf_map_path().c_str(), "a")) {
    std::fprintf(f, "%llx %zx %s\n", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address)),
                 std::max<std::size_t>(bytes, 1), name.c_str());
    std::fclose(f);
  }
}

// NOTE: [Kernel dylibs] A kernel in a JITDylib of its own: symbols never
// clash (a key may be loaded again while an evicted copy still runs). Making
// a dylib cost ~8 us of a ~60 us disk hit on the Zen 5 VM, so unloading a
// kernel removes what its resource tracker added and keeps the empty dylib
// for the next kernel (a few dozen at most); a dylib whose kernel failed to
// load, or whose removal failed, is removed whole.
// NOTE: [Bounded cache]: ORC's symbol string pool keeps the name of every
// symbol it ever saw until told to drop the unused ones (~200 bytes a kernel
// in a process that compiles for days): every 64th unload tells it.
class LoadedKernel final : public CompiledKernel {
 public:
  LoadedKernel(std::shared_ptr<HostJit> jit, llvm::orc::JITDylib& dylib)
      : jit_(std::move(jit)), dylib_(&dylib), tracker_(dylib.createResourceTracker()) {}
  ~LoadedKernel() override {
    llvm::orc::ExecutionSession& session = jit_->lljit().getExecutionSession();
    bool reusable = loaded;
    if (llvm::Error e = reusable ? tracker_->remove() : llvm::Error::success()) {
      llvm::consumeError(std::move(e));
      reusable = false;
    }
    if (reusable)
      jit_->give_back(*dylib_);
    else
      llvm::consumeError(session.removeJITDylib(*dylib_));
    static std::atomic<std::uint64_t> unloads{0};
    if (unloads.fetch_add(1, std::memory_order_relaxed) % 64 == 63) session.getSymbolStringPool()->clearDeadEntries();
  }
  const llvm::orc::ResourceTrackerSP& tracker() const { return tracker_; }
  bool loaded = false;  // linked and looked up: the dylib is sound to reuse

 private:
  std::shared_ptr<HostJit> jit_;
  llvm::orc::JITDylib* dylib_;
  llvm::orc::ResourceTrackerSP tracker_;
};

// NOTE: [Codegen passes] The passes of LLVM's code generator that a kernel
// does not need, skipped through its context's pass gate (the mechanism of
// -opt-bisect-limit; it touches no global option, so other users of LLVM in
// the process keep theirs). Loop strength reduction is the emitter's own job:
// each level keeps running offsets, additions only (DESIGN.md), and LSR spent
// ~2.2 ms of a ~7.6 ms compile finding nothing to do; bcast-bench shows the
// same run-time speed without it (docs/performance.md). A kernel bound by
// memory (it computes no math function: NOTE: [Math vector width]) also
// skips the two instruction schedulers, before and after register
// allocation: its loop waits on loads and stores, which an out-of-order core
// reorders itself, and they were 5 to 15% of its code generation on the Zen 5
// VM (BM_ColdCompile alternated, and the passes timed alone).
class KernelPassGate final : public llvm::OptPassGate {
 public:
  explicit KernelPassGate(bool memory_bound) : memory_bound_(memory_bound) {}
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef) override {
    if (pass == "Loop Strength Reduction" || pass == "Canonicalize Freeze Instructions in Loops") return false;
    return !(memory_bound_ &&
             (pass == "Machine Instruction Scheduler" || pass == "Post RA top-down list latency scheduler"));
  }

 private:
  const bool memory_bound_;
};

// One kernel's module, in its own context so that compilations run in parallel.
struct KernelModule {
  explicit KernelModule(bool memory_bound) {
    // Stateless; never destroyed (a compile may run at exit).
    static KernelPassGate* gates[2] = {new KernelPassGate(false), new KernelPassGate(true)};
    context->setOptPassGate(*gates[memory_bound ? 1 : 0]);
  }
  std::unique_ptr<llvm::LLVMContext> context = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> module;
};

KernelModule build_module(const KernelKey& key, const CodegenSettings& settings, llvm::TargetMachine& tm,
                          const std::string& symbol) {
  KernelModule km(key.target == TargetKind::host && !calls_math_function(spec_of(key).program));
  km.module = std::make_unique<llvm::Module>(key.to_string(), *km.context);
  km.module->setDataLayout(tm.createDataLayout());
  km.module->setTargetTriple(tm.getTargetTriple().str());
  if (key.target == TargetKind::ascend_sim) emit_ascend_kernel(*km.module, key, settings, symbol);
  else emit_kernel(*km.module, key, codegen_target(tm.getTargetTriple()).settings_for(key, settings), symbol);
  return km;
}

// NOTE: [Pass pipeline] A kernel is one function whose loop nest we emit in
// the shape the vectoriser wants, so LLVM's full per-module pipeline (~15 ms a
// kernel here, measured over the demo's 14 kernels) mostly does nothing. The
// lean pipeline promotes the allocas, tidies, and vectorises the inner loop:
// ~8 ms a kernel with the same run-time speed (before NOTE: [Codegen passes];
// the pipeline is 0.9 ms of a 4.5 ms compile now). Its licm takes a value of
// repeated operands out of the element loop before the vectoriser widens
// it: a layer norm's sqrt(v + eps), which had shared the divider with its
// division (the step of a 48-row block, 44.7 -> 29 us on the Zen 3 VM; the
// cold compile unchanged within the noise, 5.0-5.3 ms). Levels:
//   0 LLVM's O0 (no vectorisation)   1 lean, without the vectoriser
//   2 lean (the default)             3 LLVM's full O3 pipeline
// InstCombine runs as LLVM's own pipelines run it, <no-verify-fixpoint>: its
// textual default in LLVM 19 aborts the process (LLVM ERROR) when one round
// does not reach a fixpoint, which some kernels' IR provokes.
constexpr const char* kLeanPipeline =
    "function(sroa,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa,loop-mssa(licm),loop-vectorize,"
    "instcombine<no-verify-fixpoint>,simplifycfg)";
constexpr const char* kLeanScalarPipeline = "function(sroa,instcombine<no-verify-fixpoint>,simplifycfg)";
// NOTE: [Tiers]: the quick first tier's lean pipeline leaves out the tidying
// InstCombine after the vectoriser (~0.1 ms of its ~1.7 ms on the Zen 5 VM;
// code generation at O0 takes the untidied loop in about the same time).
constexpr const char* kLeanQuickPipeline =
    "function(sroa,instcombine<no-verify-fixpoint>,simplifycfg,loop-simplify,lcssa,loop-vectorize,simplifycfg)";

void optimise(llvm::Module& module, llvm::TargetMachine& tm, int opt_level, bool quick) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  if (opt_level <= 0) {
    mpm = pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
  } else if (opt_level >= 3) {
    mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  } else {
    // The pipeline texts are constants: failing to parse them is a bug in bcast.
    llvm::cantFail(pb.parsePassPipeline(mpm, opt_level == 1 ? kLeanScalarPipeline
                                             : quick        ? kLeanQuickPipeline
                                                            : kLeanPipeline));
  }
  mpm.run(module, mam);
  // NOTE: [Rare lanes]: the vector variants the vectoriser called, then
  // inlined with the scalar fixes.
  if (finish_rare_lanes(module)) {
    llvm::ModulePassManager inline_variants;
    llvm::cantFail(pb.parsePassPipeline(inline_variants, "always-inline"));
    inline_variants.run(module, mam);
  }
  if (!quick && opt_level >= 2) load_loop_constants_once(module);  // NOTE: [Loop constants]
}

llvm::Expected<llvm::SmallVector<char, 0>> codegen(llvm::Module& module, llvm::TargetMachine& tm,
                                                   llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "the target cannot emit this file type");
  pm.run(module);
  return buffer;
}

// An object file of `module` through `kept`'s pipeline (NOTE: [Object
// pipeline]), made at its first use.
llvm::Expected<llvm::SmallVector<char, 0>> object_code(llvm::Module& module, KeptMachine& kept) {
  if (!kept.objects) {
    auto made = std::make_unique<ObjectPipeline>();
    if (kept.tm->addPassesToEmitFile(made->passes, made->stream, nullptr, llvm::CodeGenFileType::ObjectFile))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), "the target cannot emit object files");
    kept.objects = std::move(made);
  }
  ObjectPipeline& p = *kept.objects;
  p.buffer.clear();
  p.passes.run(module);
  return llvm::SmallVector<char, 0>(p.buffer.begin(), p.buffer.end());
}

std::size_t text_bytes(llvm::MemoryBufferRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(object);
  if (!file) {
    llvm::consumeError(file.takeError());
    return object.getBufferSize();
  }
  std::size_t bytes = 0;
  for (const llvm::object::SectionRef& section : (*file)->sections())
    if (section.isText()) bytes += section.getSize();
  return bytes;
}

std::string dump_name(const KernelKey& key) {
  std::string name = key.to_string();
  std::erase_if(name, [](char c) { return c == '[' || c == ']'; });
  std::replace(name.begin(), name.end(), ',', '-');
  std::replace(name.begin(), name.end(), '/', '%');  // a division's: not a folder
  return name;
}

// BCAST_DUMP_DIR: the IR before and after optimisation, and the assembly.
void write_dump(const std::string& folder, const std::string& name, const std::string& suffix, llvm::StringRef text) {
  std::error_code ec;
  llvm::sys::fs::create_directories(folder);
  llvm::raw_fd_ostream out(folder + "/" + name + suffix, ec);
  if (!ec) out << text;
}

std::string module_text(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

// NOTE: [Kernel size]: every function's instructions, helpers included.
std::size_t instruction_count(const llvm::Module& module) {
  std::size_t n = 0;
  for (const llvm::Function& f : module) n += f.getInstructionCount();
  return n;
}

// Fault::missing_symbol: the kernel's entry calls a function no library defines.
void call_missing_function(llvm::Module& module, const std::string& kernel) {
  llvm::Function* entry = module.getFunction(kernel);
  if (entry == nullptr || entry->empty()) return;
  llvm::IRBuilder<> b(&*entry->getEntryBlock().getFirstInsertionPt());
  b.CreateCall(module.getOrInsertFunction("bcast_fault_missing_function", b.getVoidTy()));
}

llvm::Expected<CompiledObject> compile_object_or_error(const KernelKey& key, const std::string& dump_dir) {
  const auto start = std::chrono::steady_clock::now();
  if (fault::armed(fault::Fault::compile))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "compilation failed on purpose (fault injection)");
  if (key.inner[kOut] == InnerStride::zero)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no kernel exists for key " + key.to_string());
  CompiledObject result;
  CompilePhases& phases = result.phases;
  Stopwatch watch;
  initialise_llvm();
  phases.setup_us = watch.lap();
  const CodegenSettings settings = codegen_settings(key.codegen);
  auto kept = kept_machine_for(key.codegen);
  if (!kept) return kept.takeError();
  llvm::TargetMachine* const tm = (*kept)->tm.get();
  phases.target_machine_us = watch.lap();
  result.symbol = key.to_string();
  KernelModule km = build_module(key, settings, *tm, result.symbol);
  if (fault::armed(fault::Fault::missing_symbol)) call_missing_function(*km.module, result.symbol);
  phases.emit_ir_us = watch.lap();
  if (const std::size_t n = instruction_count(*km.module); n > kMaxKernelInstructions)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the kernel is too large to compile: " + std::to_string(n) +
                                       " IR instructions, more than " + std::to_string(kMaxKernelInstructions) +
                                       " (NOTE: [Kernel size])");
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(*km.module, &problem_stream))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "invalid IR: " + problems);
  phases.verify_us = watch.lap();
  if (!dump_dir.empty()) write_dump(dump_dir, dump_name(key), ".ll", module_text(*km.module));
  watch.lap();  // dumps are not compile time
  optimise(*km.module, *tm, settings.opt_level, settings.quick);
  phases.optimise_us = watch.lap();
  if (!dump_dir.empty()) {
    write_dump(dump_dir, dump_name(key), ".opt.ll", module_text(*km.module));
    auto clone = llvm::CloneModule(*km.module);
    if (auto assembly = codegen(*clone, *tm, llvm::CodeGenFileType::AssemblyFile))
      write_dump(dump_dir, dump_name(key), ".s", llvm::StringRef(assembly->data(), assembly->size()));
    else
      llvm::consumeError(assembly.takeError());
  }
  watch.lap();
  auto object = object_code(*km.module, **kept);
  if (!object) return object.takeError();
  result.object.assign(object->begin(), object->end());
  result.code_bytes = text_bytes(llvm::MemoryBufferRef(llvm::StringRef(result.object.data(), result.object.size()), ""));
  phases.codegen_us = watch.lap();
  result.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// NOTE: [Unresolved symbols] A kernel that names a symbol the process does
// not have is refused before it is linked: LLVM 19's slab memory manager
// (NOTE: [Compile phases]) releases the whole slab when a link fails after
// allocating, and the next kernel linked into it would write to unmapped
// memory. Undefined symbols are looked up where the link would look.
llvm::Error check_symbols(llvm::orc::LLJIT& jit, const CompiledObject& object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.object.data(), object.object.size()), object.symbol));
  if (!file) return file.takeError();
  std::string missing;
  for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags) return flags.takeError();
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined)) continue;
    auto name = symbol.getName();
    if (!name) return name.takeError();
    if (name->empty() || *name == "_GLOBAL_OFFSET_TABLE_") continue;  // JITLink's own
    auto found = jit.lookupLinkerMangled(jit.getMainJITDylib(), *name);
    if (found) continue;
    llvm::consumeError(found.takeError());
    missing += (missing.empty() ? "" : ", ") + name->str();
  }
  if (missing.empty()) return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "the kernel calls functions this process does not have: " + missing);
}

llvm::Expected<std::shared_ptr<const CompiledKernel>> load_or_error(const CompiledObject& object) {
  const auto start = std::chrono::steady_clock::now();
  Stopwatch watch;
  auto jit = HostJit::get();
  if (!jit) return jit.takeError();
  if (g_gdb.load(std::memory_order_acquire)) (*jit)->enable_gdb();
  const double setup_us = watch.lap();
  llvm::orc::LLJIT& lljit = (*jit)->lljit();
  if (llvm::Error e = check_symbols(lljit, object)) return e;
  auto dylib = (*jit)->take_dylib();
  if (!dylib) return dylib.takeError();
  auto kernel = std::make_shared<LoadedKernel>(*jit, *dylib);  // removes the dylib on any failure below
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.object.data(), object.object.size()),
                                                     object.symbol);
  if (llvm::Error e = lljit.addObjectFile(kernel->tracker(), std::move(buffer))) return e;
  auto address = lljit.lookup(*dylib, object.symbol);
  if (!address) return address.takeError();
  kernel->loaded = true;
  kernel->fn = address->toPtr<KernelFn>();
  kernel->entry = address->toPtr<void*>();
  kernel->symbol = object.symbol;
  kernel->code_bytes = object.code_bytes;
  kernel->phases = object.phases;
  kernel->phases.setup_us += setup_us;
  kernel->phases.link_us = watch.lap();
  if (g_perf_map.load(std::memory_order_acquire)) append_to_perf_map(kernel->entry, object.code_bytes, object.symbol);
  kernel->compile_ms =
      object.compile_ms + std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return kernel;
}

}  // namespace

CompiledObject compile_object(const KernelKey& key, const std::string& dump_dir) {
  auto object = compile_object_or_error(key, dump_dir);
  if (!object) {
    CompiledObject failed;
    failed.error = message(object.takeError());
    return failed;
  }
  return std::move(*object);
}

CompileResult load_object(const CompiledObject& object) {
  auto kernel = load_or_error(object);
  if (!kernel) return {nullptr, message(kernel.takeError())};
  return {std::move(*kernel), ""};
}

llvm::Error define_or_error(const std::vector<JitSymbol>& symbols) {
  auto jit = HostJit::get();
  if (!jit) return jit.takeError();
  return (*jit)->define(symbols);
}

std::string define_symbols(const std::vector<JitSymbol>& symbols) {
  if (llvm::Error e = define_or_error(symbols)) return message(std::move(e));
  return "";
}

CompileResult compile_host_kernel(const KernelKey& key) {
  const CompiledObject object = compile_object(key, "");
  if (!object.error.empty()) return {nullptr, object.error};
  return load_object(object);
}

bool host_jit_ready() { return HostJit::ready(); }

void set_profiler_hooks(ProfilerHooks hooks) {
  g_perf_map.store(hooks.perf_map, std::memory_order_release);
  if (hooks.gdb) g_gdb.store(true, std::memory_order_release);
}

std::string perf_map_path() { return "/tmp/perf-" + std::to_string(::getpid()) + ".map"; }

CodegenSettings host_codegen_settings(int opt_level, std::string_view max_isa) {
  const HostDescription& host = host_description();
  return {opt_level, host.cpu, codegen_target(llvm::Triple(host.triple)).cap_features(host.features, max_isa), 0};
}

CodegenSettings named_cpu_codegen_settings(int opt_level, const std::string& cpu) {
  llvm::SmallVector<llvm::StringRef, 64> features;
  if (llvm::Triple(host_description().triple).isX86()) llvm::X86::getFeaturesForCPU(cpu, features, /*NeedPlus=*/false);
  // With the features they imply, as a host lists them: LLVM 19 names
  // Alder Lake's AVX-VNNI but not the AVX and AVX2 it implies.
  llvm::StringMap<bool> implied;
  for (llvm::StringRef f : features) llvm::X86::updateImpliedFeatures(f, true, implied);
  std::vector<std::string> on;
  for (const auto& [name, enabled] : implied)
    if (enabled) on.push_back("+" + name.str());
  std::sort(on.begin(), on.end());
  return {opt_level, cpu, llvm::join(on, ","), 0};
}

std::string kernel_ir(const KernelKey& key, bool optimized) {
  initialise_llvm();
  const CodegenSettings settings = codegen_settings(key.codegen);
  auto tm = make_target_machine(settings);
  if (!tm) return "error: " + message(tm.takeError());
  KernelModule km = build_module(key, settings, **tm, key.to_string());
  if (optimized) optimise(*km.module, **tm, settings.opt_level, settings.quick);
  std::string text;
  llvm::raw_string_ostream os(text);
  km.module->print(os, nullptr);
  return text;
}

std::string kernel_assembly(const KernelKey& key) {
  initialise_llvm();
  const CodegenSettings settings = codegen_settings(key.codegen);
  auto tm = make_target_machine(settings);
  if (!tm) return "error: " + message(tm.takeError());
  KernelModule km = build_module(key, settings, **tm, key.to_string());
  optimise(*km.module, **tm, settings.opt_level, settings.quick);
  auto text = codegen(*km.module, **tm, llvm::CodeGenFileType::AssemblyFile);
  if (!text) return "error: " + message(text.takeError());
  return std::string(text->data(), text->size());
}

}  // namespace bcast::jit
