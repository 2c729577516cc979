#include "prepared_object.h"

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include <pybind11/stl.h>
#include <structmember.h>

#include "bcast/expr.h"
#include "bcast/prepared.h"
#include "broadcast_plan.h"
#include "error_messages.h"
#include "gil.h"
#include "operand.h"
#include "python_errors.h"
#include "result_array.h"

namespace bcast::python {

namespace {

namespace py = pybind11;

constexpr std::size_t kMaxOperands = static_cast<std::size_t>(kMaxInputs);

// What a Prepared holds: a prepared op (same-dtype arrays, the fast path) or
// a prepared expression, and the names its call takes.
struct PreparedCall {
  std::optional<PreparedOp> op;
  std::optional<PreparedExpr> expr;
  std::vector<std::string> inputs;    // the call's operands, in positional order
  std::vector<py::object> names;      // the same, as Python strings
  std::optional<NamedOperands> made_with;  // the operands it was prepared with, kept alive
  std::string text;                   // "add(a, b)" or the expression
  std::int64_t out_numel = 0;

  Shape out_shape() const { return op ? op->out_shape() : expr->info().out_shape; }
  DType out_dtype() const { return op ? op->out_dtype() : expr->info().out_dtype; }
};

struct PreparedObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PreparedCall* call;
};

PyTypeObject* prepared_type = nullptr;

const PreparedCall& call_of(PyObject* self) { return *reinterpret_cast<PreparedObject*>(self)->call; }

// The arguments of a call, placed: one per input, then out (null when not given).
std::array<PyObject*, kMaxOperands + 1> place_arguments(const PreparedCall& call, PyObject* const* args,
                                                      std::size_t positional, PyObject* kwnames) {
  std::array<PyObject*, kMaxOperands + 1> given{};
  const std::size_t n = call.inputs.size();
  if (positional > n + 1)
    throw py::type_error(call.text + ": takes " + std::to_string(n) + " operands and out, not " +
                         std::to_string(positional) + " arguments");
  for (std::size_t i = 0; i < positional; ++i) given[i] = args[i];
  const Py_ssize_t keywords = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < keywords; ++k) {
    PyObject* name = PyTuple_GET_ITEM(kwnames, k);
    std::size_t slot = 0;
    if (PyUnicode_CompareWithASCIIString(name, "out") == 0) {
      slot = n;
    } else {
      while (slot < n && PyUnicode_Compare(name, call.names[slot].ptr()) != 0) ++slot;
      if (slot == n)
        throw py::type_error(call.text + ": no operand named '" + py::str(name).cast<std::string>() + "'");
    }
    if (given[slot] != nullptr)
      throw py::type_error(call.text + ": '" + (slot == n ? std::string("out") : call.inputs[slot]) + "' given twice");
    given[slot] = args[positional + static_cast<std::size_t>(k)];
  }
  for (std::size_t i = 0; i < n; ++i)
    if (given[i] == nullptr) throw py::type_error(call.text + ": operand '" + call.inputs[i] + "' is missing");
  if (given[n] == Py_None) given[n] = nullptr;
  return given;
}

PyObject* run(PyObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) {
  const PreparedCall& call = call_of(self);
  const auto given = place_arguments(call, args, PyVectorcall_NARGS(nargsf), kwnames);
  const std::size_t n = call.inputs.size();
  if (call.op) {
    // NOTE: [Prepared fast path], from Python: arrays of the prepared layouts
    // are read in place, with no view built.
    const PreparedOp& op = *call.op;
    const void* a = data_in_place(given[0], op.dtype(), op.a_layout(), false);
    const void* b = data_in_place(given[1], op.dtype(), op.b_layout(), false);
    void* out = given[n] != nullptr ? data_in_place(given[n], op.out_dtype(), op.out_layout(), true) : nullptr;
    if (a != nullptr && b != nullptr && (given[n] == nullptr || out != nullptr))
      return run_in_place(op, a, b, given[n], out);
  }
  std::array<std::optional<Operand>, kMaxOperands> operands;
  std::vector<TensorView> views;
  views.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    operands[i] = Operand::input(given[i], call.inputs[i].c_str());
    if (operands[i]->is_number())
      detail::fail(ErrorKind::value, "{}: operand {} is a number; a prepared call takes arrays (numbers are fixed "
                                     "when it is prepared)", call.text, call.inputs[i]);
    views.push_back(operands[i]->view());
  }
  return run_call(
      given[n], call.out_numel,
      [&](const TensorView& o) {
        if (call.op)
          (*call.op)(views[0], views[1], o);
        else
          (*call.expr)(views, o);
      },
      [&] { return call.op ? (*call.op)(views[0], views[1]) : (*call.expr)(views); });
}

PyObject* vectorcall(PyObject* self, PyObject* const* args, std::size_t nargsf, PyObject* kwnames) {
  return guarded([&] { return run(self, args, nargsf, kwnames); });
}

void dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  // The operands it was prepared with may be DLPack tensors whose deleters
  // run Python code: an exception being raised (the object is often a
  // temporary of the failing call) must outlive them.
  PyObject *error_type = nullptr, *error = nullptr, *traceback = nullptr;
  PyErr_Fetch(&error_type, &error, &traceback);
  delete reinterpret_cast<PreparedObject*>(self)->call;
  PyErr_Restore(error_type, error, traceback);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* repr(PyObject* self) {
  return guarded([&] {
    const PreparedCall& call = call_of(self);
    std::string inputs;
    for (const std::string& name : call.inputs) inputs += (inputs.empty() ? "" : ", ") + name;
    const std::string text = "<bcast.Prepared " + call.text + " (" + inputs + ") -> " +
                             std::string(dtype_name(call.out_dtype())) + to_string(call.out_shape()) + ">";
    return PyUnicode_FromString(text.c_str());
  });
}

