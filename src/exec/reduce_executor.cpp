// The reduction executor: NOTE: [Reduction order]'s items and trees, on one
// typed loop per combine and accumulator dtype.
#include "reduce_executor.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "complex_ops.h"
#include "host_target.h"
#include "node_ops.h"
#include "scalar_ops.h"
#include "thread_pool.h"

namespace bcast {
namespace {

using detail::CastElement;
using detail::Combine;
using detail::Element;

constexpr int kLanes = kReduceLanes;            // a row item's lanes (kernel_abi.h: the kernels' too)
constexpr std::int64_t kRowItem = kReduceItem;  // elements of one run in a row item
constexpr std::int64_t kBatchItems =
    64;  // NOTE: [Fused reductions]: row items a kernel call fills at most (narrow column items: as many values)
constexpr std::int64_t kTile = 4096;          // results one column unit advances together: rows read whole
constexpr std::int64_t kMinTile = 256;        // ... and the fewest, when tiles are narrowed for threads
constexpr std::int64_t kSplitFrom = 1 << 15;  // inputs per result from which its items are shared out
constexpr std::size_t kSmallScratch = 32 * kLanes;  // a tree's scratch on the stack: rows' trees of up to 2^31 items

// NOTE: [Reduction kernels]: the loops of `plan` a kernel of `form` runs,
// outer to inner (reduction_kernel_plan's levels).
std::vector<ReduceLoop> kernel_loops(const ReducePlan& plan, ReduceForm form) {
  if (form == ReduceForm::rows) {
    std::vector<ReduceLoop> loops = plan.kept;
    loops.insert(loops.end(), plan.reduced.begin(), plan.reduced.end());
    return loops;
  }
  std::vector<ReduceLoop> loops = plan.reduced;
  if (form == ReduceForm::narrow) {  // the innermost reduced loop as items of 8 b indices (narrow_block_rows)
    const std::int64_t rows = kNarrowBlocks * narrow_block_rows(plan.kept.back().extent, loops.back().extent);
    ReduceLoop items = loops.back();
    items.extent /= rows;
    items.stride *= rows;
    for (std::int64_t& w : items.with) w *= rows;
    loops.back().extent = rows;
    loops.insert(loops.end() - 1, items);
  }
  loops.push_back(plan.kept.back());
  return loops;
}

// ---- buffers a kernel reads and writes: whole lines ----

// NOTE: [Line-aligned buffers] A kernel adds to a column item's row of
// results, and the tree combines rows of them, with whole vectors; a 512-bit
// vector that straddles two cache lines costs each load and store twice over.
// On the Zen 5 VM (2026-12-07, one thread, f32 [4096, 4096], a hand loop of
// the columns kernel's steps, best of 11, three rounds) a row of results 16
// bytes past a line (where malloc puts a 16 KiB block) took 2.17-2.25 ms
// where one on a line took 1.74-1.88. So the executor's rows of results,
// its trees' scratch and its batches start on a line.
constexpr auto kLine = static_cast<std::size_t>(HostTarget::kLineBytes);

struct LineDelete {
  void operator()(void* p) const { ::operator delete (p, std::align_val_t{kLine}); }
};
template <class T>
using LineBuffer = std::unique_ptr<T[], LineDelete>;

// n value-initialised Ts (T is trivially destructible) from a line.
template <class T>
LineBuffer<T> line_buffer(std::size_t n) {
  static_assert(std::is_trivially_destructible_v<T>);
  auto* p = static_cast<T*>(::operator new (std::max<std::size_t>(n, 1) * sizeof(T), std::align_val_t{kLine}));
  std::uninitialized_value_construct_n(p, n);
  return LineBuffer<T>(p);
}

// ---- conversions: From's elements, strided, to To's, strided (astype's) ----

using ConvertFn = void (*)(const void* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride,
                           std::int64_t n);

template <DType From, DType To>
void convert(const void* src, std::int64_t src_stride, void* dst, std::int64_t dst_stride, std::int64_t n) {
  const auto* s = static_cast<const typename Element<From>::storage*>(src);
  auto* d = static_cast<typename Element<To>::storage*>(dst);
  for (std::int64_t i = 0; i < n; ++i) d[i * dst_stride] = CastElement<From, To>::run(s[i * src_stride]);
}

template <std::size_t... I>
constexpr std::array<ConvertFn, sizeof...(I)> convert_table(std::index_sequence<I...>) {
  return {&convert<static_cast<DType>(I / kNumDTypes), static_cast<DType>(I % kNumDTypes)>...};
}
constexpr auto kConverts = convert_table(std::make_index_sequence<kNumDTypes * kNumDTypes>());

ConvertFn converter(DType from, DType to) {
  return kConverts[static_cast<std::size_t>(from) * kNumDTypes + static_cast<std::size_t>(to)];
}

// ---- what one combine does in one accumulator dtype ----

template <Combine C, DType A>
struct Reducer {
  using E = Element<A>;
  using T = typename E::compute;

