// The .npy reader and writer (NumPy format versions 1.0, 2.0 and 3.0).
#include "bcast/npy.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "error_messages.h"
#include "npy_reader.h"

namespace bcast {
namespace {

using detail::fail;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kMaxHeaderBytes = std::size_t{1} << 20;

struct NpyType {
  std::string_view descr;  // little-endian spelling
  DType dtype;
};
// '|' and '=' spellings are normalised to '<' before lookup (this is a
// little-endian host); a '>' (big-endian) file is read and its elements'
// bytes reversed on load.
constexpr std::array<NpyType, 14> kNpyTypes{{
    {"<f2", DType::f16}, {"<f4", DType::f32}, {"<f8", DType::f64}, {"<i1", DType::i8},
    {"<i2", DType::i16}, {"<i4", DType::i32}, {"<i8", DType::i64}, {"<u1", DType::u8},
    {"<u2", DType::u16}, {"<u4", DType::u32}, {"<u8", DType::u64}, {"<b1", DType::boolean},
    {"<c8", DType::c64}, {"<c16", DType::c128},
}};

struct NpyHeader {
  DType dtype;
  bool big_endian = false;  // descr '>..': the payload's elements are byte-reversed
  bool fortran_order = false;
  Shape shape;
};

// Parses the header's Python dict literal:
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  NpyHeader parse() {
    NpyHeader h{};
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (!accept('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        const std::string descr = string_literal();
        h.big_endian = !descr.empty() && descr[0] == '>';
        h.dtype = dtype_of(descr);
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean_literal();
        have_order = true;
      } else if (key == "shape") {
        h.shape = shape_tuple();
        have_shape = true;
      } else {
        error(fmt::format("unexpected key '{}'", key));
      }
      if (!accept(',')) {
        expect('}');
        break;
      }
    }
    if (!have_descr || !have_order || !have_shape)
      error("the header must have 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  DType dtype_of(const std::string& descr) const {
    std::string little = descr;
    if (little.size() >= 3 && (little[0] == '|' || little[0] == '=' || little[0] == '>')) little[0] = '<';
    for (const NpyType& t : kNpyTypes)
      if (t.descr == little) return t.dtype;
    fail(ErrorKind::io, "{}: unsupported dtype '{}' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16, either byte order)",
         path_, descr);
  }

  Shape shape_tuple() {
    Shape shape;
    expect('(');
    while (!accept(')')) {
      shape.push_back(integer());
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    if (shape.size() > static_cast<std::size_t>(kMaxRank))
      error(fmt::format("rank {} is above the limit of {}", shape.size(), kMaxRank));
    return shape;
  }

  std::int64_t integer() {
    skip_space();
    std::int64_t value = 0;
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text_[pos_] - '0', &value))
        error("an extent overflows 64 bits");
      ++pos_;
    }
    if (pos_ == begin) error("expected a non-negative integer extent");
    if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;  // Python 2 long suffix
    return value;
  }

  bool boolean_literal() {
    skip_space();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_, std::strlen(word)) == word) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    error("expected True or False");
  }

  std::string string_literal() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') error("expected a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) error("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }

  bool accept(char c) {
    skip_space();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) error(fmt::format("expected '{}'", c));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  [[noreturn]] void error(const std::string& what) const {
    fail(ErrorKind::io, "{}: corrupt .npy header: {} at byte {} of the header", path_, what, pos_);
  }

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

// A big-endian payload made native: each value's bytes in reverse order.
void reverse_element_bytes(unsigned char* data, std::int64_t numel, std::size_t size) {
  if (size == 1) return;
  for (std::int64_t i = 0; i < numel; ++i, data += size) std::reverse(data, data + size);
}

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Tensor load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) fail(ErrorKind::io, "{}: cannot open for reading: {}", path, std::strerror(errno));
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  return detail::read_npy(in, file_size, path);
}

