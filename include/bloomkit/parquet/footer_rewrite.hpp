// bloomkit/parquet/footer_rewrite.hpp - a Parquet footer (FileMetaData,
// Thrift compact) re-encoded with new bloom_filter_offset / _length in chosen
// column chunks, every other byte of it kept. Included by
// bloomkit/parquet.hpp; use the names from there.
//
// The rewrite walks FileMetaData > row_groups > RowGroup.columns >
// ColumnChunk.meta_data and copies every other field's value byte for byte
// (a compact value is self-delimiting and its bytes do not depend on the
// field before it). Field and list headers are copied as they came too (a
// writer may use the long form where the short one fits): only in a chosen
// ColumnMetaData, after the first field dropped or added, do the id deltas
// change, so only there are headers written anew. In a chosen
// ColumnMetaData, fields 14 (bloom_filter_offset) and 15
// (bloom_filter_length) are dropped and written anew in id order. With no
// placements the output is the input's FileMetaData, byte for byte.
// Unknown fields are kept as they are. Refused (errc::unsupported): a footer
// with encryption_algorithm or footer_signing_key_metadata (FileMetaData
// 8/9: a plaintext-footer encrypted file, whose signature a rewrite would
// break) and chosen chunks with crypto metadata or no ColumnMetaData.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/parquet/metadata.hpp"
#include "bloomkit/parquet/thrift_compact.hpp"

namespace bloomkit::parquet {

/// Where a column chunk's filter (BloomFilterHeader + bitset) lies in the file.
struct filter_placement {
  std::size_t row_group = 0;
  std::size_t column = 0;
  std::int64_t offset = 0;  ///< absolute offset of the header, > 0
  std::int32_t length = 0;  ///< header + bitset bytes, > 0
};

namespace detail {

// compact_reader, compact_writer, ctype, field_header: metadata.hpp's using-declarations.
class footer_rewriter {
 public:
  footer_rewriter(std::span<const std::byte> footer, std::span<const filter_placement> placements)
      : in_(footer, "Parquet footer"), footer_(footer), placements_(placements), out_writer_(out_) {}

  std::vector<std::byte> run() {
    file_metadata();
    for (std::size_t i = 0; i < placements_.size(); ++i) {
      if (!used_[i]) {
        throw error(errc::invalid_argument, "no column " + std::to_string(placements_[i].column) + " in row group " +
                                                std::to_string(placements_[i].row_group) + " of the footer");
      }
    }
    return std::move(out_);
  }

 private:
  // The input's bytes from `start` to the reader's position.
  std::span<const std::byte> since(std::size_t start) const {
    return footer_.subspan(start, in_.position() - start);
  }

  // Emits the header of field `f`, read from `header_start`: as it came when
  // the fields before it are unchanged (`as_read`), else anew.
  void header(const field_header& f, std::size_t header_start, std::size_t header_end, bool as_read) {
    if (as_read) {
      out_writer_.raw(footer_.subspan(header_start, header_end - header_start));
      out_writer_.copied_field(f.id);
    } else {
      out_writer_.field(f.id, f.type);
    }
  }

  // Copies a field just read (its header from `header_start`) and its value.
  void copy_field(const field_header& f, std::size_t header_start, bool as_read) {
    header(f, header_start, in_.position(), as_read);
    const std::size_t start = in_.position();
    in_.skip(f.type);
    out_writer_.raw(since(start));
  }

  // Reads a list-of-structs header and copies it as it came.
  std::uint32_t struct_list(const char* what) {
    const std::size_t start = in_.position();
    const auto h = in_.read_list_header();
    if (h.elem_type != ctype::struct_) in_.fail(errc::corrupt, std::string(what) + " is not a list of structs");
    out_writer_.raw(since(start));
    return h.size;
  }

  void file_metadata() {
    in_.enter();
    std::int16_t last = 0;
    bool row_groups_seen = false;
    for (;;) {
      const std::size_t at = in_.position();
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (f.id == 8 || f.id == 9) {
        throw error(errc::unsupported, "the footer belongs to an encrypted file (FileMetaData field " +
                                           std::to_string(f.id) + "); its signature would not survive a rewrite");
      }
      if (f.id == 4) {
        in_.expect(f, ctype::list, "row_groups");
        if (row_groups_seen) in_.fail(errc::corrupt, "row_groups given twice");
        row_groups_seen = true;
        header(f, at, in_.position(), true);
        in_.enter();
        const std::uint32_t n = struct_list("row_groups");
        for (std::uint32_t r = 0; r < n; ++r) row_group(r);
        in_.leave();
      } else {
        copy_field(f, at, true);
      }
    }
    out_writer_.end_struct();
    in_.leave();
  }

