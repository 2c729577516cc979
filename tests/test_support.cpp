// Helpers shared by the test suites.
#include "test_support.h"

#include "function_table.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>

#include "kernel_provider.h"
#include "oracle.h"
#include "targets.h"

namespace bcast::test {

std::int64_t element_offset(const TensorView& x, std::int64_t i) {
  std::int64_t offset = 0;
  for (int d = x.rank() - 1; d >= 0; --d) {
    offset += (i % x.shape()[d]) * x.strides()[d];
    i /= x.shape()[d];
  }
  return offset;
}

namespace {
template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void put(char* p, T v) { std::memcpy(p, &v, sizeof v); }
char* address(const TensorView& x, std::int64_t i) {
  return static_cast<char*>(x.data()) + element_offset(x, i) * static_cast<std::int64_t>(x.element_size());
}
}  // namespace

double get(const TensorView& x, std::int64_t i) {
  const char* p = address(x, i);
  switch (x.dtype()) {
    case DType::f16: return f16_to_f32(load<std::uint16_t>(p));
    case DType::bf16: return bf16_to_f32(load<std::uint16_t>(p));
    case DType::f32: return load<float>(p);
    case DType::f64: return load<double>(p);
    case DType::i8: return load<std::int8_t>(p);
    case DType::i16: return load<std::int16_t>(p);
    case DType::i32: return load<std::int32_t>(p);
    case DType::i64: return static_cast<double>(load<std::int64_t>(p));
    case DType::u8: return load<std::uint8_t>(p);
    case DType::u16: return load<std::uint16_t>(p);
    case DType::u32: return load<std::uint32_t>(p);
    case DType::u64: return static_cast<double>(load<std::uint64_t>(p));
    case DType::boolean: return load<std::uint8_t>(p);
    case DType::c64: return load<float>(p);  // the real part
    case DType::c128: return load<double>(p);
  }
  return 0;
}

void set(const TensorView& x, std::int64_t i, double v) {
  char* p = address(x, i);
  switch (x.dtype()) {
    case DType::f16: put(p, f32_to_f16(static_cast<float>(v))); break;
    case DType::bf16: put(p, f32_to_bf16(static_cast<float>(v))); break;
    case DType::f32: put(p, static_cast<float>(v)); break;
    case DType::f64: put(p, v); break;
    case DType::i8: put(p, static_cast<std::int8_t>(v)); break;
    case DType::i16: put(p, static_cast<std::int16_t>(v)); break;
    case DType::i32: put(p, static_cast<std::int32_t>(v)); break;
    case DType::i64: put(p, static_cast<std::int64_t>(v)); break;
    case DType::u8: put(p, static_cast<std::uint8_t>(v)); break;
    case DType::u16: put(p, static_cast<std::uint16_t>(v)); break;
    case DType::u32: put(p, static_cast<std::uint32_t>(v)); break;
    case DType::u64: put(p, static_cast<std::uint64_t>(v)); break;
    case DType::boolean: put(p, static_cast<std::uint8_t>(v != 0)); break;
    case DType::c64: put(p, std::complex<float>(static_cast<float>(v), 0.0f)); break;
    case DType::c128: put(p, std::complex<double>(v, 0.0)); break;
  }
}

void keep_in_domain(Op op, const TensorView& b) {
  if (op != Op::pow || !is_integer(b.dtype()) || is_unsigned(b.dtype())) return;
  for (std::int64_t i = 0; i < b.numel(); ++i) {
    char* p = address(b, i);
    switch (b.dtype()) {
      case DType::i8: if (const auto v = load<std::int8_t>(p); v < 0) put(p, static_cast<std::int8_t>(-1 - v)); break;
      case DType::i16: if (const auto v = load<std::int16_t>(p); v < 0) put(p, static_cast<std::int16_t>(-1 - v)); break;
      case DType::i32: if (const auto v = load<std::int32_t>(p); v < 0) put(p, static_cast<std::int32_t>(-1 - v)); break;
      default: if (const auto v = load<std::int64_t>(p); v < 0) put(p, static_cast<std::int64_t>(-1 - v)); break;
    }
  }
}

Tensor make(DType dtype, const Shape& shape, const std::vector<double>& values) {
  Tensor t(dtype, shape);
  for (std::size_t i = 0; i < values.size(); ++i) set(t, static_cast<std::int64_t>(i), values[i]);
  return t;
}

std::vector<std::uint8_t> bytes_of(const TensorView& x) {
  std::vector<std::uint8_t> bytes;
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const char* p = address(x, i);
    bytes.insert(bytes.end(), p, p + x.element_size());
  }
  return bytes;
}

