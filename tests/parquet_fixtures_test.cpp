// tests/parquet_fixtures_test.cpp - bloomkit against Parquet files written by
// other programs (../shared/fixtures/parquet/, described in its README.md).
//
// For every row group and column of every fixture: the footer walk finds the
// writer's bloom_filter_offset / length, the header decodes to the recorded
// numBytes, every sample value (present and absent) converts from its text
// to the recorded bytes and hash, and the filter answers exactly
// `sbbf_contains` (the file's own bitset: the truth; DuckDB's probe is wrong
// for some types). Every filter rebuilt from values/X.all.json with DuckDB's
// sizing is byte-identical to the file's bitset.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "bloomkit/parquet.hpp"
#include "test_support.hpp"

namespace pq = bloomkit::parquet;
using nlohmann::json;

namespace {

std::filesystem::path fixtures() { return bloomkit::test::shared_dir() / "fixtures" / "parquet"; }

json load_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  return json::parse(in);
}


std::string to_hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (auto b : bytes) {
    const auto v = std::to_integer<unsigned>(b);
    out += digits[v >> 4];
    out += digits[v & 15];
  }
  return out;
}

std::string text_of(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string hex64(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

struct fixture_case {
  std::string json_name;
  std::string parquet_name;
};

const std::vector<fixture_case>& cases() {
  static const std::vector<fixture_case> all = {
      {"pub_big_ndv.json", "pub_big_ndv.parquet"},
      {"pub_fpp20.json", "pub_fpp20.parquet"},
      {"pub_numeric.json", "pub_numeric.parquet"},
      {"pub_strings.json", "pub_strings.parquet"},
      {"pub_tiny.json", "pub_tiny.parquet"},
      {"parquet-testing/data_index_bloom_encoding_stats.json", "parquet-testing/data_index_bloom_encoding_stats.parquet"},
      {"parquet-testing/data_index_bloom_encoding_with_length.json",
       "parquet-testing/data_index_bloom_encoding_with_length.parquet"},
  };
  return all;
}

class ParquetFixture : public ::testing::TestWithParam<fixture_case> {};

TEST_P(ParquetFixture, EverySampleAnswersAsTheFilesOwnBitset) {
  const auto& param = GetParam();
  const json doc = load_json(fixtures() / param.json_name);
  pq::reader file(fixtures() / param.parquet_name);
  const auto& md = file.metadata();
  ASSERT_EQ(md.row_groups.size(), doc["row_groups"].size());
  std::size_t checked = 0;
  for (const auto& rg : doc["row_groups"]) {
    const auto g = rg["row_group"].get<std::size_t>();
    for (const auto& col : rg["columns"]) {
      const std::string name = col["column"].get<std::string>();
      SCOPED_TRACE(param.parquet_name + " row group " + std::to_string(g) + " column " + name);
      const std::size_t c = file.column_index(name);
      const pq::column_descriptor& desc = md.columns[c];
      EXPECT_EQ(pq::to_string(desc.type), col["physical_type"].get<std::string>());
      auto filter = file.bloom_filter(g, c);
      ASSERT_TRUE(filter.has_value());
      EXPECT_EQ(filter->offset, col["bloom_filter_offset"].get<std::uint64_t>());
      if (col["bloom_filter_length"].is_null()) {
        EXPECT_FALSE(filter->declared_length.has_value());
      } else {
        EXPECT_EQ(filter->declared_length.value(), col["bloom_filter_length"].get<std::int32_t>());
      }
      EXPECT_EQ(filter->header.num_bytes, col["header"]["numBytes"].get<std::int32_t>());
      EXPECT_EQ(filter->header.header_length, col["header"]["header_length"].get<std::size_t>());
      EXPECT_EQ(to_hex(pq::encode_bloom_filter_header(static_cast<std::uint64_t>(filter->header.num_bytes))),
                col["header_hex"].get<std::string>());
      // BLOB columns list their values as hex in `v`; everything else as text.
      const bool blob = desc.type == pq::physical_type::byte_array && desc.logical.id == pq::logical_type::kind::none;
      for (const char* kind : {"present", "absent"}) {
        for (const auto& sample : col[kind]) {
          const std::string v = text_of(sample["v"]);
          const std::string hex = sample["hex"].get<std::string>();
          const auto raw = pq::encode_hex(desc, hex);
          const auto from_text = blob ? pq::encode_hex(desc, v) : pq::encode_value(desc, v);
          EXPECT_EQ(to_hex(from_text), hex) << "value '" << v << "'";
          EXPECT_EQ(hex64(pq::hash_value(raw)), sample["xxh64"].get<std::string>()) << v;
          EXPECT_EQ(filter->filter.may_contain(raw), sample["sbbf_contains"].get<bool>()) << kind << " '" << v << "'";
          if (std::string(kind) == "present") {
            EXPECT_TRUE(filter->filter.may_contain(raw)) << "a present value must never be excluded: " << v;
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 0U);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ParquetFixture, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           std::string n = std::filesystem::path(info.param.parquet_name).stem().string();
                           for (auto& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

TEST(ParquetFixtures, FiltersRebuiltFromAllValuesEqualTheFilesBytes) {
  std::size_t rebuilt = 0;
  for (const char* stem : {"pub_big_ndv", "pub_fpp20", "pub_numeric", "pub_strings", "pub_tiny"}) {
    const json meta = load_json(fixtures() / (std::string(stem) + ".json"));
    const json all = load_json(fixtures() / "values" / (std::string(stem) + ".all.json"));
    const double fpp = meta["bloom_filter_false_positive_ratio"].get<double>();
    pq::reader file(fixtures() / (std::string(stem) + ".parquet"));
    const auto bytes = bloomkit::test::read_file_bytes(fixtures() / (std::string(stem) + ".parquet"));
    for (const auto& rg : all["row_groups"]) {
      const auto g = rg["row_group"].get<std::size_t>();
      for (const auto& [name, values] : rg["columns"].items()) {
        SCOPED_TRACE(std::string(stem) + " row group " + std::to_string(g) + " column " + name);
        const std::size_t c = file.column_index(name);
        auto stored = file.bloom_filter(g, c);
        ASSERT_TRUE(stored.has_value());
        std::set<std::string> distinct;
        for (const auto& v : values) distinct.insert(v["hex"].get<std::string>());
        auto filter = bloomkit::parquet_sized_split_block(distinct.size(), fpp, bloomkit::sizing::parquet_writer::duckdb);
        for (const auto& hex : distinct) filter.insert(pq::encode_hex(file.metadata().columns[c], hex));
        const auto encoded = pq::encode_bloom_filter(filter.view());
        // byte for byte against the file itself, header included
        ASSERT_LE(stored->offset + encoded.size(), bytes.size());
        const std::span<const std::byte> in_file(bytes.data() + stored->offset, encoded.size());
        EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), in_file.begin())) << "rebuilt filter differs";
        EXPECT_EQ(static_cast<std::int64_t>(encoded.size()), stored->declared_length.value());
        ++rebuilt;
      }
    }
  }
  EXPECT_GE(rebuilt, 10U);
}

TEST(ParquetFixtures, BareXxhashFilterHoldsItsFourWords) {
  const auto bytes = bloomkit::test::read_file_bytes(fixtures() / "parquet-testing" / "bloom_filter.xxhash.bin");
  const auto header = pq::decode_bloom_filter_header(bytes);
  EXPECT_EQ(header.num_bytes, 1024);
  ASSERT_EQ(header.header_length + 1024, bytes.size());
  const auto filter = pq::filter_from_bitset(std::span<const std::byte>(bytes).subspan(header.header_length));
  for (std::string_view word : {"hello", "parquet", "bloom", "filter"}) EXPECT_TRUE(filter.may_contain(word)) << word;
  int passed = 0;
  for (int i = 0; i < 1000; ++i) passed += filter.may_contain("absent-" + std::to_string(i)) ? 1 : 0;
  // 4 keys in 32 blocks: each absent key passes with probability < 1e-6.
  EXPECT_LE(passed, 1);
}

TEST(ParquetFixtures, FileWithoutLengthReadsHeaderFirst) {
  pq::reader file(fixtures() / "parquet-testing" / "data_index_bloom_encoding_stats.parquet");
  ASSERT_EQ(file.metadata().row_groups.size(), 1U);
  const auto& chunk = file.metadata().row_groups[0].columns[0];
  EXPECT_TRUE(chunk.bloom_filter_offset.has_value());
  EXPECT_FALSE(chunk.bloom_filter_length.has_value());
  auto filter = file.bloom_filter(0, 0);
  ASSERT_TRUE(filter.has_value());
  EXPECT_EQ(filter->header.num_bytes, 1024);
  EXPECT_TRUE(filter->filter.may_contain(std::string_view("the quick")));
  EXPECT_NE(file.metadata().created_by.find("parquet-mr"), std::string::npos);
}

TEST(ParquetFixtures, InMemoryReaderMatchesFileReader) {
  const auto path = fixtures() / "pub_numeric.parquet";
  pq::reader from_path(path);
  pq::reader from_bytes(bloomkit::test::read_file_bytes(path), "pub_numeric.parquet");
  ASSERT_EQ(from_path.metadata().row_groups.size(), from_bytes.metadata().row_groups.size());
  for (std::size_t g = 0; g < from_path.metadata().row_groups.size(); ++g) {
    for (std::size_t c = 0; c < from_path.metadata().columns.size(); ++c) {
      auto a = from_path.bloom_filter(g, c);
      auto b = from_bytes.bloom_filter(g, c);
      ASSERT_EQ(a.has_value(), b.has_value());
      if (a) {
        EXPECT_EQ(to_parquet_bitset(a->filter.view()), to_parquet_bitset(b->filter.view()));
      }
    }
  }
}

}  // namespace
