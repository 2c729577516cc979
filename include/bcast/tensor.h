// TensorView (a non-owning strided view) and Tensor (an owning, aligned buffer).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "bcast/dtype.h"
#include "bcast/layout.h"

namespace bcast {

class Tensor;

// Pointer + dtype + layout. Owns nothing; the memory must outlive the view.
// data() points at the element with index (0, 0, ..., 0). Its accessors are
// Tensor's: a function that takes either reads them the same way.
class TensorView {
 public:
  TensorView() = default;
  TensorView(void* data, DType dtype, Layout layout) : data_(data), dtype_(dtype), layout_(std::move(layout)) {}

  void* data() const { return data_; }
  DType dtype() const { return dtype_; }
  const Layout& layout() const { return layout_; }
  int rank() const { return layout_.rank(); }
  const Shape& shape() const { return layout_.shape; }
  const Strides& strides() const { return layout_.strides; }
  std::int64_t numel() const { return layout_.numel(); }
  std::size_t element_size() const { return dtype_size(dtype_); }

  template <class T>
  T* data_as() const { return static_cast<T*>(data_); }

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

 private:
  void* data_ = nullptr;
  DType dtype_ = DType::f32;
  Layout layout_;
};

enum class Order { c, fortran };

// Owns a buffer aligned to 64 bytes, zero-initialised unless made by empty(),
// and hands out views of it.
class Tensor {
 public:
  static constexpr std::size_t kAlignment = 64;

  Tensor() = default;
  Tensor(DType dtype, const Shape& shape, Order order = Order::c);
  // A buffer for a dense layout (Layout::dense, any order of the dims); an
  // Error(value) naming the strides for any other layout.
  Tensor(DType dtype, const Layout& layout);
  // The same buffer, not zero-filled (NumPy's empty): for a result that a
  // call writes whole. The ops' own results are made so: filling 64 MiB
  // before a kernel writes it cost as much as the kernel.
  static Tensor empty(DType dtype, const Layout& layout);
  // Moving hands the buffer over and leaves the source empty (no dangling view).
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;

  DType dtype() const { return view_.dtype(); }
  const Layout& layout() const { return view_.layout(); }
  int rank() const { return view_.rank(); }
  const Shape& shape() const { return view_.shape(); }
  const Strides& strides() const { return view_.strides(); }
  std::int64_t numel() const { return view_.numel(); }
  std::size_t element_size() const { return view_.element_size(); }
  std::size_t nbytes() const { return nbytes_; }
  void* data() const { return view_.data(); }
  template <class T>
  T* data_as() const { return view_.data_as<T>(); }

  const TensorView& view() const { return view_; }
  Tensor contiguous() const { return view_.contiguous(); }
  void copy_to(const TensorView& out) const { view_.copy_to(out); }
  std::string to_string() const { return view_.to_string(); }
  // NOLINT: views are the currency of the API. A reference: passing a Tensor
  // where a view is expected copies nothing.
  operator const TensorView&() const { return view_; }  // NOLINT

 private:
  enum class Fill { zeros, none };
  Tensor(DType dtype, const Layout& layout, Fill fill);
  struct Free {
    std::size_t shift;  // from the start of the block malloc gave (NOTE: [Tensor buffers] in tensor.cpp)
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> buffer_;
  std::size_t nbytes_ = 0;
  TensorView view_;
};

}  // namespace bcast