  static constexpr bool valid() {
    if (C == Combine::logical_or || C == Combine::logical_and) return A == DType::boolean;
    if (C == Combine::minimum || C == Combine::maximum) return true;    // complex: NumPy's lexicographic order
    return A != DType::boolean && A != DType::f16 && A != DType::bf16;  // halves add in f32
  }

  static T identity() {
    if constexpr (C == Combine::add)
      return T{0};
    else if constexpr (C == Combine::multiply)
      return T{1};
    else if constexpr (C == Combine::logical_or)
      return false;
    else if constexpr (C == Combine::logical_and)
      return true;
    else if constexpr (std::is_floating_point_v<T>) {
      return C == Combine::minimum ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
    } else if constexpr (detail::is_complex_v<T>) {  // (inf, inf) orders after every value, (-inf, -inf) before
      using Part = typename T::value_type;
      const Part inf =
          C == Combine::minimum ? std::numeric_limits<Part>::infinity() : -std::numeric_limits<Part>::infinity();
      return T(inf, inf);
    } else {
      return C == Combine::minimum ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    }
  }

  static T combine(T a, T b) {
    if constexpr (C == Combine::add) {
      if constexpr (std::is_integral_v<T>)
        return detail::wrapping(a, b, std::plus<>());
      else
        return a + b;
    } else if constexpr (C == Combine::multiply) {
      if constexpr (std::is_integral_v<T>)
        return detail::wrapping(a, b, std::multiplies<>());
      else if constexpr (detail::is_complex_v<T>)
        return detail::complex_ops::mul(a, b);
      else
        return a * b;
    } else if constexpr ((C == Combine::minimum || C == Combine::maximum) && std::is_floating_point_v<T>) {
      // detail::extremum_picks_a's rule without its branches, so that the
      // lanes vectorise: a NaN wins, then the larger (smaller), then +0 over
      // -0 (-0 under +0).
      constexpr bool largest = C == Combine::maximum;
      const bool a_wins =
          (a != a) | ((b == b) & ((largest ? a > b : a < b) | ((a == b) & (std::signbit(a) != largest))));
      return a_wins ? a : b;
    } else if constexpr ((C == Combine::minimum || C == Combine::maximum) && detail::is_complex_v<T>) {
      return detail::complex_ops::binary < C == Combine::maximum ? Op::max
                                                                 : Op::min > (a, b);  // a NaN wins, then the order
    } else if constexpr (C == Combine::minimum || C == Combine::maximum) {
      return detail::extremum_picks_a<C == Combine::maximum>(a, b) ? a : b;
    } else if constexpr (C == Combine::logical_or) {
      return a || b;
    } else {
      return a && b;
    }
  }
};

// ---- one call ----

template <Combine C, DType A>
class Run {
  using R = Reducer<C, A>;
  using T = typename R::T;
  using S = typename Element<A>::storage;

 public:
  explicit Run(const ReduceCall& call)
      : call_(call),
        plan_(*call.plan),
        load_(converter(call.input, A)),
        store_(converter(A, call.result)),
        in_size_(dtype_size(call.input)),
        out_size_(dtype_size(call.result)),
        serial_(next_serial_.fetch_add(1, std::memory_order_relaxed)) {
    if (call.source != nullptr && call.levels == nullptr) own_levels_ = reduce_levels(plan_);
    levels_ = call.levels != nullptr ? call.levels : &own_levels_;
    narrow_order_ = !plan_.rows && reduction_form(plan_) == ReduceForm::narrow;
    if (narrow_order_) narrow_rows_ = narrow_block_rows(plan_.kept.back().extent, plan_.reduced.back().extent);
    narrow_ = call.source != nullptr && narrow_order_;
  }

  int run(int threads) {
    if (plan_.outputs == 0) return 1;
    if (plan_.count == 0) return empty();
    return plan_.rows ? rows(threads) : columns(threads);
  }

 private:
  // ---- addressing ----

  // x's (or the result's) offset of index `i` of the first `count` of `loops`, row-major.
  static std::int64_t offset_of(const std::vector<ReduceLoop>& loops, std::size_t count, std::int64_t i, bool out) {
    return loop_offset(std::span(loops).first(count), i, out);
  }
  // Signed: an offset may be negative (a reversed view).
  const char* x_at(std::int64_t offset) const {
    return static_cast<const char*>(call_.x) + offset * static_cast<std::int64_t>(in_size_);
  }
  // n elements of x from `offset`, `stride` apart, as the accumulator's: in
  // place where x already is such a run, else converted into `buffer`.
  const S* elements(std::int64_t offset, std::int64_t stride, std::int64_t n, S* buffer) const {
    if (call_.input == A && (stride == 1 || n == 1)) return reinterpret_cast<const S*>(x_at(offset));
    load_(x_at(offset), stride, buffer, 1, n);
    return buffer;
  }
  char* out_at(std::int64_t offset) const {
    return static_cast<char*>(call_.out) + offset * static_cast<std::int64_t>(out_size_);
  }

