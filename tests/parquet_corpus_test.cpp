// tests/parquet_corpus_test.cpp - the Parquet fuzz target's seed corpus
// (fuzz/corpus/parquet) and the shared Parquet fixtures, replayed through the
// fuzz target's checks as an ordinary test, so every seed stays crash-free in
// the release and sanitizer builds too.
//
// The bloomkit-written seeds are generated here; to rewrite them after an
// intended change: BLOOMKIT_UPDATE_CORPUS=1 build/<dir>/parquet_corpus_test
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "../fuzz/parquet_fuzz.cpp"
#include "bloomkit/parquet.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using bytes_t = std::vector<std::byte>;

using bloomkit::test::read_file_bytes;

fs::path corpus_dir() { return fs::path(bloomkit::test::paths::source_dir) / "fuzz" / "corpus" / "parquet"; }


bytes_t text(std::string_view s) {
  bytes_t out;
  for (char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

bytes_t written(const std::string& type, const std::vector<std::string>& values, std::uint64_t rows_per_group) {
  const auto spec = pq::column_for_type(type, "v");
  std::vector<bytes_t> encoded;
  for (const auto& v : values) encoded.push_back(pq::encode_value(spec.descriptor(), v));
  pq::write_options o;
  o.row_group_rows = rows_per_group;
  return pq::write_file(spec, encoded, o);
}

std::map<std::string, bytes_t> generated_seeds() {
  std::map<std::string, bytes_t> seeds;
  seeds["int64_two_groups.parquet"] = written("int64", {"1", "2", "3", "-4", "5"}, 3);
  seeds["string.parquet"] = written("string", {"", "a", "h\xc3\xa9"}, 8);
  seeds["uuid.parquet"] = written("uuid", {"123e4567-e89b-12d3-a456-426614174000"}, 8);
  seeds["decimal.parquet"] = written("decimal(20,2)", {"-1.25", "99"}, 8);
  seeds["header_32.bin"] = pq::encode_bloom_filter_header(32);
  seeds["header_32768.bin"] = pq::encode_bloom_filter_header(32768);
  // numBytes = zigzag varint of 2^32: the "4 GiB" header
  seeds["header_4gib.bin"] = {std::byte{0x15}, std::byte{0x80}, std::byte{0x80}, std::byte{0x80}, std::byte{0x80},
                              std::byte{0x20}, std::byte{0x2c}, std::byte{0x1c}, std::byte{0x00}, std::byte{0x00},
                              std::byte{0x00}};
  seeds["value_date.txt"] = text("2024-02-29");
  seeds["value_timestamp.txt"] = text("2024-01-01T12:34:56.123456+05:30");
  seeds["value_decimal.txt"] = text("-12345.678");
  seeds["value_uuid.txt"] = text("123e4567-e89b-12d3-a456-426614174000");
  seeds["value_float.txt"] = text("-1.5e-3");
  return seeds;
}

TEST(ParquetCorpus, GeneratedSeedsAreCurrent) {
  const auto seeds = generated_seeds();
  if (const char* update = std::getenv("BLOOMKIT_UPDATE_CORPUS"); update != nullptr && *update == '1') {
    fs::create_directories(corpus_dir());
    for (const auto& [name, bytes] : seeds) {
      std::ofstream out(corpus_dir() / name, std::ios::binary);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
  }
  for (const auto& [name, bytes] : seeds) {
    ASSERT_TRUE(fs::exists(corpus_dir() / name)) << name << " missing; run with BLOOMKIT_UPDATE_CORPUS=1";
    EXPECT_EQ(read_file_bytes(corpus_dir() / name), bytes) << name << " differs from what this build writes";
  }
}

TEST(ParquetCorpus, EverySeedAndFixturePassesTheFuzzChecks) {
  std::size_t replayed = 0;
  for (const auto& dir : {corpus_dir(), bloomkit::test::shared_dir() / "fixtures" / "parquet",
                          bloomkit::test::shared_dir() / "fixtures" / "parquet" / "parquet-testing"}) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() == ".json" || entry.path().extension() == ".md") continue;
      const auto bytes = read_file_bytes(entry.path());
      SCOPED_TRACE(entry.path().string());
      EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
      ++replayed;
    }
  }
  EXPECT_GE(replayed, 13U);
}

}  // namespace
