// bloomkit/parquet/metadata.hpp - Parquet's FileMetaData (the footer)
// and BloomFilterHeader, decoded from and encoded to the Thrift compact
// protocol. Included by bloomkit/parquet.hpp; use the names from there.
//
// Field ids follow apache/parquet-format src/main/thrift/parquet.thrift
// (table in docs/PARQUET.md §1). Only what Bloom filters need is kept:
// the schema leaves with their types, and per row group and column the
// path, physical type and bloom_filter_offset / bloom_filter_length. Every
// other field, including ones added after this was written (ColumnMetaData
// 16 size_statistics, 17 geospatial_statistics, ...), is skipped by type.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/parquet/thrift_compact.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::parquet {

/// Physical types (parquet.thrift `Type`). Values are the file's enum values.
enum class physical_type : std::int32_t {
  boolean = 0,
  int32 = 1,
  int64 = 2,
  int96 = 3,
  float_ = 4,
  double_ = 5,
  byte_array = 6,
  fixed_len_byte_array = 7,
};

/// "INT32", "BYTE_ARRAY", ... as Parquet spells them; "UNKNOWN(n)" otherwise.
inline std::string to_string(physical_type t) {
  switch (t) {
    case physical_type::boolean: return "BOOLEAN";
    case physical_type::int32: return "INT32";
    case physical_type::int64: return "INT64";
    case physical_type::int96: return "INT96";
    case physical_type::float_: return "FLOAT";
    case physical_type::double_: return "DOUBLE";
    case physical_type::byte_array: return "BYTE_ARRAY";
    case physical_type::fixed_len_byte_array: return "FIXED_LEN_BYTE_ARRAY";
  }
  return "UNKNOWN(" + std::to_string(static_cast<int>(t)) + ")";
}

/// Legacy annotations (parquet.thrift `ConvertedType`).
enum class converted_type : std::int32_t {
  utf8 = 0, map = 1, map_key_value = 2, list = 3, enum_ = 4, decimal = 5, date = 6,
  time_millis = 7, time_micros = 8, timestamp_millis = 9, timestamp_micros = 10,
  uint_8 = 11, uint_16 = 12, uint_32 = 13, uint_64 = 14,
  int_8 = 15, int_16 = 16, int_32 = 17, int_64 = 18,
  json = 19, bson = 20, interval = 21,
};

/// Units of TIME and TIMESTAMP.
enum class time_unit : std::uint8_t { millis = 1, micros = 2, nanos = 3 };

/// The logical annotation of a column, from LogicalType (preferred) or, for
/// files that only have it, ConvertedType (LogicalTypes.md "Compatibility").
struct logical_type {
  enum class kind : std::uint8_t {
    none, string, map, list, enum_, decimal, date, time, timestamp, integer, unknown,
    json, bson, uuid, float16, interval, variant, geometry, geography, other,
  };
  kind id = kind::none;
  std::int32_t scale = 0;          ///< DECIMAL
  std::int32_t precision = 0;      ///< DECIMAL
  time_unit unit = time_unit::millis;  ///< TIME, TIMESTAMP
  bool adjusted_to_utc = false;    ///< TIME, TIMESTAMP
  std::int32_t bit_width = 0;      ///< INTEGER: 8, 16, 32 or 64
  bool is_signed = true;           ///< INTEGER
};

/// A readable name: "STRING", "DECIMAL(9,2)", "TIMESTAMP(MICROS,UTC)", "INT(16,unsigned)".
inline std::string to_string(const logical_type& t);

/// One SchemaElement (depth-first order in the file).
struct schema_element {
  std::string name;
  std::optional<physical_type> type;  ///< set for leaves only
  std::int32_t type_length = 0;       ///< FIXED_LEN_BYTE_ARRAY width
  std::int32_t repetition = 0;        ///< 0 REQUIRED, 1 OPTIONAL, 2 REPEATED
  std::int32_t num_children = 0;
  std::optional<converted_type> converted;
  std::int32_t scale = 0;
  std::int32_t precision = 0;
  logical_type logical;               ///< merged from logicalType and converted_type
};

