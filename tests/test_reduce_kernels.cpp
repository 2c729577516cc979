// Reduction kernels (NOTE: [Reduction kernels], NOTE: [Fused reductions]):
// on random views, expressions, axes and dtypes a reduction run by its JIT
// kernel gives the bits of the same plan run on the values written out (the
// fallback), on 1, 2, 3 and 16 threads; the kernels really are the ones
// that ran; their keys print and parse back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bcast/bcast.h"
#include "expr_kernel.h"
#include "kernel_key.h"
#include "kernel_provider.h"
#include "key_codec.h"
#include "reduce_executor.h"
#include "reduce_plan.h"
#include "targets.h"
#include "test_support.h"

namespace bcast {
namespace {

// A random shape of rank 1 to 4 whose extents mix the item sizes' edges
// (NOTE: [Reduction order]: 512 elements, 32 lanes, 16 indices, narrow
// items of 16 to 256 rows).
Shape random_shape(std::mt19937_64& rng) {
  const std::int64_t extents[] = {1, 2, 3, 5, 16, 17, 31, 32, 33, 64, 100, 256, 511, 512, 513, 1000, 1100};
  std::uniform_int_distribution<int> rank(1, 4), pick(0, std::size(extents) - 1);
  for (;;) {
    Shape s(static_cast<std::size_t>(rank(rng)));
    std::int64_t n = 1;
    for (auto& e : s) n *= (e = extents[pick(rng)]);
    if (n <= 300'000) return s;
  }
}

// `shape` with each extent kept or made 1 (a broadcast input), leading dims sometimes dropped.
Shape broadcast_of(const Shape& shape, std::mt19937_64& rng) {
  Shape s;
  const auto drop = std::uniform_int_distribution<std::size_t>(0, shape.size() - 1)(rng);
  for (std::size_t d = drop; d < shape.size(); ++d) s.push_back(rng() % 3 == 0 ? 1 : shape[d]);
  return s;
}

Axes random_axes(int rank, std::mt19937_64& rng) {
  if (rng() % 5 == 0) return Axes();
  std::vector<int> axes;
  for (int d = 0; d < rank; ++d)
    if (rng() % 2 == 0) axes.push_back(rng() % 2 == 0 ? d : d - rank);
  return Axes(axes);
}

struct Case {
  std::string what;
  Expr e;
};

// A reduction of an expression over x (a random strided view) and y (a
// contiguous broadcast input).
Case random_case(const TensorView& x, const TensorView& y, std::mt19937_64& rng) {
  using namespace expr;
  const Expr a = Expr(x), b = Expr(y);
  const Axes axes = random_axes(x.rank(), rng);
  const bool keep = rng() % 2 == 0;
  const bool numeric = x.dtype() != DType::boolean;
  switch (rng() % 8) {
    case 0:
      return {"sum(x)", sum(a, axes, keep)};
    case 1:
      return numeric ? Case{"sum(x*y)", sum(a * b, axes, keep)} : Case{"any(x)", any(a, axes, keep)};
    case 2:
      return numeric ? Case{"max(x - y)", amax(a - b, axes, keep)} : Case{"all(x)", all(a, axes, keep)};
    case 3:
      return {"min(x)", amin(a, axes, keep)};
    case 4:
      return {"any(x > y)", any(apply(Op::gt, a, b), axes, keep)};
    case 5:
      return {"all(x != y)", all(apply(Op::ne, a, b), axes, keep)};
    case 6:
      return numeric ? Case{"mean(x + y)", mean(a + b, axes, keep)} : Case{"sum(x)", sum(a, axes, keep)};
    default:
      return numeric ? Case{"prod(x)", prod(a, axes, keep)} : Case{"max(x)", amax(a, axes, keep)};
  }
}

// Look-ups of reduction kernels (hits and misses), and their failures.
struct Uses {
  std::uint64_t looked_up = 0, failed = 0;
};
Uses reduction_kernel_uses() {
  Uses u;
  for (const KernelStats& k : kernel_cache_entries())
    if (k.key.find(".acc-") != std::string::npos) {
      u.looked_up += k.hits + k.misses;
      u.failed += k.failures;
    }
  return u;
}

TEST(ReductionKernels, GiveTheBitsOfTheWrittenValuesOnAnyThreadCount) {
  test::JitGuard guard;
  set_jit_mode(JitMode::sync);
  std::mt19937_64 rng(20261205);
  const Uses before = reduction_kernel_uses();
  for (int trial = 0; trial < 60; ++trial) {
    const DType d = std::array{DType::f32, DType::f64, DType::i32, DType::u8, DType::boolean}[trial % 5];
    const Shape shape = random_shape(rng);
    const test::RandomView x = test::random_view(d, shape, rng, /*allow_strange=*/trial % 3 == 0);
    test::fill_random(x.view, rng);
    const Tensor y(d, broadcast_of(shape, rng));
    test::fill_random(y.view(), rng);
    const Case c = random_case(x.view, y.view(), rng);
    const std::string label =
        c.what + " on " + std::string(dtype_name(d)) + to_string(shape) + ", trial " + std::to_string(trial);
    set_jit_enabled(false);
    set_num_threads(1);
    std::vector<std::uint8_t> want;
    try {
      want = test::bytes_of(evaluate(c.e));
    } catch (const Error& e) {  // min of an empty axis: the same error either way
      set_jit_enabled(true);
      EXPECT_THROW(evaluate(c.e), Error) << label;
      continue;
    }
    set_jit_enabled(true);
    for (int threads : {1, 2, 3, 16}) {
      set_num_threads(threads);
      EXPECT_EQ(test::bytes_of(evaluate(c.e)), want) << label << " on " << threads << " threads";
    }
  }
  const Uses after = reduction_kernel_uses();
  EXPECT_GT(after.looked_up, before.looked_up + 60) << "few reductions ran on a kernel";
  EXPECT_EQ(after.failed, before.failed);
}

// The common cases of NOTE: [Fused reductions] run on a kernel, not on the
// fallback: rows, columns, a broadcast input, a scalar, an image's
// per-channel mean (narrow columns).
TEST(ReductionKernels, CommonReductionsRunOnTheirKernel) {
  test::JitGuard guard;
  set_jit_enabled(true);
  set_jit_mode(JitMode::sync);
  std::mt19937_64 rng(7);
  Tensor x(DType::f32, {64, 1000}), m(DType::f32, {64, 1}), image(DType::u8, {48, 64, 3});
  test::fill_random(x.view(), rng);
  test::fill_random(m.view(), rng);
  test::fill_random(image.view(), rng);
  using namespace expr;
  const Expr cases[] = {sum(Expr(x)),           sum(Expr(x), 1),
                        sum(Expr(x), 0),        amax(Expr(x) - Expr(m), -1, true),
                        mean(Expr(x) * 2.0, 0), mean(cast(Expr(image), DType::f32), Axes{0, 1}, true)};
  for (const Expr& e : cases) {
    const Uses before = reduction_kernel_uses();
    (void)evaluate(e);
    const Uses after = reduction_kernel_uses();
    EXPECT_EQ(after.looked_up, before.looked_up + 1) << describe(e).passes.front();
    EXPECT_EQ(after.failed, before.failed) << describe(e).passes.front();
  }
}

// NOTE: [Reduction order]'s tree over items [first, last), written out:
// the left part the largest power of two below their count, each pair's
// values added element by element.
std::vector<float> pairwise(const std::vector<std::vector<float>>& items, std::size_t first, std::size_t last) {
  if (last - first == 1) return items[first];
  std::size_t h = 1;
  while (h * 2 < last - first) h *= 2;
  std::vector<float> left = pairwise(items, first, first + h);
  const std::vector<float> right = pairwise(items, first + h, last);
  for (std::size_t k = 0; k < left.size(); ++k) left[k] += right[k];
  return left;
}

// NOTE: [Reduction order]'s rows, written out here from its words: items of
// 512 consecutive elements, element i of an item in lane i mod 32, each lane
// added in order from 0; the items pairwise (the left part the largest power
// of two below their count); then the 32 lanes halved (lane l takes l + 16,
// then l + 8, ... 1).
float rows_order_sum(const float* row, std::int64_t m) {
  std::vector<std::vector<float>> items;
  for (std::int64_t start = 0; start < m; start += 512) {
    std::vector<float> lanes(32, 0.0f);
    for (std::int64_t i = start; i < std::min(m, start + 512); ++i)
      lanes[static_cast<std::size_t>((i - start) % 32)] += row[i];
    items.push_back(lanes);
  }
  std::vector<float> lanes = pairwise(items, 0, items.size());
  for (std::size_t h = 16; h >= 1; h /= 2)
    for (std::size_t l = 0; l < h; ++l) lanes[l] += lanes[l + h];
  return lanes[0];
}

// Rows of 1 to 70 items, whole or with a part item at the end (NOTE: [Rows
// in a batch] combines a batch's rows by a counter, the fallback by
// recursion): the kernel, on one thread and three, and the fallback add each
// row in that order. Values of mixed magnitudes, so that another order would
// round differently.
TEST(ReductionKernels, RowItemsCombinePairwiseThenTheLanesHalve) {
  test::JitGuard guard;
  set_jit_mode(JitMode::sync);
  std::mt19937_64 rng(20261207);
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> scale(-24, 24);
  for (const std::int64_t items : {1, 2, 3, 5, 7, 12, 31, 33, 63, 64, 70}) {
    for (const std::int64_t part : {0, 100}) {
      const std::int64_t m = items * 512 - part, rows = 5;
      Tensor x(DType::f32, {rows, m}), zero(DType::f32, {m});
      for (std::int64_t i = 0; i < x.numel(); ++i) x.data_as<float>()[i] = std::ldexp(normal(rng), scale(rng));
      std::fill_n(zero.data_as<float>(), m, 0.0f);
      const Expr e = expr::sum(Expr(x) + Expr(zero), -1);  // an expression: its kernel computes the items
      for (const bool jit : {false, true})
        for (const int threads : {1, 3}) {
          set_jit_enabled(jit);
          set_num_threads(threads);
          const Tensor got = evaluate(e);
          for (std::int64_t r = 0; r < rows; ++r)
            EXPECT_EQ(std::bit_cast<std::uint32_t>(got.data_as<float>()[r]),
                      std::bit_cast<std::uint32_t>(rows_order_sum(x.data_as<float>() + r * m, m)))
                << "row " << r << " of " << m << " elements, " << (jit ? "kernel" : "fallback") << ", " << threads
                << " threads";
        }
    }
  }
}

// NOTE: [Reduction order]'s narrow columns, written out here from its words:
// an item is 8 blocks of b rows (b the most, a power of two from 2, with b w
// <= 32 and whole items of 8 b rows),
// a lane per row of a block and value, combined block by block from 0, the
// lanes halved (lane j takes j + b/2, ... 1), then the items pairwise.
std::vector<float> narrow_order_sum(const std::vector<float>& x, std::int64_t n, std::int64_t w, std::int64_t b) {
  const std::int64_t item = 8 * b;
  std::vector<std::vector<float>> items;
  for (std::int64_t i = 0; i < n / item; ++i) {
    std::vector<float> lanes(static_cast<std::size_t>(b * w), 0.0f);
    for (std::int64_t block = 0; block < 8; ++block)
      for (std::int64_t r = 0; r < b; ++r)
        for (std::int64_t k = 0; k < w; ++k)
          lanes[static_cast<std::size_t>(r * w + k)] += x[static_cast<std::size_t>((i * item + block * b + r) * w + k)];
    for (std::int64_t h = b / 2; h >= 1; h /= 2)
      for (std::int64_t l = 0; l < h * w; ++l)
        lanes[static_cast<std::size_t>(l)] += lanes[static_cast<std::size_t>(h * w + l)];
    lanes.resize(static_cast<std::size_t>(w));
    items.push_back(lanes);
  }
  return pairwise(items, 0, items.size());
}

// The kernel (each of its ways to load a block: rows back to back in the
// w's direction or against it, a row at a time, a value at a time along a
// strided row; with a second input repeated along the w, its rows forwards
// or mirrored) and the fallback add an image's channels in that order, on
// one thread and three; values of mixed magnitudes, so that another order
// would round differently. The layout never changes the order: the values'
// loops alone decide it.
TEST(ReductionKernels, NarrowItemsAddBlocksOfRowsThenHalve) {
  test::JitGuard guard;
  set_jit_mode(JitMode::sync);
  std::mt19937_64 rng(2026120701);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> scale(-12, 12);
  clear_kernel_cache();  // its failures count this test's compiles only
  struct Shape2 {
    std::int64_t rows, w, b;  // b: the block rows the note gives w
  };
  for (const Shape2 c : {Shape2{192, 3, 8}, Shape2{96, 5, 4}, Shape2{512, 16, 2}, Shape2{768, 2, 16}, Shape2{48, 3, 2},
                         Shape2{10000, 3, 2}}) {
    Tensor wide(DType::f32, {2 * c.rows, 2 * c.w});
    auto* data = static_cast<float*>(wide.data());
    for (std::int64_t i = 0; i < 4 * c.rows * c.w; ++i) data[i] = std::ldexp(unit(rng), scale(rng));
    const TensorView every_other_row = index(wide.view(), {Slice{{}, {}, 2}, Slice{{}, c.w}});
    const Tensor packed = every_other_row.contiguous();
    const struct {
      TensorView x;
      const char* layout;
    } layouts[] = {
        {packed.view(), "rows back to back"},
        {every_other_row, "a row step of 4w"},
        {index(packed.view(), {Slice{}, Slice{{}, {}, -1}}), "each row reversed"},
        {index(packed.view(), {Slice{{}, {}, -1}}), "rows back to back, mirrored"},
        {index(packed.view(), {Slice{{}, {}, -1}, Slice{{}, {}, -1}}), "rows back to back, backwards"},
        {index(wide.view(), {Slice{{}, {}, 2}, Slice{{}, {}, 2}}), "a row of every other value"},
    };
    // A weight a row, repeated along the w (forwards and mirrored), and a
    // weight a value, repeated along the rows (forwards and reversed), so
    // that the whole blocks' ways meet each other; powers of two: x * y exact.
    Tensor per_row(DType::f32, {c.rows, 1}), per_value(DType::f32, {1, c.w});
    for (const Tensor* t : {&per_row, &per_value})
      for (std::int64_t i = 0; i < t->numel(); ++i) static_cast<float*>(t->data())[i] = std::ldexp(1.0f, scale(rng));
    const std::optional<TensorView> ys[] = {std::nullopt, per_row.view(), index(per_row.view(), {Slice{{}, {}, -1}}),
                                            per_value.view(), index(per_value.view(), {Slice{}, Slice{{}, {}, -1}})};
    for (const auto& [x, layout] : layouts)
      for (const std::optional<TensorView>& y : ys) {
        const Tensor logical = x.contiguous();
        std::vector<float> values(static_cast<const float*>(logical.data()),
                                  static_cast<const float*>(logical.data()) + c.rows * c.w);
        if (y) {
          const Tensor ly = broadcast_to(*y, {c.rows, c.w}).contiguous();
          for (std::size_t i = 0; i < values.size(); ++i) values[i] *= static_cast<const float*>(ly.data())[i];
        }
        const std::vector<float> want = narrow_order_sum(values, c.rows, c.w, c.b);
        const Expr e = expr::sum(y ? Expr(x) * Expr(*y) : Expr(x), 0);
        for (bool jit : {true, false})
          for (int threads : {1, 3}) {
            set_jit_enabled(jit);
            set_num_threads(threads);
            const Tensor got = evaluate(e);
            const auto* g = static_cast<const float*>(got.data());
            for (std::int64_t k = 0; k < c.w; ++k)
              EXPECT_EQ(std::bit_cast<std::uint32_t>(g[k]),
                        std::bit_cast<std::uint32_t>(want[static_cast<std::size_t>(k)]))
                  << "w " << c.w << ", value " << k << ", " << layout
                  << (!y                    ? ""
                      : y->strides()[0] > 0 ? ", times y"
                                            : ", times y mirrored")
                  << (jit ? ", kernel" : ", fallback") << ", " << threads << " threads";
          }
      }
    EXPECT_EQ(kernel_cache_stats().failures, 0u) << "w " << c.w << ": a kernel failed to compile (its calls fell back)";
    bool narrow = false;  // the kernel that ran was the narrow form's, w wide
    for (const KernelStats& k : kernel_cache_entries())
      narrow = narrow || k.key.find(".acc-add-f32-w" + std::to_string(c.w) + "b" + std::to_string(c.b) + ".") !=
                             std::string::npos;
    EXPECT_TRUE(narrow) << "w " << c.w;
  }
}

TEST(ReductionKernels, KeysPrintAndParseBack) {
  // x - y with y [R, 1]: summed along the rows (rows), along the columns
  // (columns), and x [64, 3] along its 64 (narrow, the kept row 3 wide).
  const Target& host = target_for(TargetKind::host);
  const std::vector<LeafType> inputs{{ScalarKind::strong, DType::f32}, {ScalarKind::strong, DType::f32}};
  struct Form {
    ReduceForm form;
    Shape shape;
    std::vector<bool> reduced;
    const char* suffix;
  };
  for (const Form& f : {Form{ReduceForm::rows, {8, 1000}, {false, true}, ".uuz.acc-maximum-f32-rows.host."},
                        Form{ReduceForm::columns, {8, 1000}, {true, false}, ".uuz.acc-maximum-f32-columns.host."},
                        Form{ReduceForm::narrow, {64, 3}, {true, false}, ".uuz.acc-maximum-f32-w3b8.host."}}) {
    const Layout x = Layout::contiguous(f.shape);
    const Strides y{1, 0}, out = f.reduced[0] ? Strides{0, 1} : Strides{1, 0};
    const std::vector<Strides> with{x.strides, y};
    const ReducePlan reduction = plan_reduce(x, f.reduced, out, with);
    ASSERT_EQ(reduction_form(reduction), f.form);
    const int width = f.form == ReduceForm::narrow ? 3 : 0, block = f.form == ReduceForm::narrow ? 8 : 0;
    const KernelKey key = make_reduction_kernel_key(host, "x0-x1", inputs, {}, reduction_kernel_plan(reduction),
                                                    provider::current_codegen_id(),
                                                    {f.form, detail::Combine::maximum, DType::f32, width, block});
    const std::string text = key.to_string();
    EXPECT_THAT(text, ::testing::HasSubstr(f.suffix));
    const std::optional<KernelKey> back = parse_kernel_key(text, provider::current_codegen_id());
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, key);
    // What no kernel is emitted for does not parse: a sum into bool, or of
    // or into f32, an f16 accumulator, a narrow row of 0 or 17.
    for (const char* bad :
         {"acc-add-bool-rows", "acc-or-f32-rows", "acc-maximum-f16-rows", "acc-add-f32-diagonal", "acc-sum-f32-rows",
          "acc-add-f32", "acc-add-f32-w0", "acc-add-f32-w17", "acc-add-f32-w03", "acc-add-f32-w3", "acc-add-f32-w3b0",
          "acc-add-f32-w3b1", "acc-add-f32-w3b3", "acc-add-f32-w3b16", "acc-add-f32-w3b08"}) {
      std::string other = text;
      other.replace(other.find("acc-"), other.find(".host") - other.find("acc-"), bad);
      EXPECT_FALSE(parse_kernel_key(other, provider::current_codegen_id()).has_value()) << other;
    }
  }
}

}  // namespace
}  // namespace bcast
