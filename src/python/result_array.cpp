#include "result_array.h"

#include <array>

#include <pybind11/pybind11.h>

#include "bcast/layout.h"
#include "error_messages.h"
#include "operand.h"

namespace bcast::python {

namespace {

constexpr const char* kCapsuleName = "bcast.Tensor";

void free_tensor(PyObject* capsule) {
  delete static_cast<Tensor*>(PyCapsule_GetPointer(capsule, kCapsuleName));
}

// An ndarray has at most NPY_MAXDIMS dims (32 before NumPy 2), a bcast
// result up to kMaxRank (64): a deeper one is refused, never handed to NumPy.
void check_numpy_rank(int rank) {
  if (rank > NPY_MAXDIMS)
    detail::fail(ErrorKind::shape,
                 "result: rank {} is over NumPy's limit of {} dimensions (NPY_MAXDIMS; bcast computes up to {}): "
                 "give out= a DLPack tensor of the result's shape to receive it",
                 rank, NPY_MAXDIMS, kMaxRank);
}

}  // namespace

PyObject* to_numpy(Tensor&& result) {
  namespace py = pybind11;
  const int rank = result.rank();
  check_numpy_rank(rank);
  PyArray_Descr* descr = PyArray_DescrFromType(numpy_type(result.dtype()));
  std::array<npy_intp, kMaxRank> dims{}, strides{};  // kMaxRank: no rank bcast allows writes past them
  for (int d = 0; d < rank; ++d) {
    dims[static_cast<std::size_t>(d)] = result.shape()[static_cast<std::size_t>(d)];
    strides[static_cast<std::size_t>(d)] =
        result.strides()[static_cast<std::size_t>(d)] * static_cast<npy_intp>(result.element_size());
  }
  auto owner = std::make_unique<Tensor>(std::move(result));
  PyObject* array = PyArray_NewFromDescr(&PyArray_Type, descr, rank, dims.data(), strides.data(), owner->data(),
                                         NPY_ARRAY_WRITEABLE, nullptr);  // steals descr
  if (array == nullptr) throw py::error_already_set();
  PyObject* capsule = PyCapsule_New(owner.get(), kCapsuleName, free_tensor);
  if (capsule == nullptr) {
    Py_DECREF(array);
    throw py::error_already_set();
  }
  owner.release();
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), capsule) < 0) {  // steals capsule
    Py_DECREF(array);
    throw py::error_already_set();
  }
  return rank == 0 ? PyArray_Return(reinterpret_cast<PyArrayObject*>(array)) : array;
}

}  // namespace bcast::python
