// NOTE: [Large buffers] Tensor buffers of two huge pages or more, kept for
// reuse when freed. A new large buffer's pages are faulted in by the first
// write, one by one, and zeroed by the kernel: on the development machine a
// new 1 GiB result cost three times the kernel that wrote it (246 against 81
// ms). A process that frees results and makes others of the same size, a
// Dask chunk after chunk or a loop of plain calls, gets the faulted pages
// back instead. At most kMaxKept buffers and kMaxKeptBytes are kept, the most
// recently freed first; a buffer is taken back only by a request of exactly
// its size (sizes are multiples of two huge pages' alignment).
#pragma once

#include <cstddef>

namespace bcast::large_buffers {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
inline constexpr std::size_t kMaxKept = 8;
inline constexpr std::size_t kMaxKeptBytes = std::size_t{1} << 30;

// A buffer of `bytes` (a multiple of kHugePageBytes), huge-page aligned and
// offered to transparent huge pages: a kept one of that size, else a new one;
// null when memory is short. Its contents are whatever they were.
std::byte* take(std::size_t bytes);
// A buffer from take(), kept for the next take() of its size while there is
// room, else freed.
void give_back(std::byte* buffer);
// Frees every kept buffer (for tests, and a caller short of memory).
void release_kept();
// How many are kept, and their bytes.
std::size_t kept();
std::size_t kept_bytes();

}  // namespace bcast::large_buffers
