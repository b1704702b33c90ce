// bloomkit/parquet.hpp - the split-block Bloom filters inside Parquet files:
// read them, probe them as the writer's engine does, and write files that
// carry bloomkit's filters.
//
//   parquet::reader file("events.parquet");            // reads and checks the footer
//   std::size_t col = file.column_index("user_id");
//   auto bytes = parquet::encode_value(file.metadata().columns[col], "42");
//   for (std::size_t rg = 0; rg < file.metadata().row_groups.size(); ++rg)
//     if (auto f = file.bloom_filter(rg, col); f && !f->filter.may_contain(bytes))
//       ;  // row group rg cannot hold 42: a reader may skip it
//
// Layout (apache/parquet-format, facts in docs/PARQUET.md §1-2):
//   "PAR1" ... column data ... [BloomFilterHeader + bitset]... FileMetaData <u32 LE length> "PAR1"
// ColumnMetaData.bloom_filter_offset is the absolute offset of a header in
// the Thrift compact protocol, immediately followed by numBytes of bitset;
// bloom_filter_length (format 2.10+) counts header + bitset. Older writers
// (parquet-mr <= 1.13) omit the length: the header is read first.
//
// Pieces:
//   parquet/thrift_compact.hpp    bounds-checked, depth-limited compact protocol reader/writer
//   parquet/metadata.hpp  FileMetaData and BloomFilterHeader codecs (decode_file_metadata,
//                                decode_bloom_filter_header, encode_bloom_filter_header)
//   parquet/values.hpp    text -> the bytes Parquet hashes (encode_value, encode_hex)
//   parquet/writer.hpp    a minimal one-column file writer (write_file)
//   parquet/footer_rewrite.hpp  the footer re-encoded with new filter offsets (rewrite_footer_filters),
//                                for write_with_filters
//
// Untrusted files: every offset and length is checked against the file's size
// before it is read or anything is allocated for it; failures are
// bloomkit::error with errc::truncated, errc::corrupt, errc::io or
// errc::unsupported (encrypted footers, other filter algorithms).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/file_io.hpp"
#include "bloomkit/parquet/footer_rewrite.hpp"
#include "bloomkit/parquet/metadata.hpp"
#include "bloomkit/parquet/values.hpp"
#include "bloomkit/parquet/writer.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit::parquet {

/// "PAR1": the first and last four bytes of every unencrypted Parquet file.
inline constexpr std::string_view magic = "PAR1";

/// The key type of a column's values (docs/KEYS.md, "Where each source type
/// goes"): its physical type's, INT32 int32, INT64 int64, FLOAT float32,
/// DOUBLE float64, BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY and INT96 bytes (their
/// plain encoding is the bytes the writer hashed); BOOLEAN, which Parquet
/// writers give no filter, unspecified.
inline key_type column_key_type(const column_descriptor& column) noexcept {
  switch (column.type) {
    case physical_type::int32: return key_type::int32;
    case physical_type::int64: return key_type::int64;
    case physical_type::float_: return key_type::float32;
    case physical_type::double_: return key_type::float64;
    case physical_type::byte_array:
    case physical_type::fixed_len_byte_array:
    case physical_type::int96: return key_type::bytes;
    case physical_type::boolean: return key_type::unspecified;
  }
  return key_type::unspecified;
}

/// One column chunk's filter as stored in the file. `filter` is untyped: it
/// answers a value's plain-encoded bytes (encode_value) exactly as the
/// writer hashed them; `filter.adopt_key_type(keys)` makes it answer the
/// column's values by type instead (an int64 into an INT32 column's filter
/// when it fits, ...), as `bloomkit parquet extract` records in its file.
struct column_bloom_filter {
  std::uint64_t offset = 0;                    ///< where the header starts
  std::optional<std::int32_t> declared_length;  ///< bloom_filter_length, if the writer set it
  bloom_filter_header header;                  ///< the decoded header
  split_block_bloom filter;                    ///< the bitset, ready to query (XXH64 seed 0)
  key_type keys = key_type::unspecified;       ///< the column's key type (column_key_type)
};

