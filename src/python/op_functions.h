// bcast.add(a, b, out=None) and every other op: the module's functions that
// run one op, called by CPython directly (vectorcall), with no layer between
// Python's call and bcast's.
#pragma once

#include "numpy_api.h"

namespace bcast::python {

// The table of the op functions, ending in a sentinel, for the module's
// PyModule_AddFunctions.
PyMethodDef* op_function_table();

}  // namespace bcast::python
