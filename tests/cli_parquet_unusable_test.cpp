// tests/cli_parquet_unusable_test.cpp - one malformed Bloom filter header in
// a Parquet file (issue 17, item 8) is reported for its chunk, and every
// other chunk is still listed and probed; a directory given as the file is
// named as one (item 14).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "cli_support.hpp"

namespace bloomkit::test {
namespace {

/// Replaces the first BloomFilterHeader's algorithm union (field 2 holding
/// member 1, BLOCK: bytes 1C 1C 00 00, after numBytes) by one with an unknown
/// member 2 (1C 2C 00 00): the same
/// length, so every offset stays right, as a writer that fills the field
/// wrongly would leave it.
std::string break_first_header(std::string bytes, std::uint64_t offset) {
  const std::string block("\x1c\x1c\x00\x00\x1c", 5);
  const std::size_t at = bytes.find(block, offset);
  if (at == std::string::npos || at >= offset + 8) {
    ADD_FAILURE() << "the algorithm field must follow numBytes";
    return bytes;
  }
  bytes[at + 1] = '\x2c';
  return bytes;
}

TEST(CliParquetUnusable, OneBadHeaderLeavesTheOtherChunksWorking) {
  scratch_dir dir;
  std::string values;
  for (int i = 0; i < 300; ++i) values += std::to_string(i) + "\n";
  write_file(dir / "v.txt", values);
  ASSERT_EQ(run_cli({"parquet", "write", "v.txt", "--type", "int64", "--row-group-rows", "100", "-o", "ok.parquet"}, {},
                    dir)
                .rc,
            0);
  const auto listed = run_cli({"parquet", "list", "ok.parquet", "--json"}, {}, dir);
  ASSERT_EQ(listed.rc, 0) << listed.err;
  const auto first = nlohmann::json::parse(lines_of(listed.out).at(0));
  write_file(dir / "bad.parquet",
             break_first_header(read_file(dir / "ok.parquet"), first["bloom_filter_offset"].get<std::uint64_t>()));

  // list: all three chunks, the first marked unusable with its reason.
  auto r = run_cli({"parquet", "list", "bad.parquet", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  const auto bad = nlohmann::json::parse(lines[0]);
  EXPECT_TRUE(bad["has_filter"]);
  EXPECT_FALSE(bad["usable"]);
  EXPECT_NE(bad["error"].get<std::string>().find("algorithm"), std::string::npos) << bad.dump();
  EXPECT_TRUE(nlohmann::json::parse(lines[1])["usable"]);
  EXPECT_TRUE(nlohmann::json::parse(lines[2])["usable"]);
  EXPECT_NE(r.err.find("row group 0"), std::string::npos) << r.err;
  r = run_cli({"parquet", "list", "bad.parquet"}, {}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("unusable"), std::string::npos) << r.out;

  // probe: the bad chunk cannot be skipped, the others answer as before.
  r = run_cli({"parquet", "probe", "bad.parquet", "value", "150", "5000"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("row group 0  value = 150  unusable filter (must be read)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row group 1  value = 150  may contain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("row group 2  value = 150  excluded"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("value = 5000: a reader can skip 2 of 3 row groups"), std::string::npos) << r.out;
  // extract of the bad chunk is an error naming it; of a good one it works.
  EXPECT_EQ(run_cli({"parquet", "extract", "bad.parquet", "value", "--row-group", "0", "-o", "x.bkf"}, {}, dir).rc, 2);
  EXPECT_EQ(run_cli({"parquet", "extract", "bad.parquet", "value", "--row-group", "1", "-o", "y.bkf"}, {}, dir).rc, 0);
}

// `parquet extract` used to record inserted 0 beside an estimate in the
// thousands, and a capacity made up from a 1 % rule (issue 17, item 13).
TEST(CliParquetUnusable, ExtractRecordsWhatTheFileSays) {
  scratch_dir dir;
  std::string values;
  for (int i = 0; i < 3000; ++i) values += std::to_string(i) + "\n";
  write_file(dir / "v.txt", values);
  ASSERT_EQ(run_cli({"parquet", "write", "v.txt", "--type", "int64", "-o", "t.parquet"}, {}, dir).rc, 0);
  ASSERT_EQ(run_cli({"parquet", "extract", "t.parquet", "value", "-o", "t.bkf"}, {}, dir).rc, 0);
  const auto r = run_cli({"info", "t.bkf", "--json"}, {}, dir);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["capacity"], 3000) << "the chunk's value count";
  const auto inserted = j["inserted"].get<double>();
  EXPECT_GT(inserted, 2700.0);
  EXPECT_LE(inserted, 3000.0);
  // The estimate from the bits, capped by the value count.
  EXPECT_EQ(inserted, std::min(3000.0, std::round(j["estimated_cardinality"].get<double>())));
  EXPECT_FALSE(j["saturated"]);
}

TEST(CliParquetUnusable, DirectoryIsNamedAsOne) {
  scratch_dir dir;
  std::filesystem::create_directory(dir / "dataset.parquet");
  for (const auto& sub : {"list", "probe"}) {
    std::vector<std::string> args = {"parquet", sub, "dataset.parquet"};
    if (std::string(sub) == "probe") args.insert(args.end(), {"col", "1"});
    const auto r = run_cli(args, {}, dir);
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace bloomkit::test
