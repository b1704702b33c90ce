// Parquet files from Arrow C++ (pyarrow) and parquet-mr (Spark): every Bloom
// filter rebuilt bit for bit from its column chunk's values, and every value
// found.
//
// Each NAME.parquet has a NAME.values.json (written by
// tests/interop/parquet_writers.py) listing, per row group and column, the
// plain-encoded bytes of every distinct value. The test opens the file with
// bloomkit::parquet::reader, builds a split_block_bloom of the stored filter's
// size from those values, and compares the bitset and the whole embedded
// filter (header included) with the file's bytes. Where the writer's own
// sizing rule is known (Arrow C++ with an explicit ndv), the size is
// predicted too. Material: tests/fixtures/parquet_writers (committed, made
// by that script) or $BLOOMKIT_PARQUET_WRITERS_DIR (the interop step's fresh files).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "bloomkit/parquet.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace pq = bloomkit::parquet;
using nlohmann::json;

fs::path material_dir() {
  if (const char* env = std::getenv("BLOOMKIT_PARQUET_WRITERS_DIR"); env && *env) return env;
  return fs::path(bloomkit::test::paths::source_dir) / "tests" / "fixtures" / "parquet_writers";
}

TEST(ParquetWriters, EveryFilterRebuiltBitForBit) {
  std::size_t files = 0, rebuilt = 0, values = 0, values_found = 0, empty_boolean_filters = 0;
  for (const auto& entry : fs::directory_iterator(material_dir())) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 12 || name.substr(name.size() - 12) != ".values.json") continue;
    std::ifstream in(entry.path());
    const json sidecar = json::parse(in);
    const fs::path parquet_path = material_dir() / sidecar["file"].get<std::string>();
    SCOPED_TRACE(parquet_path.string());
    pq::reader file(parquet_path);
    const auto bytes = bloomkit::test::read_file_bytes(parquet_path);
    ++files;
    for (const auto& chunk : sidecar["chunks"]) {
      const auto rg = chunk["row_group"].get<std::size_t>();
      const std::string column = chunk["column"].get<std::string>();
      SCOPED_TRACE("row group " + std::to_string(rg) + " column " + column);
      const std::size_t c = file.column_index(column);
      const auto stored = file.bloom_filter(rg, c);
      ASSERT_EQ(stored.has_value(), chunk["filter"].get<bool>());
      if (!stored) continue;
      EXPECT_EQ(stored->declared_length.value_or(-1), chunk["bloom_filter_length"].get<std::int64_t>());
      if (chunk.value("empty_filter_expected", false)) {
        // parquet-mr writes BOOLEAN chunks a filter it never fills (see
        // docs/PARQUET.md): an all-zero bitset that excludes every value.
        EXPECT_EQ(stored->filter.fill_ratio(), 0.0) << "parquet-mr filled a BOOLEAN filter after all";
        ++empty_boolean_filters;
        continue;
      }
      const auto num_bytes = static_cast<std::uint64_t>(stored->header.num_bytes);
      bloomkit::split_block_bloom filter(
          bloomkit::block_filter_params{num_bytes / 32, 8, 1, 0.01, bloomkit::parquet_hash_spec});
      for (const auto& hex : chunk["values"]) {
        const std::string h = hex.get<std::string>();
        filter.insert(pq::encode_hex(file.metadata().columns[c], h == "-" ? "" : h));
      }
      for (const auto& hex : chunk["values"]) {
        const std::string h = hex.get<std::string>();
        ++values;
        values_found += stored->filter.may_contain(pq::encode_hex(file.metadata().columns[c], h == "-" ? "" : h));
      }
      const auto encoded = pq::encode_bloom_filter(filter.view());
      ASSERT_LE(stored->offset + encoded.size(), bytes.size());
      EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), bytes.begin() + static_cast<std::ptrdiff_t>(stored->offset)))
          << "the rebuilt filter (header and bitset) differs from the file's";
      ++rebuilt;
    }
  }
  EXPECT_GE(files, 4u) << "no writer material in " << material_dir();
  EXPECT_GT(rebuilt, 50u);
  EXPECT_EQ(values_found, values) << "a value of its own column chunk is missing from a writer's filter";
  std::printf("rebuilt %zu filters from %zu files; %zu of %zu values found; %zu empty BOOLEAN filters\n", rebuilt,
              files, values_found, values, empty_boolean_filters);
}

