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
#include <functional>
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
  // Typed filters (format version 5, key_type at offset 15; docs/KEYS.md),
  // filled through a conversion so the golden bytes pin it too: int32 keys
  // widened into int64, strings as bytes, floats widened into float64.
  {
    split_block_bloom f(block_filter_params{3, 8, 20, 0.05, parquet_hash_spec});
    f.adopt_key_type(key_type::int64);
    for (std::int32_t i = 0; i < 15; ++i) f.insert(i);
    files["split_block_bloom_int64.bkf"] = save_to_bytes(f);
  }
  {
    blocked_bloom f(block_filter_params{2, 6, 20, 0.05, hash_spec{}});
    f.adopt_key_type(key_type::bytes);
    for (int i = 0; i < 15; ++i) f.insert(std::to_string(i));
    files["blocked_bloom_bytes.bkf"] = save_to_bytes(f);
  }
  {
    standard_bloom f(standard_bloom_params{200, 3, 20, 0.05, hash_spec{hash_algorithm::xxh3_64, 7}});
    f.adopt_key_type(key_type::float64);
    for (int i = 0; i < 15; ++i) f.insert(static_cast<float>(i) + 0.5F);
    files["standard_bloom_float64.bkf"] = save_to_bytes(f);
  }
  {
    binary_fuse_options options;
    options.hash.keys = key_type::int32;
    std::vector<std::uint16_t> keys;
    for (std::uint16_t i = 0; i < 15; ++i) keys.push_back(i);
    files["binary_fuse_int32.bkf"] = save_to_bytes(binary_fuse(binary_fuse8::from_keys(std::span<const std::uint16_t>(keys), options)));
  }
  bytes_t truncated = files["standard_bloom.bkf"];
  truncated.resize(100);
  files["truncated_header.bkf"] = truncated;
  bytes_t flipped = files["blocked_bloom.bkf"];
  flipped[150] ^= std::byte{0x10};
  files["flipped_payload_bit.bkf"] = flipped;
  bytes_t bad_type = files["split_block_bloom_int64.bkf"];
  bad_type[15] = std::byte{9};  // no such key type; resealed by the fuzz replay, so the field check is reached
  files["unknown_key_type.bkf"] = bad_type;
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
    {"split_block_bloom_int64.bkf", 0xe5ad19f0a116f1cbULL},
    {"blocked_bloom_bytes.bkf", 0x7ea510d33f4c7a75ULL},
    {"standard_bloom_float64.bkf", 0xcf7014e96aa57f20ULL},
    {"binary_fuse_int32.bkf", 0xf41d7a54c3771790ULL},
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
  // The files of versions 1-4 are untyped: keys hash as given, as before.
  EXPECT_EQ(inspect(corpus_dir() / "split_block_bloom.bkf").key_type, key_type::unspecified);
  EXPECT_EQ(split.hash().keys, key_type::unspecified);
  try {
    (void)load(corpus_dir() / "flipped_payload_bit.bkf");
    ADD_FAILURE() << "a file with a flipped payload bit was accepted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), errc::checksum);
  }
}

TEST(FileFormatCorpus, TypedGoldenFilesConvertEveryKeyOfTheirTypeAndRefuseOthers) {
  const file_info info = inspect(corpus_dir() / "split_block_bloom_int64.bkf");
  EXPECT_EQ(info.version, 5U);
  EXPECT_EQ(info.key_type, key_type::int64);
  EXPECT_EQ(info.hash.keys, key_type::int64);
  const auto ints = load_as<split_block_bloom>(corpus_dir() / "split_block_bloom_int64.bkf", parquet_hash_spec);
  const auto text = load_as<blocked_bloom>(corpus_dir() / "blocked_bloom_bytes.bkf", hash_spec{});
  const auto reals = load_as<standard_bloom>(corpus_dir() / "standard_bloom_float64.bkf",
                                             hash_spec{hash_algorithm::xxh3_64, 7});
  const auto fuse = load_as<binary_fuse>(corpus_dir() / "binary_fuse_int32.bkf", hash_spec{});
  EXPECT_EQ(fuse.hash().keys, key_type::int32);
  for (int i = 0; i < 15; ++i) {
    EXPECT_TRUE(ints.may_contain(static_cast<std::uint8_t>(i)));
    EXPECT_TRUE(ints.may_contain(static_cast<std::int64_t>(i)));
    EXPECT_TRUE(ints.may_contain(static_cast<double>(i)));
    EXPECT_TRUE(text.may_contain(std::to_string(i)));
    EXPECT_TRUE(reals.may_contain(static_cast<double>(i) + 0.5));
    EXPECT_TRUE(fuse.may_contain(static_cast<std::int64_t>(i)));
    EXPECT_TRUE(fuse.may_contain(static_cast<std::uint32_t>(i)));
  }
  // An explicit expectation of another key type is a mismatch; an unspecified one accepts the file.
  EXPECT_THROW((void)load_as<split_block_bloom>(corpus_dir() / "split_block_bloom_int64.bkf",
                                                hash_spec{hash_algorithm::xxh64, 0, key_type::bytes}),
               bloomkit::error);
  for (const auto& refused : {std::function<void()>([&] { (void)ints.may_contain(std::string("1")); }),
                              std::function<void()>([&] { (void)text.may_contain(std::int64_t{1}); }),
                              std::function<void()>([&] { (void)reals.may_contain(std::string_view("1")); }),
                              std::function<void()>([&] { (void)fuse.may_contain(std::int64_t{1} << 40); })}) {
    try {
      refused();
      ADD_FAILURE() << "a key of another type was accepted";
    } catch (const bloomkit::error& e) {
      EXPECT_EQ(e.code(), errc::mismatch);
    }
  }
}

}  // namespace
