// The bad-input table: every caller mistake raises bcast::Error of the right
// kind, with exactly the message the table gives (naming the operand, the dim
// and the values), and leaves the output it was given untouched: every byte
// of that tensor's buffer, filled with a sentinel pattern before the call, is
// the same after it. A case whose call has no output says so (kNoOutput).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "expr_call.h"
#include "test_support.h"

namespace bcast {
namespace {

// Tensors the cases share.
struct Fixture {
  Tensor f32_2x2{DType::f32, {2, 2}}, f32_2x5{DType::f32, {2, 5}}, f32_2{DType::f32, {2}};
  Tensor i32_2x2{DType::i32, {2, 2}}, bool_2x2{DType::boolean, {2, 2}}, f32_4x4{DType::f32, {4, 4}};
  Tensor u8_2{DType::u8, {2}}, u8_out{DType::u8, {2}}, i8_2{DType::i8, {2}}, u64_2{DType::u64, {2}};
  Tensor out{DType::f32, {2, 2}};
};

// The fixture tensor whose memory a case's call is asked to write (through
// itself or a view of it), or kNoOutput for a call that writes no tensor.
using Output = Tensor Fixture::*;
constexpr Output kNoOutput = nullptr;

struct BadCase {
  std::string name;
  std::function<void(Fixture&)> call;
  ErrorKind kind;
  std::string message;  // the whole message, exactly
  Output output;
};

// A pattern that differs from byte to byte, so a call that copied or
// computed elements into its output (even the output's own elements, moved)
// would change some byte.
void fill_with_sentinel(Tensor& t) {
  auto* bytes = static_cast<std::uint8_t*>(t.data());
  for (std::size_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<std::uint8_t>(0x5b + 37 * i);
}

TensorView with_strides(const TensorView& x, Strides s) { return {x.data(), x.dtype(), {x.shape(), std::move(s)}}; }

// Files the cases write; each case's are removed after it.
std::vector<std::string>& scratch_files() {
  static std::vector<std::string> files;
  return files;
}

// Where the case `name` writes its .npy file: in the temporary folder, named
// after the process (the messages the table expects name it).
std::string npy_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("bcast_bad_" + std::to_string(::getpid()) + "_" + name + ".npy"))
      .string();
}

// A .npy file with the given header dict and `data_bytes` zero bytes of data,
// written to npy_path(name); version 1.0 unless told.
std::string npy_file(const std::string& name, const std::string& header, std::size_t data_bytes, int major = 1,
                     std::string magic = "\x93NUMPY") {
  const std::string path = npy_path(name);
  scratch_files().push_back(path);
  std::ofstream out(path, std::ios::binary);
  out << magic << static_cast<char>(major) << '\0';
  const auto len = static_cast<std::uint32_t>(header.size());
  out.write(reinterpret_cast<const char*>(&len), major == 1 ? 2 : 4);
  out << header << std::string(data_bytes, '\0');
  return path;
}
const std::string kF32x4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";

// What an add whose out partially overlaps an input is told.
std::string overlap_message(const std::string& input) {
  return "add: out overlaps " + input + " in memory without being the same view (in place needs out to be " + input +
         " exactly: same data, dtype, shape and strides)";
}
const std::string kOverlapsA = overlap_message("a"), kOverlapsB = overlap_message("b");

// A setting change that must be refused; the setting keeps its value.
void set_bad(const char* name, const char* value) { set_setting(name, value); }

const std::vector<BadCase>& bad_cases() {
  static const std::vector<BadCase> cases{
      {"shapes_do_not_broadcast", [](Fixture& f) { add(f.f32_2x2, f.f32_2x5, f.out); }, ErrorKind::shape,
       "add: shapes [2, 2] and [2, 5] do not broadcast: dim -1 has 2 vs 5", &Fixture::out},
      {"rank_mismatch_does_not_broadcast", [](Fixture& f) { sub(f.f32_2x2, Tensor(DType::f32, {2, 2, 5}), f.out); },
       ErrorKind::shape, "sub: shapes [2, 2] and [2, 2, 5] do not broadcast: dim -1 has 2 vs 5", &Fixture::out},
      // Mixed dtypes promote (NumPy 2): f32 * i32 is f64, which out is not.
      {"mixed_dtypes_into_the_wrong_out", [](Fixture& f) { mul(f.f32_2x2, f.i32_2x2, f.out); }, ErrorKind::dtype,
       "mul: out has dtype f32 but the result is f64", &Fixture::out},
      {"gcd_on_floats", [](Fixture& f) { binary(Op::gcd, f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "gcd: not defined for dtype f32", &Fixture::out},
      {"bitwise_on_floats", [](Fixture& f) { bit_and(f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "bit_and: not defined for dtype f32", &Fixture::out},
      {"sub_on_bool", [](Fixture& f) { sub(f.bool_2x2, f.bool_2x2, f.out); }, ErrorKind::dtype,
       "sub: not defined for dtype bool", &Fixture::out},
      {"out_wrong_shape", [](Fixture& f) { add(f.f32_2, f.f32_2, f.out); }, ErrorKind::shape,
       "add: out has shape [2, 2] but a [2] and b [2] broadcast to [2]", &Fixture::out},
      {"out_wrong_dtype_for_comparison", [](Fixture& f) { lt(f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "lt: out has dtype f32 but the result of lt on f32 is bool", &Fixture::out},
      {"out_broadcast_view", [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, broadcast_to(index(f.out, {0}), {2, 2})); },
       ErrorKind::value,
       "add: out of shape [2, 2] and strides [0, 1] writes some elements more than once", &Fixture::out},
      {"out_self_overlapping_strides", [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, with_strides(f.out, {1, 1})); },
       ErrorKind::value,
       "add: out of shape [2, 2] and strides [1, 1] writes some elements more than once", &Fixture::out},
      // An expression's out too (a complex call runs as one: fuzz_jit found
      // it writing such an out in an order of its own).
      {"expression_out_self_overlapping_strides",
       [](Fixture& f) { evaluate(parse_expression("x * 2", {{"x", f.f32_2x2}}), with_strides(f.out, {1, 1})); },
       ErrorKind::value,
       "expression 'x*2': out of shape [2, 2] and strides [1, 1] writes some elements more than once",
       &Fixture::out},
      {"out_partially_overlaps_a",
       [](Fixture& f) {
         const TensorView a = index(f.f32_4x4, parse_index_expression("[0:2, 0:2]"));
         const TensorView o = index(f.f32_4x4, parse_index_expression("[1:3, 1:3]"));
         add(a, f.f32_2x2, o);
       },
       ErrorKind::value, kOverlapsA, &Fixture::f32_4x4},
      {"out_partially_overlaps_a_on_a_repeated_call",  // NOTE: [Call memo]: the second call skips planning
       [](Fixture& f) {
         const TensorView a = index(f.f32_4x4, parse_index_expression("[0:2, 0:2]"));
         Tensor other(DType::f32, {4, 4});
         add(a, f.f32_2x2, index(other, parse_index_expression("[1:3, 1:3]")));
         add(a, f.f32_2x2, index(f.f32_4x4, parse_index_expression("[1:3, 1:3]")));
       },
       ErrorKind::value, kOverlapsA, &Fixture::f32_4x4},
      {"out_is_b_transposed",
       [](Fixture& f) { add(f.f32_2x2, transpose(f.out), f.out); }, ErrorKind::value,
       kOverlapsB, &Fixture::out},
      {"null_data_with_elements",
       [](Fixture& f) { add(TensorView{nullptr, DType::f32, Layout::contiguous({2, 2})}, f.f32_2x2, f.out); },
       ErrorKind::value, "add: a has shape [2, 2] but its data pointer is null", &Fixture::out},
      {"negative_extent",
       [](Fixture& f) { add(f.f32_2x2, TensorView{f.f32_2.data(), DType::f32, {{-2}, {1}}}, f.out); }, ErrorKind::shape,
       "b has a negative extent at dim 0: -2", &Fixture::out},
      {"shape_strides_length_mismatch",
       [](Fixture& f) { add(TensorView{f.f32_2x2.data(), DType::f32, {{2, 2}, {1}}}, f.f32_2x2, f.out); },
       ErrorKind::shape, "a has 2 extents but 1 strides", &Fixture::out},
      {"element_count_overflows",
       [](Fixture& f) {
         add(TensorView{f.f32_2.data(), DType::f32, {{1 << 30, 1 << 30, 1 << 30}, {0, 0, 0}}}, f.f32_2x2, f.out);
       },
       ErrorKind::shape,
       "a of shape [1073741824, 1073741824, 1073741824] has more elements than fit in 64 bits", &Fixture::out},
      {"stride_reach_overflows",
       [](Fixture& f) { add(TensorView{f.f32_2.data(), DType::f32, {{4}, {INT64_MAX / 2}}}, f.f32_2x2, f.out); },
       ErrorKind::shape, "a: stride 4611686018427387903 at dim 0 reaches beyond 64-bit offsets", &Fixture::out},
      {"rank_over_the_limit",
       [](Fixture& f) { add(TensorView{f.f32_2.data(), DType::f32, Layout::contiguous(Shape(kMaxRank + 1, 1))}, f.f32_2x2, f.out); },
       ErrorKind::shape, "a has rank 65, above the limit of 64", &Fixture::out},
      {"broadcast_result_overflows",
       [](Fixture& f) {
         add(TensorView{f.f32_2.data(), DType::f32, {{1 << 30, 1, 1 << 30}, {0, 0, 0}}},
             TensorView{f.f32_2.data(), DType::f32, {{1, 1 << 30, 1}, {0, 0, 0}}}, f.out);
       },
       ErrorKind::shape,
       "add: the broadcast result of shape [1073741824, 1073741824, 1073741824] has more elements "
       "than fit in 64 bits",
       &Fixture::out},
      {"index_out_of_range", [](Fixture& f) { add(index(f.f32_2x2, {5}), f.f32_2, f.out); }, ErrorKind::index,
       "index 5 is out of bounds for axis 0 with size 2", &Fixture::out},
      {"squeeze_non_unit_dim", [](Fixture& f) { add(squeeze(f.f32_2x2, {0}), f.f32_2, f.out); }, ErrorKind::shape,
       "squeeze: dim 0 has extent 2, not 1, in shape [2, 2]", &Fixture::out},
      // ---- more op calls ----
      {"out_wrong_dtype_for_arithmetic", [](Fixture& f) { add(f.i32_2x2, f.i32_2x2, f.out); }, ErrorKind::dtype,
       "add: out has dtype f32 but the result of add on i32 is i32", &Fixture::out},
      {"null_out_data",
       [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, TensorView{nullptr, DType::f32, Layout::contiguous({2, 2})}); },
       ErrorKind::value, "add: out has shape [2, 2] but its data pointer is null", kNoOutput},  // out has no memory
      {"null_b_data",
       [](Fixture& f) { add(f.f32_2x2, TensorView{nullptr, DType::f32, Layout::contiguous({2})}, f.out); },
       ErrorKind::value, "add: b has shape [2] but its data pointer is null", &Fixture::out},
      {"gcd_on_bool", [](Fixture& f) { gcd(f.bool_2x2, f.bool_2x2, f.out); }, ErrorKind::dtype,
       "gcd: not defined for dtype bool", &Fixture::out},
      {"true_division_into_the_input_dtype",
       [](Fixture& f) { div(f.i32_2x2, f.i32_2x2, f.i32_2x2); }, ErrorKind::dtype,
       "div: out has dtype i32 but the result of div on i32 is f64", &Fixture::i32_2x2},
      {"shift_on_floats", [](Fixture& f) { binary(Op::left_shift, f.f32_2x2, f.f32_2x2, f.out); }, ErrorKind::dtype,
       "left_shift: not defined for dtype f32", &Fixture::out},
      {"shapes_do_not_broadcast_in_a_middle_dim",
       [](Fixture& f) { add(Tensor(DType::f32, {3, 2, 4}), Tensor(DType::f32, {3, 1}), f.out); }, ErrorKind::shape,
       "add: shapes [3, 2, 4] and [3, 1] do not broadcast: dim -2 has 2 vs 3", &Fixture::out},
      {"stride_rank_mismatch_on_out",
       [](Fixture& f) { add(f.f32_2x2, f.f32_2x2, TensorView{f.out.data(), DType::f32, {{2, 2}, {2, 1, 1}}}); },
       ErrorKind::shape, "out has 2 extents but 3 strides", &Fixture::out},
      // ---- prepared ops ----
      {"prepared_call_on_another_layout",
       [](Fixture& f) { prepare(Op::add, DType::f32, f.f32_2x2.layout(), f.f32_2.layout())(f.f32_2x2, f.f32_2x2, f.out); },
       ErrorKind::value,
       "add (prepared): b has dtype f32 shape [2, 2] strides [2, 1], prepared for f32 [2] [1]", &Fixture::out},
      {"prepared_out_partially_overlaps_a",
       [](Fixture& f) {
         const TensorView a = index(f.f32_4x4, parse_index_expression("[0:2, 0:2]"));
         const TensorView o = index(f.f32_4x4, parse_index_expression("[1:3, 1:3]"));
         prepare(Op::add, DType::f32, a.layout(), f.f32_2x2.layout(), o.layout())(a, f.f32_2x2, o);
       },
       ErrorKind::value, kOverlapsA, &Fixture::f32_4x4},
      {"prepared_null_b_data",
       [](Fixture& f) {
         prepare(Op::mul, DType::f32, f.f32_2x2.layout(), f.f32_2.layout())(
             f.f32_2x2, TensorView{nullptr, DType::f32, f.f32_2.layout()}, f.out);
       },
       ErrorKind::value, "mul: b has shape [2] but its data pointer is null", &Fixture::out},
      {"prepare_an_op_the_dtype_lacks",
       [](Fixture& f) { prepare(Op::bit_or, DType::f64, f.f32_2.layout(), f.f32_2.layout()); }, ErrorKind::dtype,
       "bit_or: not defined for dtype f64", kNoOutput},
      {"pregenerate_rank_too_high", [](Fixture&) { pregenerate({Op::add}, {DType::f32}, 99); }, ErrorKind::value,
       "pregenerate: max_rank 99 is outside 0..12", kNoOutput},
      // ---- index and slice ----
      {"negative_index_out_of_range", [](Fixture& f) { (void)index(f.f32_2x2, {-3}); }, ErrorKind::index,
       "index -3 is out of bounds for axis 0 with size 2", kNoOutput},
      {"index_out_of_range_on_a_later_axis", [](Fixture& f) { (void)index(f.f32_2x5, {Slice{}, 5}); },
       ErrorKind::index, "index 5 is out of bounds for axis 1 with size 5", kNoOutput},
      {"too_many_indices", [](Fixture& f) { (void)index(f.f32_2x2, {0, 0, 0}); }, ErrorKind::index,
       "too many indices: tensor is 2-dimensional, but 3 were indexed", kNoOutput},
      {"two_ellipses", [](Fixture& f) { (void)index(f.f32_2x2, {Ellipsis{}, Ellipsis{}}); }, ErrorKind::index,
       "an index can only have a single ellipsis ('...')", kNoOutput},
      {"slice_step_zero", [](Fixture& f) { (void)index(f.f32_2x2, {Slice{0, 2, 0}}); }, ErrorKind::index,
       "slice step cannot be zero (axis 0)", kNoOutput},
      {"expression_without_brackets", [](Fixture&) { (void)parse_index_expression("1:2"); }, ErrorKind::index,
       "bad index expression '1:2': expected '[' at column 1", kNoOutput},
      {"expression_unclosed", [](Fixture&) { (void)parse_index_expression("[1:"); }, ErrorKind::index,
       "bad index expression '[1:': expected ',' or ']' at column 4", kNoOutput},
      {"expression_bad_token", [](Fixture&) { (void)parse_index_expression("[a]"); }, ErrorKind::index,
       "bad index expression '[a]': expected an integer, a slice, '...' or 'None' at column 2", kNoOutput},
      {"expression_too_many_colons", [](Fixture&) { (void)parse_index_expression("[1:2:3:4]"); }, ErrorKind::index,
       "bad index expression '[1:2:3:4]': expected ',' or ']' at column 7", kNoOutput},
      {"expression_integer_overflow", [](Fixture&) { (void)parse_index_expression("[99999999999999999999]"); },
       ErrorKind::index,
       "bad index expression '[99999999999999999999]': integer out of the 64-bit range at column 22", kNoOutput},
      {"index_result_rank_over_the_limit",
       [](Fixture& f) { (void)index(f.f32_2x2, std::vector<IndexItem>(kMaxRank, NewAxis{})); }, ErrorKind::shape,
       "index result has rank 66, above the limit of 64", kNoOutput},
      {"expression_step_zero", [](Fixture& f) { (void)index(f.f32_2x2, parse_index_expression("[::0]")); },
       ErrorKind::index, "slice step cannot be zero (axis 0)", kNoOutput},
      // ---- squeeze, unsqueeze, permute, broadcast_to ----
      {"squeeze_dim_out_of_range", [](Fixture& f) { (void)squeeze(f.f32_2x2, {2}); }, ErrorKind::index,
       "squeeze: dim 2 is out of range for rank 2 (valid: -2 to 1)", kNoOutput},
      {"squeeze_dim_listed_twice", [](Fixture&) { (void)squeeze(Tensor(DType::f32, {1, 4}), {0, -2}); },
       ErrorKind::shape, "squeeze: dim -2 is listed twice", kNoOutput},
      {"squeeze_pattern_wrong_length",
       [](Fixture& f) { (void)squeeze(f.f32_2x2, std::vector<SqueezeMark>{SqueezeMark::keep}); }, ErrorKind::shape,
       "squeeze: pattern has 1 marks for shape [2, 2] of rank 2", kNoOutput},
      {"squeeze_pattern_removes_non_unit",
       [](Fixture& f) { (void)squeeze(f.f32_2x2, std::vector<SqueezeMark>{SqueezeMark::remove, SqueezeMark::keep}); },
       ErrorKind::shape, "squeeze: pattern removes dim 0 of extent 2, not 1, in shape [2, 2]", kNoOutput},
      {"unsqueeze_out_of_range", [](Fixture& f) { (void)unsqueeze(f.f32_2x2, 4); }, ErrorKind::index,
       "unsqueeze: dim 4 is out of range for rank 3 (valid: -3 to 2)", kNoOutput},
      {"permute_repeats_a_dim", [](Fixture& f) { (void)permute(f.f32_2x2, {0, 0}); }, ErrorKind::shape,
       "permute: dim 0 appears twice in the order", kNoOutput},
      {"permute_wrong_length", [](Fixture& f) { (void)permute(f.f32_2x2, {1, 0, 2}); }, ErrorKind::shape,
       "permute: order has 3 dims for shape [2, 2] of rank 2", kNoOutput},
      {"transpose_dim_out_of_range", [](Fixture& f) { (void)transpose(f.f32_2x2, 0, 5); }, ErrorKind::index,
       "transpose: dim 5 is out of range for rank 2 (valid: -2 to 1)", kNoOutput},
      {"broadcast_to_incompatible", [](Fixture& f) { (void)broadcast_to(f.f32_2, {3}); }, ErrorKind::shape,
       "broadcast_to: shape [2] cannot be broadcast to [3]", kNoOutput},
      {"broadcast_to_fewer_dims", [](Fixture& f) { (void)broadcast_to(f.f32_2x2, {2}); }, ErrorKind::shape,
       "broadcast_to: shape [2, 2] cannot be broadcast to [2]", kNoOutput},
      // ---- .npy files ----
      {"npy_missing_file", [](Fixture&) { (void)load_npy("/nonexistent/x.npy"); }, ErrorKind::io,
       "/nonexistent/x.npy: cannot open for reading: No such file or directory", kNoOutput},
      {"npy_bad_magic", [](Fixture&) { (void)load_npy(npy_file("magic", kF32x4, 16, 1, "\x93NUMPX")); },
       ErrorKind::io, npy_path("magic") + ": not a .npy file (bad magic string)", kNoOutput},
      {"npy_unsupported_version", [](Fixture&) { (void)load_npy(npy_file("version", kF32x4, 16, 9)); },
       ErrorKind::io, npy_path("version") + ": unsupported .npy format version 9.0", kNoOutput},
      {"npy_truncated_data", [](Fixture&) { (void)load_npy(npy_file("short", kF32x4, 15)); }, ErrorKind::io,
       npy_path("short") + ": truncated .npy data: shape [4] of f32 needs 16 bytes, the file has 15", kNoOutput},
      {"npy_header_lies_about_its_length",
       [](Fixture&) {
         const std::string path = npy_file("lying", kF32x4, 0);
         std::fstream(path, std::ios::in | std::ios::out | std::ios::binary).seekp(8).put('\xff');
         (void)load_npy(path);
       },
       ErrorKind::io,
       npy_path("lying") + ": truncated .npy header: it claims 255 bytes but the file has 57", kNoOutput},
      {"npy_huge_header",
       [](Fixture&) { (void)load_npy(npy_file("huge", std::string(2 << 20, ' '), 0, 2)); }, ErrorKind::io,
       npy_path("huge") + ": .npy header of 2097152 bytes is above the limit of 1048576", kNoOutput},
      {"npy_big_endian_long_double_dtype",
       [](Fixture&) {
         (void)load_npy(npy_file("big", "{'descr': '>c32', 'fortran_order': False, 'shape': (2,), }", 64));
       },
       ErrorKind::io,
       npy_path("big") +
           ": unsupported dtype '>c32' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16, either byte order)",
       kNoOutput},
      {"npy_long_double_dtype",
       [](Fixture&) {
         (void)load_npy(npy_file("long", "{'descr': '<f16', 'fortran_order': False, 'shape': (2,), }", 32));
       },
       ErrorKind::io,
       npy_path("long") +
           ": unsupported dtype '<f16' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 c8 c16, either byte order)",
       kNoOutput},
      {"npy_header_without_shape",
       [](Fixture&) { (void)load_npy(npy_file("noshape", "{'descr': '<f4', 'fortran_order': False, }", 16)); },
       ErrorKind::io,
       npy_path("noshape") +
           ": corrupt .npy header: the header must have 'descr', 'fortran_order' and 'shape' at byte 42 of the header",
       kNoOutput},
      {"npy_negative_extent",
       [](Fixture&) {
         (void)load_npy(npy_file("negative", "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", 16));
       },
       ErrorKind::io,
       npy_path("negative") + ": corrupt .npy header: expected a non-negative integer extent at byte 51 of the header",
       kNoOutput},
      {"npy_element_count_overflows",
       [](Fixture&) {
         (void)load_npy(npy_file(
             "overflow", "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", 16));
       },
       ErrorKind::io,
       npy_path("overflow") +
           ": the .npy array of shape [4294967296, 4294967296] has more elements than fit in 64 bits",
       kNoOutput},
      {"npy_save_bf16", [](Fixture&) { save_npy(npy_path("never"), Tensor(DType::bf16, {2})); }, ErrorKind::dtype,
       npy_path("never") + ": dtype bf16 has no .npy equivalent", kNoOutput},  // its output is a file
      // ---- expressions: messages in the words the caller wrote ----
      // A weak int that does not fit the dtype it meets (NEP 50): the value as
      // written, and the dtype that holds both. A call by name (Python's
      // bcast.add(u8, 300), through call_of) names the op, not an expression.
      {"weak_int_out_of_range_in_a_call",
       [](Fixture& f) { evaluate(call_of(Op::add, named_input(f.u8_2, "a"), 300), f.u8_out); }, ErrorKind::value,
       "add: 300 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to compute in u16, "
       "make either operand u16)",
       &Fixture::u8_out},
      {"weak_int_first_in_a_call",
       [](Fixture& f) { (void)evaluate(call_of(Op::sub, 1000, named_input(f.u8_2, "b"))); }, ErrorKind::value,
       "sub: 1000 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to compute in u16, "
       "make either operand u16)",
       kNoOutput},
      {"weak_int_out_of_range_in_an_expression",
       [](Fixture& f) { evaluate(parse_expression("x + 300", {{"x", f.u8_2}}), f.u8_out); }, ErrorKind::value,
       "expression 'x+300': 300 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to "
       "compute in u16, make either operand u16)",
       &Fixture::u8_out},
      {"named_weak_int_out_of_range",
       [](Fixture& f) { (void)evaluate(parse_expression("x - n", {{"x", f.u8_2}, {"n", -1}})); }, ErrorKind::value,
       "expression 'x-n': n = -1 does not fit u8 (a Python int takes the other operand's dtype, as in NumPy 2; to "
       "compute in i16, make either operand i16)",
       kNoOutput},
      {"weak_int_out_of_range_for_signed",
       [](Fixture& f) { (void)evaluate(expr::lt(f.i8_2, 1000)); }, ErrorKind::value,
       "expression 'x0<1000': 1000 does not fit i8 (a Python int takes the other operand's dtype, as in NumPy 2; to "
       "compute in i16, make either operand i16)",
       kNoOutput},
      {"negative_weak_int_on_u64",
       [](Fixture& f) { (void)evaluate(Expr(f.u64_2) * -2); }, ErrorKind::value,
       "expression 'x0*-2': -2 does not fit u64 (a Python int takes the other operand's dtype, as in NumPy 2; to "
       "compute in f64, make either operand f64)",
       kNoOutput},
      // A weak scalar is itself, not the i64 or f64 it computes in.
      {"shift_of_an_integer_array_by_a_weak_float",
       [](Fixture& f) { (void)evaluate(parse_expression("x << 2.5", {{"x", f.i32_2x2}})); }, ErrorKind::dtype,
       "expression 'x<<2.5': left_shift is not defined for dtype f64 (operands i32 and the Python float 2.5)",
       kNoOutput},
      {"shift_of_a_weak_int_by_a_float_array",
       [](Fixture& f) { (void)evaluate(parse_expression("(n + 1) << x", {{"x", f.f32_2}, {"n", 2}})); },
       ErrorKind::dtype, "expression 'n+1<<x': left_shift is not defined for dtype f32 (operands a Python int and f32)",
       kNoOutput},
      {"bit_and_of_a_float_array_and_a_weak_int",
       [](Fixture& f) { (void)evaluate(parse_expression("exp(x) & m", {{"x", f.f32_2}, {"m", 255}})); },
       ErrorKind::dtype, "expression 'exp(x)&m': bit_and is not defined for dtype f32 (operands f32 and the Python int m)",
       kNoOutput},
      {"gcd_called_by_name_with_a_number",
       [](Fixture& f) { evaluate(call_of(Op::gcd, named_input(f.f32_2x2, "a"), 2), f.f32_2x2); }, ErrorKind::dtype,
       "gcd: not defined for dtype f32 (operands f32 and the Python int 2)", &Fixture::f32_2x2},
      // NOTE: [Negative integer exponents]: NumPy's ValueError, before anything is written.
      {"pow_of_integers_with_a_negative_exponent_element",
       [](Fixture& f) {
         Tensor e(DType::i8, {2});
         test::set(e, 0, 2);
         test::set(e, 1, -3);
         pow(f.i8_2, e, f.i8_2);
       },
       ErrorKind::value,
       "pow: the exponent b has the negative value -3 (element 1 in C order): integers to negative integer powers "
       "are not allowed, as in NumPy (make the base or the exponent a float)",
       &Fixture::i8_2},
      {"expression_power_of_integers_to_a_negative_scalar",
       [](Fixture& f) { evaluate(parse_expression("x ** 2 + x ** n", {{"x", f.i8_2}, {"n", -1}}), f.i8_2); },
       ErrorKind::value,
       "expression 'x**2+x**n': the exponent n is negative: integers to negative integer powers are not allowed, as "
       "in NumPy (make the base or the exponent a float)",
       &Fixture::i8_2},
      {"expression_power_of_integers_to_a_computed_negative_exponent",
       [](Fixture& f) {
         Tensor n(DType::i8, {2});
         test::set(n, 0, 3);
         test::set(n, 1, 1);
         evaluate(parse_expression("x ** (n - 2)", {{"x", f.i8_2}, {"n", n}}), f.i8_2);
       },
       ErrorKind::value,
       "expression 'x**(n-2)': the exponent n-2 has the negative value -1 (element 1 in C order): integers to "
       "negative integer powers are not allowed, as in NumPy (make the base or the exponent a float)",
       &Fixture::i8_2},
      {"expression_attribute_other_than_real_imag_conj",
       [](Fixture& f) { (void)parse_expression("x.shape", {{"x", f.f32_2}}); }, ErrorKind::value,
       "expression \"x.shape\": at position 2: after '.' an operand takes real, imag or conj()", kNoOutput},
      {"bit_and_of_an_integer_array_and_a_weak_complex",
       [](Fixture& f) { (void)evaluate(parse_expression("x & 2j", {{"x", f.i32_2x2}})); }, ErrorKind::dtype,
       "expression 'x&2j': bit_and is not defined for dtype c128 (operands i32 and the Python complex 2j)",
       kNoOutput},
      // The evaluator has no clamp or fma of complex numbers: the lowering
      // refuses them (it once admitted them and the call jumped to null).
      {"clamp_of_complex_numbers",
       [](Fixture& f) { (void)evaluate(parse_expression("clip(x * 1j, 0, 1j)", {{"x", f.f32_2}})); },
       ErrorKind::dtype, "expression 'clamp(x*1j,0,1j)': clamp is not defined for dtype c64", kNoOutput},
      {"expression_unknown_function_names_the_nearest",
       [](Fixture& f) { (void)parse_expression("log1p_(x)", {{"x", f.f32_2}}); }, ErrorKind::value,
       "expression \"log1p_(x)\": at position 0: unknown function 'log1p_' (did you mean log1p, log10 or log?); "
       "every function is in docs/semantics.md#expressions",
       kNoOutput},
      {"expression_numpy_function_of_two_results",  // modf, divmod and frexp give two arrays: not expressions
       [](Fixture& f) { (void)parse_expression("2 * modf(x, 0)", {{"x", f.f32_2}}); }, ErrorKind::value,
       "expression \"2 * modf(x, 0)\": at position 4: unknown function 'modf' (did you mean mod?); every "
       "function is in docs/semantics.md#expressions",
       kNoOutput},
      {"expression_unknown_function_near_several",
       [](Fixture& f) { (void)parse_expression("bit_nor(x, x)", {{"x", f.i32_2x2}}); }, ErrorKind::value,
       "expression \"bit_nor(x, x)\": at position 0: unknown function 'bit_nor' (did you mean bit_or, bit_xor or "
       "bit_not?); every function is in docs/semantics.md#expressions",
       kNoOutput},
      {"expression_unknown_function_near_none",
       [](Fixture& f) { (void)parse_expression("frobnicate(x)", {{"x", f.f32_2}}); }, ErrorKind::value,
       "expression \"frobnicate(x)\": at position 0: unknown function 'frobnicate'; every function is in "
       "docs/semantics.md#expressions",
       kNoOutput},
      // ---- settings (the API; BCAST_* variables get the same checks, as warnings) ----
      {"setting_threads_not_a_number", [](Fixture&) { set_bad("BCAST_NUM_THREADS", "many"); }, ErrorKind::value,
       "set_setting: BCAST_NUM_THREADS=many is not valid (accepted: 0 .. 1024)", kNoOutput},
      {"setting_opt_level_out_of_range", [](Fixture&) { set_bad("BCAST_OPT_LEVEL", "7"); }, ErrorKind::value,
       "set_setting: BCAST_OPT_LEVEL=7 is not valid (accepted: 0 1 2 3)", kNoOutput},
      {"setting_unknown_name", [](Fixture&) { set_bad("BCAST_NOPE", "1"); }, ErrorKind::value,
       "set_setting: unknown setting 'BCAST_NOPE'", kNoOutput},
      {"setting_ub_size_misaligned", [](Fixture&) { set_bad("BCAST_UB_SIZE", "1000"); }, ErrorKind::value,
       "set_setting: BCAST_UB_SIZE=1000 is not valid (accepted: auto, or 1024 .. 1048576, a multiple of 32)", kNoOutput},
      {"setting_target_unknown", [](Fixture&) { set_bad("BCAST_TARGET", "gpu"); }, ErrorKind::value,
       "set_setting: BCAST_TARGET=gpu is not valid (accepted: host ascend-sim)", kNoOutput},
      {"setting_isa_unknown", [](Fixture&) { set_bad("BCAST_MAX_ISA", "avx9"); }, ErrorKind::value,
       "set_setting: BCAST_MAX_ISA=avx9 is not valid (accepted: sse4.2 avx avx2 avx512 all)", kNoOutput},
      {"negative_thread_count", [](Fixture&) { set_num_threads(-1); }, ErrorKind::value,
       "set_num_threads: -1 is negative (0 means one per hardware thread)", kNoOutput},
  };
  return cases;
}

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, RaisesTheRightErrorAndWritesNothing) {
  const BadCase& c = GetParam();
  Fixture f;
  std::vector<std::uint8_t> before;
  if (c.output != kNoOutput) {
    fill_with_sentinel(f.*c.output);
    before = test::bytes_of(f.*c.output);
  }
  try {
    c.call(f);
    FAIL() << c.name << ": no error";
  } catch (const Error& e) {
    RecordProperty("message", e.what());
    EXPECT_EQ(e.kind(), c.kind) << e.what();
    EXPECT_EQ(std::string(e.what()), c.message);
  }
  if (c.output != kNoOutput) {
    const std::vector<std::uint8_t> after = test::bytes_of(f.*c.output);
    const auto first = std::mismatch(before.begin(), before.end(), after.begin()).first;
    EXPECT_TRUE(first == before.end()) << c.name << ": its output was written, byte " << (first - before.begin())
                                       << " first";
  }
  for (const std::string& path : scratch_files()) std::filesystem::remove(path);
  scratch_files().clear();
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(bad_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST(InPlace, OutMayBeAnInputExactly) {
  Tensor x = test::make(DType::f32, {2, 2}, {1, 2, 3, 4});
  const Tensor row = test::make(DType::f32, {2}, {10, 20});
  add(x, row, x);
  EXPECT_EQ(test::get(x, 3), 24.0);
  mul(x, x, x);  // both inputs and out the same view
  EXPECT_EQ(test::get(x, 0), 121.0);
}

}  // namespace
}  // namespace bcast