namespace detail {

/// True if `s` is well-formed UTF-8 (no overlong forms, surrogates or code
/// points above U+10FFFF; Unicode 15 §3.9, table 3-7).
inline bool valid_utf8(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // continuation bytes i+1 .. i+n must exist
    for (std::size_t k = 1; k <= n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80U) || b > (k == 1 ? hi : 0xBFU)) return false;
    }
    i += n + 1;
  }
  return true;
}

/// The path's elements joined with '.', e.g. "a.b.c" (several columns may
/// share it: a top-level column named "x.y" and a struct x's child y).
inline std::string joined_path(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& part : path) {
    if (!out.empty()) out += '.';
    out += part;
  }
  return out;
}

/// The path with every element in backticks (a backtick inside doubled),
/// joined with '.': "`x.y`" and "`x`.`y`" differ where the joined paths do not.
inline std::string quoted_path(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& part : path) {
    if (!out.empty()) out += '.';
    out += '`';
    for (char c : part) {
      if (c == '`') out += '`';
      out += c;
    }
    out += '`';
  }
  return out;
}

}  // namespace detail

/// A leaf column: its dotted path and what its values are.
struct column_descriptor {
  std::vector<std::string> path;  ///< path from the root's child to the leaf
  physical_type type = physical_type::byte_array;
  std::int32_t type_length = 0;   ///< FIXED_LEN_BYTE_ARRAY width, else 0
  logical_type logical;
  /// The name that tells this column from every other of its file: the
  /// joined path ("a.b.c"), or where another column's joins the same, the
  /// quoted path ("`x.y`", "`x`.`y`"). Set by decode_file_metadata.
  std::string spelling;

  /// The column's name in messages, listings and lookups: its spelling
  /// (the joined path where none was set).
  [[nodiscard]] std::string dotted_path() const { return spelling.empty() ? detail::joined_path(path) : spelling; }
};

/// What the footer says about one column chunk.
struct column_chunk {
  bool has_metadata = false;                     ///< false for encrypted column metadata
  std::vector<std::string> path_in_schema;
  physical_type type = physical_type::byte_array;
  std::int64_t num_values = 0;
  std::optional<std::int64_t> bloom_filter_offset;  ///< absolute offset of the BloomFilterHeader
  std::optional<std::int32_t> bloom_filter_length;  ///< header + bitset (format >= 2.10)
};

/// One row group: its row count and one chunk per leaf column.
struct row_group {
  std::int64_t num_rows = 0;
  std::vector<column_chunk> columns;
};

/// The decoded footer.
struct file_metadata {
  std::int32_t version = 0;
  std::int64_t num_rows = 0;
  std::string created_by;
  std::vector<schema_element> schema;   ///< as stored (depth-first)
  std::vector<column_descriptor> columns;  ///< the leaves, in column order
  std::vector<row_group> row_groups;
};

/// A decoded BloomFilterHeader (parquet.thrift; docs/PARQUET.md §2).
struct bloom_filter_header {
  std::int32_t num_bytes = 0;   ///< bitset size in bytes (header not included)
  bool algorithm_block = false;    ///< BloomFilterAlgorithm.BLOCK set
  bool hash_xxhash = false;        ///< BloomFilterHash.XXHASH set
  bool compression_none = false;   ///< BloomFilterCompression.UNCOMPRESSED set
  std::size_t header_length = 0;   ///< bytes the header took in the file
};

