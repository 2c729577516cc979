// The .npy reader and writer: round trips, Fortran order as a view, and
// corrupt or unsupported files refused with a message naming the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <iterator>
#include <fstream>

#include "test_support.h"

namespace bcast {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class Npy : public ::testing::Test {
 protected:
  fs::path dir_ = fs::temp_directory_path() / ("bcast_npy_test_" + std::to_string(::getpid()));
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write_raw(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  // A version-1 file with the given header dict and payload.
  std::string write_npy(const std::string& name, const std::string& dict, const std::string& payload) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    return write_raw(name, bytes + header + payload);
  }
  void expect_io_error(const std::string& path, const std::string& text) {
    try {
      load_npy(path);
      ADD_FAILURE() << "loaded " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::io);
      EXPECT_THAT(e.what(), HasSubstr(text));
      EXPECT_THAT(e.what(), HasSubstr(path));
    }
  }
};

TEST_F(Npy, RoundTripsEveryNpyDType) {
  for (DType d : {DType::f16, DType::f32, DType::f64, DType::i8, DType::i16, DType::i32, DType::i64, DType::u8,
                  DType::boolean}) {
    const Tensor t = test::make(d, {2, 3}, {0, 1, 1, 0, 1, 1});
    const std::string path = (dir_ / "x.npy").string();
    save_npy(path, t);
    const Tensor back = load_npy(path);
    EXPECT_EQ(back.dtype(), d);
    EXPECT_EQ(back.shape(), (Shape{2, 3}));
    EXPECT_EQ(test::bytes_of(back), test::bytes_of(t)) << dtype_name(d);
  }
}

TEST_F(Npy, SavesViewsInCOrder) {
  const Tensor t = test::make(DType::i32, {2, 3}, {0, 1, 2, 3, 4, 5});
  const std::string path = (dir_ / "t.npy").string();
  save_npy(path, transpose(t));
  const Tensor back = load_npy(path);
  EXPECT_EQ(back.shape(), (Shape{3, 2}));
  EXPECT_TRUE(back.layout().is_contiguous());
  EXPECT_EQ(test::get(back, 1), 3);  // back[0][1] == t[1][0]
}

TEST_F(Npy, FortranOrderBecomesAColumnMajorView) {
  // The payload 0..5 in Fortran order for shape (2,3): element (i,j) = i + 2j.
  std::string payload;
  for (std::int32_t v = 0; v < 6; ++v) payload.append(reinterpret_cast<const char*>(&v), 4);
  const std::string path = write_npy("f.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", payload);
  const Tensor t = load_npy(path);
  EXPECT_EQ(t.layout(), (Layout{{2, 3}, {1, 2}}));
  EXPECT_EQ(test::get(t, 1), 2);  // (0,1)
  EXPECT_EQ(test::get(t, 3), 1);  // (1,0)
}

