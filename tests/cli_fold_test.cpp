// tests/cli_fold_test.cpp - `bloomkit fold` and `bloomkit parquet write
// --sizing fold` end to end: the folded file equals a filter built at the
// folded size, other kinds and bad options are refused with nothing written.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomkit/file_format.hpp"
#include "bloomkit/parquet.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::run_cli;
using bloomkit::test::scratch_dir;
namespace pq = bloomkit::parquet;

TEST(CliFold, FoldedFileEqualsFilterBuiltAtTheFoldedSize) {
  scratch_dir dir;
  const std::string keys = bloomkit::test::numbered_keys("key-", 0, 20000);
  for (const char* kind : {"split-block", "blocked"}) {
    SCOPED_TRACE(kind);
    // 2^17 blocks of 32 bytes (split) or 2^16 of 64 (blocked): powers of two fold far.
    const auto b = run_cli({"build", "-", "--kind", kind, "--bits", "33554432", "-o", dir / "big.bkf"}, keys, dir);
    ASSERT_EQ(b.rc, 0) << b.err;
    const auto f = run_cli({"fold", dir / "big.bkf", "--fpr", "0.01", "-o", dir / "small.bkf", "--json"}, std::nullopt, dir);
    ASSERT_EQ(f.rc, 0) << f.err;
    EXPECT_NE(f.out.find("\"folds\":"), std::string::npos) << f.out;
    const auto small = bloomkit::load(std::filesystem::path(dir / "small.bkf"));
    std::visit(
        [&](const auto& s) {
          if constexpr (requires(std::decay_t<decltype(s)>& m) { m.fold_to(0.5); }) {
            using F = std::decay_t<decltype(s)>;
            EXPECT_LT(s.num_blocks(), 33554432u / F::policy::block_bits);
            EXPECT_LE(s.estimated_fpr(), 0.01);
            if (s.num_blocks() % 2 == 0) {
              EXPECT_GT(s.folded_fpr(), 0.01);
            }
            const auto big = bloomkit::load(std::filesystem::path(dir / "big.bkf"));
            F direct(bloomkit::block_filter_params{s.num_blocks(), s.num_hashes(), 1, 0.01, s.hash()});
            for (std::uint64_t i = 0; i < 20000; ++i) direct.insert("key-" + std::to_string(i));
            EXPECT_TRUE(std::ranges::equal(s.blocks(), direct.blocks()));
            EXPECT_EQ(s.inserted(), 20000u);
          } else {
            FAIL() << "fold wrote another kind";
          }
        },
        small);
    const auto q = run_cli({"query", dir / "small.bkf", "--count"}, keys, dir);
    ASSERT_EQ(q.rc, 0) << q.err;
    EXPECT_EQ(q.out, "20000\n");
  }
}

TEST(CliFold, RefusalsWriteNothing) {
  scratch_dir dir;
  const std::string keys = bloomkit::test::numbered_keys("k", 0, 100);
  ASSERT_EQ(run_cli({"build", "-", "--kind", "standard", "-o", dir / "std.bkf"}, keys, dir).rc, 0);
  const auto s = run_cli({"fold", dir / "std.bkf", "--fpr", "0.01", "-o", dir / "out.bkf"}, std::nullopt, dir);
  EXPECT_EQ(s.rc, 2);
  EXPECT_NE(s.err.find("cannot fold"), std::string::npos) << s.err;
  ASSERT_EQ(run_cli({"build", "-", "--kind", "split-block", "-o", dir / "sb.bkf"}, keys, dir).rc, 0);
  EXPECT_EQ(run_cli({"fold", dir / "sb.bkf", "--fpr", "1.5", "-o", dir / "out.bkf"}, std::nullopt, dir).rc, 1);
  EXPECT_EQ(run_cli({"fold", dir / "sb.bkf", "--fpr", "0.01", "-o", dir / "sb.bkf"}, std::nullopt, dir).rc, 1);
  EXPECT_EQ(run_cli({"fold", dir / "missing.bkf", "--fpr", "0.01", "-o", dir / "out.bkf"}, std::nullopt, dir).rc, 2);
  EXPECT_FALSE(std::filesystem::exists(dir / "out.bkf"));
}

TEST(CliFold, ParquetWriteSizingFold) {
  scratch_dir dir;
  const std::string keys = bloomkit::test::numbered_keys("", 0, 3000);
  const auto w = run_cli({"parquet", "write", "-", "-o", dir / "f.parquet", "--type", "int64", "--row-group-rows", "1000",
                          "--fpp", "0.01", "--sizing", "fold"},
                         keys, dir);
  ASSERT_EQ(w.rc, 0) << w.err;
  pq::reader file{std::filesystem::path(dir / "f.parquet")};
  ASSERT_EQ(file.metadata().row_groups.size(), 3U);
  for (std::size_t rg = 0; rg < 3; ++rg) {
    const auto f = file.bloom_filter(rg, 0);
    ASSERT_TRUE(f.has_value());
    // Sized to hold 1000 distinct values at 1 % (a power of two), then folded.
    auto expected = pq::foldable_filter(1000, 0.01);
    for (int i = 0; i < 1000; ++i) expected.insert(pq::encode_value(file.metadata().columns[0], std::to_string(rg * 1000 + i)));
    expected.fold_to(0.01);
    EXPECT_EQ(bloomkit::to_parquet_bitset(f->filter.view()), bloomkit::to_parquet_bitset(expected.view()));
    EXPECT_LE(f->filter.estimated_fpr(), 0.01);
  }
  EXPECT_EQ(run_cli({"parquet", "write", "-", "-o", dir / "g.parquet", "--type", "int64", "--sizing", "bogus"}, keys, dir).rc, 1);
}

}  // namespace