namespace detail {

using bloomkit::detail::thrift::compact_reader;
using bloomkit::detail::thrift::compact_writer;
using bloomkit::detail::thrift::ctype;
using bloomkit::detail::thrift::field_header;

/// Reads a union whose members are all empty structs and returns the id of
/// the member set (0 if none). Used for BloomFilterAlgorithm/Hash/Compression
/// and TimeUnit. Unknown members are skipped and their id returned.
inline std::int16_t read_empty_union(compact_reader& in) {
  in.enter();
  std::int16_t last = 0;
  std::int16_t chosen = 0;
  for (;;) {
    const field_header f = in.read_field_header(last);
    if (f.type == ctype::stop) break;
    if (chosen == 0) chosen = f.id;
    in.skip(f.type);
  }
  in.leave();
  return chosen;
}

inline std::int32_t read_i32_field(compact_reader& in, const field_header& f, std::string_view name) {
  in.expect(f, ctype::i32, name);
  return in.read_i32();
}

inline std::int64_t read_i64_field(compact_reader& in, const field_header& f, std::string_view name) {
  in.expect(f, ctype::i64, name);
  return in.read_i64();
}

inline bool read_bool_field(compact_reader& in, const field_header& f, std::string_view name) {
  in.expect(f, ctype::bool_true, name);
  return compact_reader::bool_of(f.type);
}

template <class Fn>
void read_struct(compact_reader& in, Fn&& on_field) {
  in.enter();
  std::int16_t last = 0;
  for (;;) {
    const field_header f = in.read_field_header(last);
    if (f.type == ctype::stop) break;
    if (!on_field(f)) in.skip(f.type);
  }
  in.leave();
}

/// Reads a list<T> field, calling `read_one()` once per element after
/// checking the element type.
template <class Fn>
void read_list(compact_reader& in, const field_header& f, ctype elem, std::string_view name, Fn&& read_one) {
  in.expect(f, ctype::list, name);
  in.enter();
  const auto h = in.read_list_header();
  if (h.size > 0 && h.elem_type != elem) {
    in.fail(errc::corrupt, "list " + std::string(name) + " holds type " + std::to_string(static_cast<int>(h.elem_type)));
  }
  for (std::uint32_t i = 0; i < h.size; ++i) read_one();
  in.leave();
}

inline time_unit read_time_unit(compact_reader& in) {
  const std::int16_t id = read_empty_union(in);
  if (id < 1 || id > 3) in.fail(errc::corrupt, "TimeUnit has no known member (id " + std::to_string(id) + ")");
  return static_cast<time_unit>(id);
}

inline logical_type read_logical_type(compact_reader& in) {
  logical_type out;
  using k = logical_type::kind;
  in.enter();
  std::int16_t last = 0;
  for (;;) {
    const field_header f = in.read_field_header(last);
    if (f.type == ctype::stop) break;
    if (out.id != k::none || f.type != ctype::struct_) {  // a union has one member; ignore extras
      in.skip(f.type);
      continue;
    }
    switch (f.id) {
      case 1: out.id = k::string; break;
      case 2: out.id = k::map; break;
      case 3: out.id = k::list; break;
      case 4: out.id = k::enum_; break;
      case 5:
        out.id = k::decimal;
        read_struct(in, [&](const field_header& g) {
          if (g.id == 1) out.scale = read_i32_field(in, g, "DecimalType.scale");
          else if (g.id == 2) out.precision = read_i32_field(in, g, "DecimalType.precision");
          else return false;
          return true;
        });
        continue;
      case 6: out.id = k::date; break;
      case 7:
      case 8:
        out.id = f.id == 7 ? k::time : k::timestamp;
        read_struct(in, [&](const field_header& g) {
          if (g.id == 1) {
            out.adjusted_to_utc = read_bool_field(in, g, "isAdjustedToUTC");
          } else if (g.id == 2) {
            in.expect(g, ctype::struct_, "unit");
            out.unit = read_time_unit(in);
          } else {
            return false;
          }
          return true;
        });
        continue;
      case 10:
        out.id = k::integer;
        read_struct(in, [&](const field_header& g) {
          if (g.id == 1) {
            in.expect(g, ctype::i8, "IntType.bitWidth");
            out.bit_width = in.read_i8();
            return true;
          }
          if (g.id == 2) {
            out.is_signed = read_bool_field(in, g, "IntType.isSigned");
            return true;
          }
          return false;
        });
        continue;
      case 11: out.id = k::unknown; break;
      case 12: out.id = k::json; break;
      case 13: out.id = k::bson; break;
      case 14: out.id = k::uuid; break;
      case 15: out.id = k::float16; break;
      case 16: out.id = k::variant; break;
      case 17: out.id = k::geometry; break;
      case 18: out.id = k::geography; break;
      default: out.id = k::other; break;
    }
    in.skip(f.type);
  }
  in.leave();
  return out;
}

/// The logical type a ConvertedType implies (LogicalTypes.md, "Compatibility").
inline logical_type from_converted(converted_type c, std::int32_t scale, std::int32_t precision) {
  using k = logical_type::kind;
  logical_type t;
  auto integer = [&](int bits, bool is_signed) {
    t.id = k::integer;
    t.bit_width = bits;
    t.is_signed = is_signed;
  };
  switch (c) {
    case converted_type::utf8: t.id = k::string; break;
    case converted_type::map:
    case converted_type::map_key_value: t.id = k::map; break;
    case converted_type::list: t.id = k::list; break;
    case converted_type::enum_: t.id = k::enum_; break;
    case converted_type::decimal:
      t.id = k::decimal;
      t.scale = scale;
      t.precision = precision;
      break;
    case converted_type::date: t.id = k::date; break;
    case converted_type::time_millis:
    case converted_type::time_micros:
      t.id = k::time;
      t.unit = c == converted_type::time_millis ? time_unit::millis : time_unit::micros;
      t.adjusted_to_utc = true;
      break;
    case converted_type::timestamp_millis:
    case converted_type::timestamp_micros:
      t.id = k::timestamp;
      t.unit = c == converted_type::timestamp_millis ? time_unit::millis : time_unit::micros;
      t.adjusted_to_utc = true;
      break;
    case converted_type::uint_8: integer(8, false); break;
    case converted_type::uint_16: integer(16, false); break;
    case converted_type::uint_32: integer(32, false); break;
    case converted_type::uint_64: integer(64, false); break;
    case converted_type::int_8: integer(8, true); break;
    case converted_type::int_16: integer(16, true); break;
    case converted_type::int_32: integer(32, true); break;
    case converted_type::int_64: integer(64, true); break;
    case converted_type::json: t.id = k::json; break;
    case converted_type::bson: t.id = k::bson; break;
    case converted_type::interval: t.id = k::interval; break;
    default: t.id = k::other; break;
  }
  return t;
}

inline schema_element read_schema_element(compact_reader& in) {
  schema_element e;
  bool has_logical = false;
  read_struct(in, [&](const field_header& f) {
    switch (f.id) {
      case 1: {
        const auto t = read_i32_field(in, f, "SchemaElement.type");
        if (t < 0 || t > 7) in.fail(errc::corrupt, "unknown physical type " + std::to_string(t));
        e.type = static_cast<physical_type>(t);
        return true;
      }
      case 2: e.type_length = read_i32_field(in, f, "SchemaElement.type_length"); return true;
      case 3: e.repetition = read_i32_field(in, f, "SchemaElement.repetition_type"); return true;
      case 4:
        in.expect(f, ctype::binary, "SchemaElement.name");
        e.name = in.read_string();
        // Thrift strings are UTF-8; a name that is not could be neither typed nor printed.
        if (!valid_utf8(e.name)) in.fail(errc::corrupt, "a schema element's name is not valid UTF-8");
        return true;
      case 5: e.num_children = read_i32_field(in, f, "SchemaElement.num_children"); return true;
      case 6: {
        const auto c = read_i32_field(in, f, "SchemaElement.converted_type");
        if (c >= 0 && c <= 21) e.converted = static_cast<converted_type>(c);  // newer values: no annotation we know
        return true;
      }
      case 7: e.scale = read_i32_field(in, f, "SchemaElement.scale"); return true;
      case 8: e.precision = read_i32_field(in, f, "SchemaElement.precision"); return true;
      case 10:
        in.expect(f, ctype::struct_, "SchemaElement.logicalType");
        e.logical = read_logical_type(in);
        has_logical = e.logical.id != logical_type::kind::none;
        return true;
      default: return false;
    }
  });
  if (!has_logical && e.converted) e.logical = from_converted(*e.converted, e.scale, e.precision);
  // INTERVAL has no LogicalType; files carry it as ConvertedType only.
  if (e.logical.id == logical_type::kind::other && e.converted == converted_type::interval) {
    e.logical.id = logical_type::kind::interval;
  }
  return e;
}

inline column_chunk read_column_chunk(compact_reader& in) {
  column_chunk c;
  read_struct(in, [&](const field_header& f) {
    if (f.id != 3) return false;  // meta_data; file_path, offsets, crypto metadata skipped
    in.expect(f, ctype::struct_, "ColumnChunk.meta_data");
    c.has_metadata = true;
    read_struct(in, [&](const field_header& g) {
      switch (g.id) {
        case 1: {
          const auto t = read_i32_field(in, g, "ColumnMetaData.type");
          if (t < 0 || t > 7) in.fail(errc::corrupt, "unknown physical type " + std::to_string(t));
          c.type = static_cast<physical_type>(t);
          return true;
        }
        case 3:
          read_list(in, g, ctype::binary, "ColumnMetaData.path_in_schema",
                    [&] { c.path_in_schema.push_back(in.read_string()); });
          return true;
        case 5: c.num_values = read_i64_field(in, g, "ColumnMetaData.num_values"); return true;
        case 14: c.bloom_filter_offset = read_i64_field(in, g, "ColumnMetaData.bloom_filter_offset"); return true;
        case 15: c.bloom_filter_length = read_i32_field(in, g, "ColumnMetaData.bloom_filter_length"); return true;
        default: return false;
      }
    });
    return true;
  });
  return c;
}

inline row_group read_row_group(compact_reader& in) {
  row_group rg;
  read_struct(in, [&](const field_header& f) {
    if (f.id == 1) {
      read_list(in, f, ctype::struct_, "RowGroup.columns", [&] { rg.columns.push_back(read_column_chunk(in)); });
      return true;
    }
    if (f.id == 3) {
      rg.num_rows = read_i64_field(in, f, "RowGroup.num_rows");
      return true;
    }
    return false;
  });
  return rg;
}

/// Walks the depth-first schema list and collects the leaves with their paths.
inline std::vector<column_descriptor> schema_leaves(const std::vector<schema_element>& schema, compact_reader& in) {
  std::vector<column_descriptor> leaves;
  if (schema.empty()) in.fail(errc::corrupt, "the schema is empty");
  struct frame {
    std::int32_t children_left;
  };
  std::vector<frame> stack;
  std::vector<std::string> path;
  if (schema[0].num_children < 0) in.fail(errc::corrupt, "the root has a negative child count");
  stack.push_back({schema[0].num_children});
  for (std::size_t i = 1; i < schema.size(); ++i) {
    while (!stack.empty() && stack.back().children_left == 0) {
      stack.pop_back();
      if (!path.empty()) path.pop_back();
    }
    if (stack.empty()) in.fail(errc::corrupt, "the schema has elements beyond the root's children");
    --stack.back().children_left;
    const schema_element& e = schema[i];
    if (e.num_children < 0) in.fail(errc::corrupt, "schema element '" + e.name + "' has a negative child count");
    if (e.num_children > 0) {
      if (static_cast<std::size_t>(e.num_children) > schema.size() - i - 1) {
        in.fail(errc::corrupt, "schema element '" + e.name + "' claims more children than the schema holds");
      }
      path.push_back(e.name);
      stack.push_back({e.num_children});
      continue;
    }
    if (!e.type) in.fail(errc::corrupt, "schema leaf '" + e.name + "' has no physical type");
    column_descriptor d;
    d.path = path;
    d.path.push_back(e.name);
    d.type = *e.type;
    d.type_length = e.type_length;
    d.logical = e.logical;
    if (d.type == physical_type::fixed_len_byte_array && d.type_length <= 0) {
      in.fail(errc::corrupt, "FIXED_LEN_BYTE_ARRAY column '" + d.dotted_path() + "' has no positive type_length");
    }
    leaves.push_back(std::move(d));
  }
  for (const auto& f : stack) {
    if (f.children_left != 0) in.fail(errc::corrupt, "the schema ends before all declared children");
  }
  // Each column's spelling: its joined path, quoted where another column's joins the same.
  std::vector<std::string> joined;
  joined.reserve(leaves.size());
  for (const auto& d : leaves) joined.push_back(joined_path(d.path));
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const bool shared = std::count(joined.begin(), joined.end(), joined[i]) > 1;
    leaves[i].spelling = shared ? quoted_path(leaves[i].path) : joined[i];
  }
  return leaves;
}

}  // namespace detail

