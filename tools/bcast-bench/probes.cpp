// Memory probes for bcast-bench --probes. Each is a plain loop written by hand
// (intrinsics where the point is a particular instruction), timed like the
// cases. They bound what a kernel can reach, so they are not bcast's code.
#include "probes.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "bcast/bcast.h"
#include "../timing.h"

namespace bcast::bench {
namespace {

constexpr std::int64_t kSide = 4096;  // [4096,4096] f32, as cases 1 and 14
constexpr std::int64_t kLine = 16;    // f32 per cache line

// One cache line of f32 written past the caches where the CPU has a
// streaming store, plainly elsewhere.
inline void store_line(float* out, const float* values) {
#if defined(__AVX512F__)
  _mm512_stream_ps(out, _mm512_loadu_ps(values));
#elif defined(__AVX__)
  _mm256_stream_ps(out, _mm256_loadu_ps(values));
  _mm256_stream_ps(out + 8, _mm256_loadu_ps(values + 8));
#elif defined(__SSE2__)
  for (int i = 0; i < 16; i += 4) _mm_stream_ps(out + i, _mm_loadu_ps(values + i));
#else
  for (int i = 0; i < 16; ++i) out[i] = values[i];
#endif
}

inline void fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Lines [begin, end) of out filled with a constant: write-only traffic.
void fill_lines(float* out, std::int64_t begin, std::int64_t end) {
  alignas(64) float ones[kLine];
  for (float& x : ones) x = 1.0f;
  for (std::int64_t l = begin; l < end; ++l) store_line(out + l * kLine, ones);
  fence();
}

// out = a + b over [kSide,kSide] in tiles of rows x cols, a line at a time.
void tiled_add(const float* a, const float* b, float* out, std::int64_t rows, std::int64_t cols) {
  alignas(64) float sum[kLine];
  for (std::int64_t r0 = 0; r0 < kSide; r0 += rows)
    for (std::int64_t c0 = 0; c0 < kSide; c0 += cols)
      for (std::int64_t r = r0; r < r0 + rows; ++r)
        for (std::int64_t c = c0; c < c0 + cols; c += kLine) {
          const std::int64_t at = r * kSide + c;
          for (std::int64_t i = 0; i < kLine; ++i) sum[i] = a[at + i] + b[at + i];
          store_line(out + at, sum);
        }
  fence();
}

// block(r, c) for every L x L block of [kSide, kSide], in 256 x 256 tiles:
// the walk of the hand-written transposed adds below, as bcast's tiles run.
template <std::int64_t L, class Block>
void in_tiles(const Block& block) {
  constexpr std::int64_t kTile = 256;
  for (std::int64_t r0 = 0; r0 < kSide; r0 += kTile)
    for (std::int64_t c0 = 0; c0 < kSide; c0 += kTile)
      for (std::int64_t r = r0; r < r0 + kTile; r += L)
        for (std::int64_t c = c0; c < c0 + kTile; c += L) block(r, c);
}

#if defined(__AVX512F__)
// The transpose of 16 rows of 16 f32 in registers: three rounds of
// interleaving within 128-bit lanes, then two of whole lanes.
void transpose16(__m512 v[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    v[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    v[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    v[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 8; ++i) {
    const int r = i / 4 * 8 + i % 4;
    t[r] = _mm512_shuffle_f32x4(v[r], v[r + 4], 0x88);
    t[r + 4] = _mm512_shuffle_f32x4(v[r], v[r + 4], 0xDD);
  }
  for (int i = 0; i < 8; ++i) {
    v[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    v[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

// out = t^T + b in 256 x 256 tiles of 16 x 16 blocks, streaming stores: case
// 14 the way bcast runs it, with nothing but the loads, shuffles and stores.
void transposed_add(const float* t, const float* b, float* out) {
  in_tiles<16>([&](std::int64_t r, std::int64_t c) {
    __m512 v[16];
    for (int q = 0; q < 16; ++q) v[q] = _mm512_load_ps(t + (c + q) * kSide + r);
    transpose16(v);
    for (int p = 0; p < 16; ++p) {
      const std::int64_t at = (r + p) * kSide + c;
      _mm512_stream_ps(out + at, _mm512_add_ps(v[p], _mm512_load_ps(b + at)));
    }
  });
  _mm_sfence();
}
#elif defined(__AVX__)
// The transpose of 8 rows of 8 f32 in registers: interleaves within 128-bit
// lanes (unpack, then shuffle of pairs), then whole lanes.
void transpose8(__m256 v[8]) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    v[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    v[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    v[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(v[i], v[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(v[i], v[i + 4], 0x31);
  }
  for (int i = 0; i < 8; ++i) v[i] = t[i];
}

// out = t^T + b in 256 x 256 tiles of 8 x 8 blocks with plain stores: a
// block's row is half a line, which streaming stores write slowly (NOTE:
// [Transposed tiles]).
void transposed_add(const float* t, const float* b, float* out) {
  in_tiles<8>([&](std::int64_t r, std::int64_t c) {
    __m256 v[8];
    for (int q = 0; q < 8; ++q) v[q] = _mm256_loadu_ps(t + (c + q) * kSide + r);
    transpose8(v);
    for (int p = 0; p < 8; ++p) {
      const std::int64_t at = (r + p) * kSide + c;
      _mm256_storeu_ps(out + at, _mm256_add_ps(v[p], _mm256_loadu_ps(b + at)));
    }
  });
}
#endif

}  // namespace

nlohmann::json run_probes(int threads, int repeats) {
  nlohmann::json probes = nlohmann::json::array();
  const Tensor a(DType::f32, {kSide, kSide}), b(DType::f32, {kSide, kSide});
  Tensor out(DType::f32, {kSide, kSide});
  const float* pa = a.data_as<const float>();
  const float* pb = b.data_as<const float>();
  float* po = out.data_as<float>();
  const double bytes = static_cast<double>(out.nbytes());
  const std::int64_t lines = kSide * kSide / kLine;
  // Write-only traffic (cases 5 and 10 write 64 and 512 MiB from kilobytes of input).
  for (const int t : {1, threads}) {
    const double ns = median_ns_on_threads(t, lines, [&](std::int64_t lo, std::int64_t hi) { fill_lines(po, lo, hi); }, repeats);
    probes.push_back({{"probe", "write-only, streaming stores, " + std::to_string(t) + " thread(s)"},
                      {"gbps", bytes / ns}});
    if (threads == 1) break;
  }
  // Same-shape add in full rows and in 256 x 256 tiles: what kilobyte runs cost with no transpose at all.
  const double rows_ns = median_ns([&] { tiled_add(pa, pb, po, 1, kSide); }, repeats);
  const double tiles_ns = median_ns([&] { tiled_add(pa, pb, po, 256, 256); }, repeats);
  probes.push_back({{"probe", "same-shape add, full rows, streaming"}, {"gbps", 3 * bytes / rows_ns}});
  probes.push_back({{"probe", "same-shape add, 256 x 256 tiles, streaming"}, {"gbps", 3 * bytes / tiles_ns},
                    {"vs_full_rows", rows_ns / tiles_ns}});
#if defined(__AVX512F__) || defined(__AVX__)
  // Case 14 by hand beside bcast's call on the same tensors, timed in turn:
  // the distance left to the hand-written bound.
  const TensorView at = transpose(a, 0, 1);
  set_num_threads(1);
  const auto [transposed_ns, bcast_ns] =
      alternating_medians_ns([&] { transposed_add(pa, pb, po); }, [&] { add(at, b, out); }, repeats);
#if defined(__AVX512F__)
  const char* hand = "a^T + b, hand-written 16 x 16 blocks, 256 x 256 tiles, streaming";
#else
  const char* hand = "a^T + b, hand-written 8 x 8 blocks, 256 x 256 tiles, plain stores";
#endif
  probes.push_back({{"probe", hand},
                    {"gbps", 3 * bytes / transposed_ns},
                    {"vs_full_rows", rows_ns / transposed_ns},
                    {"bcast_gbps", 3 * bytes / bcast_ns},
                    {"bcast_vs_hand", transposed_ns / bcast_ns}});
#endif
  return probes;
}

}  // namespace bcast::bench