namespace detail {

Tensor read_npy(std::istream& in, std::uint64_t file_size, const std::string& path) {

  std::array<unsigned char, 12> prefix{};
  if (file_size < 10 || !in.read(reinterpret_cast<char*>(prefix.data()), 8))
    fail(ErrorKind::io, "{}: not a .npy file (too short for the magic string)", path);
  if (std::memcmp(prefix.data(), kMagic.data(), kMagic.size()) != 0)
    fail(ErrorKind::io, "{}: not a .npy file (bad magic string)", path);
  const int major = prefix[6];
  if (major < 1 || major > 3)
    fail(ErrorKind::io, "{}: unsupported .npy format version {}.{}", path, major, prefix[7]);
  const int length_bytes = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(prefix.data() + 8), length_bytes))
    fail(ErrorKind::io, "{}: truncated .npy header", path);
  const std::uint64_t header_len = little_endian(prefix.data() + 8, length_bytes);
  const std::uint64_t data_start = 8 + length_bytes + header_len;
  if (header_len > kMaxHeaderBytes)
    fail(ErrorKind::io, "{}: .npy header of {} bytes is above the limit of {}", path, header_len, kMaxHeaderBytes);
  if (data_start > file_size)
    fail(ErrorKind::io, "{}: truncated .npy header: it claims {} bytes but the file has {}", path,
         header_len, file_size - 8 - length_bytes);

  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  const NpyHeader h = HeaderParser(header, path).parse();

  std::int64_t numel = 0;
  try {
    numel = checked_numel(h.shape, "the .npy array");
  } catch (const Error& e) {
    fail(ErrorKind::io, "{}: {}", path, e.what());
  }
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(numel) * dtype_size(h.dtype);
  if (numel != 0 && data_bytes / dtype_size(h.dtype) != static_cast<std::uint64_t>(numel))
    fail(ErrorKind::io, "{}: shape {} is too large", path, to_string(h.shape));
  if (file_size - data_start < data_bytes)
    fail(ErrorKind::io, "{}: truncated .npy data: shape {} of {} needs {} bytes, the file has {}", path,
         to_string(h.shape), dtype_name(h.dtype), data_bytes, file_size - data_start);

  Tensor t(h.dtype, h.shape, h.fortran_order ? Order::fortran : Order::c);
  if (!in.read(static_cast<char*>(t.data()), static_cast<std::streamsize>(data_bytes)))
    fail(ErrorKind::io, "{}: read error in the data", path);
  if (h.big_endian) {  // a complex number's parts are reversed one by one
    const std::size_t parts = is_complex(h.dtype) ? 2 : 1, size = dtype_size(h.dtype) / parts;
    reverse_element_bytes(static_cast<unsigned char*>(t.data()), numel * static_cast<std::int64_t>(parts), size);
  }
  return t;
}

}  // namespace detail

namespace {

std::string header_text(const TensorView& x, std::string_view descr) {
  std::string shape = "(";
  for (std::int64_t e : x.shape()) shape += fmt::format("{}, ", e);
  if (x.rank() > 1) shape.resize(shape.size() - 2);
  if (x.rank() == 1) shape.pop_back();  // "(3,)"
  shape += ")";
  std::string h = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Pad with spaces so the data starts at a multiple of 64 bytes; end with '\n'.
  const std::size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  return h + '\n';
}

// Copies x's elements in C order into a contiguous byte buffer.
std::vector<char> c_order_bytes(const TensorView& x) {
  const std::size_t size = x.element_size();
  std::vector<char> bytes(static_cast<std::size_t>(x.numel()) * size);
  std::vector<std::int64_t> index(x.rank(), 0);
  const auto* base = static_cast<const char*>(x.data());
  for (std::size_t i = 0; i < bytes.size(); i += size) {
    std::int64_t offset = 0;
    for (int d = 0; d < x.rank(); ++d) offset += index[d] * x.strides()[d];
    std::memcpy(bytes.data() + i, base + offset * static_cast<std::int64_t>(size), size);
    for (int d = x.rank() - 1; d >= 0 && ++index[d] == x.shape()[d]; --d) index[d] = 0;
  }
  return bytes;
}

}  // namespace

void save_npy(const std::string& path, const TensorView& x) {
  std::string_view descr;
  for (const NpyType& t : kNpyTypes)
    if (t.dtype == x.dtype()) descr = t.descr;
  if (descr.empty()) fail(ErrorKind::dtype, "{}: dtype {} has no .npy equivalent", path, dtype_name(x.dtype()));
  validate_layout(x.layout(), "the array to save");

  const std::string header = header_text(x, descr);
  const std::vector<char> data = c_order_bytes(x);
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::array<char, 10> prefix{'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      static_cast<char>(header.size() & 0xff),
                                      static_cast<char>(header.size() >> 8)};
    out.write(prefix.data(), prefix.size());
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      fail(ErrorKind::io, "{}: cannot write: {}", path, std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    fail(ErrorKind::io, "{}: cannot write: {}", path, std::strerror(err));
  }
}

}  // namespace bcast