/// Decodes a FileMetaData from the footer's bytes (without the trailing
/// length and magic). Throws bloomkit::error: errc::truncated if the bytes end
/// early, errc::corrupt for impossible values (unknown physical type, a schema
/// whose child counts do not add up, row groups whose column count differs
/// from the schema's leaves, wrong field types).
inline file_metadata decode_file_metadata(std::span<const std::byte> footer) {
  detail::compact_reader in(footer, "Parquet footer (FileMetaData)");
  file_metadata md;
  bool has_schema = false;
  detail::read_struct(in, [&](const detail::field_header& f) {
    switch (f.id) {
      case 1: md.version = detail::read_i32_field(in, f, "FileMetaData.version"); return true;
      case 2:
        has_schema = true;
        detail::read_list(in, f, detail::ctype::struct_, "FileMetaData.schema",
                          [&] { md.schema.push_back(detail::read_schema_element(in)); });
        return true;
      case 3: md.num_rows = detail::read_i64_field(in, f, "FileMetaData.num_rows"); return true;
      case 4:
        detail::read_list(in, f, detail::ctype::struct_, "FileMetaData.row_groups",
                          [&] { md.row_groups.push_back(detail::read_row_group(in)); });
        return true;
      case 6:
        in.expect(f, detail::ctype::binary, "FileMetaData.created_by");
        md.created_by = in.read_string();
        return true;
      default: return false;
    }
  });
  if (!has_schema) in.fail(errc::corrupt, "FileMetaData has no schema");
  md.columns = detail::schema_leaves(md.schema, in);
  for (std::size_t r = 0; r < md.row_groups.size(); ++r) {
    const auto& rg = md.row_groups[r];
    if (rg.columns.size() != md.columns.size()) {
      in.fail(errc::corrupt, "row group " + std::to_string(r) + " has " + std::to_string(rg.columns.size()) +
                                 " column chunks but the schema has " + std::to_string(md.columns.size()) + " leaves");
    }
    for (std::size_t c = 0; c < rg.columns.size(); ++c) {
      const auto& chunk = rg.columns[c];
      if (chunk.has_metadata && chunk.type != md.columns[c].type) {
        in.fail(errc::corrupt, "row group " + std::to_string(r) + " column " + md.columns[c].dotted_path() +
                                   " is " + to_string(chunk.type) + " but the schema says " +
                                   to_string(md.columns[c].type));
      }
    }
  }
  return md;
}

