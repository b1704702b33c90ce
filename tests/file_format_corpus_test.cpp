// tests/file_format_corpus_test.cpp - the fuzz seed corpus of the file
// format, used twice: its valid files are golden files (the bytes of known
// filters, so the on-disk layout cannot change by accident), and every file
// in it is replayed through the fuzz target's checks as an ordinary test.
//
// To regenerate the corpus after an intended format change (which needs a
// new format version, docs/FORMAT.md):
//   BLOOMKIT_UPDATE_GOLDEN=1 build/<dir>/file_format_corpus_test
// then update the pinned checksums below and commit fuzz/corpus/file_format.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "../fuzz/file_format_fuzz.cpp"
#include "bloomkit/file_format.hpp"
#include "test_support.hpp"

namespace {

using namespace bloomkit;
namespace fs = std::filesystem;
using bytes_t = std::vector<std::byte>;

using bloomkit::test::read_file_bytes;

fs::path corpus_dir() { return fs::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "file_format"; }


template <class F>
F filled(F f) {
  for (std::uint64_t i = 0; i < 15; ++i) f.insert(i);
  return f;
}

/// The corpus as this build writes it: one valid file per kind and
/// a few damaged ones as starting points for the fuzzer.
std::map<std::string, bytes_t> expected_corpus() {
  std::map<std::string, bytes_t> files;
  files["standard_bloom.bkf"] = save_to_bytes(
      filled(standard_bloom(standard_bloom_params{200, 3, 20, 0.05, hash_spec{hash_algorithm::xxh3_64, 7}})));
  files["blocked_bloom.bkf"] = save_to_bytes(filled(blocked_bloom(block_filter_params{2, 6, 20, 0.05, hash_spec{}})));
  files["split_block_bloom.bkf"] =
      save_to_bytes(filled(split_block_bloom(block_filter_params{3, 8, 20, 0.05, parquet_hash_spec})));
  std::vector<std::uint64_t> hashes;
  for (std::uint64_t i = 0; i < 15; ++i) hashes.push_back(hash_key(i, hash_spec{}));
  files["binary_fuse.bkf"] = save_to_bytes(binary_fuse(hashes, 8));
  files["ribbon.bkf"] = save_to_bytes(ribbon(hashes));
  {
    // The bumped layout (format version 4): enough keys for a bumping layer
    // and its bucket codes, so the fuzzer starts from every field.
    std::vector<std::uint64_t> many;
    for (std::uint64_t i = 0; i < 1500; ++i) many.push_back(hash_key(i, hash_spec{}));
    ribbon_options options;
    options.result_bits = 4;
    options.layout = ribbon_layout::bumped;
    files["ribbon_bumped.bkf"] = save_to_bytes(ribbon(many, options));
  }
  bytes_t truncated = files["standard_bloom.bkf"];
  truncated.resize(100);
  files["truncated_header.bkf"] = truncated;
  bytes_t flipped = files["blocked_bloom.bkf"];
  flipped[150] ^= std::byte{0x10};
  files["flipped_payload_bit.bkf"] = flipped;
  return files;
}

// XXH3-64 of each golden file: a second pin, so regenerating the corpus
// cannot silently change the format either.
const std::map<std::string, std::uint64_t> pinned = {
    {"standard_bloom.bkf", 0x0ba237bf1f468338ULL},
    {"blocked_bloom.bkf", 0x7b585e67b2cca81fULL},
    {"split_block_bloom.bkf", 0x77988fdeeb17cdf8ULL},
    {"binary_fuse.bkf", 0xe71e46565f04f60bULL},
    {"ribbon.bkf", 0xa11aede9a63c29b1ULL},
    {"ribbon_bumped.bkf", 0xb06a985f652f9844ULL},
};

TEST(FileFormatCorpus, GoldenFilesMatchWhatThisBuildWrites) {
  const auto files = expected_corpus();
  if (const char* update = std::getenv("BLOOMKIT_UPDATE_GOLDEN"); update != nullptr && *update != '\0') {
    fs::create_directories(corpus_dir());
    for (const auto& [name, bytes] : files) {
      std::ofstream out(corpus_dir() / name, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      std::printf("wrote %s: %zu bytes, xxh3 0x%016llxULL\n", name.c_str(), bytes.size(),
                  static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
    }
  }
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    const fs::path path = corpus_dir() / name;
    ASSERT_TRUE(fs::exists(path)) << "missing golden file; see the top of this test for how to regenerate";
    EXPECT_TRUE(read_file_bytes(path) == bytes) << "the bytes this build writes differ from the committed golden file";
    if (const auto pin = pinned.find(name); pin != pinned.end()) {
      EXPECT_EQ(XXH3_64bits(bytes.data(), bytes.size()), pin->second);
      EXPECT_NO_THROW((void)load(bytes));
    }
  }
}

TEST(FileFormatCorpus, ReplayEveryCorpusFileAndItsTruncations) {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(corpus_dir())) {
    if (!entry.is_regular_file()) continue;
    SCOPED_TRACE(entry.path().filename().string());
    const bytes_t bytes = read_file_bytes(entry.path());
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    for (std::size_t len = 0; len <= bytes.size(); ++len) bloomkit_fuzz::check_input(data, len);
    ++files;
  }
  EXPECT_GE(files, 7U);
}

TEST(FileFormatCorpus, GoldenFilesLoadWithTheirKnownContents) {
  const auto standard = load_as<standard_bloom>(corpus_dir() / "standard_bloom.bkf", hash_spec{hash_algorithm::xxh3_64, 7});
  const auto blocked = load_as<blocked_bloom>(corpus_dir() / "blocked_bloom.bkf", hash_spec{});
  const auto split = load_as<split_block_bloom>(corpus_dir() / "split_block_bloom.bkf", parquet_hash_spec);
  for (std::uint64_t i = 0; i < 15; ++i) {
    EXPECT_TRUE(standard.may_contain(i));
    EXPECT_TRUE(blocked.may_contain(i));
    EXPECT_TRUE(split.may_contain(i));
  }
  const auto fuse = load_as<binary_fuse>(corpus_dir() / "binary_fuse.bkf", hash_spec{});
  const auto band = load_as<ribbon>(corpus_dir() / "ribbon.bkf", hash_spec{});
  const auto bumped = load_as<ribbon>(corpus_dir() / "ribbon_bumped.bkf", hash_spec{});
  EXPECT_EQ(bumped.layout(), ribbon_layout::bumped);
  EXPECT_EQ(bumped.params().layers, 2U);
  for (std::uint64_t i = 0; i < 15; ++i) {
    EXPECT_TRUE(fuse.may_contain(i));
    EXPECT_TRUE(band.may_contain(i));
  }
  for (std::uint64_t i = 0; i < 1500; ++i) EXPECT_TRUE(bumped.may_contain(i));
  EXPECT_EQ(standard.inserted(), 15U);
  EXPECT_EQ(split.num_blocks(), 3U);
  try {
    (void)load(corpus_dir() / "flipped_payload_bit.bkf");
    ADD_FAILURE() << "a file with a flipped payload bit was accepted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::checksum);
  }
}

}  // namespace
