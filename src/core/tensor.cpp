// Tensor: an owning, 64-byte aligned buffer.
#include "bcast/tensor.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include <sys/mman.h>

#include "error_messages.h"
#include "fault_injection.h"

namespace bcast {
namespace {
// Buffers of two huge pages or more are huge-page aligned and offered to the
// kernel's transparent huge pages: a walk across rows of a large tensor (a
// transposed view) then misses the TLB 512 times less often.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
}  // namespace

void Tensor::Free::operator()(std::byte* p) const { std::free(p); }

Tensor::Tensor(DType dtype, const Shape& shape, Order order)
    : Tensor(dtype, order == Order::c ? Layout::contiguous(shape) : Layout::column_major(shape)) {}

Tensor::Tensor(DType dtype, const Layout& layout) : Tensor(dtype, layout, Fill::zeros) {}

Tensor Tensor::empty(DType dtype, const Layout& layout) { return Tensor(dtype, layout, Fill::none); }

Tensor::Tensor(DType dtype, const Layout& layout, Fill fill) {
  const Shape& shape = layout.shape;
  validate_layout(layout, "tensor");
  if (!layout.is_dense())
    detail::fail(ErrorKind::value, "tensor: shape {} strides {} is not a dense layout (no gaps, positive strides)",
                 bcast::to_string(shape), bcast::to_string(layout.strides));
  const std::int64_t n = checked_numel(shape, "tensor");
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(n), dtype_size(dtype), &bytes))
    detail::fail(ErrorKind::value, "tensor of shape {} is too large to allocate", bcast::to_string(shape));
  nbytes_ = bytes;
  // aligned_alloc wants a multiple of the alignment; never allocate 0 bytes.
  const bool huge = bytes >= kHugePageBytes * 2;
  const std::size_t alignment = huge ? kHugePageBytes : kAlignment;
  const std::size_t padded = (std::max<std::size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  auto* p = fault::armed(fault::Fault::allocate) ? nullptr
                                                 : static_cast<std::byte*>(std::aligned_alloc(alignment, padded));
  if (p != nullptr && huge) ::madvise(p, padded, MADV_HUGEPAGE);
  if (p == nullptr)
    detail::fail(ErrorKind::memory, "cannot allocate {} bytes for a {} tensor of shape {}", padded, dtype_name(dtype),
                 bcast::to_string(shape));
  if (fill == Fill::zeros) std::memset(p, 0, padded);
  buffer_.reset(p);
  view_ = TensorView(p, dtype, layout);
}

Tensor::Tensor(Tensor&& other) noexcept
    : buffer_(std::move(other.buffer_)), nbytes_(std::exchange(other.nbytes_, 0)),
      view_(std::exchange(other.view_, TensorView{})) {}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  buffer_ = std::move(other.buffer_);
  nbytes_ = std::exchange(other.nbytes_, 0);
  view_ = std::exchange(other.view_, TensorView{});
  return *this;
}

}  // namespace bcast
