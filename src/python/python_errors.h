// bcast's errors as Python exceptions (docs/python.md, "Errors").
#pragma once

#include <pybind11/pybind11.h>

#include "bcast/errors.h"

namespace bcast::python {

// Raises `error` in Python: ValueError for shape and value, TypeError for
// dtype, IndexError for index, MemoryError for memory, OSError for io; the
// message is bcast's, and the exception's `kind` attribute is the kind's name.
void raise(const Error& error);

// The body of every function Python calls directly: runs `body`, turning a
// C++ exception into the Python exception it stands for. Returns body's
// result, or nullptr with the Python error set.
template <class Body>
PyObject* guarded(Body&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    raise(e);
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (const pybind11::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

}  // namespace bcast::python
