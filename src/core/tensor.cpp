// Tensor: an owning, 64-byte aligned buffer.
#include "bcast/tensor.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "error_messages.h"
#include "fault_injection.h"
#include "large_buffers.h"

namespace bcast {
namespace {
// Buffers of two huge pages or more are huge-page aligned and offered to the
// kernel's transparent huge pages: a walk across rows of a large tensor (a
// transposed view) then misses the TLB 512 times less often. They come from
// and go back to NOTE: [Large buffers].
using large_buffers::kHugePageBytes;
// Free's shift of a large buffer.
constexpr std::size_t kLarge = ~std::size_t{0};
}  // namespace

// NOTE: [Tensor buffers] A buffer under two huge pages is a malloc'ed block
// kAlignment bytes longer with its start moved up to the alignment, not
// aligned_alloc's: glibc's aligned_alloc splits a larger block and frees the
// pieces around it, a sixth of a 16-element call from Python in a profile
// (_int_free, malloc_consolidate). Free moves back by the shift it kept.
void Tensor::Free::operator()(std::byte* p) const {
  if (shift == kLarge)
    large_buffers::give_back(p);
  else
    std::free(p - shift);
}

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
  // A multiple of the alignment (aligned_alloc wants one); never 0 bytes.
  const bool huge = bytes >= kHugePageBytes * 2;
  const std::size_t alignment = huge ? kHugePageBytes : kAlignment;
  const std::size_t padded = (std::max<std::size_t>(bytes, 1) + alignment - 1) / alignment * alignment;
  std::byte* p = nullptr;
  std::size_t shift = 0;
  if (fault::armed(fault::Fault::allocate)) {
    // p stays null: the allocation failure, planted.
  } else if (huge) {
    p = large_buffers::take(padded);
    shift = kLarge;
  } else if (auto* block = static_cast<std::byte*>(std::malloc(padded + kAlignment))) {
    shift = (kAlignment - reinterpret_cast<std::uintptr_t>(block) % kAlignment) % kAlignment;
    p = block + shift;
  }
  if (p == nullptr)
    detail::fail(ErrorKind::memory, "cannot allocate {} bytes for a {} tensor of shape {}", padded, dtype_name(dtype),
                 bcast::to_string(shape));
  if (fill == Fill::zeros) std::memset(p, 0, padded);
  buffer_ = std::unique_ptr<std::byte, Free>(p, Free{shift});
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