/// The design point bloomkit reports for a filter read from a file, which
/// does not record one: the ndv at which the spec's sizing formula
/// m = -8 ndv / ln(1 - p^(1/8)) gives this many bits at p = 1 %.
inline std::uint64_t nominal_capacity(std::uint64_t num_bytes, double fpp = 0.01) {
  const double m = static_cast<double>(num_bytes) * 8.0;
  const double ndv = -m * std::log(1.0 - std::pow(fpp, 1.0 / 8.0)) / 8.0;
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(ndv));
}

/// A split_block_bloom over a Parquet bitset, with nominal_capacity() as its
/// design point. Throws errc::corrupt unless the size is a positive multiple of 32.
inline split_block_bloom filter_from_bitset(std::span<const std::byte> bitset) {
  return from_parquet_bitset(bitset, nominal_capacity(bitset.size()), 0.01);
}

/// The bytes a Parquet writer embeds for `filter`: the canonical
/// BloomFilterHeader followed by the bitset. Throws errc::mismatch unless the
/// filter hashes with XXH64 seed 0 (a Parquet reader would compute other hashes).
inline std::vector<std::byte> encode_bloom_filter(const split_block_bloom_view& filter) {
  bloomkit::detail::require(same_hash_function(filter.hash(), parquet_hash_spec), errc::mismatch,
                            "a Parquet Bloom filter must hash with XXH64 seed 0; this filter uses " +
                                std::string(to_string(filter.hash().algorithm)) + " seed " +
                                std::to_string(filter.hash().seed));
  std::vector<std::byte> out = encode_bloom_filter_header(filter.size_in_bytes());
  const auto bitset = to_parquet_bitset(filter);
  out.insert(out.end(), bitset.begin(), bitset.end());
  return out;
}

/// Reads a Parquet file's footer and its Bloom filters, from a path (read
/// on demand: only the footer and the filters asked for) or from bytes in
/// memory. Not thread-safe for concurrent bloom_filter() calls on a path
/// (one stream); copies of the metadata are.
class reader {
 public:
  /// Opens `path` and decodes its footer. errc::io if it cannot be opened or
  /// read; see decode_footer() for the rest.
  explicit reader(const std::filesystem::path& path) : name_(path.string()) {
    auto stream = std::make_unique<std::ifstream>(path, std::ios::binary);
    while (!stream->is_open() && errno == EINTR) stream->open(path, std::ios::binary);  // a signal, not a refusal
    if (!*stream) throw error(errc::io, "cannot open " + name_ + " for reading");
    stream->seekg(0, std::ios::end);
    const auto end = stream->tellg();
    if (end < 0) throw error(errc::io, "cannot determine the size of " + name_);
    size_ = static_cast<std::uint64_t>(end);
    stream_ = std::move(stream);
    load_footer();
  }

  /// A file held in memory (copied). `name` appears in messages.
  explicit reader(std::vector<std::byte> bytes, std::string name = "<memory>")
      : name_(std::move(name)), bytes_(std::move(bytes)), size_(bytes_.size()) {
    load_footer();
  }

