// bcast.prepare(...)'s result, the type bcast.Prepared: a call with its
// shapes, strides and dtypes fixed, called like a function (vectorcall):
//   p = bcast.prepare("add", a, b);        p(a2, b2, out=c)
//   q = bcast.prepare("(x - m) / s", x=x, m=m, s=s);   q(x=x2, m=m2, s=s2)
#pragma once

#include <string>

#include "numpy_api.h"

#include "bcast/prepared.h"

namespace bcast::python {

// Runs `op` on the data of arrays read in place (data_in_place): into
// `out_data`, out's, returning out, or (out null) into a new array. The path
// of a Prepared's call and of NOTE: [Python call memo]'s. New reference.
PyObject* run_in_place(const PreparedOp& op, const void* a, const void* b, PyObject* out, void* out_data);

// Creates the type and adds it to `module` as Prepared.
void add_prepared_type(PyObject* module);

// Prepared calls of op `name` on examples a and b (out: the layout to write,
// or null for a new array's), and of an expression's text with its operands
// by name (a dict). New references.
PyObject* prepare_op(const std::string& name, PyObject* a, PyObject* b, PyObject* out);
PyObject* prepare_expression(const std::string& text, PyObject* operands);

}  // namespace bcast::python
