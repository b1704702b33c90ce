// bloomkit/parquet/thrift_compact.hpp - the subset of the Apache Thrift
// compact protocol that Parquet metadata needs: a bounds-checked, depth-limited
// reader that can skip any value, and a writer.
//
// Wire format (Thrift compact protocol spec, thrift/doc/specs/thrift-compact-protocol.md;
// summary in docs/PARQUET.md §2):
//   * struct: fields, then a stop byte 0x00. Field header: one byte
//     (delta << 4) | type when the id grows by 1..15 from the previous field of
//     the same struct, else the byte `type` followed by the id as a zigzag varint.
//   * types: 1/2 bool true/false (the value is the type nibble), 3 i8 (one raw
//     byte), 4 i16, 5 i32, 6 i64 (zigzag ULEB128 varints), 7 double (8 bytes LE),
//     8 binary (varint length + bytes), 9 list, 10 set, 11 map, 12 struct.
//   * list/set header: (size << 4) | elem_type when size < 15, else 0xF0 |
//     elem_type then a varint size. Booleans inside lists take one byte each.
//   * map: varint count, then (if count > 0) (key_type << 4) | value_type.
//
// Untrusted input: every length and count is checked against the bytes left
// before anything is read or reserved (every element takes at least one byte,
// so a count larger than the bytes left is already corrupt), varints are at
// most 10 bytes and must fit their declared width, and nesting deeper than
// `max_depth` is refused, so a hostile footer costs at most O(its size) time
// and memory and never recursion beyond the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail::thrift {

/// Compact protocol type ids (the low nibble of a field header).
enum class ctype : std::uint8_t {
  stop = 0,
  bool_true = 1,
  bool_false = 2,
  i8 = 3,
  i16 = 4,
  i32 = 5,
  i64 = 6,
  double_ = 7,
  binary = 8,
  list = 9,
  set = 10,
  map = 11,
  struct_ = 12,
};

/// A field header: its id and type; type == stop ends the struct.
struct field_header {
  std::int16_t id = 0;
  ctype type = ctype::stop;
};

/// A list or set header: element type and count.
struct list_header {
  ctype elem_type = ctype::stop;
  std::uint32_t size = 0;
};

/// Reads compact-protocol values from a byte span. Every read checks bounds
/// and throws bloomkit::error (errc::truncated when the bytes run out,
/// errc::corrupt for a value no writer produces). `what` names the thing
/// being read in messages ("Parquet footer", "BloomFilterHeader").
class compact_reader {
 public:
  /// Nesting limit for structs, lists, sets and maps. Parquet's deepest real
  /// nesting (FileMetaData > RowGroup > ColumnChunk > ColumnMetaData >
  /// Statistics / LogicalType > ...) is under 10; Arrow's reader uses 100.
  static constexpr int max_depth = 64;

  compact_reader(std::span<const std::byte> bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}

  /// Bytes consumed so far.
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  /// Bytes not yet consumed.
  [[nodiscard]] std::size_t remaining() const noexcept { return bytes_.size() - pos_; }

  /// One raw byte.
  std::uint8_t read_byte() {
    need(1, "a byte");
    return std::to_integer<std::uint8_t>(bytes_[pos_++]);
  }

