#include "dlpack.h"

#include <pybind11/pybind11.h>

#include "error_messages.h"
#include "operand.h"

namespace bcast::python {

namespace {

DType dlpack_dtype(const dl::DataType& t, const char* name) {
  std::optional<DType> dtype;
  if (t.lanes == 1 && t.code == dl::bfloat && t.bits == 16) dtype = DType::bf16;
  if (t.lanes == 1 && t.bits % 8 == 0) {
    constexpr char kinds[] = {'i', 'u', 'f', '?', '?', 'c', 'b'};  // by DLPack's type code
    if (t.code < sizeof kinds && t.code != dl::bfloat) dtype = python::dtype_of(kinds[t.code], t.bits / 8);
  }
  if (!dtype)
    detail::fail(ErrorKind::dtype, "{}: DLPack dtype (code {}, {} bits, {} lanes) has no bcast dtype", name, t.code,
                 t.bits, t.lanes);
  return *dtype;
}

}  // namespace

void DLPackImport::Release::operator()(dl::ManagedTensor* tensor) const {
  if (tensor->deleter != nullptr) tensor->deleter(tensor);
}

bool offers_dlpack(PyObject* object) {
  return !PyArray_Check(object) && PyObject_HasAttrString(object, "__dlpack__");
}

DLPackImport::DLPackImport(PyObject* object, const char* name) {
  namespace py = pybind11;
  py::object capsule = py::reinterpret_borrow<py::object>(object).attr("__dlpack__")();
  auto* tensor = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (tensor == nullptr) throw py::error_already_set();
  // Ours now: renamed so that the capsule's destructor leaves it to us.
  if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") < 0) throw py::error_already_set();
  tensor_.reset(tensor);
  const dl::Tensor& t = tensor->dl_tensor;
  if (t.device.device_type != dl::cpu)
    detail::fail(ErrorKind::value, "{}: the DLPack tensor is on device ({}, {}), not the CPU (1, 0)", name,
                 t.device.device_type, t.device.device_id);
  const DType dtype = dlpack_dtype(t.dtype, name);
  Layout layout;
  layout.shape.assign(t.shape, t.shape + t.ndim);
  layout = t.strides != nullptr ? Layout{layout.shape, Strides(t.strides, t.strides + t.ndim)}
                                : Layout::contiguous(layout.shape);
  validate_layout(layout, name);
  view_ = TensorView(static_cast<std::byte*>(t.data) + t.byte_offset, dtype, std::move(layout));
}

}  // namespace bcast::python