  // The combined value's last steps: mean's division, then the result's dtype.
  void store(T v, std::int64_t out_offset) const {
    if constexpr (!std::is_integral_v<T>) {
      if (call_.divide) {
        if constexpr (detail::is_complex_v<T>) {
          using Part = typename T::value_type;
          v = T(v.real() / static_cast<Part>(plan_.count), v.imag() / static_cast<Part>(plan_.count));
        } else {
          v = v / static_cast<T>(plan_.count);
        }
      }
    }
    const S s = Element<A>::store(v);
    if (call_.result == A)  // most reductions: no conversion to call
      std::memcpy(out_at(out_offset), &s, sizeof s);
    else
      store_(&s, 0, out_at(out_offset), 0, 1);
  }

  int empty() {
    for (std::int64_t o = 0; o < plan_.outputs; ++o)
      store(R::identity(), offset_of(plan_.kept, plan_.kept.size(), o, true));
    return 1;
  }

  // ---- the tree (NOTE: [Reduction order]) ----

  // No items in memory: the tree reads each through its item().
  struct NoneHeld {
    const T* operator()(std::int64_t /*first*/, std::int64_t /*n*/) const { return nullptr; }
  };

  // P(items [first, last)) into out[0, width), with scratch[0, ...) for the
  // deeper levels (a level a width: bit_width(last - first) of them at most).
  // item(i, values) writes item i's values; held(i, n), where not null,
  // points at items [i, i + n) in memory back to back (a kernel's batch),
  // and a whole subtree combines from there.
  template <class Item, class Held>
  static void tree(std::int64_t first, std::int64_t last, std::int64_t width, T* out, T* scratch, const Item& item,
                   const Held& held) {
    const std::int64_t n = last - first;
    if (n == 1) return item(first, out);
    if (std::has_single_bit(static_cast<std::uint64_t>(n)))
      if (const T* items = held(first, n)) return subtree(items, n, width, out, scratch);
    const auto h = static_cast<std::int64_t>(std::bit_floor(static_cast<std::uint64_t>(n - 1)));
    tree(first, first + h, width, out, scratch, item, held);
    tree(first + h, last, width, scratch, scratch + width, item, held);
    combine_into(out, scratch, width);
  }

  // tree() over n items at `items`, n a power of two: pairs pushed on a
  // binary counter (its oldest level out, the others scratch's), equal
  // sizes combined as they meet (the same tree, without a call per item).
  static void subtree(const T* __restrict items, std::int64_t n, std::int64_t width, T* out, T* scratch) {
    const auto level = [&](std::int64_t k) { return k == 0 ? out : scratch + (k - 1) * width; };
    std::int64_t top = 0;  // partial results on the counter
    for (std::int64_t j = 0; j < n / 2; ++j, ++top) {
      T* __restrict pair = level(top);
      const T* __restrict left = items + 2 * j * width;
      for (std::int64_t l = 0; l < width; ++l) pair[l] = R::combine(left[l], left[width + l]);
      for (std::int64_t m = j + 1; m % 2 == 0; m /= 2, --top) combine_into(level(top - 1), level(top), width);
    }
  }

  static void combine_into(T* __restrict a, const T* __restrict b, std::int64_t width) {
    for (std::int64_t l = 0; l < width; ++l) a[l] = R::combine(a[l], b[l]);
  }

