// A view's copies: into a new C-order tensor, or into another view. Both are
// the one-leaf expression (NOTE: [Expression kernels]) of the view broadcast
// to out's shape (NumPy's copyto), so they cast and check overlap as every
// call does.
#include "bcast/expr.h"
#include "bcast/tensor.h"
#include "bcast/views.h"

namespace bcast {

void TensorView::copy_to(const TensorView& out) const {
  const Expr x(broadcast_to(*this, out.shape()));
  evaluate(out.dtype() == dtype() ? x : x.astype(out.dtype()), out);
}

Tensor TensorView::contiguous() const {
  Tensor out = Tensor::empty(dtype(), Layout::contiguous(shape()));
  copy_to(out);
  return out;
}

}  // namespace bcast
