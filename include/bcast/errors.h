// The one exception family bcast throws for a caller's mistake.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace bcast {

// What went wrong, so callers can react without parsing messages.
//   shape: shapes that do not broadcast, out of the wrong shape, bad squeeze dims
//   dtype: mismatched dtypes, an op that is not defined for a dtype
//   index: an index or slice out of range or malformed
//   value: any other invalid argument (null data, overlapping out, bad setting)
//   io:    a file that cannot be read or written, a corrupt or unsupported .npy
//   memory: a tensor's buffer could not be allocated (nothing was written)
enum class ErrorKind { shape, dtype, index, value, io, memory };

std::string_view error_kind_name(ErrorKind kind);

// One-line message naming the operand, the dim and the values; bytes outside
// printable ASCII in it are written as \xNN.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace bcast
