// The passes of an expression evaluated again, planned once (NOTE: [Passes
// memo]).
#pragma once

#include <cstdint>
#include <optional>

#include "bcast/expr.h"

namespace bcast {

// NOTE: [Passes memo] An Expr is immutable (NOTE: [Expression memo]): one
// that holds reductions, evaluated again (the same root node: the same
// views, whose data the application may have rewritten in place, the
// inference pattern), runs the same passes (NOTE: [Expression passes]) with
// the same plans and kernels. Working them out took most of a small call:
// layer norm of f32 [8, 1024] spent ~20 of its ~23 us on the Zen 5 VM
// (2026-12-07) lowering, planning and looking kernels up. Each thread
// remembers its last such expression: each pass's prepared reduction
// (prepare_reduction: plan, kernel, operands) into a result it keeps, and
// the rest's planned call, reused while the expression, the kernel stamp
// and the settings (the thread count among them) hold. It is built only
// where every pass has its JIT kernel (not pending, not the fallback's
// values written out), its results are small (1 MiB at most, kept until the
// thread's next such expression) and the call runs on the host: elsewhere
// the usual path runs. A call in row blocks (NOTE: [Row blocks]) is
// remembered beside it, in src/api/row_blocks.cpp: its blocks' programs,
// each later call's blocks writing that call's out. The bits are the usual
// path's: the same plans on the same kernels, each result on its own.
//
// Whether `e` is the thread's remembered expression; then runs it (into a
// new out, or into `out`) and returns true (the Tensor); else nothing.
std::optional<Tensor> evaluate_remembered_passes(const Expr& e);
bool evaluate_remembered_passes(const Expr& e, const TensorView& out);

// Works out `e`'s passes and runs them, remembering them where it can
// (the usual path's results, out checked as it checks it); nullopt or false
// where it cannot (the caller then takes the usual path; nothing has run).
std::optional<Tensor> evaluate_and_remember_passes(const Expr& e);
bool evaluate_and_remember_passes(const Expr& e, const TensorView& out);

// Calls run on a remembered expression since the process began (tests read it).
std::uint64_t remembered_pass_calls();

}  // namespace bcast
