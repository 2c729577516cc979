// Fuzz target: the .npy reader. Any bytes either load as an array whose data
// fits in the input, or fail with Error(io); nothing else (no crash, no other
// exception, no allocation beyond what the bytes can back).
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "bcast/bcast.h"
#include "npy_reader.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const bcast::Tensor t = bcast::detail::read_npy(in, size, "fuzz.npy");
    if (t.nbytes() > size) {
      std::fprintf(stderr, "loaded %zu bytes of data from a %zu-byte file\n", t.nbytes(), size);
      std::abort();
    }
  } catch (const bcast::Error& e) {
    if (e.kind() != bcast::ErrorKind::io) {
      std::fprintf(stderr, "error of kind %s, expected io: %s\n", bcast::error_kind_name(e.kind()).data(), e.what());
      std::abort();
    }
  }
  return 0;
}
