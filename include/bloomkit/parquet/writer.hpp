// bloomkit/parquet/writer.hpp - a minimal Parquet writer: one
// required column, PLAIN encoding, no compression, one data page per row
// group, and a split-block Bloom filter per row group. Included by
// bloomkit/parquet.hpp; use the names from there.
//
// Its purpose is proof that bloomkit's filters are what Parquet readers
// expect (a real reader such as DuckDB finds them and answers from them),
// not a general writer. File layout, as DuckDB lays it out (docs/PARQUET.md §1):
//   "PAR1"
//   per row group: PageHeader (DATA_PAGE v1) + PLAIN values
//   per row group: BloomFilterHeader + bitset
//   FileMetaData, u32 LE length, "PAR1"
// A REQUIRED column has no repetition or definition levels, so a data page
// is just the PLAIN values: fixed-width little-endian values back to back,
// BYTE_ARRAY values each preceded by a u32 LE length (parquet-format
// Encodings.md "Plain").
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "bloomkit/parquet/metadata.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit::parquet {

/// The one column a written file holds.
struct column_spec {
  std::string name = "value";
  physical_type type = physical_type::int64;
  std::int32_t type_length = 0;  ///< FIXED_LEN_BYTE_ARRAY width
  logical_type logical;          ///< annotation written as LogicalType and ConvertedType

  /// The descriptor a reader sees for this column.
  [[nodiscard]] column_descriptor descriptor() const { return column_descriptor{{name}, type, type_length, logical, name}; }
};

/// The column for a type name: int8, int16, int32, int64, uint8, uint16,
/// uint32, uint64, float, double, string, binary, date, time_ms, time_us,
/// timestamp_ms, timestamp_us, timestamp_ns (UTC), uuid, decimal(P,S)
/// (INT32 for P <= 9, INT64 for P <= 18, else FIXED_LEN_BYTE_ARRAY of the
/// fewest bytes). errc::invalid_argument lists the names for any other;
/// "boolean" is errc::unsupported (no single-value hash is agreed on).
inline column_spec column_for_type(std::string_view type_name, std::string column_name = "value") {
  using k = logical_type::kind;
  column_spec c;
  c.name = std::move(column_name);
  auto integer = [&](physical_type t, int bits, bool is_signed) {
    c.type = t;
    c.logical.id = k::integer;
    c.logical.bit_width = bits;
    c.logical.is_signed = is_signed;
  };
  auto timed = [&](k id, physical_type t, time_unit u) {
    c.type = t;
    c.logical.id = id;
    c.logical.unit = u;
    c.logical.adjusted_to_utc = true;
  };
  if (type_name == "int8") integer(physical_type::int32, 8, true);
  else if (type_name == "int16") integer(physical_type::int32, 16, true);
  else if (type_name == "int32") c.type = physical_type::int32;
  else if (type_name == "int64") c.type = physical_type::int64;
  else if (type_name == "uint8") integer(physical_type::int32, 8, false);
  else if (type_name == "uint16") integer(physical_type::int32, 16, false);
  else if (type_name == "uint32") integer(physical_type::int32, 32, false);
  else if (type_name == "uint64") integer(physical_type::int64, 64, false);
  else if (type_name == "float") c.type = physical_type::float_;
  else if (type_name == "double") c.type = physical_type::double_;
  else if (type_name == "string") {
    c.type = physical_type::byte_array;
    c.logical.id = k::string;
  } else if (type_name == "binary") c.type = physical_type::byte_array;
  else if (type_name == "date") {
    c.type = physical_type::int32;
    c.logical.id = k::date;
  } else if (type_name == "time_ms") timed(k::time, physical_type::int32, time_unit::millis);
  else if (type_name == "time_us") timed(k::time, physical_type::int64, time_unit::micros);
  else if (type_name == "timestamp_ms") timed(k::timestamp, physical_type::int64, time_unit::millis);
  else if (type_name == "timestamp_us") timed(k::timestamp, physical_type::int64, time_unit::micros);
  else if (type_name == "timestamp_ns") timed(k::timestamp, physical_type::int64, time_unit::nanos);
  else if (type_name == "uuid") {
    c.type = physical_type::fixed_len_byte_array;
    c.type_length = 16;
    c.logical.id = k::uuid;
  } else if (type_name.starts_with("decimal(") && type_name.ends_with(")")) {
    const std::string_view inner = type_name.substr(8, type_name.size() - 9);
    const std::size_t comma = inner.find(',');
    int p = -1, s = -1;
    auto number = [](std::string_view d, int& out) {
      if (d.empty() || d.size() > 2) return false;
      out = 0;
      for (char ch : d) {
        if (ch < '0' || ch > '9') return false;
        out = out * 10 + (ch - '0');
      }
      return true;
    };
    if (comma == std::string_view::npos || !number(inner.substr(0, comma), p) || !number(inner.substr(comma + 1), s) ||
        p < 1 || p > 38 || s > p) {
      throw error(errc::invalid_argument, "type '" + std::string(type_name) +
                                              "': expected decimal(P,S) with 1 <= P <= 38 and 0 <= S <= P");
    }
    c.logical.id = k::decimal;
    c.logical.precision = p;
    c.logical.scale = s;
    if (p <= 9) {
      c.type = physical_type::int32;
    } else if (p <= 18) {
      c.type = physical_type::int64;
    } else {
      // fewest bytes n with 10^p - 1 < 2^(8n-1): log2(10) = 3.3219...
      c.type = physical_type::fixed_len_byte_array;
      c.type_length = static_cast<std::int32_t>((p * 3.321928094887362 + 1) / 8) + 1;
    }
  } else if (type_name == "boolean") {
    throw error(errc::unsupported, "BOOLEAN columns get no Bloom filter: writers disagree on how one value is "
                                   "hashed (Arrow C++ refuses, parquet-java and DuckDB skip it)");
  } else {
    throw error(errc::invalid_argument,
                "unknown column type '" + std::string(type_name) +
                    "' (known: int8 int16 int32 int64 uint8 uint16 uint32 uint64 float double string binary date "
                    "time_ms time_us timestamp_ms timestamp_us timestamp_ns uuid decimal(P,S))");
  }
  return c;
}