/// The largest bitset any writer produces and Arrow accepts (128 MiB). DuckDB
/// has no cap, so the reader accepts more (up to INT32_MAX, checked against
/// the file's size before anything is allocated); writers stay within this.
inline constexpr std::int32_t max_writer_bitset_bytes = 128 << 20;

/// Decodes a BloomFilterHeader from the start of `bytes` (bytes after the
/// header are ignored). Validates as Arrow and DuckDB do: BLOCK, XXHASH and
/// UNCOMPRESSED must be set, and numBytes must be positive and a multiple of
/// 32 (a whole number of 256-bit blocks; the spec does not demand a power of
/// two). A numBytes that does not fit an i32, such as 4 GiB, is errc::corrupt
/// before any allocation. Throws errc::truncated when the bytes end early,
/// errc::unsupported for another algorithm, hash or compression.
inline bloom_filter_header decode_bloom_filter_header(std::span<const std::byte> bytes) {
  detail::compact_reader in(bytes, "BloomFilterHeader");
  bloom_filter_header h;
  bool has_bytes = false;
  std::int16_t algorithm = 0, hash = 0, compression = 0;
  detail::read_struct(in, [&](const detail::field_header& f) {
    switch (f.id) {
      case 1:
        h.num_bytes = detail::read_i32_field(in, f, "numBytes");
        has_bytes = true;
        return true;
      case 2:
      case 3:
      case 4: {
        in.expect(f, detail::ctype::struct_, f.id == 2 ? "algorithm" : f.id == 3 ? "hash" : "compression");
        const std::int16_t id = detail::read_empty_union(in);
        (f.id == 2 ? algorithm : f.id == 3 ? hash : compression) = id;
        return true;
      }
      default: return false;
    }
  });
  h.header_length = in.position();
  if (!has_bytes) in.fail(errc::corrupt, "numBytes is missing");
  if (h.num_bytes <= 0 || h.num_bytes % 32 != 0) {
    in.fail(errc::corrupt, "numBytes " + std::to_string(h.num_bytes) + " is not a positive multiple of 32");
  }
  h.algorithm_block = algorithm == 1;
  h.hash_xxhash = hash == 1;
  h.compression_none = compression == 1;
  if (!h.algorithm_block) in.fail(errc::unsupported, "algorithm is not BLOCK (member id " + std::to_string(algorithm) + ")");
  if (!h.hash_xxhash) in.fail(errc::unsupported, "hash is not XXHASH (member id " + std::to_string(hash) + ")");
  if (!h.compression_none) {
    in.fail(errc::unsupported, "compression is not UNCOMPRESSED (member id " + std::to_string(compression) + ")");
  }
  return h;
}

