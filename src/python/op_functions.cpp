#include "op_functions.h"

#include <array>
#include <string>
#include <type_traits>
#include <variant>

#include "bcast/ops.h"
#include "call_memo.h"
#include "expr_call.h"
#include "operand.h"
#include "prepared_object.h"
#include "python_errors.h"
#include "result_array.h"

namespace bcast::python {

namespace {

namespace py = pybind11;

// The elements a call of a and b writes: each dim's larger extent (the call
// itself checks that they broadcast).
std::int64_t broadcast_numel(const Shape& a, const Shape& b) {
  std::int64_t numel = 1;
  const std::size_t rank = std::max(a.size(), b.size());
  for (std::size_t d = 0; d < rank; ++d) {
    const std::int64_t ea = d < rank - a.size() ? 1 : a[d - (rank - a.size())];
    const std::int64_t eb = d < rank - b.size() ? 1 : b[d - (rank - b.size())];
    numel *= ea == 1 ? eb : ea;
  }
  return numel;
}

// (a, b), (a, b, out) or (a, b, out=out): out, or null when not given.
PyObject* parse_arguments(std::string_view op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Py_ssize_t positional = PyVectorcall_NARGS(nargs);
  const Py_ssize_t keywords = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  PyObject* out = positional == 3 ? args[2] : nullptr;
  if (keywords == 1 && positional == 2 && PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "out") == 0)
    out = args[2];
  else if (positional < 2 || positional > 3 || keywords != 0)
    throw py::type_error(std::string(op) + "() takes a, b and out=None");
  return out == Py_None ? nullptr : out;
}

// An operand as an expression leaf: an array named `name` in messages, or a
// number, which messages show as its value (add: 300 does not fit u8).
Expr leaf(const Operand& x, const char* name) {
  return std::visit(
      [&](const auto& v) -> Expr {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, TensorView>) return named_input(v, name);
        else return Expr(v);
      },
      x.expr_operand().value());
}

// A call with a Python number: NEP 50's weak scalar, through the expression
// op(a, b), called by name (its messages start "add:").
PyObject* call_with_number(Op op, const Operand& a, const Operand& b, PyObject* out) {
  const Expr e = call_of(op, leaf(a, "a"), leaf(b, "b"));
  return run_call(
      out, a.is_number() ? b.view().numel() : a.view().numel(), [&](const TensorView& o) { evaluate(e, o); },
      [&] { return evaluate(e); });
}

PyObject* call_op(Op op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* out = parse_arguments(op_name(op), args, nargs, kwnames);
  CallMemo& memo = call_memo();
  // NOTE: [Python call memo]: a call the calling thread made twice in a row.
  if (const auto hit = memo.find(op, args[0], args[1], out)) return run_in_place(*hit->op, hit->a, hit->b, out, hit->out);
  // Two Python numbers are two arrays, as NumPy takes them (int64, float64, bool).
  const bool numbers_only = !PyArray_Check(args[0]) && !PyArray_Check(args[1]) &&
                            (PyLong_Check(args[0]) || PyFloat_Check(args[0])) &&
                            (PyLong_Check(args[1]) || PyFloat_Check(args[1]));
  const Operand a = numbers_only ? Operand::array(args[0], "a") : Operand::input(args[0], "a");
  const Operand b = numbers_only ? Operand::array(args[1], "b") : Operand::input(args[1], "b");
  if (a.is_number() || b.is_number()) return call_with_number(op, a, b, out);
  return run_call(
      out, broadcast_numel(a.view().shape(), b.view().shape()),
      [&](const TensorView& o) {
        binary(op, a.view(), b.view(), o);
        memo.seen(op, a.view(), b.view(), &o);
      },
      [&] {
        Tensor result = binary(op, a.view(), b.view());
        memo.seen(op, a.view(), b.view(), nullptr);
        return result;
      });
}

template <Op op>
PyObject* op_function(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return guarded([&] { return call_op(op, args, nargs, kwnames); });
}

#define BCAST_PY_OP_DOC(name)                                                                          \
  #name "(a, b, out=None)\n--\n\nbcast's " #name " of a and b, broadcasting as NumPy does (docs/semantics.md). " \
        "a and b: arrays, DLPack tensors or Python numbers (weak scalars). out: an array of the result's "     \
        "shape and dtype to write into; returned. Without out, a new array owning bcast's buffer."
#define BCAST_PY_OP_ENTRY(name)                                                                        \
  PyMethodDef{#name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&op_function<Op::name>)), \
              METH_FASTCALL | METH_KEYWORDS, BCAST_PY_OP_DOC(name)},
std::array op_functions = {BCAST_FOR_EACH_OP(BCAST_PY_OP_ENTRY) PyMethodDef{nullptr, nullptr, 0, nullptr}};
#undef BCAST_PY_OP_ENTRY
#undef BCAST_PY_OP_DOC

}  // namespace

PyMethodDef* op_function_table() { return op_functions.data(); }

}  // namespace bcast::python