/// A zeroed split_block_bloom to fill and then fold (fold_to) down to `fpp`:
/// twice the smallest power-of-two block count that holds `max_ndv` distinct
/// values at `fpp` by the true split-block FPR (sizing::split_block_fpr), at
/// most 2^22 blocks (128 MiB, the largest bitset Parquet readers accept).
/// The doubling is a margin: split_block_fpr is the expected FPR, and one
/// filter's own bits can land a little above it (1.015 % at 1 % seen with
/// 1,500 distinct strings), which would stop fold_to before its first fold
/// with the target missed; one power of two more leaves room, and folding
/// takes it back when it is not needed. A power of two folds all the way
/// down to one block. Hash: XXH64 seed 0.
inline split_block_bloom foldable_filter(std::uint64_t max_ndv, double fpp) {
  const std::uint64_t ndv = std::max<std::uint64_t>(max_ndv, 1);
  const std::uint64_t blocks = std::min<std::uint64_t>(2 * std::bit_ceil(sizing::split_block_blocks_for(ndv, fpp)),
                                                       std::uint64_t{1} << 22);
  return split_block_bloom(block_filter_params{blocks, 8, ndv, fpp, parquet_hash_spec});
}

/// How write_file lays out and sizes the file.
struct write_options {
  std::uint64_t row_group_rows = 1 << 20;  ///< rows per row group (the last may have fewer), >= 1
  double fpp = 0.01;                       ///< target false-positive rate of each filter
  sizing::parquet_writer sizing = sizing::parquet_writer::duckdb;  ///< whose size rounding to use
  /// Size by folding instead of by distinct count: each filter starts at
  /// foldable_filter(the row group's rows, fpp), takes the values, then folds
  /// (split_block_bloom::fold_to) while its estimated FPR stays at or under
  /// fpp. Needs no distinct count; `sizing` is then unused.
  bool fold = false;
  std::string created_by = "bloomkit version 0.1.0";
};

