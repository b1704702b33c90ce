// tests/cli_parquet_test.cpp - `bloomkit parquet list|probe|extract|encode|write`
// end to end: output shapes, round trips through the files they write, and
// clear errors with exit code 2 for bad files and values (1 for usage).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/parquet.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::lines_of;
using bloomkit::test::run_cli;
using bloomkit::test::scratch_dir;
namespace pq = bloomkit::parquet;

std::string fixture(const std::string& name) {
  return (bloomkit::test::shared_dir() / "fixtures" / "parquet" / name).string();
}

TEST(CliParquet, ListShowsEveryRowGroupAndColumn) {
  scratch_dir dir;
  const auto r = run_cli({"parquet", "list", fixture("pub_numeric.parquet"), "--json"}, std::nullopt, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 12U);  // 3 row groups x 4 columns
  EXPECT_NE(lines[0].find("\"row_group\":0,\"column\":\"i64\",\"physical_type\":\"INT64\""), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("\"bloom_filter_offset\":329228,\"bloom_filter_length\":4112,\"num_bytes\":4096,\"bits\":32768"),
            std::string::npos)
      << lines[0];
  const auto text = run_cli({"parquet", "list", fixture("parquet-testing/data_index_bloom_encoding_stats.parquet")},
                            std::nullopt, dir);
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("String"), std::string::npos);
  EXPECT_NE(text.out.find("parquet-mr"), std::string::npos);
}

TEST(CliParquet, ProbeAnswersAsTheFixtureRecords) {
  scratch_dir dir;
  // pub_tiny: c3 holds -542827039 (present) and not 1431039309 (absent, no false positive)
  const auto r = run_cli({"parquet", "probe", fixture("pub_tiny.parquet"), "c3", "-542827039", "1431039309", "--json"},
                         std::nullopt, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3U);
  EXPECT_EQ(lines[0], R"({"row_group":0,"column":"c3","value":"-542827039","has_filter":true,"excluded":false})");
  EXPECT_EQ(lines[1], R"({"row_group":0,"column":"c3","value":"1431039309","has_filter":true,"excluded":true})");
  EXPECT_NE(lines[2].find("\"summary\":true"), std::string::npos);
  EXPECT_NE(lines[2].find("\"skippable_row_groups\":0"), std::string::npos) << lines[2];
  // BLOB values by --hex
  const auto blob = run_cli({"parquet", "probe", fixture("pub_strings.parquet"), "b", "00", "--hex", "--json"}, std::nullopt, dir);
  ASSERT_EQ(blob.rc, 0) << blob.err;
  EXPECT_NE(blob.out.find("\"excluded\":false"), std::string::npos) << blob.out;
}

TEST(CliParquet, BadValuesColumnsAndFilesAreClearErrors) {
  scratch_dir dir;
  const auto bad_value = run_cli({"parquet", "probe", fixture("pub_tiny.parquet"), "c3", "12abc"}, std::nullopt, dir);
  EXPECT_EQ(bad_value.rc, 2);
  EXPECT_NE(bad_value.err.find("'12abc'"), std::string::npos) << bad_value.err;
  EXPECT_NE(bad_value.err.find("INT32"), std::string::npos) << bad_value.err;
  EXPECT_TRUE(bad_value.out.empty()) << "nothing is printed before every value converts";
  const auto no_column = run_cli({"parquet", "probe", fixture("pub_tiny.parquet"), "zz", "1"}, std::nullopt, dir);
  EXPECT_EQ(no_column.rc, 2);
  EXPECT_NE(no_column.err.find("columns: c3, w"), std::string::npos) << no_column.err;
  bloomkit::test::write_file(dir / "junk.parquet", "PAR1 this is not a footer PAR1");
  const auto junk = run_cli({"parquet", "list", dir / "junk.parquet"}, std::nullopt, dir);
  EXPECT_EQ(junk.rc, 2);
  EXPECT_NE(junk.err.find("junk.parquet"), std::string::npos) << junk.err;
  const auto missing = run_cli({"parquet", "list", dir / "missing.parquet"}, std::nullopt, dir);
  EXPECT_EQ(missing.rc, 2);
  const auto usage = run_cli({"parquet", "probe", fixture("pub_tiny.parquet")}, std::nullopt, dir);
  EXPECT_EQ(usage.rc, 1);
  const auto boolean = run_cli({"parquet", "write", "-", "-o", dir / "b.parquet", "--type", "boolean"}, std::string("true\n"), dir);
  EXPECT_EQ(boolean.rc, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "b.parquet"));
  const auto bad_key = run_cli({"parquet", "write", "-", "-o", dir / "d.parquet", "--type", "date"},
                               std::string("2024-01-01\n2024-02-30\n"), dir);
  EXPECT_EQ(bad_key.rc, 2);
  EXPECT_NE(bad_key.err.find("line 2"), std::string::npos) << bad_key.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "d.parquet")) << "no half-written output";
}

TEST(CliParquet, WriteExtractEncodeRoundTrip) {
  scratch_dir dir;
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "2024-01-01T00:00:" + std::to_string(10 + i % 50) + "Z\n";
  const auto w = run_cli({"parquet", "write", "-", "-o", dir / "t.parquet", "--type", "timestamp_ms",
                          "--row-group-rows", "200", "--column", "ts"},
                         keys, dir);
  ASSERT_EQ(w.rc, 0) << w.err;
  pq::reader file{std::filesystem::path(dir / "t.parquet")};
  ASSERT_EQ(file.metadata().row_groups.size(), 3U);
  const auto p = run_cli({"parquet", "probe", dir / "t.parquet", "ts", "2024-01-01T00:00:15Z", "1704067215000"}, std::nullopt, dir);
  ASSERT_EQ(p.rc, 0) << p.err;
  EXPECT_EQ(p.out.find("excluded"), std::string::npos) << "both spellings are present in every row group:\n" << p.out;

  const auto e = run_cli({"parquet", "extract", dir / "t.parquet", "ts", "--row-group", "1", "-o", dir / "f.bkf"},
                         std::nullopt, dir);
  ASSERT_EQ(e.rc, 0) << e.err;
  const auto loaded = bloomkit::load(std::filesystem::path(dir / "f.bkf"));
  const auto& sbbf = std::get<bloomkit::split_block_bloom>(loaded);
  const auto in_file = file.bloom_filter(1, 0);
  EXPECT_EQ(bloomkit::to_parquet_bitset(sbbf.view()), bloomkit::to_parquet_bitset(in_file->filter.view()));

  const auto enc = run_cli({"parquet", "encode", dir / "f.bkf", "-o", dir / "f.sbbf"}, std::nullopt, dir);
  ASSERT_EQ(enc.rc, 0) << enc.err;
  const std::string encoded = bloomkit::test::read_file(dir / "f.sbbf");
  const std::string original = bloomkit::test::read_file(dir / "t.parquet")
                                   .substr(static_cast<std::size_t>(in_file->offset),
                                           static_cast<std::size_t>(*in_file->declared_length));
  EXPECT_EQ(encoded, original) << "encode gives exactly the header + bitset the writer embedded";

  const auto none = run_cli({"parquet", "extract", dir / "t.parquet", "ts", "--row-group", "9", "-o", dir / "x.bkf"},
                            std::nullopt, dir);
  EXPECT_EQ(none.rc, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "x.bkf"));
}

}  // namespace