RandomView random_view(DType dtype, const Shape& shape, std::mt19937_64& rng, bool allow_strange) {
  const int rank = static_cast<int>(shape.size());
  std::uniform_int_distribution<int> step_pick(1, allow_strange ? 3 : 1), coin(0, 1), pad(0, allow_strange ? 2 : 0);
  // Parent extents leave room for the step and some padding.
  std::vector<std::int64_t> steps(rank);
  Shape parent_shape(rank);
  for (int d = 0; d < rank; ++d) {
    steps[d] = step_pick(rng) * (allow_strange && coin(rng) ? -1 : 1);
    parent_shape[d] = std::max<std::int64_t>(shape[d] * std::abs(steps[d]), 1) + pad(rng);
  }
  // The parent is contiguous in a random dim order: permute(order) of a
  // contiguous tensor whose dims are our dims listed in that order.
  std::vector<std::int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  if (allow_strange) std::shuffle(order.begin(), order.end(), rng);
  Shape stored(rank);
  for (int d = 0; d < rank; ++d) stored[d] = parent_shape[order[d]];
  RandomView rv{Tensor(dtype, stored), {}};
  std::vector<std::int64_t> inverse(rank);
  for (int d = 0; d < rank; ++d) inverse[order[d]] = d;
  const TensorView permuted = permute(rv.parent, inverse);
  std::vector<IndexItem> items;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t span = shape[d] * std::abs(steps[d]);
    const std::int64_t start = std::uniform_int_distribution<std::int64_t>(0, parent_shape[d] - std::max<std::int64_t>(span, 1))(rng);
    if (shape[d] == 0)
      items.push_back(Slice{0, 0, 1});
    else if (steps[d] > 0)
      items.push_back(Slice{start, start + span, steps[d]});
    else  // walk backwards from the top of the same window
      items.push_back(Slice{start + span - 1, start == 0 && span > 0 ? std::nullopt : std::optional<std::int64_t>(start - 1), steps[d]});
  }
  rv.view = index(permuted, items);
  return rv;
}

ShapeTriple random_broadcast_shapes(std::mt19937_64& rng, int max_rank, std::int64_t max_extent,
                                    std::int64_t max_numel) {
  std::uniform_int_distribution<int> rank_pick(0, max_rank);
  std::uniform_int_distribution<std::int64_t> extent_pick(0, max_extent);
  std::uniform_int_distribution<int> percent(0, 99);
  ShapeTriple t;
  const int rank = rank_pick(rng);
  for (int d = 0; d < rank; ++d) t.out.push_back(percent(rng) < 5 ? 0 : std::max<std::int64_t>(extent_pick(rng), 1));
  // Keep the case small: shrink random dims until the element count fits.
  auto numel = [&] { return std::accumulate(t.out.begin(), t.out.end(), std::int64_t{1}, std::multiplies<>()); };
  while (numel() > max_numel) t.out[std::uniform_int_distribution<int>(0, rank - 1)(rng)] = 1;
  auto input = [&] {
    const int r = std::uniform_int_distribution<int>(0, rank)(rng);
    Shape s(t.out.end() - r, t.out.end());
    for (std::int64_t& e : s)
      if (percent(rng) < 35) e = 1;
    return s;
  };
  t.a = input();
  t.b = input();
  // out is the broadcast of the two, which may drop leading dims neither has.
  t.out = broadcast_infer_shape(t.a, t.b);
  return t;
}