  // The tree over `items` items into values[0, width): on this thread, or
  // shared out in chunks of a power of two items when `threads` > 1.
  template <class Item, class Held = NoneHeld>
  int combined(std::int64_t items, std::int64_t width, T* values, int threads, const Item& item,
               const Held& held = {}) {
    // A tree's scratch: bit_width(n) levels for n items; on the stack where
    // it fits (a row sum runs this once a result). T may be bool.
    struct Scratch {
      alignas(kLine) std::array<T, kSmallScratch> small;
      LineBuffer<T> large;
      T* get(std::int64_t n, std::int64_t width) {
        const auto need = static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(n)) * width);
        if (need <= small.size()) return small.data();
        large = line_buffer<T>(need);
        return large.get();
      }
    };
    Scratch scratch;
    if (threads <= 1 || items < 2) {
      tree(0, items, width, values, scratch.get(items, width), item, held);
      return 1;
    }
    const auto chunk =
        static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>((items + threads - 1) / threads)));
    const std::int64_t chunks = (items + chunk - 1) / chunk;
    const LineBuffer<T> partial = line_buffer<T>(static_cast<std::size_t>(chunks * width));
    const int used = ThreadPool::instance().run(threads, chunks, [&](std::int64_t c) {
      Scratch own;
      const auto shifted = [&](std::int64_t i, T* v) { item(c * chunk + i, v); };
      const auto shifted_held = [&](std::int64_t i, std::int64_t n) { return held(c * chunk + i, n); };
      tree(0, std::min(chunk, items - c * chunk), width, partial.get() + c * width, own.get(chunk, width), shifted,
           shifted_held);
    });
    tree(
        0, chunks, width, values, scratch.get(chunks, width),
        [&](std::int64_t c, T* v) { std::copy_n(partial.get() + c * width, width, v); }, NoneHeld{});
    return used;
  }

  // ---- rows: the innermost loop reduced ----

  // NOTE: [Rows in a batch] A rows kernel puts a batch of whole rows' items
  // in memory, and each row's items then combined through tree()'s
  // recursion (a call per level, the lanes through arrays in memory) and its
  // lanes halved. Where all of a result's items are in the batch,
  // row_value() runs the same tree on a binary counter (the items in order,
  // equal sizes combined as they meet, what is left folded from the newest:
  // NOTE: [Reduction order]'s left-aligned tree for any count) and halves
  // the lanes on a local array: the same bits
  // (ReductionKernels.RowItemsCombinePairwiseThenTheLanesHalve writes the
  // order out). `mean(r, axis=-1)` of f32 [1024, 1024], one thread, five
  // processes of each build in turn on the Zen 5 VM (2026-12-07): medians
  // 157-166 -> 147-151 us.
  static T row_value(const T* __restrict items, std::int64_t n) {
    constexpr int kLevels = std::bit_width(static_cast<std::uint64_t>(kBatchItems)) + 1;
    std::array<std::array<T, kLanes>, kLevels> level;  // the counter: level[k] holds 2^k items' lanes
    std::array<bool, kLevels> full{};
    for (std::int64_t j = 0; j < n; ++j) {
      std::array<T, kLanes> carry;
      std::copy_n(items + j * kLanes, kLanes, carry.begin());
      int k = 0;
      for (; full[static_cast<std::size_t>(k)]; ++k) {  // older (left) combines with newer (right)
        auto& older = level[static_cast<std::size_t>(k)];
        for (int l = 0; l < kLanes; ++l) carry[l] = R::combine(older[l], carry[l]);
        full[static_cast<std::size_t>(k)] = false;
      }
      level[static_cast<std::size_t>(k)] = carry;
      full[static_cast<std::size_t>(k)] = true;
    }
    std::array<T, kLanes> lanes;
    bool any = false;
    for (std::size_t k = 0; k < level.size(); ++k) {  // newest first: each older level on the left
      if (!full[k]) continue;
      if (!any)
        lanes = level[k];
      else
        for (int l = 0; l < kLanes; ++l) lanes[l] = R::combine(level[k][l], lanes[l]);
      any = true;
    }
#pragma GCC unroll 8
    for (int h = kLanes / 2; h >= 1; h /= 2)
      for (int l = 0; l < h; ++l) lanes[l] = R::combine(lanes[l], lanes[l + h]);
    return lanes[0];
  }

  int rows(int threads) {
    const ReduceLoop inner = plan_.reduced.empty() ? ReduceLoop{} : plan_.reduced.back();
    const std::size_t outer_loops = plan_.reduced.empty() ? 0 : plan_.reduced.size() - 1;
    const std::int64_t per_row = (inner.extent + kRowItem - 1) / kRowItem;
    const std::int64_t items = plan_.count / inner.extent * per_row;
    // Item i of the result element at x offset `base`: lanes[k mod 32] of
    // the run's elements [c*512, c*512 + len), in order.
    const auto item_at = [&](std::int64_t base, std::int64_t i, T* __restrict lanes) {
      const std::int64_t c = i % per_row;
      const std::int64_t start =
          base + offset_of(plan_.reduced, outer_loops, i / per_row, false) + c * kRowItem * inner.stride;
      const std::int64_t len = std::min(kRowItem, inner.extent - c * kRowItem);
      std::array<S, kRowItem> buffer;
      const S* __restrict run = elements(start, inner.stride, len, buffer.data());
      std::fill_n(lanes, kLanes, R::identity());
      std::int64_t k = 0;
      for (; k + kLanes <= len; k += kLanes)  // whole vectors of lanes, then the rest
        for (int l = 0; l < kLanes; ++l) lanes[l] = R::combine(lanes[l], Element<A>::load(run[k + l]));
      for (int l = 0; k + l < len; ++l) lanes[l] = R::combine(lanes[l], Element<A>::load(run[k + l]));
    };
    const auto result = [&](std::int64_t o, int share, std::int64_t end) {
      // NOTE: [Rows in a batch]: all of the result's items in this thread's batch.
      if (call_.source != nullptr && share <= 1)
        if (const T* held_items = kernel_row_items(o * items, items, end * items, per_row)) {
          store(row_value(held_items, items), offset_of(plan_.kept, plan_.kept.size(), o, true));
          return 1;
        }
      std::array<T, kLanes> lanes;
      const std::int64_t base = offset_of(plan_.kept, plan_.kept.size(), o, false);
      const auto item = [&](std::int64_t i, T* v) {
        if (call_.source != nullptr)
          kernel_row_item(o * items + i, end * items, per_row, v);
        else
          item_at(base, i, v);
      };
      const auto held = [&](std::int64_t i, std::int64_t n) -> const T* {
        return call_.source != nullptr ? kernel_row_items(o * items + i, n, end * items, per_row) : nullptr;
      };
      const int used = combined(items, kLanes, lanes.data(), share, item, held);
      for (int h = kLanes / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; ++l) lanes[l] = R::combine(lanes[l], lanes[l + h]);
      store(lanes[0], offset_of(plan_.kept, plan_.kept.size(), o, true));
      return used;
    };
    return share_out(plan_.outputs, plan_.count, threads, result);
  }

  // ---- columns: the innermost loop kept ----

  int columns(int threads) {
    const ReduceLoop inner = plan_.kept.back();
    const std::size_t outer_loops = plan_.kept.size() - 1;
    const std::int64_t item_rows = narrow_order_ ? narrow_item_rows() : kColumnItem;
    const std::int64_t items = (plan_.count + item_rows - 1) / item_rows;
    const std::int64_t tile = column_tile(inner.extent, plan_.outputs / inner.extent, items, threads);
    const std::int64_t tiles = (inner.extent + tile - 1) / tile;
    const auto result = [&](std::int64_t u, int share, std::int64_t /*end*/) {
      const std::int64_t outer = u / tiles, t = u % tiles;
      const std::int64_t width = std::min(tile, inner.extent - t * tile);
      const std::int64_t base = offset_of(plan_.kept, outer_loops, outer, false) + t * tile * inner.stride;
      // Item i: values[k] combines the reduced indices [16i, 16i + 16) in order.
      const bool in_place = call_.input == A && inner.stride == 1;
      const auto item = [&](std::int64_t i, T* __restrict values) {
        if (call_.source != nullptr) return kernel_column_item(outer, t * tile, width, i, values);
        std::vector<S> buffer(in_place ? 0 : static_cast<std::size_t>(width));
        const auto run_of = [&](std::int64_t j) {  // reduced index j's kept row
          return elements(base + offset_of(plan_.reduced, plan_.reduced.size(), j, false), inner.stride, width,
                          buffer.data());
        };
        if (narrow_order_) return narrow_item(i * item_rows, width, narrow_rows_, run_of, values);
        std::fill_n(values, width, R::identity());
        for (std::int64_t j = i * kColumnItem; j < std::min((i + 1) * kColumnItem, plan_.count); ++j) {
          const S* __restrict run = run_of(j);
          for (std::int64_t k = 0; k < width; ++k) values[k] = R::combine(values[k], Element<A>::load(run[k]));
        }
      };
      const auto held = [&](std::int64_t i, std::int64_t n) -> const T* {
        return call_.source != nullptr ? kernel_column_items(outer, t * tile, width, i, n) : nullptr;
      };
      const LineBuffer<T> values = line_buffer<T>(static_cast<std::size_t>(width));  // T may be bool
      const int used = combined(items, width, values.get(), share, item, held);
      const std::int64_t out_base = offset_of(plan_.kept, outer_loops, outer, true) + t * tile * inner.out_stride;
      for (std::int64_t k = 0; k < width; ++k) store(values[k], out_base + k * inner.out_stride);
      return used;
    };
    return share_out(plan_.outputs / inner.extent * tiles, std::min(tile, inner.extent) * plan_.count, threads, result);
  }

  // A narrow item from reduced index `first` (NOTE: [Reduction order]): a
  // lane per row of a block and each of the w values, combined block by
  // block, then halved. run_of(j) is index j's row of w.
  template <class RunOf>
  static void narrow_item(std::int64_t first, std::int64_t w, std::int64_t rows, const RunOf& run_of, T* values) {
    std::array<T, kNarrowLanes> lanes;
    std::fill_n(lanes.begin(), rows * w, R::identity());
    for (std::int64_t block = 0; block < kNarrowBlocks; ++block)
      for (std::int64_t r = 0; r < rows; ++r) {
        const S* __restrict run = run_of(first + block * rows + r);
        for (std::int64_t k = 0; k < w; ++k) lanes[r * w + k] = R::combine(lanes[r * w + k], Element<A>::load(run[k]));
      }
    for (std::int64_t h = rows / 2; h >= 1; h /= 2)
      for (std::int64_t l = 0; l < h * w; ++l) lanes[l] = R::combine(lanes[l], lanes[h * w + l]);
    std::copy_n(lanes.begin(), w, values);
  }

  // The results a column unit advances together: kTile, or fewer where
  // that leaves threads idle and a unit's items are too few to share out
  // (sharing items keeps each thread on whole rows of x; a tile's width
  // never changes the bits: each result's order is its own).
  static std::int64_t column_tile(std::int64_t width, std::int64_t rows, std::int64_t items, int threads) {
    const std::int64_t units = rows * ((width + kTile - 1) / kTile);
    if (threads <= 1 || units >= threads || items >= threads) return kTile;
    const std::int64_t per_row = (threads + rows - 1) / rows;
    return std::max(kMinTile, ((width + per_row - 1) / per_row + 63) / 64 * 64);
  }

  // Units (result elements, or column tiles) over the threads: each unit on
  // one thread when there are enough of them, else one unit at a time with
  // its items shared out (the same bits either way). unit(u, share, end):
  // `end` bounds the units this thread runs from u on (a batch of row items
  // need not look past it).
  template <class Unit>
  int share_out(std::int64_t units, std::int64_t inputs_per_unit, int threads, const Unit& unit) {
    if (threads <= 1 || units >= threads) {
      if (threads <= 1 || units * inputs_per_unit < kSplitFrom) {
        for (std::int64_t u = 0; u < units; ++u) unit(u, 1, units);
        return 1;
      }
      const std::int64_t parts = std::min<std::int64_t>(units, 4LL * threads);
      return ThreadPool::instance().run(threads, parts, [&](std::int64_t p) {
        const std::int64_t end = share(units, parts, p + 1);
        for (std::int64_t u = share(units, parts, p); u < end; ++u) unit(u, 1, end);
      });
    }
    int used = 1;
    for (std::int64_t u = 0; u < units; ++u)
      used = std::max(used, unit(u, inputs_per_unit >= kSplitFrom ? threads : 1, u + 1));
    return used;
  }

  // ---- NOTE: [Fused reductions]: items from the source's kernel ----

  // One call: `passes` passes of the innermost level from pass `first`
  // (row-major over the levels above it), the innermost from element
  // `skip` for `extent` elements; each input from its element `base`.
  void call_kernel(std::int64_t first, std::int64_t passes, std::int64_t skip, std::int64_t extent,
                   const std::array<std::int64_t, kMaxInputs>& base, void* out) const {
    const ReduceLevels& k = *levels_;
    const int rank = k.rank();
    // A narrow kernel's passes are items: iterations of the levels above its last two.
    const int counted = rank - (reduction_form(plan_) == ReduceForm::narrow ? 2 : 1);
    std::array<std::int64_t, kMaxRank> extents{}, index{};
    std::array<std::int64_t, kMaxInputs> offset = base;
    for (int l = 0; l < rank; ++l) extents[static_cast<std::size_t>(l)] = k.loops[static_cast<std::size_t>(l)].extent;
    extents[static_cast<std::size_t>(rank - 1)] = extent;
    for (int l = counted; l-- > 0;) {
      const ReduceLoop& loop = k.loops[static_cast<std::size_t>(l)];
      index[static_cast<std::size_t>(l)] = first % loop.extent;
      first /= loop.extent;
      for (int i = 0; i < plan_.with; ++i)
        offset[static_cast<std::size_t>(i)] +=
            index[static_cast<std::size_t>(l)] * loop.with[static_cast<std::size_t>(i)];
    }
    std::array<void*, kMaxOperands> data{out};
    const ReduceSource& source = *call_.source;
    for (int i = 0; i < plan_.with; ++i) {
      const auto u = static_cast<std::size_t>(i);
      const std::int64_t at = offset[u] + skip * k.loops.back().with[u];
      data[u + 1] = const_cast<char*>(source.data[u] + at * static_cast<std::int64_t>(source.sizes[u]));
    }
    const KernelArgs args{.data = data.data(),
                          .extents = extents.data(),
                          .strides = k.strides.data(),
                          .spans = k.spans.data(),
                          .index = index.data(),
                          .count = passes,
                          .rank = rank,
                          .context = source.context};
    source.fn(&args);
  }

  // This thread's batch of items: [first, last) of this call's (serial);
  // kBatchItems row items' lanes, or as many narrow column items' values.
  struct Batch {
    alignas(kLine) std::array<S, kBatchItems * kLanes> lanes;
    std::uint64_t serial = 0;
    std::int64_t first = 0, last = 0;
    bool holds(std::uint64_t call, std::int64_t g) const { return serial == call && g >= first && g < last; }
    // Items [g, g + n) of `width` values each, back to back; null where the batch ends first.
    const S* items(std::int64_t g, std::int64_t n, std::int64_t width) const {
      return g >= first && g + n <= last ? lanes.data() + (g - first) * width : nullptr;
    }
  };
  static Batch& thread_batch() {
    thread_local std::unique_ptr<Batch> held;  // on the heap: a large thread_local would crowd a dlopen'd library's TLS
    if (!held) held = std::make_unique<Batch>();
    return *held;
  }

  // Row item g (of all results' items, result by result) in this thread's
  // batch, filled by one call when g is not in it, up to the thread's item
  // `end` at most; the batch holds items [g, batch.last).
  const Batch& kernel_row_batch(std::int64_t g, std::int64_t end, std::int64_t per_row) const {
    Batch& batch = thread_batch();
    if (!batch.holds(serial_, g)) {
      const std::int64_t run = g / per_row, c = g % per_row, m = plan_.reduced.back().extent;
      const std::int64_t runs = end / per_row;  // the runs up to this thread's `end` item
      static constexpr std::array<std::int64_t, kMaxInputs> kAtZero{};
      if (c != 0 || per_row > kBatchItems) {  // part of one run: items [c, c + n)
        const std::int64_t n = std::min(kBatchItems, per_row - c);
        call_kernel(run, 1, c * kRowItem, std::min(n * kRowItem, m - c * kRowItem), kAtZero, batch.lanes.data());
        batch.last = g + n;
      } else {  // whole runs
        const std::int64_t n = std::min(kBatchItems / per_row, runs - run);
        call_kernel(run, n, 0, m, kAtZero, batch.lanes.data());
        batch.last = g + n * per_row;
      }
      batch.first = g;
      batch.serial = serial_;
    }
    return batch;
  }

  void kernel_row_item(std::int64_t g, std::int64_t end, std::int64_t per_row, T* lanes) const {
    const S* item = kernel_row_batch(g, end, per_row).items(g, 1, kLanes);
    for (int l = 0; l < kLanes; ++l) lanes[l] = Element<A>::load(item[l]);
  }

  // Row items [g, g + n) in place in this thread's batch, or null where the
  // batch ends first (or its storage is not the accumulator's type).
  const T* kernel_row_items(std::int64_t g, std::int64_t n, std::int64_t end, std::int64_t per_row) const {
    if constexpr (std::is_same_v<S, T>) return kernel_row_batch(g, end, per_row).items(g, n, kLanes);
    return nullptr;
  }

  // Column item i of the `width` results from kept index `outer`'s element
  // `from` of the inner loop: the identity, then one call combining the
  // reduced indices [16i, 16i + 16) in order.
  //
  // Narrow columns (reduction_form): items from this thread's batch, filled
  // by one call of up to a batch's worth of whole items when i is not in it.
  void kernel_column_item(std::int64_t outer, std::int64_t from, std::int64_t width, std::int64_t i, T* values) const {
    if (narrow_) {
      const std::int64_t g = outer * (plan_.count / narrow_item_rows()) + i;
      const S* item = kernel_narrow_batch(outer, from, width, i).items(g, 1, width);
      for (std::int64_t k = 0; k < width; ++k) values[k] = Element<A>::load(item[k]);
      return;
    }
    std::fill_n(values, width, R::identity());
    const std::int64_t first = i * kColumnItem;
    call_kernel(first, std::min(kColumnItem, plan_.count - first), 0, width, kept_base(outer, from), values);
  }

  // Narrow column item i (as kernel_column_item) in this thread's batch.
  const Batch& kernel_narrow_batch(std::int64_t outer, std::int64_t from, std::int64_t width, std::int64_t i) const {
    Batch& batch = thread_batch();
    const std::int64_t item_rows = narrow_item_rows();
    const std::int64_t items = plan_.count / item_rows, g = outer * items + i;
    if (!batch.holds(serial_, g)) {
      // A call stays within one run of the items level (the kernel steps its stride only).
      const std::int64_t per_run = plan_.reduced.back().extent / item_rows;
      const std::int64_t n = std::min({kBatchItems * kLanes / width, items - i, per_run - i % per_run});
      call_kernel(i, n, 0, width, kept_base(outer, from), batch.lanes.data());
      batch.serial = serial_;
      batch.first = g;
      batch.last = g + n;
    }
    return batch;
  }

  // Narrow column items [i, i + n) in place in this thread's batch, or null
  // where the batch ends first (or its storage is not the accumulator's
  // type, or the form is not narrow).
  const T* kernel_column_items(std::int64_t outer, std::int64_t from, std::int64_t width, std::int64_t i,
                               std::int64_t n) const {
    if constexpr (std::is_same_v<S, T>) {
      if (!narrow_) return nullptr;
      const std::int64_t g = outer * (plan_.count / narrow_item_rows()) + i;
      return kernel_narrow_batch(outer, from, width, i).items(g, n, width);
    }
    return nullptr;
  }

  // Each input's element at kept index `outer`'s element `from` of the inner loop.
  std::array<std::int64_t, kMaxInputs> kept_base(std::int64_t outer, std::int64_t from) const {
    std::array<std::int64_t, kMaxInputs> base{};
    const ReduceLoop& inner = plan_.kept.back();
    for (int k = 0; k < plan_.with; ++k) {
      const auto u = static_cast<std::size_t>(k);
      std::int64_t at = from * inner.with[u], o = outer;
      for (std::size_t l = plan_.kept.size() - 1; l-- > 0;) {
        at += (o % plan_.kept[l].extent) * plan_.kept[l].with[u];
        o /= plan_.kept[l].extent;
      }
      base[u] = at;
    }
    return base;
  }

  const ReduceCall& call_;
  const ReducePlan& plan_;
  ConvertFn load_, store_;
  std::size_t in_size_, out_size_;
  std::uint64_t serial_;  // tells this call's batches from another's (kernel_row_item)
  ReduceLevels own_levels_;
  const ReduceLevels* levels_;  // the call's, or own_levels_
  bool narrow_order_ = false;   // NOTE: [Reduction order]'s narrow columns: items of blocks
  std::int64_t narrow_rows_ = 0;  // ... of these rows
  bool narrow_ = false;           // ... and the source's kernel is that form
  std::int64_t narrow_item_rows() const { return kNarrowBlocks * narrow_rows_; }  // a narrow item's reduced indices
  static inline std::atomic<std::uint64_t> next_serial_{1};
};

