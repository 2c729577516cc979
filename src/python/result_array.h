// bcast's results as NumPy arrays, without a copy.
#pragma once

#include <cstdint>

#include "numpy_api.h"

#include "bcast/tensor.h"
#include "gil.h"
#include "operand.h"

namespace bcast::python {

// An ndarray over `result`'s buffer, which it owns from now on: its base is a
// capsule named "bcast.Tensor" that frees the buffer with the last view of
// it. A 0-d result becomes a NumPy scalar, as a ufunc's does. New reference.
PyObject* to_numpy(Tensor&& result);

// A call's two forms: into `out` (read with Operand::output, and returned)
// or, out null, into a new array over bcast's buffer. Either runs with the
// GIL let go from kGilFreeElements elements (NOTE: [GIL]); `numel` is the new
// result's, or a lower bound of it. New reference.
//   into_out(const TensorView& out)   into_new() -> Tensor
template <class IntoOut, class IntoNew>
PyObject* run_call(PyObject* out, std::int64_t numel, IntoOut&& into_out, IntoNew&& into_new) {
  if (out != nullptr) {
    const Operand o = Operand::output(out);
    {
      const GilRelease unlocked(o.view().numel());
      into_out(o.view());
    }
    return Py_NewRef(out);
  }
  Tensor result;
  {
    const GilRelease unlocked(numel);
    result = into_new();
  }
  return to_numpy(std::move(result));
}

}  // namespace bcast::python
