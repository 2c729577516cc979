// bcast's results as NumPy arrays, without a copy.
#pragma once

#include "numpy_api.h"

#include "bcast/tensor.h"

namespace bcast::python {

// An ndarray over `result`'s buffer, which it owns from now on: its base is a
// capsule named "bcast.Tensor" that frees the buffer with the last view of
// it. A 0-d result becomes a NumPy scalar, as a ufunc's does. New reference.
PyObject* to_numpy(Tensor&& result);

}  // namespace bcast::python
