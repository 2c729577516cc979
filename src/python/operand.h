// Python objects read as the operands of a call, in place (docs/python.md,
// "Operands").
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "numpy_api.h"

#include "bcast/expr.h"
#include "bcast/tensor.h"
#include "dlpack.h"

namespace bcast::python {

// NumPy's dtype of a bcast dtype (bf16 has none: an Error(dtype)), and back.
int numpy_type(DType dtype);
std::optional<DType> bcast_dtype(const PyArray_Descr* descr);
// The dtype of an element kind as the array interface spells it ('b' bool,
// 'i' signed, 'u' unsigned, 'f' float) and its size in bytes, if bcast has it.
std::optional<DType> dtype_of(char kind, int bytes);

// The data of `object` when it is an ndarray that a call can use in place
// with exactly this dtype and layout (writable too, for an output), read
// without building a view; null otherwise (the general reading then finds
// what differs, and says so).
void* data_in_place(PyObject* object, DType dtype, const Layout& layout, bool output);

// One operand of a call: a view of memory that the call reads (or writes) in
// place, or a Python number.
class Operand {
 public:
  // An input named `name` in errors ("a", "b", "x"):
  //   - an ndarray of any strides, negative and zero included, read-only too;
  //   - a Python int or float: a weak scalar (NEP 50); a Python bool is a
  //     strong bool, as NumPy 2 has it;
  //   - an object with __dlpack__ (a CPU tensor of PyTorch, JAX, ...);
  //   - anything NumPy reads as an array: __array_interface__, the buffer
  //     protocol, NumPy scalars, nested lists (those are copied, as NumPy does).
  // An ndarray that is misaligned or not in the machine's byte order is read
  // through an aligned native copy.
  static Operand input(PyObject* object, const char* name);
  // An input read as an array, a Python number too (int64, float64 or bool, as
  // np.asarray reads it): how NumPy takes numbers with no array beside them.
  static Operand array(PyObject* object, const char* name);
  // An array to write into: a writable, aligned, native ndarray, or a DLPack
  // or array-interface object over such memory.
  static Operand output(PyObject* object);

  bool is_number() const { return number_.has_value(); }
  const TensorView& view() const { return view_; }
  // What parse_expression takes: the view, or the number.
  ExprOperand expr_operand() const { return number_ ? *number_ : ExprOperand(view_); }

 private:
  static Operand of_array(PyArrayObject* array, const char* name, bool output);

  TensorView view_;
  pybind11::object owner_;  // the array whose memory view_ reads, when one was made or taken
  std::shared_ptr<DLPackImport> dlpack_;
  std::optional<ExprOperand> number_;
};

// An expression's operands by name, from Python's dict of arrays and numbers
// (bcast.evaluate's keywords), as parse_expression takes them. The operands
// stay alive with it: their views read the arrays' memory.
class NamedOperands {
 public:
  explicit NamedOperands(PyObject* dict);
  const std::vector<Operand>& operands() const { return operands_; }
  const std::map<std::string, ExprOperand, std::less<>>& expr_operands() const { return expr_operands_; }

 private:
  std::vector<std::string> names_;
  std::vector<Operand> operands_;
  std::map<std::string, ExprOperand, std::less<>> expr_operands_;
};

}  // namespace bcast::python
