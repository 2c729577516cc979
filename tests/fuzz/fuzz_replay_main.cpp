// A main() for fuzz targets built without libFuzzer: runs the target once on
// every file named on the command line (folders are walked), so each seed
// corpus and every saved crash is a regression test in the normal build. A
// target returns -1 (libFuzzer's "reject this input") for an input it did not
// check; such a file in a corpus counts as run but tests nothing, so the
// replay names it and fails.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.emplace_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  std::size_t rejected = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (LLVMFuzzerTestOneInput(bytes.data(), bytes.size()) == -1) {
      std::fprintf(stderr, "%s: the target did not run this input (it returned -1)\n", path.c_str());
      ++rejected;
    }
  }
  std::printf("%zu inputs ran without a finding, %zu did not run\n", files.size() - rejected, rejected);
  // An empty corpus, or a seed that does not run, means less was tested than claimed.
  return files.empty() || rejected > 0 ? 1 : 0;
}
