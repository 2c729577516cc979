#include "operand.h"

#include <bit>
#include <complex>

#include "error_messages.h"

namespace bcast::python {

namespace py = pybind11;

int numpy_type(DType dtype) {
  switch (dtype) {
    case DType::f16: return NPY_HALF;
    case DType::f32: return NPY_FLOAT32;
    case DType::f64: return NPY_FLOAT64;
    case DType::i8: return NPY_INT8;
    case DType::i16: return NPY_INT16;
    case DType::i32: return NPY_INT32;
    case DType::i64: return NPY_INT64;
    case DType::u8: return NPY_UINT8;
    case DType::u16: return NPY_UINT16;
    case DType::u32: return NPY_UINT32;
    case DType::u64: return NPY_UINT64;
    case DType::boolean: return NPY_BOOL;
    case DType::c64: return NPY_COMPLEX64;
    case DType::c128: return NPY_COMPLEX128;
    case DType::bf16: break;
  }
  detail::fail(ErrorKind::dtype, "result: NumPy has no dtype for {} (make the expression cast it, e.g. f32(...))",
               dtype_name(dtype));
}

std::optional<DType> dtype_of(char kind, int bytes) {
  switch (kind) {
    case 'b': return bytes == 1 ? std::optional(DType::boolean) : std::nullopt;
    case 'f':
      if (bytes == 2) return DType::f16;
      if (bytes == 4) return DType::f32;
      if (bytes == 8) return DType::f64;
      return std::nullopt;
    case 'i':
      if (bytes == 1) return DType::i8;
      if (bytes == 2) return DType::i16;
      if (bytes == 4) return DType::i32;
      if (bytes == 8) return DType::i64;
      return std::nullopt;
    case 'u':
      if (bytes == 1) return DType::u8;
      if (bytes == 2) return DType::u16;
      if (bytes == 4) return DType::u32;
      if (bytes == 8) return DType::u64;
      return std::nullopt;
    case 'c':
      if (bytes == 8) return DType::c64;
      if (bytes == 16) return DType::c128;
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<DType> bcast_dtype(const PyArray_Descr* descr) { return dtype_of(descr->kind, descr->elsize); }

namespace {

std::string numpy_dtype_text(PyArray_Descr* descr) {
  py::object text = py::str(reinterpret_cast<PyObject*>(descr));
  return text.cast<std::string>();
}

// A Python int as NEP 50's weak integer; one that does not fit i64 (2**63
// included) is an Error(value) naming the operand and the value, whichever
// side of i64 it falls (NumPy: "Python integer out of bounds").
ExprOperand weak_int(PyObject* number, const char* name) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) throw py::error_already_set();
    return ExprOperand(static_cast<std::int64_t>(value));
  }
  detail::fail(ErrorKind::value, "{}: the Python integer {} does not fit i64", name,
               py::str(number).cast<std::string>());
}

// Item sizes are powers of two: strides in elements by shifts (a division
// per dim showed in a profile of 16-element calls).
bool byte_strides_fit(PyArrayObject* array) {
  const npy_intp mask = PyArray_ITEMSIZE(array) - 1;
  for (int d = 0; d < PyArray_NDIM(array); ++d)
    if ((PyArray_STRIDES(array)[d] & mask) != 0) return false;
  return true;
}

}  // namespace

void* data_in_place(PyObject* object, DType dtype, const Layout& layout, bool output) {
  if (!PyArray_Check(object)) return nullptr;
  auto* array = reinterpret_cast<PyArrayObject*>(object);
  if (bcast_dtype(PyArray_DESCR(array)) != dtype || !PyArray_ISALIGNED(array) || !PyArray_ISNOTSWAPPED(array) ||
      (output && !PyArray_ISWRITEABLE(array)) || PyArray_NDIM(array) != layout.rank())
    return nullptr;
  const npy_intp item = PyArray_ITEMSIZE(array);
  for (int d = 0; d < layout.rank(); ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (PyArray_DIMS(array)[d] != layout.shape[k] || PyArray_STRIDES(array)[d] != layout.strides[k] * item)
      return nullptr;
  }
  return PyArray_DATA(array);
}

