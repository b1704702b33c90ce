// parquet::rewrite_footer_filters and parquet::write_with_filters: filters
// added to existing Parquet files without touching their data.
//
// Material: the writers' files in tests/fixtures/parquet_writers (pyarrow,
// parquet-mr, arrow-rs; snappy, dictionaries, page indexes) and the DuckDB
// files in ../shared/fixtures/parquet. Checked: a footer rewritten with no
// placements is the writer's footer byte for byte (every field copied as
// it was); a file with new filters keeps every byte before the old footer,
// its metadata decodes to the same row groups and columns, and each chunk's
// filter reads back as the one added, rebuilt from the chunk's values and
// folded; bad requests and encrypted files change nothing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/parquet.hpp"
#include "cli_support.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
namespace pq = bloomkit::parquet;
using nlohmann::json;

fs::path writers_dir() { return fs::path(bloomkit::test::paths::source_dir) / "tests" / "fixtures" / "parquet_writers"; }

std::vector<fs::path> material() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(writers_dir())) {
    if (e.path().extension() == ".parquet") out.push_back(e.path());
  }
  for (const auto& e : fs::directory_iterator(bloomkit::test::shared_dir() / "fixtures" / "parquet")) {
    if (e.path().extension() == ".parquet") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ParquetAddFilters, FooterWithoutPlacementsIsCopiedByteForByte) {
  std::size_t files = 0;
  for (const auto& path : material()) {
    SCOPED_TRACE(path.string());
    pq::reader file(path);
    const auto footer = file.footer_bytes();
    EXPECT_EQ(pq::rewrite_footer_filters(footer, {}), footer);
    ++files;
  }
  EXPECT_GE(files, 10u);
}

TEST(ParquetAddFilters, LongFormHeadersAreKeptAsTheyCame) {
  // The compact protocol lets a writer give a field id in full (type byte,
  // then the id) where a delta would fit, and a list size in a varint where
  // the header's nibble would: valid, and copied as they came. In a chosen
  // ColumnMetaData, fields before the new filter fields keep their bytes too.
  const auto bytes = [](std::initializer_list<int> v) {
    std::vector<std::byte> out;
    for (int b : v) out.push_back(static_cast<std::byte>(b));
    return out;
  };
  const auto head = bytes({0x05, 0x02, 0x02,        // FileMetaData.version (1), long form: 1
                           0x39, 0xfc, 0x01,        // row_groups (4): a list of 1 struct, size in a varint
                           0x19, 0x1c,              // RowGroup.columns (1): 1 struct
                           0x06, 0x04, 0x08,        // ColumnChunk.file_offset (2), long form: 4
                           0x0c, 0x06,              // ColumnChunk.meta_data (3), long form
                           0x05, 0x02, 0x02});      // ColumnMetaData.type (1), long form: 1
  auto footer = head;
  for (int b : {0x00, 0x00, 0x00, 0x00}) footer.push_back(static_cast<std::byte>(b));  // four stops
  EXPECT_EQ(pq::rewrite_footer_filters(footer, {}), footer);

  const pq::filter_placement place[] = {{0, 0, 100, 40}};
  auto expected = head;
  for (int b : {0xd6, 0xc8, 0x01,  // bloom_filter_offset (14): 100
                0x15, 0x50,        // bloom_filter_length (15): 40
                0x00, 0x00, 0x00, 0x00}) {
    expected.push_back(static_cast<std::byte>(b));
  }
  EXPECT_EQ(pq::rewrite_footer_filters(footer, place), expected);
}

TEST(ParquetAddFilters, EveryChunkReplacedWithRebuiltFoldedFilters) {
  // Every writer's file, every chunk that has values recorded: a new filter
  // built from the chunk's values at 2^20 rows' size and folded to 1 %
  // replaces the writer's; the data is untouched and the filters read back.
  bloomkit::test::scratch_dir dir;
  std::size_t files = 0, chunks = 0;
  for (const auto& entry : fs::directory_iterator(writers_dir())) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".values.json")) continue;
    std::ifstream in(entry.path());
    const json sidecar = json::parse(in);
    const fs::path input = writers_dir() / sidecar["file"].get<std::string>();
    SCOPED_TRACE(input.string());
    pq::reader file(input);
    std::vector<pq::chunk_filter> filters;
    std::vector<std::vector<std::string>> values;
    for (const auto& chunk : sidecar["chunks"]) {
      if (chunk["physical_type"].get<std::string>() == "BOOLEAN" || !chunk.contains("values") || !chunk["values"].is_array()) {
        continue;
      }
      const std::size_t c = file.column_index(chunk["column"].get<std::string>());
      pq::chunk_filter f{chunk["row_group"].get<std::size_t>(), c, bloomkit::parquet_sized_split_block(1 << 20, 0.01, bloomkit::sizing::parquet_writer::arrow_rs)};
      for (const auto& hex : chunk["values"]) {
        const std::string h = hex.get<std::string>();
        f.filter.insert(pq::encode_hex(file.metadata().columns[c], h == "-" ? "" : h));
      }
      f.filter.fold_to(0.01);
      values.push_back(chunk["values"].get<std::vector<std::string>>());
      filters.push_back(std::move(f));
    }
    const fs::path output = dir.path() / (name + ".out.parquet");
    pq::write_with_filters(input, output, filters);
    const auto before = bloomkit::test::read_file_bytes(input);
    const auto after = bloomkit::test::read_file_bytes(output);
    ASSERT_TRUE(std::equal(before.begin(), before.begin() + static_cast<std::ptrdiff_t>(file.footer_start()), after.begin()))
        << "bytes before the footer changed";
    pq::reader out(output);
    ASSERT_EQ(out.metadata().row_groups.size(), file.metadata().row_groups.size());
    ASSERT_EQ(out.metadata().columns.size(), file.metadata().columns.size());
    EXPECT_EQ(out.metadata().num_rows, file.metadata().num_rows);
    for (std::size_t i = 0; i < filters.size(); ++i) {
      const auto& f = filters[i];
      const auto stored = out.bloom_filter(f.row_group, f.column);
      ASSERT_TRUE(stored.has_value());
      EXPECT_GE(stored->offset, file.footer_start());
      EXPECT_TRUE(std::ranges::equal(stored->filter.blocks(), f.filter.blocks()));
      for (const auto& h : values[i]) {
        ASSERT_TRUE(stored->filter.may_contain(pq::encode_hex(out.metadata().columns[f.column], h == "-" ? "" : h)));
      }
      // Every other field of the chunk is as it was.
      const auto& a = file.metadata().row_groups[f.row_group].columns[f.column];
      const auto& b = out.metadata().row_groups[f.row_group].columns[f.column];
      EXPECT_EQ(a.has_metadata, b.has_metadata);
      ++chunks;
    }
    ++files;
  }
  EXPECT_GE(files, 4u);
  EXPECT_GT(chunks, 200u);
  std::printf("%zu files, %zu chunks given new folded filters\n", files, chunks);
}