  [[nodiscard]] const file_metadata& metadata() const noexcept { return metadata_; }
  [[nodiscard]] std::uint64_t file_size() const noexcept { return size_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Where the footer (FileMetaData) starts: everything before it is data,
  /// page indexes and filters.
  [[nodiscard]] std::uint64_t footer_start() const noexcept { return footer_start_; }
  /// The footer's bytes (FileMetaData, Thrift compact), as stored.
  [[nodiscard]] std::vector<std::byte> footer_bytes() { return read_at(footer_start_, size_ - 8 - footer_start_); }
  /// `length` bytes at `offset`; errc::truncated past the end of the file.
  [[nodiscard]] std::vector<std::byte> bytes_at(std::uint64_t offset, std::uint64_t length) { return read_at(offset, length); }

  /// The index of the leaf column called `column`: its spelling (the
  /// dotted path "a.b.c"; `list` shows it, quoted as "`x.y`" / "`x`.`y`"
  /// where two columns' dotted paths are the same), its dotted path, or its
  /// last path element. errc::invalid_argument, listing the spellings, if
  /// none matches or a dotted path or element names several columns: a
  /// lookup never answers for a column other than the one meant.
  [[nodiscard]] std::size_t column_index(std::string_view column) const {
    const auto& cols = metadata_.columns;
    const auto only = [&](auto&& matches, const char* what) -> std::optional<std::size_t> {
      std::optional<std::size_t> found;
      std::string names;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        if (!matches(cols[i])) continue;
        names += (names.empty() ? "" : ", ") + cols[i].dotted_path();
        if (found) {
          for (std::size_t j = i + 1; j < cols.size(); ++j) {
            if (matches(cols[j])) names += ", " + cols[j].dotted_path();
          }
          throw error(errc::invalid_argument, std::string(what) + " '" + std::string(column) + "' is ambiguous in " +
                                                  name_ + " (it names " + names + "); give one of these spellings");
        }
        found = i;
      }
      return found;
    };
    if (auto i = only([&](const column_descriptor& c) { return c.dotted_path() == column; }, "column")) return *i;
    if (auto i = only([&](const column_descriptor& c) { return detail::joined_path(c.path) == column; }, "column path")) {
      return *i;
    }
    if (auto i = only([&](const column_descriptor& c) { return !c.path.empty() && c.path.back() == column; }, "column name")) {
      return *i;
    }
    std::string list;
    for (const auto& c : cols) list += (list.empty() ? "" : ", ") + c.dotted_path();
    throw error(errc::invalid_argument, name_ + " has no column '" + std::string(column) + "' (columns: " + list + ")");
  }

  /// The filter of `column` in `row_group`, or nullopt when the writer wrote
  /// none. errc::invalid_argument for indices out of range; errc::corrupt for
  /// an offset or length outside the file or a length that disagrees with the
  /// header; errc::truncated when the bitset runs past the end of the file;
  /// errc::unsupported for encrypted column metadata or another algorithm.
  [[nodiscard]] std::optional<column_bloom_filter> bloom_filter(std::size_t row_group, std::size_t column) {
    const auto& rgs = metadata_.row_groups;
    bloomkit::detail::require(row_group < rgs.size(), errc::invalid_argument,
                              name_ + ": row group " + std::to_string(row_group) + " does not exist (the file has " +
                                  std::to_string(rgs.size()) + ")");
    bloomkit::detail::require(column < metadata_.columns.size(), errc::invalid_argument,
                              name_ + ": column index " + std::to_string(column) + " does not exist");
    const column_chunk& chunk = rgs[row_group].columns[column];
    const std::string where = name_ + ", row group " + std::to_string(row_group) + ", column " +
                              metadata_.columns[column].dotted_path();
    if (!chunk.has_metadata) {
      throw error(errc::unsupported, where + ": the column metadata is encrypted or missing");
    }
    if (!chunk.bloom_filter_offset) return std::nullopt;
    const std::int64_t offset = *chunk.bloom_filter_offset;
    // Filters live between the leading magic and the footer.
    if (offset < 4 || static_cast<std::uint64_t>(offset) >= footer_start_) {
      const bool past_end = offset >= 0 && static_cast<std::uint64_t>(offset) >= size_;
      throw error(errc::corrupt, where + ": bloom_filter_offset " + std::to_string(offset) +
                                     (past_end ? " is past the end of the " + std::to_string(size_) + "-byte file"
                                               : " is outside the data section (bytes 4 to " +
                                                     std::to_string(footer_start_) + ")"));
    }
    const auto start = static_cast<std::uint64_t>(offset);
    const std::uint64_t available = footer_start_ - start;
    bloom_filter_header header;
    std::vector<std::byte> buffer;
    if (chunk.bloom_filter_length) {
      const std::int32_t length = *chunk.bloom_filter_length;
      if (length <= 0 || static_cast<std::uint64_t>(length) > available) {
        throw error(errc::corrupt, where + ": bloom_filter_length " + std::to_string(length) + " at offset " +
                                       std::to_string(offset) + " runs outside the data section (" +
                                       std::to_string(available) + " bytes left before the footer)");
      }
      buffer = read_at(start, static_cast<std::uint64_t>(length));
      header = decode_header(buffer, where);
      if (header.header_length + static_cast<std::uint64_t>(header.num_bytes) != static_cast<std::uint64_t>(length)) {
        throw error(errc::corrupt, where + ": bloom_filter_length " + std::to_string(length) +
                                       " differs from the header's " + std::to_string(header.header_length) +
                                       " bytes + numBytes " + std::to_string(header.num_bytes));
      }
    } else {
      // No length: read a guess that holds any real header (they are 15-19
      // bytes; Arrow guesses 256), then the bitset once numBytes is known.
      std::uint64_t guess = std::min<std::uint64_t>(256, available);
      for (;;) {
        buffer = read_at(start, guess);
        try {
          header = decode_header(buffer, where);
          break;
        } catch (const error& e) {
          if (e.code() != errc::truncated || guess == available) throw;
          guess = std::min<std::uint64_t>(guess * 16, available);
        }
      }
      const std::uint64_t total = header.header_length + static_cast<std::uint64_t>(header.num_bytes);
      if (total > available) {
        throw error(errc::truncated, where + ": the header at offset " + std::to_string(offset) + " claims a " +
                                         std::to_string(header.num_bytes) + "-byte bitset but only " +
                                         std::to_string(available - header.header_length) +
                                         " bytes precede the footer");
      }
      buffer = read_at(start, total);
    }
    return column_bloom_filter{start, chunk.bloom_filter_length, header,
                               filter_from_bitset(std::span<const std::byte>(buffer).subspan(header.header_length)),
                               column_key_type(metadata().columns[column])};
  }

