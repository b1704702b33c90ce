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
//
// Untrusted files: every offset and length is checked against the file's size
// before it is read or anything is allocated for it; failures are
// bloomkit::error with errc::truncated, errc::corrupt, errc::io or
// errc::unsupported (encrypted footers, other filter algorithms).
#pragma once

#include <algorithm>
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

#include "bloomkit/parquet/metadata.hpp"
#include "bloomkit/parquet/values.hpp"
#include "bloomkit/parquet/writer.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit::parquet {

/// "PAR1": the first and last four bytes of every unencrypted Parquet file.
inline constexpr std::string_view magic = "PAR1";

/// One column chunk's filter as stored in the file.
struct column_bloom_filter {
  std::uint64_t offset = 0;                    ///< where the header starts
  std::optional<std::int32_t> declared_length;  ///< bloom_filter_length, if the writer set it
  bloom_filter_header header;                  ///< the decoded header
  split_block_bloom filter;                    ///< the bitset, ready to query (XXH64 seed 0)
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

  /// The index of the leaf column called `name`: its dotted path ("a.b.c")
  /// or, if unambiguous, its last path element. errc::invalid_argument,
  /// listing the columns, if none or several match.
  [[nodiscard]] std::size_t column_index(std::string_view column) const {
    const auto& cols = metadata_.columns;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (cols[i].dotted_path() == column) return i;
    }
    std::optional<std::size_t> found;
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (!cols[i].path.empty() && cols[i].path.back() == column) {
        if (found) throw error(errc::invalid_argument, "column name '" + std::string(column) + "' is ambiguous in " + name_ + "; give its dotted path");
        found = i;
      }
    }
    if (found) return *found;
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
                               filter_from_bitset(std::span<const std::byte>(buffer).subspan(header.header_length))};
  }

 private:
  bloom_filter_header decode_header(std::span<const std::byte> bytes, const std::string& where) const {
    try {
      return decode_bloom_filter_header(bytes);
    } catch (const error& e) {
      throw error(e.code(), where + ": " + e.what());
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
      throw error(e.code(), name_ + ": " + e.what());
    }
  }

  std::string name_;
  std::vector<std::byte> bytes_;
  std::unique_ptr<std::ifstream> stream_;
  std::uint64_t size_ = 0;
  std::uint64_t footer_start_ = 0;
  file_metadata metadata_;
};

}  // namespace bloomkit::parquet