PyObject* get_inputs(PyObject* self, void*) {
  return guarded([&] { return py::tuple(py::cast(call_of(self).inputs)).release().ptr(); });
}
PyObject* get_out_shape(PyObject* self, void*) {
  return guarded([&] { return py::tuple(py::cast(call_of(self).out_shape())).release().ptr(); });
}
PyObject* get_out_dtype(PyObject* self, void*) {
  return guarded([&] {
    return reinterpret_cast<PyObject*>(PyArray_DescrFromType(numpy_type(call_of(self).out_dtype())));
  });
}
PyObject* get_kernel(PyObject* self, void*) {
  return guarded([&] {
    const PreparedCall& call = call_of(self);
    return py::str(call.op ? call.op->kernel_key() : call.expr->info().kernel).release().ptr();
  });
}
PyObject* get_broadcast_type(PyObject* self, void*) {
  return guarded([&] {
    const PreparedCall& call = call_of(self);
    return py::str(call.op ? call.op->broadcast_type() : call.expr->info().broadcast_type).release().ptr();
  });
}

PyObject* wrap(std::unique_ptr<PreparedCall> call) {
  Shape shape = call->out_shape();
  call->out_numel = checked_numel(shape, "out");
  for (const std::string& name : call->inputs) call->names.push_back(py::str(name));
  auto* object = PyObject_New(PreparedObject, prepared_type);
  if (object == nullptr) throw py::error_already_set();
  object->vectorcall = vectorcall;
  object->call = call.release();
  return reinterpret_cast<PyObject*>(object);
}

}  // namespace

PyObject* run_in_place(const PreparedOp& op, const void* a, const void* b, PyObject* out, void* out_data) {
  const std::int64_t numel = checked_numel(op.out_shape(), "out");
  if (out != nullptr) {
    {
      const GilRelease unlocked(numel);
      op.run_data(a, b, out_data);
    }
    return Py_NewRef(out);
  }
  Tensor result = Tensor::empty(op.out_dtype(), op.out_layout());
  {
    const GilRelease unlocked(numel);
    op.run_data(a, b, result.data());
  }
  return to_numpy(std::move(result));
}

void add_prepared_type(PyObject* module) {
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", T_PYSSIZET, offsetof(PreparedObject, vectorcall), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyGetSetDef getset[] = {
      {"inputs", get_inputs, nullptr, "the operands a call takes, by name and in positional order", nullptr},
      {"out_shape", get_out_shape, nullptr, "the result's shape", nullptr},
      {"out_dtype", get_out_dtype, nullptr, "the result's NumPy dtype", nullptr},
      {"kernel", get_kernel, nullptr, "the kernel key at prepare(), or 'reference'", nullptr},
      {"broadcast_type", get_broadcast_type, nullptr, "the merged broadcast type, e.g. '[expand_b,same]'", nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyType_Slot slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(dealloc)},
                                {Py_tp_repr, reinterpret_cast<void*>(repr)},
                                {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
                                {Py_tp_members, members},
                                {Py_tp_getset, getset},
                                {Py_tp_doc, const_cast<char*>("A bcast call with its shapes fixed: bcast.prepare(...)")},
                                {0, nullptr}};
  static PyType_Spec spec = {"bcast.Prepared", sizeof(PreparedObject), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                             slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw py::error_already_set();
  prepared_type = reinterpret_cast<PyTypeObject*>(type);
  Py_INCREF(type);
  if (PyModule_AddObject(module, "Prepared", type) < 0) {
    Py_DECREF(type);
    throw py::error_already_set();
  }
}

PyObject* prepare_op(const std::string& name, PyObject* a, PyObject* b, PyObject* out) {
  const std::optional<Op> op = parse_op(name);
  if (!op) detail::fail(ErrorKind::value, "prepare: '{}' is not an op (add, sub, ...)", name);
  auto call = std::make_unique<PreparedCall>();
  call->text = name + "(a, b)";
  py::dict examples;
  examples["a"] = py::handle(a);
  examples["b"] = py::handle(b);
  const NamedOperands& made_with = call->made_with.emplace(examples.ptr());
  const Operand& x = made_with.operands()[0];
  const Operand& y = made_with.operands()[1];
  if (!x.is_number() && !y.is_number() && x.view().dtype() == y.view().dtype()) {
    const DType dtype = x.view().dtype();
    call->op = out != nullptr ? prepare(*op, dtype, x.view().layout(), y.view().layout(), Operand::output(out).view().layout())
                              : prepare(*op, dtype, x.view().layout(), y.view().layout());
  } else {
    // Mixed dtypes or a number: the one-node expression, as a plain call runs it.
    if (out != nullptr)
      detail::fail(ErrorKind::value, "prepare: out= is for operands of one dtype; {} writes a new array's layout",
                   call->text);
    call->expr = prepare(parse_expression(call->text, made_with.expr_operands()));
  }
  call->inputs = call->op ? std::vector<std::string>{"a", "b"} : call->expr->info().inputs;
  return wrap(std::move(call));
}

PyObject* prepare_expression(const std::string& text, PyObject* operands) {
  auto call = std::make_unique<PreparedCall>();
  call->text = text;
  call->expr = prepare(parse_expression(text, call->made_with.emplace(operands).expr_operands()));
  call->inputs = call->expr->info().inputs;
  return wrap(std::move(call));
}

}  // namespace bcast::python