TEST(ParquetAddFilters, BadRequestsWriteNothing) {
  bloomkit::test::scratch_dir dir;
  const fs::path input = writers_dir() / "arrow_cpp.parquet";
  const fs::path output = dir.path() / "out.parquet";
  auto code_of = [&](std::vector<pq::chunk_filter> filters, const fs::path& in, const fs::path& out) {
    return bloomkit::test::error_code_of([&] { pq::write_with_filters(in, out, filters); });
  };
  using bloomkit::errc;
  const bloomkit::split_block_bloom one(bloomkit::block_filter_params{1, 8, 1, 0.01, bloomkit::parquet_hash_spec});
  EXPECT_EQ(code_of({pq::chunk_filter{99, 0, one}}, input, output), errc::invalid_argument);
  EXPECT_EQ(code_of({pq::chunk_filter{0, 999, one}}, input, output), errc::invalid_argument);
  EXPECT_EQ(code_of({pq::chunk_filter{0, 0, one}, pq::chunk_filter{0, 0, one}}, input, output), errc::invalid_argument);
  bloomkit::split_block_bloom other_hash(bloomkit::block_filter_params{1, 8, 1, 0.01, bloomkit::hash_spec{bloomkit::hash_algorithm::xxh3_64, 0}});
  EXPECT_EQ(code_of({pq::chunk_filter{0, 0, other_hash}}, input, output), errc::mismatch);
  EXPECT_FALSE(fs::exists(output));
  // The input itself as output.
  const fs::path copy = dir.path() / "copy.parquet";
  fs::copy_file(input, copy);
  EXPECT_EQ(code_of({pq::chunk_filter{0, 0, one}}, copy, copy), errc::invalid_argument);
  EXPECT_EQ(bloomkit::test::read_file_bytes(copy), bloomkit::test::read_file_bytes(input));
  // An encrypted footer (magic PARE) is refused.
  auto bytes = bloomkit::test::read_file_bytes(input);
  for (std::size_t i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<std::byte>("PARE"[i]);
  const fs::path encrypted = dir.path() / "encrypted.parquet";
  bloomkit::test::write_file(encrypted, std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  EXPECT_EQ(code_of({pq::chunk_filter{0, 0, one}}, encrypted, output), errc::unsupported);
  EXPECT_FALSE(fs::exists(output));
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << "a temporary file was left: " << e.path();
  }
}

TEST(ParquetAddFilters, EncryptedFooterFieldsAndChunksAreRefused) {
  // A footer with FileMetaData field 8 (encryption_algorithm): refused.
  pq::reader file(writers_dir() / "arrow_cpp.parquet");
  auto footer = file.footer_bytes();
  ASSERT_EQ(std::to_integer<int>(footer.back()), 0);
  footer.pop_back();                                      // the stop byte of FileMetaData
  footer.push_back(std::byte{0x0C});                      // field, type struct, long form id
  footer.push_back(std::byte{0x10});                      // zigzag(8)
  footer.push_back(std::byte{0x00});                      // empty struct (a union with nothing set)
  footer.push_back(std::byte{0x00});                      // stop
  EXPECT_EQ(bloomkit::test::error_code_of([&] { (void)pq::rewrite_footer_filters(footer, {}); }),
            bloomkit::errc::unsupported);
  const pq::filter_placement zero{0, 0, 0, 10};
  EXPECT_EQ(bloomkit::test::error_code_of(
                [&] { (void)pq::rewrite_footer_filters(file.footer_bytes(), std::span(&zero, 1)); }),
            bloomkit::errc::invalid_argument);
}

}  // namespace