  /// An unsigned LEB128 varint of at most `max_bits` significant bits.
  std::uint64_t read_varint(unsigned max_bits = 64) {
    std::uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      if (shift >= 70) fail(errc::corrupt, "a varint longer than 10 bytes");
      const std::uint8_t b = read_byte();
      const std::uint64_t group = b & 0x7FU;
      if (shift >= 64 || (shift > 0 && (group >> (64 - shift)) != 0)) fail(errc::corrupt, "a varint beyond 64 bits");
      value |= group << shift;
      if ((b & 0x80U) == 0) break;
    }
    if (max_bits < 64 && (value >> max_bits) != 0) fail(errc::corrupt, "a varint wider than its " + std::to_string(max_bits) + "-bit field");
    return value;
  }

  /// Zigzag-decoded signed varints, range-checked to their width.
  std::int64_t read_i64() { return unzigzag(read_varint(64)); }
  std::int32_t read_i32() { return static_cast<std::int32_t>(unzigzag(read_varint(32))); }
  std::int16_t read_i16() { return static_cast<std::int16_t>(unzigzag(read_varint(16))); }
  std::int8_t read_i8() { return static_cast<std::int8_t>(read_byte()); }

  /// An IEEE double, 8 bytes little-endian.
  double read_double() {
    need(8, "a double");
    const std::uint64_t bits = load_le<std::uint64_t>(bytes_.data() + pos_);
    pos_ += 8;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  /// A binary/string: varint length, then that many bytes (checked first).
  std::span<const std::byte> read_binary() {
    const std::uint64_t length = read_varint(32);
    need(length, "a string of " + std::to_string(length) + " bytes");
    auto out = bytes_.subspan(pos_, static_cast<std::size_t>(length));
    pos_ += static_cast<std::size_t>(length);
    return out;
  }

  std::string read_string() {
    const auto bytes = read_binary();
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }

  /// The next field header of the current struct; `last_id` is the previous
  /// field's id in this struct (0 at its start) and is updated.
  field_header read_field_header(std::int16_t& last_id) {
    const std::uint8_t b = read_byte();
    if (b == 0) return {};
    const auto type = check_type(static_cast<std::uint8_t>(b & 0x0FU), false);
    const std::uint8_t delta = static_cast<std::uint8_t>(b >> 4);
    std::int16_t id;
    if (delta != 0) {
      const int wide = last_id + delta;
      if (wide > INT16_MAX) fail(errc::corrupt, "a field id beyond 32767");
      id = static_cast<std::int16_t>(wide);
    } else {
      id = read_i16();
    }
    last_id = id;
    return {id, type};
  }

  /// A list or set header. The size is checked against the bytes left (each
  /// element takes at least one byte), so callers may reserve `size`.
  list_header read_list_header() {
    const std::uint8_t b = read_byte();
    const auto elem = check_type(static_cast<std::uint8_t>(b & 0x0FU), true);
    std::uint64_t size = b >> 4;
    if (size == 15) size = read_varint(32);
    if (size > remaining()) fail(errc::corrupt, "a list of " + std::to_string(size) + " elements in " + std::to_string(remaining()) + " bytes");
    return {elem, static_cast<std::uint32_t>(size)};
  }

  /// Reads a bool field's value: in a field header the type carries it.
  static bool bool_of(ctype type) noexcept { return type == ctype::bool_true; }

  /// A bool stored as a list element (one byte: 1 true, 0 or 2 false).
  bool read_list_bool() { return read_byte() == 1; }

  /// Skips one value of `type` (a field's value or a container element).
  /// `in_container` tells how booleans are stored (a byte each in lists).
  void skip(ctype type, bool in_container = false) { skip_value(type, in_container, 0); }

  /// Increments the nesting depth for a struct or container being read by the
  /// caller; throws errc::corrupt past max_depth. Pair with leave().
  void enter() {
    if (++depth_ > max_depth) fail(errc::corrupt, "nesting deeper than " + std::to_string(max_depth) + " levels");
  }
  void leave() noexcept { --depth_; }

  /// Throws bloomkit::error(code) saying what was being read, and where.
  [[noreturn]] void fail(errc code, const std::string& problem) const {
    throw error(code, what_ + ": " + problem + " at byte " + std::to_string(pos_) + " of " + std::to_string(bytes_.size()));
  }

  /// Throws errc::corrupt unless a field has the expected type: a known field
  /// with an unexpected type means the bytes are not what the schema says.
  void expect(const field_header& field, ctype type, std::string_view name) const {
    const bool ok = field.type == type || (type == ctype::bool_true && field.type == ctype::bool_false);
    if (!ok) {
      fail(errc::corrupt, "field " + std::string(name) + " (id " + std::to_string(field.id) + ") has type " +
                              std::to_string(static_cast<int>(field.type)) + ", expected " +
                              std::to_string(static_cast<int>(type)));
    }
  }

 private:
  static std::int64_t unzigzag(std::uint64_t v) noexcept {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
  }

  void need(std::uint64_t n, const std::string& thing) const {
    if (n > remaining()) {
      throw error(errc::truncated, what_ + ": ends inside " + thing + " at byte " + std::to_string(pos_) + " of " +
                                       std::to_string(bytes_.size()));
    }
  }

  ctype check_type(std::uint8_t t, bool element) const {
    // Element types in containers use the same ids; in lists bool is id 1 (some
    // writers use 2). A stop id is never a valid element type.
    if (t == 0 || t > 12) fail(errc::corrupt, "unknown compact type id " + std::to_string(t) + (element ? " in a container" : ""));
    return static_cast<ctype>(t);
  }

  void skip_value(ctype type, bool in_container, int) {
    switch (type) {
      case ctype::bool_true:
      case ctype::bool_false:
        if (in_container) (void)read_byte();
        return;
      case ctype::i8: (void)read_byte(); return;
      case ctype::i16:
      case ctype::i32:
      case ctype::i64: (void)read_varint(64); return;
      case ctype::double_: need(8, "a double"); pos_ += 8; return;
      case ctype::binary: (void)read_binary(); return;
      case ctype::list:
      case ctype::set: {
        enter();
        const list_header h = read_list_header();
        for (std::uint32_t i = 0; i < h.size; ++i) skip_value(h.elem_type, true, 0);
        leave();
        return;
      }
      case ctype::map: {
        enter();
        const std::uint64_t count = read_varint(32);
        if (count > 0) {
          const std::uint8_t kinds = read_byte();
          const auto key_type = check_type(static_cast<std::uint8_t>(kinds >> 4), true);
          const auto value_type = check_type(static_cast<std::uint8_t>(kinds & 0x0FU), true);
          if (count > remaining()) fail(errc::corrupt, "a map of " + std::to_string(count) + " entries in " + std::to_string(remaining()) + " bytes");
          for (std::uint64_t i = 0; i < count; ++i) {
            skip_value(key_type, true, 0);
            skip_value(value_type, true, 0);
          }
        }
        leave();
        return;
      }
      case ctype::struct_: {
        enter();
        std::int16_t last = 0;
        for (;;) {
          const field_header f = read_field_header(last);
          if (f.type == ctype::stop) break;
          skip_value(f.type, false, 0);
        }
        leave();
        return;
      }
      case ctype::stop: break;
    }
    fail(errc::corrupt, "a value of unknown type");
  }

  std::span<const std::byte> bytes_;
  std::string what_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

/// Appends compact-protocol values to a byte vector. Structs are written by
/// begin_struct() / field headers / end_struct(); the writer keeps the
/// last-field-id stack the delta encoding needs.
class compact_writer {
 public:
  explicit compact_writer(std::vector<std::byte>& out) : out_(out) { last_ids_.push_back(0); }

  void write_byte(std::uint8_t b) { out_.push_back(static_cast<std::byte>(b)); }

  void write_varint(std::uint64_t v) {
    while (v >= 0x80) {
      write_byte(static_cast<std::uint8_t>(v | 0x80U));
      v >>= 7;
    }
    write_byte(static_cast<std::uint8_t>(v));
  }

  static std::uint64_t zigzag(std::int64_t n) noexcept {
    return (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
  }

  /// A field header for field `id` of `type` in the current struct.
  void field(std::int16_t id, ctype type) {
    std::int16_t& last = last_ids_.back();
    const int delta = id - last;
    if (delta > 0 && delta <= 15) {
      write_byte(static_cast<std::uint8_t>((delta << 4) | static_cast<int>(type)));
    } else {
      write_byte(static_cast<std::uint8_t>(type));
      write_varint(zigzag(id));
    }
    last = id;
  }

  void field_i32(std::int16_t id, std::int32_t v) {
    field(id, ctype::i32);
    write_varint(zigzag(v));
  }
  void field_i64(std::int16_t id, std::int64_t v) {
    field(id, ctype::i64);
    write_varint(zigzag(v));
  }
  void field_bool(std::int16_t id, bool v) { field(id, v ? ctype::bool_true : ctype::bool_false); }
  void field_string(std::int16_t id, std::string_view s) {
    field(id, ctype::binary);
    write_binary(s);
  }
  /// Starts field `id` holding a struct; close it with end_struct().
  void field_struct(std::int16_t id) {
    field(id, ctype::struct_);
    begin_struct();
  }
  /// Starts field `id` holding a list of `size` elements of `elem`.
  void field_list(std::int16_t id, ctype elem, std::uint32_t size) {
    field(id, ctype::list);
    list(elem, size);
  }

  void write_binary(std::string_view s) {
    write_varint(s.size());
    for (char c : s) write_byte(static_cast<std::uint8_t>(c));
  }
  void write_i32(std::int32_t v) { write_varint(zigzag(v)); }

  void list(ctype elem, std::uint32_t size) {
    if (size < 15) {
      write_byte(static_cast<std::uint8_t>((size << 4) | static_cast<unsigned>(elem)));
    } else {
      write_byte(static_cast<std::uint8_t>(0xF0U | static_cast<unsigned>(elem)));
      write_varint(size);
    }
  }

  /// Appends bytes copied from another encoding as they are.
  void raw(std::span<const std::byte> bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
  /// Records a field header of `id` that raw() copied, so the next field()
  /// computes its id delta from it.
  void copied_field(std::int16_t id) { last_ids_.back() = id; }

  /// Opens a struct (a list element, or after field(id, struct_)).
  void begin_struct() { last_ids_.push_back(0); }
  /// Writes the stop byte and closes the innermost struct.
  void end_struct() {
    write_byte(0);
    if (last_ids_.size() > 1) last_ids_.pop_back();
  }

 private:
  std::vector<std::byte>& out_;
  std::vector<std::int16_t> last_ids_;
};

}  // namespace bloomkit::detail::thrift
