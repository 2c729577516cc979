#include "dlpack.h"

#include <pybind11/pybind11.h>

#include "error_messages.h"

namespace bcast::python {

namespace {

DType dtype_of(const dl::DataType& t, const char* name) {
  if (t.lanes == 1) {
    switch (t.code) {
      case dl::int_:
        if (t.bits == 8) return DType::i8;
        if (t.bits == 16) return DType::i16;
        if (t.bits == 32) return DType::i32;
        if (t.bits == 64) return DType::i64;
        break;
      case dl::uint:
        if (t.bits == 8) return DType::u8;
        if (t.bits == 16) return DType::u16;
        if (t.bits == 32) return DType::u32;
        if (t.bits == 64) return DType::u64;
        break;
      case dl::float_:
        if (t.bits == 16) return DType::f16;
        if (t.bits == 32) return DType::f32;
        if (t.bits == 64) return DType::f64;
        break;
      case dl::bfloat:
        if (t.bits == 16) return DType::bf16;
        break;
      case dl::boolean:
        if (t.bits == 8) return DType::boolean;
        break;
      default: break;
    }
  }
  detail::fail(ErrorKind::dtype, "{}: DLPack dtype (code {}, {} bits, {} lanes) has no bcast dtype", name, t.code, t.bits,
               t.lanes);
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
  const DType dtype = dtype_of(t.dtype, name);
  Layout layout;
  layout.shape.assign(t.shape, t.shape + t.ndim);
  layout = t.strides != nullptr ? Layout{layout.shape, Strides(t.strides, t.strides + t.ndim)}
                                : Layout::contiguous(layout.shape);
  validate_layout(layout, name);
  view_ = TensorView(static_cast<std::byte*>(t.data) + t.byte_offset, dtype, std::move(layout));
}

}  // namespace bcast::python
