// The op entry points: validate, plan, execute.
#include "bcast/ops.h"

#include <array>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "bcast/expr.h"
#include "bcast/runtime.h"
#include "broadcast_plan.h"
#include "call_report.h"
#include "config.h"
#include "dispatch.h"
#include "error_messages.h"
#include "exponent_check.h"
#include "expr_call.h"
#include "function_table.h"
#include "output_layout.h"
#include "scalar_ops.h"
#include "targets.h"
#include "validate_binary.h"

namespace bcast {
namespace {

// NOTE: [Call memo] Programs call the same op on the same layouts over and
// over, with new data each time. Each thread remembers its last call's op,
// dtypes, layouts and plan; a call that matches skips shape validation and
// planning (their outcome depends on nothing else) but not the checks on data
// pointers, which may change. It also keeps the kernel it selected, reused
// while kernel_stamp() holds (no look-up: the kernel cache's mutex, hash and
// LRU splice were a third of a tiny call); each reuse is booked as a cache hit
// through the kernel's memo_hits. A call that stays on the caller runs the
// kernel with the arguments laid out at remember() (NOTE: [Direct call]),
// skipping execute_plan. A kernel used only through memos is not
// moved up the LRU list; when it is evicted the stamp changes and the next
// call looks it up again.
struct CallMemo {
  bool valid = false;
  DType out_dtype{};
  Layout a, b, out;
  bool out_is_fresh = false;  // out was a new output, laid out by NOTE: [Output order]
  BinaryCall binary;          // plan, fusion, direct call and kernel (NOTE: [Dispatch])
  DataCheck data;             // the data-pointer checks, their layout part done

  bool matches(Op o, const TensorView& x, const TensorView& y) const {
    return valid && binary.op == o && binary.dtype == x.dtype() && x.dtype() == y.dtype() && a == x.layout() &&
           b == y.layout();
  }
  void remember(Op o, const TensorView& x, const TensorView& y, const TensorView& z, bool fresh, BroadcastPlan p) {
    valid = true;
    out_dtype = z.dtype();
    a = x.layout();
    b = y.layout();
    out = z.layout();
    out_is_fresh = fresh;
    binary = BinaryCall(o, x.dtype(), z.dtype(), std::move(p));
    data = DataCheck(x.dtype(), z.dtype(), x.layout(), y.layout(), z.layout());
  }
};
thread_local CallMemo t_memo;

// The fresh output of binary(op, a, b); a failed allocation names the op.
Tensor allocate_output(Op op, DType dtype, const Layout& layout) {
  try {
    return Tensor::empty(dtype, layout);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::memory) throw;
    detail::fail(ErrorKind::memory, "{}: output: {}", op_name(op), e.what());
  }
}

// Runs a validated call: the one `memo` remembers.
void execute(CallMemo& memo, Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  check_exponent_data(op, b, out.numel());  // NOTE: [Negative integer exponents]
  if (!report::wanted()) {
    dispatch(memo.binary, a, b, out);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  SelectedKernel ran;
  dispatch(memo.binary, a, b, out, &ran);
  report::binary("exec", report::Api::op, op, a, b, out.dtype(), out.shape(), memo.binary.planned.plan, ran,
                 last_call_threads(), std::chrono::steady_clock::now() - start);
}

}  // namespace

std::string_view op_name(Op op) { return detail::row(op).name; }

std::optional<Op> parse_op(std::string_view name) {
  const detail::FunctionRow* r = detail::find_function(name, detail::Arity::binary);
  if (r == nullptr) return std::nullopt;
  return static_cast<Op>(r->code);
}

// ldexp's exponent is an integer: two floats are not its operands.
bool op_supports(Op op, DType dtype) {
  const detail::FunctionRow& row = detail::row(op);
  return detail::loop_for(row, dtype).has_value() && !(row.int_exponent && is_floating(dtype));
}
DType result_dtype(Op op, DType input) {
  const std::optional<DType> loop = detail::loop_for(detail::row(op), input);
  return detail::result_dtype_of(op, loop.value_or(input));
}

// Each function touches the thread-local memo once: every access to a
// thread_local of a shared library goes through __tls_get_addr.
// NOTE: [Mixed dtypes] A binary call whose operands differ in dtype is the
// one-node expression op(a, b): NumPy's promotion (NEP 50) picks the dtype it
// computes in (u8 - f32 gives f32), and the expression path runs it.
// A call on a dtype the op has no loop for (arctan2 on i32, which computes
// in f64) runs the same way, and so does a call on c64 or c128, whose
// kernels are the expression's (NOTE: [Complex in IR]).
// Most calls have a kernel of their own: that bit test decides before loop_for's search.
bool runs_as_expression(Op op, DType d) {
  if (!detail::supports(op, d)) return op_supports(op, d);
  return is_complex(d) || is_complex(detail::result_dtype_of(op, d));  // complex(a, b) makes one
}
Tensor binary(Op op, const TensorView& a, const TensorView& b) {
  if (a.dtype() != b.dtype() || runs_as_expression(op, a.dtype())) return evaluate(call_of(op, named_input(a, "a"), named_input(b, "b")));
  CallMemo& memo = t_memo;
  if (memo.matches(op, a, b) && memo.out_is_fresh) {
    Tensor out = allocate_output(op, memo.out_dtype, memo.out);
    if (!memo.data.passes(a.data(), b.data(), out.data())) validate_data(op, a, b, out);
    execute(memo, op, a, b, out);
    return out;
  }
  const Shape shape = validate_inputs(op, a, b);
  Tensor out = allocate_output(op, result_dtype(op, a.dtype()), output_layout(shape, {&a.layout(), &b.layout()}));
  memo.remember(op, a, b, out, true, plan_broadcast(out.layout(), a.layout(), b.layout()));
  execute(memo, op, a, b, out);
  return out;
}

void binary(Op op, const TensorView& a, const TensorView& b, const TensorView& out) {
  if (a.dtype() != b.dtype() || runs_as_expression(op, a.dtype())) return evaluate(call_of(op, named_input(a, "a"), named_input(b, "b")), out);
  CallMemo& memo = t_memo;
  if (memo.matches(op, a, b) && memo.out == out.layout() && memo.out_dtype == out.dtype()) {
    if (!memo.data.passes(a.data(), b.data(), out.data())) validate_data(op, a, b, out);
    execute(memo, op, a, b, out);
    return;
  }
  const Shape shape = validate_inputs(op, a, b);
  validate_out(op, a, b, out, shape);
  memo.remember(op, a, b, out, false, plan_broadcast(out.layout(), a.layout(), b.layout()));
  execute(memo, op, a, b, out);
}

#define BCAST_OP_DEF(name)                                                                      \
  Tensor name(const TensorView& a, const TensorView& b) { return binary(Op::name, a, b); }      \
  void name(const TensorView& a, const TensorView& b, const TensorView& out) {                  \
    binary(Op::name, a, b, out);                                                                \
  }
BCAST_FOR_EACH_OP(BCAST_OP_DEF)
#undef BCAST_OP_DEF

}  // namespace bcast