/// The canonical BloomFilterHeader bytes every known writer produces for a
/// bitset of `num_bytes` bytes (docs/PARQUET.md §2): 15 <varint> 2C 1C
/// 00 00 3C 1C 00 00 4C 1C 00 00 00. Throws errc::invalid_argument unless
/// num_bytes is a positive multiple of 32 that fits an i32.
inline std::vector<std::byte> encode_bloom_filter_header(std::uint64_t num_bytes) {
  bloomkit::detail::require(num_bytes > 0 && num_bytes % 32 == 0 && num_bytes <= INT32_MAX, errc::invalid_argument,
                            "BloomFilterHeader: numBytes must be a positive multiple of 32 below 2^31, got " +
                                std::to_string(num_bytes));
  std::vector<std::byte> out;
  detail::compact_writer w(out);
  w.field_i32(1, static_cast<std::int32_t>(num_bytes));
  for (std::int16_t id = 2; id <= 4; ++id) {
    w.field_struct(id);     // the union
    w.field_struct(1);      // its member 1: BLOCK / XXHASH / UNCOMPRESSED, an empty struct
    w.end_struct();
    w.end_struct();
  }
  w.end_struct();
  return out;
}

inline std::string to_string(const logical_type& t) {
  using k = logical_type::kind;
  auto unit = [](time_unit u) { return u == time_unit::millis ? "MILLIS" : u == time_unit::micros ? "MICROS" : "NANOS"; };
  switch (t.id) {
    case k::none: return "";
    case k::string: return "STRING";
    case k::map: return "MAP";
    case k::list: return "LIST";
    case k::enum_: return "ENUM";
    case k::decimal: return "DECIMAL(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
    case k::date: return "DATE";
    case k::time: return std::string("TIME(") + unit(t.unit) + (t.adjusted_to_utc ? ",UTC)" : ",local)");
    case k::timestamp: return std::string("TIMESTAMP(") + unit(t.unit) + (t.adjusted_to_utc ? ",UTC)" : ",local)");
    case k::integer: return "INT(" + std::to_string(t.bit_width) + (t.is_signed ? ",signed)" : ",unsigned)");
    case k::unknown: return "UNKNOWN";
    case k::json: return "JSON";
    case k::bson: return "BSON";
    case k::uuid: return "UUID";
    case k::float16: return "FLOAT16";
    case k::interval: return "INTERVAL";
    case k::variant: return "VARIANT";
    case k::geometry: return "GEOMETRY";
    case k::geography: return "GEOGRAPHY";
    case k::other: return "OTHER";
  }
  return "OTHER";
}

}  // namespace bloomkit::parquet