TEST(ParquetWriters, ArrowCppSizingPredicted) {
  // pyarrow wrote arrow_cpp.parquet with ndv (ndv_option), fpp 0.01 for every
  // column. Arrow C++ 26 sizes each chunk's filter for at most min(ndv, the
  // chunk's distinct values), with its own rounding
  // (sizing::parquet_writer::arrow_cpp). That prediction is exact for almost
  // every chunk; a few chunks with nulls near a power-of-two boundary came out
  // one step smaller (Arrow counted fewer values when it sized them than the
  // chunk finally holds; see docs/PARQUET.md). Never larger.
  const fs::path path = material_dir() / "arrow_cpp.parquet";
  std::ifstream in(material_dir() / "arrow_cpp.values.json");
  ASSERT_TRUE(fs::exists(path) && in) << path;
  const json sidecar = json::parse(in);
  pq::reader file(path);
  std::size_t checked = 0, exact = 0;
  for (const auto& chunk : sidecar["chunks"]) {
    if (!chunk["filter"].get<bool>()) continue;
    const auto rg = chunk["row_group"].get<std::size_t>();
    const std::string column = chunk["column"].get<std::string>();
    const auto stored = file.bloom_filter(rg, file.column_index(column));
    ASSERT_TRUE(stored.has_value());
    const std::uint64_t ndv = std::min<std::uint64_t>(sidecar["ndv_option"].get<std::uint64_t>(), chunk["values"].size());
    const std::uint64_t predicted = bloomkit::sizing::parquet_writer_bytes(ndv, 0.01, bloomkit::sizing::parquet_writer::arrow_cpp);
    const auto got = static_cast<std::uint64_t>(stored->header.num_bytes);
    EXPECT_TRUE(got == predicted || got * 2 == predicted)
        << column << " row group " << rg << ", " << chunk["values"].size() << " distinct values: " << got << " vs " << predicted;
    exact += got == predicted;
    ++checked;
  }
  EXPECT_GT(checked, 20u);
  EXPECT_GE(exact * 10, checked * 9) << exact << " of " << checked << " sizes predicted exactly";
  std::printf("Arrow C++ sizes predicted exactly for %zu of %zu chunks\n", exact, checked);
}

TEST(ParquetWriters, ArrowRsFoldedSizesPredicted) {
  // arrow-rs 60 sizes a chunk's filter for its max ndv at its fpp
  // (bits = -8 ndv / ln(1 - fpp^(1/8)), bytes rounded up to a power of two in
  // [32, 128 MiB]), inserts every value, then folds: OR of adjacent block
  // pairs halves the filter (with Parquet's block index ((h >> 32) * blocks)
  // >> 32 that is exactly the filter built at half the size), as many times
  // as the estimate 1 - (1 - f)^(2^folds), raised to the 8th power, stays at
  // or below fpp (f = the set-bit fraction before folding). Rebuilt here at
  // the initial size and folded by that rule, every stored size is
  // predicted, and the folded bits equal a filter built at the final size.
  std::size_t checked = 0;
  for (const char* name : {"arrow_rs", "arrow_rs_defaults"}) {
    std::ifstream in(material_dir() / (std::string(name) + ".values.json"));
    ASSERT_TRUE(in) << "no arrow-rs material (" << name << ".values.json) in " << material_dir();
    const json sidecar = json::parse(in);
    pq::reader file(material_dir() / sidecar["file"].get<std::string>());
    const auto ndv = sidecar["arrow_rs_sizing"]["ndv"].get<double>();
    const auto fpp = sidecar["arrow_rs_sizing"]["fpp"].get<double>();
    const auto bits = static_cast<std::uint64_t>(-8.0 * ndv / std::log(1.0 - std::pow(fpp, 1.0 / 8.0)));
    const std::uint64_t initial = std::bit_ceil(std::clamp<std::uint64_t>(bits / 8, 32, 128u << 20));
    for (const auto& chunk : sidecar["chunks"]) {
      if (!chunk["filter"].get<bool>()) continue;
      const auto rg = chunk["row_group"].get<std::size_t>();
      const std::size_t c = file.column_index(chunk["column"].get<std::string>());
      SCOPED_TRACE(std::string(name) + " row group " + std::to_string(rg) + " column " + chunk["column"].get<std::string>());
      bloomkit::split_block_bloom big(bloomkit::block_filter_params{initial / 32, 8, 1, 0.01, bloomkit::parquet_hash_spec});
      for (const auto& hex : chunk["values"]) {
        const std::string h = hex.get<std::string>();
        big.insert(pq::encode_hex(file.metadata().columns[c], h == "-" ? "" : h));
      }
      const double fill = big.fill_ratio();
      std::uint64_t blocks = initial / 32, folds = 0;
      double one_minus = 1.0 - fill;
      if (fill == 0.0) {
        folds = static_cast<std::uint64_t>(std::countr_zero(blocks));
      } else {
        for (std::uint64_t b = blocks; b > 1; b /= 2) {
          one_minus *= one_minus;
          const double f = 1.0 - one_minus, f2 = f * f, f4 = f2 * f2;
          if (f4 * f4 > fpp) break;
          ++folds;
        }
      }
      const auto stored = file.bloom_filter(rg, c);
      ASSERT_TRUE(stored.has_value());
      EXPECT_EQ(static_cast<std::uint64_t>(stored->header.num_bytes), initial >> folds)
          << chunk["values"].size() << " distinct values, fill " << fill;
      ++checked;
    }
  }
  EXPECT_GT(checked, 40u);
  std::printf("arrow-rs folded sizes predicted for %zu chunks\n", checked);
}

