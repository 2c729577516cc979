// TensorView (a non-owning strided view) and Tensor (an owning, aligned buffer).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "bcast/dtype.h"
#include "bcast/layout.h"

namespace bcast {

class Tensor;

// Pointer + dtype + layout. Owns nothing; the memory must outlive the view.
// `data` points at the element with index (0, 0, ..., 0).
struct TensorView {
  void* data = nullptr;
  DType dtype = DType::f32;
  Layout layout;

  int rank() const { return layout.rank(); }
  const Shape& shape() const { return layout.shape; }
  const Strides& strides() const { return layout.strides; }
  std::int64_t numel() const { return layout.numel(); }
  std::size_t element_size() const { return dtype_size(dtype); }

  template <class T>
  T* data_as() const { return static_cast<T*>(data); }

  // A new C-order tensor with this view's elements (NumPy's
  // ascontiguousarray, but always a new buffer).
  Tensor contiguous() const;
  // Writes this view's elements into `out`, broadcasting as an op would and
  // converting to out's dtype as astype does; out must not overlap the view
  // unless it is the view itself. Errors are the ops' (shapes, overlap).
  void copy_to(const TensorView& out) const;
  // NumPy's repr, with bcast's dtype names: "f32[2, 3] [[0, 1.5, 2], [3, 4, 5]]";
  // above 1000 elements each level shows its first and last 3 around "...".
  std::string to_string() const;
};

enum class Order { c, fortran };

// Owns a zero-initialised buffer aligned to 64 bytes and hands out views of it.
class Tensor {
 public:
  static constexpr std::size_t kAlignment = 64;

  Tensor() = default;
  Tensor(DType dtype, const Shape& shape, Order order = Order::c);
  // A buffer for a dense layout (Layout::dense, any order of the dims); an
  // Error(value) naming the strides for any other layout.
  Tensor(DType dtype, const Layout& layout);
  // Moving hands the buffer over and leaves the source empty (no dangling view).
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;

  DType dtype() const { return view_.dtype; }
  const Layout& layout() const { return view_.layout; }
  int rank() const { return view_.rank(); }
  const Shape& shape() const { return view_.layout.shape; }
  const Strides& strides() const { return view_.layout.strides; }
  std::int64_t numel() const { return view_.layout.numel(); }
  std::size_t nbytes() const { return nbytes_; }
  void* data() const { return view_.data; }
  template <class T>
  T* data_as() const { return static_cast<T*>(view_.data); }

  const TensorView& view() const { return view_; }
  Tensor contiguous() const { return view_.contiguous(); }
  void copy_to(const TensorView& out) const { view_.copy_to(out); }
  std::string to_string() const { return view_.to_string(); }
  // NOLINT: views are the currency of the API. A reference: passing a Tensor
  // where a view is expected copies nothing.
  operator const TensorView&() const { return view_; }  // NOLINT

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> buffer_;
  std::size_t nbytes_ = 0;
  TensorView view_;
};

}  // namespace bcast
