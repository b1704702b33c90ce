// fuzz/parquet_footer_rewrite_fuzz.cpp - libFuzzer target over
// parquet::rewrite_footer_filters (bloomkit/parquet/footer_rewrite.hpp):
// the footer of an untrusted Parquet file, re-encoded with new filter places.
//
// Input: byte 0 = how many placements (0-3), then per placement 2 bytes (row
// group, column); the rest is the footer (FileMetaData bytes). It checks,
// beyond "no crash, no sanitizer report, only bloomkit::error":
//   * with no placements a footer that decodes is copied byte for byte;
//   * a rewrite that succeeds decodes whenever the input decoded, with the
//     same row groups and columns, and each placed chunk reports exactly the
//     offset and length given.
// tests run fuzz/corpus/parquet_footer_rewrite through it (its _replay test).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "bloomkit/parquet.hpp"

namespace bloomkit_footer_rewrite_fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "parquet_footer_rewrite_fuzz: invariant broken: %s\n", what);
    std::abort();
  }
}

inline void check_input(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return;
  const std::size_t count = data[0] % 4;
  if (size < 1 + 2 * count) return;
  std::vector<bloomkit::parquet::filter_placement> placements;
  for (std::size_t i = 0; i < count; ++i) {
    placements.push_back({data[1 + 2 * i], data[2 + 2 * i], static_cast<std::int64_t>(1000 + 100 * i),
                          static_cast<std::int32_t>(40 + i)});
  }
  const std::span<const std::byte> footer(reinterpret_cast<const std::byte*>(data) + 1 + 2 * count,
                                          size - 1 - 2 * count);
  std::optional<bloomkit::parquet::file_metadata> before;
  try {
    before = bloomkit::parquet::decode_file_metadata(footer);
  } catch (const bloomkit::error&) {
  }
  std::vector<std::byte> out;
  try {
    out = bloomkit::parquet::rewrite_footer_filters(footer, placements);
  } catch (const bloomkit::error&) {
    return;
  }
  if (placements.empty() && before) {
    require(out.size() <= footer.size() && std::equal(out.begin(), out.end(), footer.begin()),
            "a footer rewritten with no placements is its own prefix");
  }
  if (!before) return;
  bloomkit::parquet::file_metadata after;
  try {
    after = bloomkit::parquet::decode_file_metadata(out);
  } catch (const bloomkit::error&) {
    require(false, "a rewrite of a footer that decodes decodes");
  }
  require(after.row_groups.size() == before->row_groups.size(), "same row groups");
  require(after.columns.size() == before->columns.size(), "same columns");
  for (const auto& p : placements) {
    require(p.row_group < after.row_groups.size() && p.column < after.row_groups[p.row_group].columns.size(),
            "a placement the rewrite accepted names a real chunk");
    const auto& chunk = after.row_groups[p.row_group].columns[p.column];
    require(chunk.bloom_filter_offset && *chunk.bloom_filter_offset == p.offset, "the offset given");
    require(chunk.bloom_filter_length && *chunk.bloom_filter_length == p.length, "the length given");
  }
}

}  // namespace bloomkit_footer_rewrite_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bloomkit_footer_rewrite_fuzz::check_input(data, size);
  return 0;
}