TEST(ParquetWriters, ArrowRsFoldedFiltersByteIdentical) {
  // bloomkit's own fold: every arrow-rs filter rebuilt at arrow-rs's initial
  // size and folded with fold_to(fpp, fold_estimate::mean_fill) (arrow-rs's
  // rule) is byte-identical to the file's filter, header included. With the
  // per-block estimate (bloomkit's default) the folded size is recorded
  // against arrow-rs's: it never folds further than the target allows, so it
  // is the same size or larger, and its estimate meets the target.
  std::size_t identical = 0, same_size = 0, larger = 0, smaller = 0;
  for (const char* name : {"arrow_rs", "arrow_rs_defaults"}) {
    std::ifstream in(material_dir() / (std::string(name) + ".values.json"));
    ASSERT_TRUE(in) << "no arrow-rs material (" << name << ".values.json) in " << material_dir();
    const json sidecar = json::parse(in);
    const fs::path path = material_dir() / sidecar["file"].get<std::string>();
    pq::reader file(path);
    const auto bytes = bloomkit::test::read_file_bytes(path);
    const auto ndv = sidecar["arrow_rs_sizing"]["ndv"].get<std::uint64_t>();
    const auto fpp = sidecar["arrow_rs_sizing"]["fpp"].get<double>();
    const std::uint64_t initial = bloomkit::sizing::parquet_writer_bytes(ndv, fpp, bloomkit::sizing::parquet_writer::arrow_rs);
    for (const auto& chunk : sidecar["chunks"]) {
      if (!chunk["filter"].get<bool>()) continue;
      const auto rg = chunk["row_group"].get<std::size_t>();
      const std::size_t c = file.column_index(chunk["column"].get<std::string>());
      SCOPED_TRACE(std::string(name) + " row group " + std::to_string(rg) + " column " + chunk["column"].get<std::string>());
      bloomkit::split_block_bloom big(bloomkit::block_filter_params{initial / 32, 8, 1, fpp, bloomkit::parquet_hash_spec});
      for (const auto& hex : chunk["values"]) {
        const std::string h = hex.get<std::string>();
        big.insert(pq::encode_hex(file.metadata().columns[c], h == "-" ? "" : h));
      }
      bloomkit::split_block_bloom ours = big;
      big.fold_to(fpp, bloomkit::fold_estimate::mean_fill);
      ours.fold_to(fpp);
      const auto stored = file.bloom_filter(rg, c);
      ASSERT_TRUE(stored.has_value());
      const auto encoded = pq::encode_bloom_filter(big.view());
      ASSERT_LE(stored->offset + encoded.size(), bytes.size());
      EXPECT_TRUE(std::equal(encoded.begin(), encoded.end(), bytes.begin() + static_cast<std::ptrdiff_t>(stored->offset)))
          << "bloomkit's mean_fill fold differs from arrow-rs's filter";
      identical += std::equal(encoded.begin(), encoded.end(), bytes.begin() + static_cast<std::ptrdiff_t>(stored->offset));
      EXPECT_LE(ours.estimated_fpr(), fpp);
      const auto theirs = static_cast<std::uint64_t>(stored->header.num_bytes);
      same_size += ours.size_in_bytes() == theirs;
      larger += ours.size_in_bytes() > theirs;
      smaller += ours.size_in_bytes() < theirs;
    }
  }
  EXPECT_GT(identical, 40u);
  std::printf("arrow-rs: %zu folded filters byte-identical; bloomkit's per-block fold: %zu same size, %zu larger, %zu smaller\n",
              identical, same_size, larger, smaller);
}

}  // namespace
