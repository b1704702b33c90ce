// tests/fuzz_replay_main.cpp - replays fuzz inputs through a libFuzzer
// target as an ordinary ctest case (no libFuzzer needed), in the release and
// the ASan+UBSan suites: CMakeLists.txt links every fuzz/*_fuzz.cpp with this
// main as <name>_replay and runs it over fuzz/corpus/<name> (seeds plus the
// minimised corpus of past campaigns) and fuzz/regressions/<name> (every
// input a campaign found). An input that crashes, trips a sanitizer or
// breaks the target's own invariant (it aborts) fails the test.
//
//   <name>_replay DIR_OR_FILE...   prints how many inputs ran; exit 1 if none
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {
std::size_t replay_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz_replay: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy of exactly the input's size, so ASan sees a read past its end.
  std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
  (void)LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  std::size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(arg)) {
        if (entry.is_regular_file() && entry.path().filename() != ".gitkeep") ran += replay_file(entry.path());
      }
    } else if (std::filesystem::is_regular_file(arg)) {
      ran += replay_file(arg);
    } else if (std::string(argv[i]).find("regressions") == std::string::npos) {
      std::fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
      return 1;
    }
  }
  std::printf("fuzz_replay: %zu inputs replayed, none failed\n", ran);
  return ran > 0 ? 0 : 1;
}