// Part `part` of element i (a complex element has two) is a quiet NaN.
bool quiet_nan_at(const TensorView& x, std::int64_t i, int part) {
  const DType d = real_part_dtype(x.dtype());
  std::uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(address(x, i)) + part * dtype_size(d), dtype_size(d));
  return is_floating(d) && is_quiet_nan(bits, d);
}

std::int64_t first_mismatch(Op op, const TensorView& got, const TensorView& want) {
  const DType part = real_part_dtype(got.dtype());
  const bool payload_free = is_floating(part) && op != Op::max && op != Op::min;
  const auto part_size = static_cast<std::int64_t>(dtype_size(part));
  const std::int64_t parts = static_cast<std::int64_t>(got.element_size()) / part_size;
  for (std::int64_t i = 0; i < got.numel(); ++i)
    for (int p = 0; p < parts; ++p) {
      if (payload_free && quiet_nan_at(got, i, p) && quiet_nan_at(want, i, p)) continue;
      if (std::memcmp(static_cast<const char*>(address(got, i)) + p * part_size,
                      static_cast<const char*>(address(want, i)) + p * part_size, part_size) != 0)
        return i;
    }
  return -1;
}

std::vector<std::string> calls_of_one_key(Op op) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(op) + 17);
  std::vector<std::string> wrong;
  for (const std::int64_t n : kOneKeyLengths) {
    Tensor a(DType::i32, {n}), b(DType::i32, {n}), out(result_dtype(op, DType::i32), {n});
    fill_random(a, rng);
    fill_random(b, rng);
    fill_sentinel(out);
    binary(op, a, b, out);
    wrong.push_back(oracle_mismatch(op, a, b, out));
  }
  return wrong;
}

std::vector<std::pair<Op, DType>> supported_pairs() {
  std::vector<std::pair<Op, DType>> pairs;
  for (int o = 0; o < kNumOps; ++o)
    for (int d = 0; d < kNumRealDTypes; ++d)
      if (detail::supports(static_cast<Op>(o), static_cast<DType>(d)) &&
          !is_complex(detail::result_dtype_of(static_cast<Op>(o), static_cast<DType>(d))))
        pairs.emplace_back(static_cast<Op>(o), static_cast<DType>(d));
  return pairs;
}

std::vector<Op> supported_ops(DType dtype) {
  std::vector<Op> ops;
  for (const auto& [op, d] : supported_pairs())
    if (d == dtype) ops.push_back(op);
  return ops;
}

void fill_random(const TensorView& x, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> small(-20, 20);
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    double v = small(rng);
    if (is_unsigned(x.dtype())) v = std::abs(v) * 6;
    if (x.dtype() == DType::boolean) v = v > 0;
    if (is_floating(x.dtype()) || is_complex(x.dtype())) v /= 4;  // quarters: exact in every float dtype
    set(x, i, v);
    if (is_complex(x.dtype())) {  // and an imaginary part
      const double im = small(rng) / 4.0;
      char* p = static_cast<char*>(x.data()) + element_offset(x, i) * static_cast<std::int64_t>(x.element_size());
      if (x.dtype() == DType::c64) {
        const auto part = static_cast<float>(im);
        std::memcpy(p + sizeof part, &part, sizeof part);
      } else {
        std::memcpy(p + sizeof im, &im, sizeof im);
      }
    }
  }
}

bool host_is_x86_64() { return provider::host_description().triple.starts_with("x86_64"); }
bool host_streams() { return target_for(TargetKind::host).can_stream_stores(); }
bool host_has_feature(std::string_view feature) {
  const std::string all = "," + provider::host_description().features + ",";
  return all.find(",+" + std::string(feature) + ",") != std::string::npos;
}

}  // namespace bcast::test
