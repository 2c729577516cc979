// bcast.prepare(...)'s result, the type bcast.Prepared: a call with its
// shapes, strides and dtypes fixed, called like a function (vectorcall):
//   p = bcast.prepare("add", a, b);        p(a2, b2, out=c)
//   q = bcast.prepare("(x - m) / s", x=x, m=m, s=s);   q(x=x2, m=m2, s=s2)
#pragma once

#include <string>

#include "numpy_api.h"

namespace bcast::python {

// Creates the type and adds it to `module` as Prepared.
void add_prepared_type(PyObject* module);

// Prepared calls of op `name` on examples a and b (out: the layout to write,
// or null for a new array's), and of an expression's text with its operands
// by name (a dict). New references.
PyObject* prepare_op(const std::string& name, PyObject* a, PyObject* b, PyObject* out);
PyObject* prepare_expression(const std::string& text, PyObject* operands);

}  // namespace bcast::python
