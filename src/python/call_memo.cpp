#include "call_memo.h"

#include "bcast/errors.h"
#include "call_report.h"
#include "config.h"
#include "operand.h"

namespace bcast::python {

std::optional<CallMemo::Hit> CallMemo::find(Op op, PyObject* a, PyObject* b, PyObject* out) const {
  const Entry& e = entry(op, out != nullptr);
  if (!e.prepared || e.generation != config::generation()) return std::nullopt;
  const PreparedOp& p = *e.prepared;
  const Hit hit{&p, data_in_place(a, p.dtype(), p.a_layout(), false), data_in_place(b, p.dtype(), p.b_layout(), false),
                out != nullptr ? data_in_place(out, p.out_dtype(), p.out_layout(), true) : nullptr};
  if (hit.a == nullptr || hit.b == nullptr || (out != nullptr && hit.out == nullptr)) return std::nullopt;
  return hit;
}

void CallMemo::seen(Op op, const TensorView& a, const TensorView& b, const TensorView* out) {
  if (a.dtype() != b.dtype() || report::wanted()) return;
  Entry& e = entry(op, out != nullptr);
  const std::uint64_t generation = config::generation();
  const bool same = e.generation == generation && e.dtype == a.dtype() && e.a == a.layout() && e.b == b.layout() &&
                    (out == nullptr || e.out == out->layout());
  if (!same) {
    // Remembered, not yet prepared; a prepared entry stays usable meanwhile.
    e.generation = generation;
    e.dtype = a.dtype();
    e.a = a.layout();
    e.b = b.layout();
    e.out = out != nullptr ? out->layout() : Layout{};
    e.again = false;
    e.prepared.reset();
    return;
  }
  if (e.again) return;  // prepared already, or preparing failed
  e.again = true;
  try {
    e.prepared = out != nullptr ? prepare(op, e.dtype, e.a, e.b, e.out) : prepare(op, e.dtype, e.a, e.b);
  } catch (const Error&) {
    // The plain call ran; the memo is only a shortcut.
  }
}

CallMemo& call_memo() {
  thread_local CallMemo memo;
  return memo;
}

}  // namespace bcast::python