// ---- the table of runners ----

using RunFn = int (*)(const ReduceCall&, int);

template <Combine C, DType A>
int run_reduce(const ReduceCall& call, int threads) {
  return Run<C, A>(call).run(threads);
}

constexpr int kNumCombines = 6;

template <std::size_t... I>
constexpr std::array<RunFn, sizeof...(I)> run_table(std::index_sequence<I...>) {
  constexpr auto entry = []<std::size_t J>() -> RunFn {
    constexpr auto c = static_cast<Combine>(J / kNumDTypes);
    constexpr auto a = static_cast<DType>(J % kNumDTypes);
    if constexpr (Reducer<c, a>::valid())
      return &run_reduce<c, a>;
    else
      return nullptr;
  };
  return {entry.template operator()<I>()...};
}
constexpr auto kRuns = run_table(std::make_index_sequence<kNumCombines * kNumDTypes>());

RunFn runner(Combine combine, DType accumulator) {
  return kRuns[static_cast<std::size_t>(combine) * kNumDTypes + static_cast<std::size_t>(accumulator)];
}

}  // namespace

ReduceForm reduction_form(const ReducePlan& plan) {
  if (plan.rows) return ReduceForm::rows;
  // The plan's loops alone decide, never the riding operands' strides: the
  // form is the order (NOTE: [Reduction order]), and the same values held
  // in another layout (NOTE: [Row blocks]) must give the same bits.
  const ReduceLoop& row = plan.kept.back();
  const bool narrow = row.extent <= kNarrowWidth && !plan.reduced.empty() &&
                      narrow_block_rows(row.extent, plan.reduced.back().extent) > 0;
  return narrow ? ReduceForm::narrow : ReduceForm::columns;
}

