// Each choice is made in one place (docs: issue 38, "each choice once"), checked on
// the sources of the library and its shells (include/, tools/, python/src/, web/):
//   - the SIMD kernel is read only by detail/simd.hpp, whose with_kernel /
//     with_active_kernel every dispatch goes through: no active_kernel() call
//     anywhere else;
//   - code branches on a hash_algorithm only with a `switch` naming every
//     value (so -Wswitch names the switch a new algorithm forgot), never by
//     comparing it with one value (`alg == hash_algorithm::xxh64 ? ... : ...`
//     reads every other algorithm as the second);
//   - hash names are parsed only by hash.hpp (parse_hash_algorithm,
//     hash_algorithm_named): no comparison with "xxh64" / "xxh3_64" elsewhere.
// Comments are left out of the check; code that needs an exception says so
// in this file, not in the sources.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace {

namespace fs = std::filesystem;

struct source_line {
  std::string file;  ///< relative to the source root
  std::size_t number;
  std::string code;  ///< the line without its // comment
};

bool is_cpp_source(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".hpp" || ext == ".cpp" || ext == ".h" || ext == ".cuh" || ext == ".cu";
}

/// Every line of code under the library's and the shells' folders, with
/// `//` comments and `/* */` blocks removed.
std::vector<source_line> code_lines() {
  const fs::path root = bloomkit::test::paths::source_dir;
  std::vector<source_line> out;
  for (const char* folder : {"include", "tools", "python/src", "web"}) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file() || !is_cpp_source(entry.path())) continue;
      if (entry.path().string().find("node_modules") != std::string::npos) continue;
      std::ifstream in(entry.path());
      std::string line;
      std::size_t number = 0;
      bool in_block = false;
      while (std::getline(in, line)) {
        ++number;
        std::string code;
        for (std::size_t i = 0; i < line.size(); ++i) {
          if (in_block) {
            if (line.compare(i, 2, "*/") == 0) {
              in_block = false;
              ++i;
            }
          } else if (line.compare(i, 2, "/*") == 0) {
            in_block = true;
            ++i;
          } else if (line.compare(i, 2, "//") == 0) {
            break;
          } else {
            code += line[i];
          }
        }
        out.push_back({fs::relative(entry.path(), root).generic_string(), number, code});
      }
    }
  }
  return out;
}

const std::vector<source_line>& lines() {
  static const std::vector<source_line> all = code_lines();
  return all;
}

/// "file:line: code" for every line matching `pattern`, except in `allowed`.
std::string offenders(const std::regex& pattern, const std::vector<std::string>& allowed = {}) {
  std::string out;
  for (const auto& l : lines()) {
    bool skip = false;
    for (const auto& a : allowed) skip = skip || l.file == a;
    if (!skip && std::regex_search(l.code, pattern)) {
      out += l.file + ":" + std::to_string(l.number) + ": " + l.code + "\n";
    }
  }
  return out;
}

TEST(LayoutChoices, TheSourcesAreThere) {
  // A check over no files passes vacuously: make sure it reads the tree.
  std::size_t simd_lines = 0;
  for (const auto& l : lines()) simd_lines += l.file == "include/bloomkit/detail/simd.hpp" ? 1 : 0;
  EXPECT_GT(simd_lines, 50U);
  EXPECT_GT(lines().size(), 20000U);
}

TEST(LayoutChoices, OnlyTheDispatchHeaderReadsTheActiveKernel) {
  EXPECT_EQ(offenders(std::regex(R"(\bactive_kernel\s*\(\s*\))"), {"include/bloomkit/detail/simd.hpp"}), "")
      << "dispatch with bloomkit::with_active_kernel (detail/simd.hpp) instead";
}

TEST(LayoutChoices, HashAlgorithmsAreChosenBySwitchNotByComparison) {
  // alg == hash_algorithm::x, hash_algorithm::x != alg, and the same spelled
  // with bloomkit:: in front.
  EXPECT_EQ(offenders(std::regex(R"((==|!=)\s*(bloomkit::)?hash_algorithm::\w+|hash_algorithm::\w+\s*(==|!=))")), "")
      << "switch over every hash_algorithm instead (see hash.hpp, hash_batch.hpp)";
}

TEST(LayoutChoices, HashNamesAreParsedByTheLibraryOnly) {
  EXPECT_EQ(offenders(std::regex(R"((==|!=)\s*"xxh|"xxh\w*"\s*(==|!=))"), {"include/bloomkit/hash.hpp"}), "")
      << "use bloomkit::parse_hash_algorithm or hash_algorithm_named (hash.hpp)";
}

}  // namespace
