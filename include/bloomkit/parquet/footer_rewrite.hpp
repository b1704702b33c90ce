// bloomkit/parquet/footer_rewrite.hpp - a Parquet footer (FileMetaData,
// Thrift compact) re-encoded with new bloom_filter_offset / _length in chosen
// column chunks, every other byte of it kept. Included by
// bloomkit/parquet.hpp; use the names from there.
//
// The rewrite walks FileMetaData > row_groups > RowGroup.columns >
// ColumnChunk.meta_data and copies every other field's value byte for byte
// (a compact value is self-delimiting and its bytes do not depend on the
// field before it; only the field header's id delta does, so headers are
// re-emitted). In a chosen ColumnMetaData, fields 14 (bloom_filter_offset)
// and 15 (bloom_filter_length) are dropped and written anew in id order.
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
  // Copies the value of a field just read (header already consumed).
  void copy_value(const field_header& f) {
    const std::size_t start = in_.position();
    in_.skip(f.type);
    out_writer_.field(f.id, f.type);
    out_.insert(out_.end(), footer_.begin() + static_cast<std::ptrdiff_t>(start),
                footer_.begin() + static_cast<std::ptrdiff_t>(in_.position()));
  }

  void file_metadata() {
    in_.enter();
    std::int16_t last = 0;
    bool row_groups_seen = false;
    for (;;) {
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
        out_writer_.field(4, ctype::list);
        in_.enter();
        const auto h = in_.read_list_header();
        if (h.elem_type != ctype::struct_) in_.fail(errc::corrupt, "row_groups is not a list of structs");
        out_writer_.list(ctype::struct_, h.size);
        for (std::uint32_t r = 0; r < h.size; ++r) row_group(r);
        in_.leave();
      } else {
        copy_value(f);
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
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (f.id == 1) {
        in_.expect(f, ctype::list, "columns");
        if (columns_seen) in_.fail(errc::corrupt, "columns given twice");
        columns_seen = true;
        out_writer_.field(1, ctype::list);
        in_.enter();
        const auto h = in_.read_list_header();
        if (h.elem_type != ctype::struct_) in_.fail(errc::corrupt, "columns is not a list of structs");
        out_writer_.list(ctype::struct_, h.size);
        for (std::uint32_t c = 0; c < h.size; ++c) column_chunk(r, c);
        in_.leave();
      } else {
        copy_value(f);
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
        out_writer_.field(3, ctype::struct_);
        column_metadata(*p);
      } else {
        copy_value(f);
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
    auto place = [&] {
      out_writer_.field_i64(14, p.offset);
      out_writer_.field_i32(15, p.length);
      written = true;
    };
    for (;;) {
      const auto f = in_.read_field_header(last);
      if (f.type == ctype::stop) break;
      if (f.id == 14 || f.id == 15) {
        in_.skip(f.type);  // the old filter's place: replaced
        continue;
      }
      if (!written && f.id > 15) place();
      copy_value(f);
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