 private:
  bloom_filter_header decode_header(std::span<const std::byte> bytes, const std::string& where) const {
    try {
      return decode_bloom_filter_header(bytes);
    } catch (const error& e) {
      throw error::in_context(where + ": ", e);
    }
  }

  std::vector<std::byte> read_at(std::uint64_t offset, std::uint64_t length) {
    if (offset > size_ || length > size_ - offset) {
      throw error(errc::truncated, name_ + ": reading " + std::to_string(length) + " bytes at offset " +
                                       std::to_string(offset) + " runs past the end of the " + std::to_string(size_) +
                                       "-byte file");
    }
    if (!stream_) {
      const auto first = bytes_.begin() + static_cast<std::ptrdiff_t>(offset);
      return {first, first + static_cast<std::ptrdiff_t>(length)};
    }
    std::vector<std::byte> out(static_cast<std::size_t>(length));
    stream_->clear();
    stream_->seekg(static_cast<std::streamoff>(offset));
    stream_->read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
    if (!*stream_) throw error(errc::io, "cannot read " + std::to_string(length) + " bytes at offset " + std::to_string(offset) + " of " + name_);
    return out;
  }

  void load_footer() {
    if (size_ < 12) {
      throw error(errc::truncated, name_ + ": " + std::to_string(size_) +
                                       " bytes cannot be a Parquet file (at least 12: magic, footer length, magic)");
    }
    const auto head = read_at(0, 4);
    const auto tail = read_at(size_ - 8, 8);
    auto is_magic = [](std::span<const std::byte> b, std::string_view m) {
      return std::equal(b.begin(), b.end(), m.begin(), [](std::byte x, char c) { return std::to_integer<char>(x) == c; });
    };
    const auto tail_magic = std::span<const std::byte>(tail).subspan(4);
    if (is_magic(tail_magic, "PARE")) {
      throw error(errc::unsupported, name_ + ": the footer is encrypted (magic PARE); bloomkit reads plaintext footers only");
    }
    if (!is_magic(tail_magic, magic) || !is_magic(head, magic)) {
      throw error(errc::corrupt, name_ + ": not a Parquet file (it must start and end with \"PAR1\")");
    }
    const std::uint32_t length = bloomkit::detail::load_le<std::uint32_t>(tail.data());
    if (length == 0 || length > size_ - 12) {
      throw error(errc::corrupt, name_ + ": footer length " + std::to_string(length) + " does not fit in a " +
                                     std::to_string(size_) + "-byte file");
    }
    footer_start_ = size_ - 8 - length;
    const auto footer = read_at(footer_start_, length);
    try {
      metadata_ = decode_file_metadata(footer);
    } catch (const error& e) {
      throw error::in_context(name_ + ": ", e);
    }
  }