namespace detail {

inline std::int32_t converted_for(const logical_type& t) {
  using k = logical_type::kind;
  switch (t.id) {
    case k::string: return static_cast<std::int32_t>(converted_type::utf8);
    case k::date: return static_cast<std::int32_t>(converted_type::date);
    case k::decimal: return static_cast<std::int32_t>(converted_type::decimal);
    case k::time:
      if (t.unit == time_unit::millis) return static_cast<std::int32_t>(converted_type::time_millis);
      if (t.unit == time_unit::micros) return static_cast<std::int32_t>(converted_type::time_micros);
      return -1;
    case k::timestamp:
      if (t.unit == time_unit::millis) return static_cast<std::int32_t>(converted_type::timestamp_millis);
      if (t.unit == time_unit::micros) return static_cast<std::int32_t>(converted_type::timestamp_micros);
      return -1;
    case k::integer: {
      const int base = t.is_signed ? static_cast<int>(converted_type::int_8) : static_cast<int>(converted_type::uint_8);
      const int step = t.bit_width == 8 ? 0 : t.bit_width == 16 ? 1 : t.bit_width == 32 ? 2 : 3;
      return base + step;
    }
    default: return -1;
  }
}

inline void write_logical(compact_writer& w, const logical_type& t) {
  using k = logical_type::kind;
  std::int16_t member = 0;
  switch (t.id) {
    case k::string: member = 1; break;
    case k::decimal: member = 5; break;
    case k::date: member = 6; break;
    case k::time: member = 7; break;
    case k::timestamp: member = 8; break;
    case k::integer: member = 10; break;
    case k::uuid: member = 14; break;
    default: return;
  }
  w.field_struct(10);
  w.field_struct(member);
  if (t.id == k::decimal) {
    w.field_i32(1, t.scale);
    w.field_i32(2, t.precision);
  } else if (t.id == k::time || t.id == k::timestamp) {
    w.field_bool(1, t.adjusted_to_utc);
    w.field_struct(2);
    w.field_struct(static_cast<std::int16_t>(t.unit));
    w.end_struct();
    w.end_struct();
  } else if (t.id == k::integer) {
    w.field(1, ctype::i8);
    w.write_byte(static_cast<std::uint8_t>(t.bit_width));
    w.field_bool(2, t.is_signed);
  }
  w.end_struct();
  w.end_struct();
}

inline std::size_t fixed_width(const column_spec& c) {
  switch (c.type) {
    case physical_type::int32:
    case physical_type::float_: return 4;
    case physical_type::int64:
    case physical_type::double_: return 8;
    case physical_type::int96: return 12;
    case physical_type::fixed_len_byte_array: return static_cast<std::size_t>(c.type_length);
    default: return 0;
  }
}

}  // namespace detail

