// DLPack: the in-memory tensor structure that array libraries hand each other
// without copying (PyTorch, JAX, CuPy, NumPy >= 1.22). bcast consumes it: an
// object's __dlpack__() returns a capsule named "dltensor" holding a
// DLManagedTensor, which the consumer renames "used_dltensor" and releases
// through its deleter when done. Only the ABI's fields bcast reads are
// declared here (the layout is DLPack's, version 0.x, which NumPy 1.24 makes).
#pragma once

#include <cstdint>
#include <memory>

#include "numpy_api.h"

#include "bcast/tensor.h"

namespace bcast::python {

namespace dl {
enum DeviceType : std::int32_t { cpu = 1 };
enum TypeCode : std::uint8_t { int_ = 0, uint = 1, float_ = 2, bfloat = 4, complex = 5, boolean = 6 };
struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null means C order
  std::uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
}  // namespace dl

// A DLPack tensor taken from its producer: its view, and its release when the
// import goes.
class DLPackImport {
 public:
  // Calls object.__dlpack__() and takes the tensor; an Error naming `name`
  // for a device other than the CPU or a dtype bcast has no equivalent of.
  DLPackImport(PyObject* object, const char* name);
  const TensorView& view() const { return view_; }

 private:
  struct Release {
    void operator()(dl::ManagedTensor* tensor) const;
  };
  std::unique_ptr<dl::ManagedTensor, Release> tensor_;
  TensorView view_;
};

// Whether `object` offers __dlpack__ (and is not an ndarray, read natively).
bool offers_dlpack(PyObject* object);

}  // namespace bcast::python