Operand Operand::of_array(PyArrayObject* array, const char* name, bool output) {
  PyArray_Descr* descr = PyArray_DESCR(array);
  const std::optional<DType> dtype = bcast_dtype(descr);
  if (!dtype)
    detail::fail(ErrorKind::dtype, "{}: dtype {} is not one bcast computes on (bool, int8..int64, uint8..uint64, "
                                   "float16, float32, float64, complex64, complex128)", name, numpy_dtype_text(descr));
  Operand operand;
  operand.owner_ = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(array));
  const bool direct = PyArray_ISALIGNED(array) && PyArray_ISNOTSWAPPED(array) && byte_strides_fit(array);
  if (output) {
    if (!PyArray_ISWRITEABLE(array)) detail::fail(ErrorKind::value, "out: the array is read-only");
    if (!direct)
      detail::fail(ErrorKind::value, "out: the array must be aligned and in the machine's byte order (dtype {})",
                   numpy_dtype_text(descr));
  } else if (!direct) {
    // A native, aligned copy (NumPy reads such arrays through a buffer too).
    PyArray_Descr* native = PyArray_DescrFromType(descr->type_num);  // the machine's byte order
    PyObject* copy = PyArray_FromArray(array, native, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_ENSURECOPY);
    if (copy == nullptr) throw py::error_already_set();
    operand.owner_ = py::reinterpret_steal<py::object>(copy);
    array = reinterpret_cast<PyArrayObject*>(copy);
  }
  const int rank = PyArray_NDIM(array);
  const int shift = std::countr_zero(static_cast<std::uint64_t>(PyArray_ITEMSIZE(array)));
  Layout layout;
  layout.shape.assign(PyArray_DIMS(array), PyArray_DIMS(array) + rank);
  layout.strides.resize(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) layout.strides[static_cast<std::size_t>(d)] = PyArray_STRIDES(array)[d] >> shift;
  operand.view_ = TensorView(PyArray_DATA(array), *dtype, std::move(layout));
  return operand;
}

// NEP 50: only Python's own int, float and complex are weak. NumPy's scalars
// (np.float64 is a subclass of float) are strong values of their dtype: 0-d
// arrays here, as NumPy 2 reads them.
Operand Operand::input(PyObject* object, const char* name) {
  if (PyArray_Check(object)) return of_array(reinterpret_cast<PyArrayObject*>(object), name, false);
  if (PyFloat_CheckExact(object)) {
    Operand number;
    number.number_ = ExprOperand(PyFloat_AS_DOUBLE(object));
    return number;
  }
  if (PyLong_CheckExact(object)) {
    Operand number;
    number.number_ = weak_int(object, name);
    return number;
  }
  if (PyComplex_CheckExact(object)) {
    Operand number;
    number.number_ = ExprOperand(std::complex<double>(PyComplex_RealAsDouble(object), PyComplex_ImagAsDouble(object)));
    return number;
  }
  if (offers_dlpack(object)) {
    Operand operand;
    operand.dlpack_ = std::make_shared<DLPackImport>(object, name);
    operand.view_ = operand.dlpack_->view();
    return operand;
  }
  return array(object, name);
}

Operand Operand::array(PyObject* object, const char* name) {
  // NumPy's reading: a copy only for what has no memory of its own to view
  // (numbers, lists, NumPy scalars).
  PyObject* array = PyArray_FromAny(object, nullptr, 0, 0, 0, nullptr);
  if (array == nullptr) throw py::error_already_set();
  const py::object owner = py::reinterpret_steal<py::object>(array);
  return of_array(reinterpret_cast<PyArrayObject*>(array), name, false);
}

Operand Operand::output(PyObject* object) {
  if (PyArray_Check(object)) return of_array(reinterpret_cast<PyArrayObject*>(object), "out", true);
  if (offers_dlpack(object)) {
    Operand operand;
    operand.dlpack_ = std::make_shared<DLPackImport>(object, "out");
    operand.view_ = operand.dlpack_->view();
    return operand;
  }
  PyObject* array = PyArray_FromAny(object, nullptr, 0, 0, NPY_ARRAY_WRITEABLE, nullptr);
  if (array == nullptr) throw py::error_already_set();
  const py::object owner = py::reinterpret_steal<py::object>(array);
  if (array == object || PyArray_BASE(reinterpret_cast<PyArrayObject*>(array)) != nullptr)
    return of_array(reinterpret_cast<PyArrayObject*>(array), "out", true);
  // NumPy made new memory: writing there would not reach the caller.
  detail::fail(ErrorKind::value, "out: {} is not an array whose memory can be written in place",
               Py_TYPE(object)->tp_name);
}

NamedOperands::NamedOperands(PyObject* dict) {
  // One snapshot of the dict, its values owned, before any operand is read:
  // reading one runs Python code (__array__, __dlpack__, __str__ of a key)
  // that may add, drop or replace entries of a dict the caller still holds.
  const py::list items = py::reinterpret_steal<py::list>(PyDict_Items(dict));
  if (!items) throw py::error_already_set();
  std::vector<py::object> values;
  for (const py::handle item : items) {
    names_.push_back(py::str(py::handle(PyTuple_GET_ITEM(item.ptr(), 0))).cast<std::string>());
    values.push_back(py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(item.ptr(), 1)));
  }
  operands_.reserve(names_.size());  // the map keeps views of them
  for (std::size_t i = 0; i < names_.size(); ++i) {
    operands_.push_back(Operand::input(values[i].ptr(), names_[i].c_str()));
    expr_operands_.emplace(names_[i], operands_.back().expr_operand());
  }
}

}  // namespace bcast::python