/// A complete Parquet file holding `values` (each the bytes encode_value
/// gives: plain encoding without a length prefix) in one REQUIRED column,
/// split into row groups of options.row_group_rows, each with a split-block
/// Bloom filter sized for that row group's distinct values as
/// options.sizing's writer sizes it, or by folding (options.fold). Throws errc::invalid_argument for a value
/// of the wrong width, row_group_rows 0, an fpp outside (0, 1), or a row group
/// whose page would exceed 2 GiB; errc::unsupported for BOOLEAN.
inline std::vector<std::byte> write_file(const column_spec& column, std::span<const std::vector<std::byte>> values,
                                         const write_options& options = {}) {
  using detail::compact_writer;
  using detail::ctype;
  bloomkit::detail::require(options.row_group_rows >= 1, errc::invalid_argument, "row_group_rows must be at least 1");
  bloomkit::detail::require(options.fpp > 0.0 && options.fpp < 1.0, errc::invalid_argument,
                            "fpp must be in (0, 1), got " + bloomkit::detail::format_number(options.fpp));
  bloomkit::detail::require(column.type != physical_type::boolean, errc::unsupported,
                            "BOOLEAN columns get no Bloom filter (writers disagree on the hashed bytes)");
  bloomkit::detail::require(column.type != physical_type::fixed_len_byte_array || column.type_length > 0,
                            errc::invalid_argument, "a FIXED_LEN_BYTE_ARRAY column needs a positive type_length");
  const std::size_t width = detail::fixed_width(column);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (width != 0 && values[i].size() != width) {
      throw error(errc::invalid_argument, "value " + std::to_string(i) + " has " + std::to_string(values[i].size()) +
                                              " bytes; column " + column.name + " holds " + std::to_string(width));
    }
  }

  std::vector<std::byte> out;
  auto put_raw = [&](std::string_view s) {
    for (char c : s) out.push_back(static_cast<std::byte>(c));
  };
  put_raw("PAR1");

  struct chunk_info {
    std::uint64_t rows = 0;
    std::int64_t page_offset = 0;
    std::int64_t chunk_size = 0;
    std::vector<std::byte> filter;  // header + bitset
    std::int64_t filter_offset = 0;
  };
  std::vector<chunk_info> chunks;
  for (std::size_t first = 0; first < values.size(); first += options.row_group_rows) {
    const std::size_t last = std::min<std::size_t>(values.size(), first + options.row_group_rows);
    chunk_info info;
    info.rows = last - first;
    // The page's values, then its header (which needs their size).
    std::vector<std::byte> data;
    std::unordered_set<std::string_view> distinct;
    for (std::size_t i = first; i < last; ++i) {
      const auto& v = values[i];
      if (width == 0) {
        const std::size_t at = data.size();
        data.resize(at + 4);
        bloomkit::detail::store_le(data.data() + at, static_cast<std::uint32_t>(v.size()));
      }
      data.insert(data.end(), v.begin(), v.end());
      if (!options.fold) distinct.insert(std::string_view(reinterpret_cast<const char*>(v.data()), v.size()));
    }
    bloomkit::detail::require(data.size() <= static_cast<std::size_t>(INT32_MAX) - 64, errc::invalid_argument,
                              "a row group's page would exceed 2 GiB; use fewer rows per row group");
    std::vector<std::byte> page_header;
    {
      compact_writer w(page_header);
      w.field_i32(1, 0);  // PageType DATA_PAGE
      w.field_i32(2, static_cast<std::int32_t>(data.size()));
      w.field_i32(3, static_cast<std::int32_t>(data.size()));
      w.field_struct(5);  // DataPageHeader
      w.field_i32(1, static_cast<std::int32_t>(info.rows));
      w.field_i32(2, 0);  // PLAIN
      w.field_i32(3, 3);  // RLE (no levels are stored for a REQUIRED column)
      w.field_i32(4, 3);
      w.end_struct();
      w.end_struct();
    }
    info.page_offset = static_cast<std::int64_t>(out.size());
    out.insert(out.end(), page_header.begin(), page_header.end());
    out.insert(out.end(), data.begin(), data.end());
    info.chunk_size = static_cast<std::int64_t>(page_header.size() + data.size());

    split_block_bloom filter = options.fold ? foldable_filter(info.rows, options.fpp)
                                            : parquet_sized_split_block(distinct.size(), options.fpp, options.sizing);
    for (std::size_t i = first; i < last; ++i) filter.insert(values[i]);
    if (options.fold) filter.fold_to(options.fpp);
    info.filter = encode_bloom_filter_header(filter.size_in_bytes());
    const auto bitset = to_parquet_bitset(filter.view());
    info.filter.insert(info.filter.end(), bitset.begin(), bitset.end());
    chunks.push_back(std::move(info));
  }
  for (auto& c : chunks) {
    c.filter_offset = static_cast<std::int64_t>(out.size());
    out.insert(out.end(), c.filter.begin(), c.filter.end());
  }

  std::vector<std::byte> footer;
  compact_writer w(footer);
  w.field_i32(1, 1);  // version
  w.field_list(2, ctype::struct_, 2);
  w.begin_struct();
  w.field_string(4, "schema");
  w.field_i32(5, 1);
  w.end_struct();
  w.begin_struct();
  w.field_i32(1, static_cast<std::int32_t>(column.type));
  if (column.type == physical_type::fixed_len_byte_array) w.field_i32(2, column.type_length);
  w.field_i32(3, 0);  // REQUIRED
  w.field_string(4, column.name);
  if (const std::int32_t converted = detail::converted_for(column.logical); converted >= 0) w.field_i32(6, converted);
  if (column.logical.id == logical_type::kind::decimal) {
    w.field_i32(7, column.logical.scale);
    w.field_i32(8, column.logical.precision);
  }
  detail::write_logical(w, column.logical);
  w.end_struct();
  w.field_i64(3, static_cast<std::int64_t>(values.size()));
  w.field_list(4, ctype::struct_, static_cast<std::uint32_t>(chunks.size()));
  for (std::size_t r = 0; r < chunks.size(); ++r) {
    const auto& c = chunks[r];
    w.begin_struct();  // RowGroup
    w.field_list(1, ctype::struct_, 1);
    w.begin_struct();  // ColumnChunk
    w.field_i64(2, c.page_offset);
    w.field_struct(3);  // ColumnMetaData
    w.field_i32(1, static_cast<std::int32_t>(column.type));
    w.field_list(2, ctype::i32, 1);
    w.write_i32(0);  // PLAIN
    w.field_list(3, ctype::binary, 1);
    w.write_binary(column.name);
    w.field_i32(4, 0);  // UNCOMPRESSED
    w.field_i64(5, static_cast<std::int64_t>(c.rows));
    w.field_i64(6, c.chunk_size);
    w.field_i64(7, c.chunk_size);
    w.field_i64(9, c.page_offset);
    w.field_i64(14, c.filter_offset);
    w.field_i32(15, static_cast<std::int32_t>(c.filter.size()));
    w.end_struct();  // ColumnMetaData
    w.end_struct();  // ColumnChunk
    w.field_i64(2, c.chunk_size);
    w.field_i64(3, static_cast<std::int64_t>(c.rows));
    w.field_i64(5, c.page_offset);
    w.field_i64(6, c.chunk_size);
    w.field(7, ctype::i16);
    w.write_varint(compact_writer::zigzag(static_cast<std::int64_t>(r)));
    w.end_struct();  // RowGroup
  }
  w.field_string(6, options.created_by);
  w.end_struct();

  out.insert(out.end(), footer.begin(), footer.end());
  std::array<std::byte, 4> length{};
  bloomkit::detail::store_le(length.data(), static_cast<std::uint32_t>(footer.size()));
  out.insert(out.end(), length.begin(), length.end());
  put_raw("PAR1");
  return out;
}

}  // namespace bloomkit::parquet