  std::string name_;
  std::vector<std::byte> bytes_;
  std::unique_ptr<std::ifstream> stream_;
  std::uint64_t size_ = 0;
  std::uint64_t footer_start_ = 0;
  file_metadata metadata_;
};

/// A new filter for one column chunk (write_with_filters).
struct chunk_filter {
  std::size_t row_group = 0;
  std::size_t column = 0;
  split_block_bloom filter{block_filter_params{1, 8, 1, 0.01, parquet_hash_spec}};
};

/// Writes `output` as `input` with filters added: every byte of `input`
/// before its footer (pages, dictionaries, column and offset indexes, any
/// filters already there) copied unchanged, then each new filter (canonical
/// BloomFilterHeader + bitset) in the order given, then the footer with
/// those chunks' bloom_filter_offset and bloom_filter_length pointing at
/// them (rewrite_footer_filters; a chunk's old filter, if any, stays in the
/// file unreferenced), its length and "PAR1". Written atomically
/// (atomic_file_writer): on any error nothing is written. Throws
/// errc::invalid_argument for input == output, a row group or column out of
/// range, or two filters for one chunk; errc::mismatch for a filter that
/// does not hash with XXH64 seed 0; errc::unsupported for encrypted footers
/// or chunks; the reader's errors for a file that is not valid Parquet.
inline void write_with_filters(const std::filesystem::path& input, const std::filesystem::path& output,
                               std::span<const chunk_filter> filters) {
  std::error_code same_error;
  if (std::filesystem::exists(output) && std::filesystem::equivalent(input, output, same_error)) {
    throw error(errc::invalid_argument, "the output " + output.string() + " is the input; write a new file");
  }
  reader file(input);
  const auto& meta = file.metadata();
  std::vector<std::vector<std::byte>> encoded;
  std::vector<filter_placement> placements;
  std::uint64_t at = file.footer_start();
  for (const auto& f : filters) {
    bloomkit::detail::require(f.row_group < meta.row_groups.size() && f.column < meta.columns.size(),
                              errc::invalid_argument,
                              file.name() + ": no row group " + std::to_string(f.row_group) + " / column " +
                                  std::to_string(f.column));
    encoded.push_back(encode_bloom_filter(f.filter.view()));
    bloomkit::detail::require(encoded.back().size() <= static_cast<std::size_t>(INT32_MAX), errc::invalid_argument,
                              "a filter over 2 GiB does not fit bloom_filter_length");
    placements.push_back(filter_placement{f.row_group, f.column, static_cast<std::int64_t>(at),
                                          static_cast<std::int32_t>(encoded.back().size())});
    at += encoded.back().size();
  }
  std::vector<std::byte> footer;
  try {
    footer = rewrite_footer_filters(file.footer_bytes(), placements);
  } catch (const error& e) {
    throw error::in_context(file.name() + ": ", e);
  }
  bloomkit::detail::require(footer.size() <= UINT32_MAX, errc::invalid_argument, "the new footer exceeds 4 GiB");
  // Re-read the new footer as any reader would: the rewrite must decode.
  (void)decode_file_metadata(footer);

  atomic_file_writer out{output};
  constexpr std::uint64_t chunk = 1 << 20;
  for (std::uint64_t offset = 0; offset < file.footer_start(); offset += chunk) {
    out.write(file.bytes_at(offset, std::min(chunk, file.footer_start() - offset)));
  }
  for (const auto& bytes : encoded) out.write(bytes);
  out.write(footer);
  std::array<std::byte, 8> tail{};
  bloomkit::detail::store_le(tail.data(), static_cast<std::uint32_t>(footer.size()));
  for (std::size_t i = 0; i < 4; ++i) tail[4 + i] = static_cast<std::byte>(magic[i]);
  out.write(tail);
  out.commit();
}

}  // namespace bloomkit::parquet
