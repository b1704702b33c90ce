// split_block_bloom against real Parquet files written by DuckDB and by
// parquet-mr / parquet-rs (../shared/fixtures/parquet): every filter rebuilt
// from its column chunk's distinct values is byte-identical to the file's,
// and every sampled value answers exactly as the file's own bitset does.
//
// Footers are not parsed here (that is parquet.hpp's job): each filter is read
// at the offset and header length recorded in the fixture's JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/split_block_bloom.hpp"
#include "test_support.hpp"

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

fs::path fixtures() { return bloomkit::test::shared_dir() / "fixtures" / "parquet"; }


json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  return json::parse(in);
}

std::vector<std::byte> from_hex(const std::string& hex) {
  std::vector<std::byte> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::byte>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::uint64_t hex_hash(const std::string& hex) {
  const auto bytes = from_hex(hex);
  return bloomkit::hash_bytes(std::span<const std::byte>(bytes), bloomkit::parquet_hash_spec);
}

class DuckDbFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(DuckDbFixture, RebuildsEveryFilterByteForByteAndAnswersAsTheFile) {
  const std::string name = GetParam();
  if (!fs::exists(fixtures() / (name + ".parquet"))) {
    GTEST_FAIL() << "fixture missing: " << (fixtures() / (name + ".parquet")) << " (set BLOOMKIT_SHARED)";
  }
  const auto file = bloomkit::test::read_file_bytes(fixtures() / (name + ".parquet"));
  const json meta = read_json(fixtures() / (name + ".json"));
  const json values = read_json(fixtures() / "values" / (name + ".all.json"));
  const double fpp = meta["bloom_filter_false_positive_ratio"].get<double>();
  int filters = 0, samples = 0;
  for (const auto& group : meta["row_groups"]) {
    const int row_group = group["row_group"].get<int>();
    for (const auto& chunk : group["columns"]) {
      if (chunk["bloom_filter_offset"].is_null()) continue;
      const std::string column = chunk["column"].get<std::string>();
      const auto offset = chunk["bloom_filter_offset"].get<std::uint64_t>();
      const auto header_length = chunk["header"]["header_length"].get<std::uint64_t>();
      const auto num_bytes = chunk["header"]["numBytes"].get<std::uint64_t>();
      ASSERT_LE(offset + header_length + num_bytes, file.size());
      const std::span<const std::byte> bitset(file.data() + offset + header_length, num_bytes);
      SCOPED_TRACE(name + " row group " + std::to_string(row_group) + " column " + column);

      // Rebuild from every distinct value, sized as DuckDB sizes it.
      const auto& distinct = values["row_groups"][row_group]["columns"][column];
      const auto ndv = chunk["ndv_in_row_group"].get<std::uint64_t>();
      ASSERT_EQ(distinct.size(), ndv);
      auto rebuilt = bloomkit::parquet_sized_split_block(ndv, fpp, bloomkit::sizing::parquet_writer::duckdb);
      ASSERT_EQ(rebuilt.size_in_bytes(), num_bytes) << "DuckDB's sizing rule";
      for (const auto& v : distinct) rebuilt.insert_hash(hex_hash(v["hex"].get<std::string>()));
      const auto bytes = bloomkit::to_parquet_bitset(rebuilt.view());
      ASSERT_TRUE(std::equal(bytes.begin(), bytes.end(), bitset.begin(), bitset.end())) << "bitset differs";

      // The file's own bitset answers every sample as recorded.
      const auto from_file = bloomkit::from_parquet_bitset(bitset, ndv, fpp);
      for (const char* list : {"present", "absent"}) {
        for (const auto& sample : chunk[list]) {
          const std::string hex = sample["hex"].get<std::string>();
          const std::uint64_t h = hex_hash(hex);
          ASSERT_EQ(h, std::stoull(sample["xxh64"].get<std::string>(), nullptr, 16)) << hex;
          ASSERT_EQ(from_file.may_contain_hash(h), sample["sbbf_contains"].get<bool>()) << list << " " << hex;
          ASSERT_EQ(rebuilt.may_contain_hash(h), sample["sbbf_contains"].get<bool>()) << list << " " << hex;
          ++samples;
        }
      }
      ++filters;
    }
  }
  EXPECT_GT(filters, 0);
  EXPECT_GT(samples, 0);
  RecordProperty("filters", filters);
}

INSTANTIATE_TEST_SUITE_P(Parquet, DuckDbFixture,
                         ::testing::Values("pub_tiny", "pub_numeric", "pub_strings", "pub_big_ndv", "pub_fpp20"));

TEST(SplitBlockBloom, ParquetTestingFilesAnswerAsRecorded) {
  for (const char* name : {"data_index_bloom_encoding_stats", "data_index_bloom_encoding_with_length"}) {
    SCOPED_TRACE(name);
    const auto file = bloomkit::test::read_file_bytes(fixtures() / "parquet-testing" / (std::string(name) + ".parquet"));
    const json meta = read_json(fixtures() / "parquet-testing" / (std::string(name) + ".json"));
    for (const auto& group : meta["row_groups"]) {
      for (const auto& chunk : group["columns"]) {
        const auto offset = chunk["bloom_filter_offset"].get<std::uint64_t>();
        const auto header_length = chunk["header"]["header_length"].get<std::uint64_t>();
        const auto num_bytes = chunk["header"]["numBytes"].get<std::uint64_t>();
        ASSERT_LE(offset + header_length + num_bytes, file.size());
        const auto filter = bloomkit::from_parquet_bitset(
            std::span<const std::byte>(file.data() + offset + header_length, num_bytes), 14, 0.01);
        // Rebuilding from all values: parquet-mr sized this filter itself,
        // so only the answers are compared (its size rule is not DuckDB's).
        auto rebuilt = bloomkit::from_parquet_bitset(std::vector<std::byte>(num_bytes), 14, 0.01);
        for (const auto& v : chunk["all_values"]) rebuilt.insert(v.get<std::string>());
        EXPECT_EQ(bloomkit::to_parquet_bitset(rebuilt.view()),
                  std::vector<std::byte>(file.begin() + static_cast<long>(offset + header_length),
                                         file.begin() + static_cast<long>(offset + header_length + num_bytes)));
        for (const char* list : {"present", "absent"}) {
          if (!chunk.contains(list)) continue;
          for (const auto& sample : chunk[list]) {
            ASSERT_EQ(filter.may_contain_hash(hex_hash(sample["hex"].get<std::string>())),
                      sample["sbbf_contains"].get<bool>());
          }
        }
      }
    }
  }
}

TEST(SplitBlockBloom, LegacyXxhashBinHoldsItsFourWords) {
  // bloom_filter.xxhash.bin: a bare BloomFilterHeader (16 bytes for 1024) and
  // a 1,024-byte bitset holding "hello", "parquet", "bloom", "filter".
  const auto file = bloomkit::test::read_file_bytes(fixtures() / "parquet-testing" / "bloom_filter.xxhash.bin");
  ASSERT_EQ(file.size(), 16u + 1024u);
  const auto filter = bloomkit::from_parquet_bitset(std::span<const std::byte>(file.data() + 16, 1024), 4, 0.01);
  for (const char* word : {"hello", "parquet", "bloom", "filter"}) EXPECT_TRUE(filter.may_contain(word)) << word;
  EXPECT_LT(filter.fill_ratio(), 0.01);
}

TEST(SplitBlockBloom, SizedWithTheTrueSplitBlockFormula) {
  bloomkit::split_block_bloom filter(1'000'000, 0.01);
  EXPECT_NEAR(filter.bit_count() / 1e6, 10.53, 0.02);  // not the spec's 9.7
  EXPECT_LE(filter.design_fpr(), 0.01);
  EXPECT_EQ(filter.hash(), bloomkit::parquet_hash_spec);
  EXPECT_EQ(filter.num_hashes(), 8u);
}

TEST(SplitBlockBloom, BitsetRoundTripAndBadSizes) {
  bloomkit::split_block_bloom filter(1000, 0.01);
  for (int i = 0; i < 1000; ++i) filter.insert(i);
  const auto bytes = bloomkit::to_parquet_bitset(filter.view());
  ASSERT_EQ(bytes.size(), filter.size_in_bytes());
  const auto back = bloomkit::from_parquet_bitset(bytes, 1000, 0.01);
  EXPECT_EQ(bloomkit::to_parquet_bitset(back.view()), bytes);
  EXPECT_THROW((void)bloomkit::from_parquet_bitset(std::vector<std::byte>(33), 10, 0.01), bloomkit::error);
  EXPECT_THROW((void)bloomkit::from_parquet_bitset(std::vector<std::byte>(), 10, 0.01), bloomkit::error);
}

TEST(SplitBlockBloom, GoldenBitsOfOneKey) {
  // Pins the layout: XXH64("hello") and the eight salts decide these bits.
  bloomkit::split_block_bloom filter(bloomkit::block_filter_params{1, 8, 1, 0.5, bloomkit::parquet_hash_spec});
  filter.insert("hello");
  const std::uint64_t h = bloomkit::hash_key("hello", bloomkit::parquet_hash_spec);
  const auto x = static_cast<std::uint32_t>(h);
  const auto& block = filter.blocks()[0];
  for (int w = 0; w < 8; ++w) {
    EXPECT_EQ(block.words[w], 1u << ((x * bloomkit::detail::parquet_salts[w]) >> 27)) << w;
  }
}

}  // namespace