TEST_F(Npy, AcceptsScalarsVersionTwoAndNativeSpellings) {
  const std::string scalar = write_npy("s.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }",
                                       std::string("\0\0\0\0\0\0\xf0\x3f", 8));
  EXPECT_EQ(test::get(load_npy(scalar), 0), 1.0);
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }";
  while ((12 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x02\x00", 8);
  const auto len = static_cast<std::uint32_t>(header.size());
  bytes.append(reinterpret_cast<const char*>(&len), 4);
  const Tensor v2 = load_npy(write_raw("v2.npy", bytes + header + "\x01\x02\x03"));
  EXPECT_EQ(v2.dtype(), DType::u8);
  EXPECT_EQ(test::get(v2, 2), 3);
}

// A big-endian file (NumPy's a.astype('>f4') saved) loads as the native
// dtype with the same values: each element's bytes written here by hand,
// most significant first.
TEST_F(Npy, BigEndianFilesLoadConverted) {
  const auto big_endian = [](auto v) {
    unsigned char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    return std::string(std::rbegin(b), std::rend(b));
  };
  const Tensor f4 = load_npy(write_npy("f4.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                                       big_endian(1.5f) + big_endian(-2.25f)));
  EXPECT_EQ(f4.dtype(), DType::f32);
  EXPECT_EQ(test::get(f4, 0), 1.5);
  EXPECT_EQ(test::get(f4, 1), -2.25);
  const Tensor i2 = load_npy(write_npy("i2.npy", "{'descr': '>i2', 'fortran_order': True, 'shape': (1, 2), }",
                                       std::string("\x01\x02\xff\xfe", 4)));
  EXPECT_EQ(i2.dtype(), DType::i16);
  EXPECT_EQ(test::get(i2, 0), 0x0102);
  EXPECT_EQ(test::get(i2, 1), -2);
  const Tensor u8 = load_npy(write_npy("u8.npy", "{'descr': '>u8', 'fortran_order': False, 'shape': (), }",
                                       big_endian(std::uint64_t{0x0102030405060708})));
  EXPECT_EQ(test::get(u8, 0), static_cast<double>(0x0102030405060708));
  const Tensor f8 = load_npy(write_npy("f8.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                                       big_endian(0.1)));
  EXPECT_EQ(test::get(f8, 0), 0.1);
  const Tensor u1 = load_npy(write_npy("u1.npy", "{'descr': '>u1', 'fortran_order': False, 'shape': (1,), }", "\x07"));
  EXPECT_EQ(test::get(u1, 0), 7);
}

// NumPy's complex64 and complex128 ('<c8', '<c16'): the real part, then the
// imaginary part. A big-endian file reverses each part's bytes, not the
// element's (which would swap the parts).
TEST_F(Npy, ComplexFilesLoadPartByPartAndRoundTrip) {
  const auto native = [](auto re, auto im) {
    std::string bytes(2 * sizeof re, '\0');
    std::memcpy(bytes.data(), &re, sizeof re);
    std::memcpy(bytes.data() + sizeof re, &im, sizeof im);
    return bytes;
  };
  const auto big_endian = [](auto re, auto im) {
    std::string bytes;
    for (auto v : {re, im}) {
      unsigned char b[sizeof v];
      std::memcpy(b, &v, sizeof v);
      bytes += std::string(std::rbegin(b), std::rend(b));
    }
    return bytes;
  };
  const auto bytes = [](const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); };
  const Tensor c8 = load_npy(write_npy("c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }",
                                       native(1.5f, -2.0f) + native(0.25f, 3.0f)));
  EXPECT_EQ(c8.dtype(), DType::c64);
  EXPECT_EQ(test::bytes_of(c8), bytes(native(1.5f, -2.0f) + native(0.25f, 3.0f)));
  const Tensor c16 = load_npy(write_npy("c16.npy", "{'descr': '>c16', 'fortran_order': False, 'shape': (1,), }",
                                        big_endian(0.1, -7.5)));
  EXPECT_EQ(c16.dtype(), DType::c128);
  EXPECT_EQ(test::bytes_of(c16), bytes(native(0.1, -7.5)));
  for (const Tensor* t : {&c8, &c16}) {
    const std::string path = (dir_ / "c.npy").string();
    save_npy(path, *t);
    const Tensor back = load_npy(path);
    EXPECT_EQ(back.dtype(), t->dtype());
    EXPECT_EQ(test::bytes_of(back), test::bytes_of(*t));
  }
}

TEST_F(Npy, RefusesBadFilesWithTheReason) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  expect_io_error((dir_ / "missing.npy").string(), "cannot open for reading");
  expect_io_error(write_raw("short.npy", "\x93NUM"), "too short");
  expect_io_error(write_raw("magic.npy", std::string("NOTNUMPY\x01\x00\x10\x00{}", 12)), "bad magic string");
  expect_io_error(write_raw("ver.npy", std::string("\x93NUMPY\x07\x00\x10\x00", 10) + "{}"), "unsupported .npy format version 7.0");
  expect_io_error(write_npy("trunc.npy", f4, std::string(15, '\0')), "truncated .npy data: shape [2, 2] of f32 needs 16 bytes, the file has 15");
  expect_io_error(write_raw("hdr.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17)), "truncated .npy header");
  expect_io_error(write_raw("huge.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12)), "above the limit");
  expect_io_error(write_npy("c32.npy", "{'descr': '<c32', 'fortran_order': False, 'shape': (1,), }", std::string(32, 'a')), "unsupported dtype '<c32'");
  expect_io_error(write_npy("key.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "abcd"), "unexpected key 'x'");
  expect_io_error(write_npy("nokey.npy", "{'descr': '<f4', 'shape': (1,), }", "abcd"), "must have 'descr', 'fortran_order' and 'shape'");
  expect_io_error(write_npy("neg.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", "abcd"), "expected a non-negative integer extent");
  expect_io_error(write_npy("ovf.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", ""), "more elements than fit in 64 bits");
  expect_io_error(write_npy("big.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }", ""), "truncated .npy data");
  expect_io_error(write_npy("bool.npy", "{'descr': '<f4', 'fortran_order': maybe, 'shape': (1,), }", "abcd"), "expected True or False");
}

TEST_F(Npy, SaveLeavesNoFileOnFailure) {
  const Tensor bf(DType::bf16, {2});
  const std::string path = (dir_ / "bf.npy").string();
  try {
    save_npy(path, bf);
    ADD_FAILURE() << "saved bf16";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::dtype);
    EXPECT_THAT(e.what(), HasSubstr("bf16 has no .npy equivalent"));
  }
  EXPECT_FALSE(fs::exists(path));
  const std::string unwritable = (dir_ / "no_such_dir" / "x.npy").string();
  EXPECT_THROW(save_npy(unwritable, Tensor(DType::f32, {2})), Error);
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace bcast