BroadcastPlan reduction_kernel_plan(const ReducePlan& plan) {
  const ReduceForm form = reduction_form(plan);
  const std::vector<ReduceLoop> loops = kernel_loops(plan, form);
  const auto rank = loops.size();
  std::vector<std::int64_t> out(rank, 0);
  out.back() = 1;
  if (form != ReduceForm::columns) {  // a buffer: each pass's (rows) or item's (narrow) values back to back
    std::int64_t step = form == ReduceForm::rows ? (plan.reduced.back().extent + kRowItem - 1) / kRowItem * kLanes
                                                 : plan.kept.back().extent;
    for (std::size_t l = rank - (form == ReduceForm::rows ? 1 : 2); l-- > 0;) {
      out[l] = step;
      step *= loops[l].extent;
    }
  }
  BroadcastPlan levels;
  levels.strides.assign(static_cast<std::size_t>(1 + plan.with), {});
  levels.spans.assign(static_cast<std::size_t>(1 + plan.with), {});
  levels.base.assign(static_cast<std::size_t>(1 + plan.with), 0);
  levels.numel = plan.outputs * plan.count;  // what the call computes, for NOTE: [Waiting rule]
  for (std::size_t l = 0; l < rank; ++l) {
    unsigned repeating = 0;
    for (int k = 0; k <= plan.with; ++k) {
      const std::int64_t stride = k == 0 ? out[l] : loops[l].with[static_cast<std::size_t>(k - 1)];
      levels.strides[static_cast<std::size_t>(k)].push_back(stride);
      levels.spans[static_cast<std::size_t>(k)].push_back((loops[l].extent - 1) * stride);
      if (k > 0 && stride == 0) repeating |= 1u << (k - 1);
    }
    levels.type.push_back(static_cast<DimCode>(repeating));
    levels.extents.push_back(loops[l].extent);
  }
  return levels;
}

bool has_reduce_loop(detail::Combine combine, DType accumulator) { return runner(combine, accumulator) != nullptr; }

ReduceLevels reduce_levels(const ReducePlan& plan) {
  const BroadcastPlan levels = reduction_kernel_plan(plan);
  ReduceLevels k;
  k.loops = kernel_loops(plan, reduction_form(plan));
  for (int op = 0; op < levels.operands(); ++op) {
    k.strides.insert(k.strides.end(), levels.strides[op].begin(), levels.strides[op].end());
    k.spans.insert(k.spans.end(), levels.spans[op].begin(), levels.spans[op].end());
  }
  return k;
}

int execute_reduce(const ReduceCall& call, int threads) {
  return runner(call.combine, call.accumulator)(call, std::max(1, threads));
}

}  // namespace bcast
