// IR helpers the emitters share: a kernel's function, its blocks, its i64
// locals, and loads of fields and array elements through byte offsets.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstddef>
#include <string>

#include "codegen_settings.h"

namespace bcast::jit {

// An external function `symbol` of `type`, compiled for `settings`' CPU and
// features, with the builder placed in its entry block.
llvm::Function* begin_kernel(llvm::IRBuilder<>& b, llvm::Module& module, llvm::FunctionType* type,
                             const std::string& symbol, const CodegenSettings& settings);

// A function that only computes (no memory, no unwinding, it returns):
// LLVM may hoist, drop or widen its calls.
void mark_pure(llvm::Function& fn);

// `to` built for the CPU, features and vector width `from` (a kernel) is.
void copy_target_attributes(const llvm::Function& from, llvm::Function& to);

// A new block at the end of the builder's function.
llvm::BasicBlock* new_block(llvm::IRBuilder<>& b, const std::string& name);

// An i64 local in the entry block, where SROA turns it into registers
// wherever the code using it is; `init`, when given, is stored at the
// builder's position.
llvm::Value* new_local(llvm::IRBuilder<>& b, const std::string& name, llvm::Value* init = nullptr);

// The field of `type` at byte `offset` of the struct `base` points to (a
// struct of the kernel ABI, read by offsetof: no IR copy of the struct).
llvm::Value* load_field(llvm::IRBuilder<>& b, llvm::Value* base, std::size_t offset, llvm::Type* type,
                        const std::string& name);

// Element i of an i64 array.
llvm::Value* load_i64(llvm::IRBuilder<>& b, llvm::Value* array, std::int64_t i, const std::string& name);

// for (i = begin; i < end; i += step): open_loop emits the guard and the
// loop block's induction variable and leaves the builder in the loop block
// (further PHIs go first); close_loop steps, branches back and leaves the
// builder after the loop. A loop of a few elements is not vectorised
// (`vectorise` false): the vectoriser's checks would cost more than they save.
// A vectorised loop whose body is a long chain of dependent steps (NOTE:
// [Math recipes]) asks for `interleave` vectors an iteration (0: the
// vectoriser's choice), so that independent chains fill the pipelines; a
// loop that is not vectorised ignores it.
// NOTE: [Independent iterations] A vectorised loop whose iterations touch
// disjoint memory (`independent`) says so to the vectoriser: its loads and
// stores form one access group, declared parallel, so no run-time overlap
// check and no second, scalar copy of the loop is emitted for the case of
// overlap. An element loop of a kernel is such a loop: out never repeats
// along it, and an input overlaps out only as the same view (validation
// refuses a partial overlap), so iteration i reads and writes element i
// only. Calls are left out of the group (one that sets errno writes the same
// place every iteration): a loop that makes such a call keeps its checks.
struct CountedLoop {
  llvm::PHINode* i = nullptr;
  llvm::BasicBlock* preheader = nullptr;
  llvm::BasicBlock* done = nullptr;
  llvm::Value* end = nullptr;
};
CountedLoop open_loop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name);
void close_loop(llvm::IRBuilder<>& b, const CountedLoop& loop, llvm::Value* step, bool vectorise = true,
                unsigned interleave = 0, bool independent = false);

// NOTE: [Streaming stores]: a store of a whole, line-aligned line, written
// past the caches.
void make_nontemporal(llvm::IRBuilder<>& b, llvm::StoreInst* store, std::uint64_t line_bytes);

// Adds `amount` to the i64 local `slot`.
void add_to_local(llvm::IRBuilder<>& b, llvm::Value* slot, llvm::Value* amount);

}  // namespace bcast::jit
