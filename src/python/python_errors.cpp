#include "python_errors.h"

namespace bcast::python {

namespace {

PyObject* exception_type(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::shape:
    case ErrorKind::value: return PyExc_ValueError;
    case ErrorKind::dtype: return PyExc_TypeError;
    case ErrorKind::index: return PyExc_IndexError;
    case ErrorKind::memory: return PyExc_MemoryError;
    case ErrorKind::io: return PyExc_OSError;
  }
  return PyExc_RuntimeError;
}

}  // namespace

void raise(const Error& error) {
  PyObject* type = exception_type(error.kind());
  PyObject* exception = PyObject_CallFunction(type, "s", error.what());
  if (exception == nullptr) return;  // the call's own error stands
  const std::string_view kind = error_kind_name(error.kind());
  PyObject* kind_name = PyUnicode_FromStringAndSize(kind.data(), static_cast<Py_ssize_t>(kind.size()));
  if (kind_name == nullptr || PyObject_SetAttrString(exception, "kind", kind_name) < 0) {
    Py_XDECREF(kind_name);
    Py_DECREF(exception);
    return;
  }
  Py_DECREF(kind_name);
  PyErr_SetObject(type, exception);
  Py_DECREF(exception);
}

}  // namespace bcast::python