  void row_group(std::size_t r) {
    in_.enter();
    out_writer_.begin_struct();
    std::int16_t last = 0;
    bool columns_seen = false;
    for (;;) {
      const std::size_t at = in_.position();
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (f.id == 1) {
        in_.expect(f, ctype::list, "columns");
        if (columns_seen) in_.fail(errc::corrupt, "columns given twice");
        columns_seen = true;
        header(f, at, in_.position(), true);
        in_.enter();
        const std::uint32_t n = struct_list("columns");
        for (std::uint32_t c = 0; c < n; ++c) column_chunk(r, c);
        in_.leave();
      } else {
        copy_field(f, at, true);
      }
    }
    out_writer_.end_struct();
    in_.leave();
  }

  // The placement for (r, c), or nullptr.
  const filter_placement* placement_for(std::size_t r, std::size_t c) {
    for (std::size_t i = 0; i < placements_.size(); ++i) {
      if (placements_[i].row_group == r && placements_[i].column == c) {
        if (used_[i]) throw error(errc::invalid_argument, "two filters for one column chunk");
        used_[i] = true;
        return &placements_[i];
      }
    }
    return nullptr;
  }

  void column_chunk(std::size_t r, std::size_t c) {
    in_.enter();
    out_writer_.begin_struct();
    const filter_placement* p = placement_for(r, c);
    const std::string where = "row group " + std::to_string(r) + ", column " + std::to_string(c);
    std::int16_t last = 0;
    bool placed = false;
    for (;;) {
      const std::size_t at = in_.position();
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (p && (f.id == 8 || f.id == 9)) {
        throw error(errc::unsupported, where + ": the column chunk is encrypted (ColumnChunk field " +
                                           std::to_string(f.id) + "); bloomkit adds filters to plaintext chunks only");
      }
      if (f.id == 3 && p) {
        in_.expect(f, ctype::struct_, "meta_data");
        if (placed) in_.fail(errc::corrupt, "meta_data given twice");
        placed = true;
        header(f, at, in_.position(), true);
        column_metadata(*p);
      } else {
        copy_field(f, at, true);
      }
    }
    if (p && !placed) throw error(errc::unsupported, where + ": the column chunk has no ColumnMetaData to record a filter in");
    out_writer_.end_struct();
    in_.leave();
  }

  void column_metadata(const filter_placement& p) {
    in_.enter();
    out_writer_.begin_struct();
    std::int16_t last = 0;
    bool written = false;
    bool as_read = true;  // no field dropped or added before this one
    auto place = [&] {
      out_writer_.field_i64(14, p.offset);
      out_writer_.field_i32(15, p.length);
      written = true;
      as_read = false;
    };
    for (;;) {
      const std::size_t at = in_.position();
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (f.id == 14 || f.id == 15) {
        in_.skip(f.type);  // the old filter's place: replaced
        as_read = false;
        continue;
      }
      if (!written && f.id > 15) place();
      copy_field(f, at, as_read);
    }
    if (!written) place();
    out_writer_.end_struct();
    in_.leave();
  }

  compact_reader in_;
  std::span<const std::byte> footer_;
  std::span<const filter_placement> placements_;
  std::vector<bool> used_ = std::vector<bool>(placements_.size(), false);
  std::vector<std::byte> out_;
  compact_writer out_writer_;
};

}  // namespace detail

/// `footer` (a FileMetaData in the Thrift compact protocol) with each
/// placement's ColumnMetaData.bloom_filter_offset / bloom_filter_length set
/// (replacing any there); every other field's bytes kept. Throws
/// errc::invalid_argument for a placement outside the footer's row groups or
/// columns, two placements for one chunk, or a non-positive offset/length;
/// errc::unsupported for encrypted footers or chunks (see the file comment);
/// errc::corrupt / errc::truncated for a footer that does not decode.
inline std::vector<std::byte> rewrite_footer_filters(std::span<const std::byte> footer,
                                                     std::span<const filter_placement> placements) {
  for (const auto& p : placements) {
    if (p.offset <= 0 || p.length <= 0) {
      throw error(errc::invalid_argument, "a filter placement needs a positive offset and length");
    }
  }
  return detail::footer_rewriter(footer, placements).run();
}

}  // namespace bloomkit::parquet
