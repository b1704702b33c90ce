// bloomkit/format/core.hpp - the parts of the file format every kind
// shares: filter_kind, the fixed header, checksums, and the little helpers a
// per-kind codec uses to write and read its parameters and payload.
//
// Byte layout and the reasons behind it: docs/FORMAT.md. Public entry points
// (save, load, view, inspect): bloomkit/file_format.hpp. A codec for one kind
// lives in format/<kind>.hpp and includes only this header and its
// filter's header.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {


/// One kind-specific parameter of a file (for example "k" = 8), for tools
/// that print a header without knowing every kind.
struct file_param {
  std::string name;
  std::variant<std::uint64_t, double> value;

  friend bool operator==(const file_param&, const file_param&) = default;
};

/// What inspect() reports about a file: the header's facts and whether the
/// checksums hold.
struct file_info {
  filter_kind kind{};              ///< which filter the file holds
  std::uint32_t version = 0;       ///< format version of the file
  hash_spec hash{};                ///< hash the filter was built with (hash.keys: its key type)
  /// The filter's key type (== hash.keys): unspecified for files before format version 5.
  bloomkit::key_type key_type = bloomkit::key_type::unspecified;
  std::uint64_t inserted = 0;      ///< insert calls counted when it was saved (see inserted_accuracy)
  /// What `inserted` is: a count (format version 1), or, in version 2, an
  /// upper bound (an intersection) or an estimate (a Parquet extract).
  count_accuracy inserted_accuracy = count_accuracy::exact;
  std::uint64_t capacity = 0;      ///< design number of keys
  double target_fpr = 0.0;         ///< design false-positive rate
  std::uint64_t header_bytes = 0;  ///< header length = offset of the payload (a multiple of 64)
  std::uint64_t payload_bytes = 0; ///< payload length
  std::uint64_t file_bytes = 0;    ///< header_bytes + payload_bytes
  bool checksum_ok = false;        ///< header_checksum_ok && payload_checksum_ok
  bool header_checksum_ok = false;
  bool payload_checksum_ok = false;
  std::vector<file_param> params;  ///< the kind's own parameters, in file order
};

/// Whether view() reads the whole payload to verify its checksum before it
/// returns (verify), or trusts the payload and reads only what queries touch
/// (skip). The header and its checksum are always verified, and a damaged
/// payload can only give wrong answers, never an out-of-bounds access.
enum class payload_check : std::uint8_t { verify, skip };

/// The codec of one filter kind: how its parameters and payload are written
/// and read. Specialised once per kind in format/<kind>.hpp (the
/// recipe is at the top of bloomkit/file_format.hpp); never defined here.
template <class Filter>
struct format_codec;

/// A type that save() accepts: a filter or view with a format_codec.
template <class Filter>
concept serializable_filter = requires {
  { format_codec<Filter>::kind } -> std::convertible_to<filter_kind>;
};

namespace detail::format {

// ---- constants of format version 1 (docs/FORMAT.md, "Header") -------------

/// 0x89 'B' 'L' 'M' '\r' '\n' 0x1A '\n'. As in PNG: the high-bit first byte
/// catches 7-bit channels, CR LF catches newline conversion, 0x1A stops a DOS
/// `type`, and no text file starts this way.
inline constexpr std::array<std::byte, 8> magic = {std::byte{0x89}, std::byte{'B'},  std::byte{'L'},  std::byte{'M'},
                                                   std::byte{'\r'}, std::byte{'\n'}, std::byte{0x1A}, std::byte{'\n'}};
/// The newest version this reader understands. Writers write the oldest
/// version that can express the filter (written_version): 1, unless
/// inserted() is not an exact count (version 2 gives offset 14 that
/// meaning) or the kind's section uses a field a later version defined
/// (version 3: age_partitioned_bloom's probe scheme; version 4: ribbon's
/// layout) or the filter has a key type (version 5); docs/FORMAT.md.
inline constexpr std::uint32_t current_version = 5;
/// The version that added the `inserted_accuracy` byte at offset 14.
inline constexpr std::uint32_t accuracy_version = 2;
/// The version that gave age_partitioned_bloom's reserved u32 at parameter
/// offset 36 a meaning (the probe scheme). From this version on, offset 14
/// may also be 0 (an exact count).
inline constexpr std::uint32_t probe_scheme_version = 3;
/// The version that gave ribbon's reserved u32 at parameter offset 4 a
/// meaning (the layout: 0 standard, 1 bumped) and the bumped section's
/// layer fields after it.
inline constexpr std::uint32_t ribbon_layout_version = 4;
/// The version that gave offset 15 a meaning: the filter's key_type
/// (key_type.hpp, docs/KEYS.md). It keeps every meaning of versions 2-4.
inline constexpr std::uint32_t key_type_version = 5;
/// Bytes before the kind's parameters.
inline constexpr std::size_t fixed_header_bytes = 72;
/// The payload starts at a multiple of this many bytes from the file start.
inline constexpr std::size_t payload_alignment = 64;
/// Upper bound on a kind's parameter section; a larger value is corrupt.
inline constexpr std::uint32_t max_params_bytes = 65536;

/// Byte offsets of the fixed header's fields.
namespace offset {
inline constexpr std::size_t magic = 0;
inline constexpr std::size_t version = 8;
inline constexpr std::size_t kind = 12;
inline constexpr std::size_t hash_algorithm = 13;
inline constexpr std::size_t reserved = 14;
/// Version 2: the first reserved byte says what `inserted` is (count_accuracy).
inline constexpr std::size_t inserted_accuracy = 14;
/// Version 5: the second reserved byte is the key type (key_type).
inline constexpr std::size_t key_type = 15;
inline constexpr std::size_t hash_seed = 16;
inline constexpr std::size_t header_bytes = 24;
inline constexpr std::size_t params_bytes = 28;
inline constexpr std::size_t inserted = 32;
inline constexpr std::size_t capacity = 40;
inline constexpr std::size_t target_fpr = 48;
inline constexpr std::size_t payload_bytes = 56;
inline constexpr std::size_t payload_checksum = 64;
inline constexpr std::size_t params = 72;
}  // namespace offset

/// The header length for a parameter section of `params_bytes`: fixed part,
/// parameters, zero padding, and the 8-byte header checksum ending exactly at
/// the next multiple of 64 (so the payload starts cache-line aligned).
constexpr std::uint64_t header_bytes_for(std::uint64_t params_bytes) noexcept {
  const std::uint64_t unpadded = fixed_header_bytes + params_bytes + 8;
  return (unpadded + payload_alignment - 1) / payload_alignment * payload_alignment;
}

/// XXH3-64 (seed 0) of `bytes`: the file's checksum function (FORMAT.md says why).
inline std::uint64_t checksum(std::span<const std::byte> bytes) noexcept {
  return XXH3_64bits(bytes.data(), bytes.size());
}

/// Throws bloomkit::error(code, "bloomkit file: " + message): the
/// file-format reader speaking.
[[noreturn]] inline void fail(errc code, const std::string& message) {
  throw error::from_file_format(code, message);
}

/// Throws errc::corrupt naming `field` unless `condition` holds.
inline void check_field(bool condition, std::string_view kind, std::string_view field, const std::string& detail) {
  if (!condition) fail(errc::corrupt, std::string(kind) + " field '" + std::string(field) + "' " + detail);
}

/// `value` with enough digits to tell any two doubles apart (for messages).
inline std::string exact_decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

inline std::uint64_t double_bits(double value) noexcept {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline double double_from_bits(std::uint64_t bits) noexcept {
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// The fields every kind shares, as a codec reports them for writing.
struct common_fields {
  hash_spec hash{};
  std::uint64_t inserted = 0;
  std::uint64_t capacity = 0;
  double target_fpr = 0.0;
  /// What `inserted` is; anything but exact makes the file version 2.
  count_accuracy accuracy = count_accuracy::exact;
  /// The oldest version the kind's section needs (a codec's min_version).
  std::uint32_t min_version = 1;
};

/// The version a writer writes for `c`: the oldest that expresses it (a key
/// type needs version 5; an untyped filter is written exactly as before it).
constexpr std::uint32_t written_version(const common_fields& c) noexcept {
  const std::uint32_t for_count = c.accuracy == count_accuracy::exact ? 1 : accuracy_version;
  const std::uint32_t for_keys = c.hash.keys == key_type::unspecified ? 1 : key_type_version;
  const std::uint32_t v = for_count > c.min_version ? for_count : c.min_version;
  return for_keys > v ? for_keys : v;
}

/// The fixed header, decoded and checked (see parse_header).
struct header {
  std::uint32_t version = 0;
  std::uint8_t kind_id = 0;
  hash_spec hash{};
  std::uint32_t header_bytes = 0;
  std::uint32_t params_bytes = 0;
  std::uint64_t inserted = 0;
  count_accuracy accuracy = count_accuracy::exact;  ///< version 2's offset 14; exact in version 1
  std::uint64_t capacity = 0;
  double target_fpr = 0.0;
  std::uint64_t payload_bytes = 0;
  std::uint64_t payload_checksum = 0;
  bool header_checksum_ok = false;

  [[nodiscard]] filter_kind kind() const noexcept { return static_cast<filter_kind>(kind_id); }
};

/// Throws errc::corrupt unless the header's payload length is `expected`,
/// the length `source` (for example "bits = 1024") takes.
inline void check_payload_bytes(const header& h, std::string_view kind, std::uint64_t expected,
                                const std::string& source) {
  check_field(h.payload_bytes == expected, kind, "payload_bytes",
              "= " + std::to_string(h.payload_bytes) + ", but " + source + " takes " + std::to_string(expected) +
                  " bytes");
}

/// Throws errc::corrupt unless a static filter's header counts exactly the
/// keys its parameters say it was built from (a static filter's `inserted`
/// is its key count, by definition).
inline void check_static_keys(const header& h, std::string_view kind, std::uint64_t keys) {
  check_field(h.inserted == keys, kind, "inserted",
              "= " + std::to_string(h.inserted) + " differs from keys = " + std::to_string(keys));
}

/// Copies the header's design fields into a dynamic kind's parameters: they
/// are stored once, in the fixed header, not again among the kind's own.
template <class Params>
void adopt_design(const header& h, Params& p) noexcept {
  p.capacity = h.capacity;
  p.target_fpr = h.target_fpr;
  p.hash = h.hash;
}

/// Writes a kind's parameters, little-endian, into the header under
/// construction. Writing past the declared size is a codec bug (throws).
class params_writer {
 public:
  explicit params_writer(std::span<std::byte> out) noexcept : out_(out) {}
  void u8(std::uint8_t v) { put(v); }
  void u32(std::uint32_t v) { put(v); }
  void u64(std::uint64_t v) { put(v); }
  void f64(double v) { put(double_bits(v)); }
  /// `n` zero bytes (reserved fields).
  void zeros(std::size_t n) {
    room(n);
    at_ += n;  // the header buffer starts zeroed
  }
  [[nodiscard]] std::size_t written() const noexcept { return at_; }

 private:
  template <class T>
  void put(T v) {
    room(sizeof(T));
    store_le(out_.data() + at_, v);
    at_ += sizeof(T);
  }
  void room(std::size_t n) const {
    if (n > out_.size() - at_) throw error::from_file_format(errc::invalid_argument, "codec wrote more parameters than it declared");
  }
  std::span<std::byte> out_;
  std::size_t at_ = 0;
};

/// Reads a kind's parameters. Every read names its field, so a short
/// section yields "bloomkit file: <kind> field '<name>' ..." (errc::corrupt).
class params_reader {
 public:
  params_reader(std::span<const std::byte> in, std::string_view kind) noexcept : in_(in), kind_(kind) {}
  std::uint8_t u8(std::string_view field) { return get<std::uint8_t>(field); }
  std::uint32_t u32(std::string_view field) { return get<std::uint32_t>(field); }
  std::uint64_t u64(std::string_view field) { return get<std::uint64_t>(field); }
  double f64(std::string_view field) { return double_from_bits(get<std::uint64_t>(field)); }
  /// `n` bytes that must be zero (reserved for later versions).
  void zeros(std::size_t n, std::string_view field) {
    room(n, field);
    for (std::size_t i = 0; i < n; ++i) {
      check_field(in_[at_ + i] == std::byte{0}, kind_, field, "is reserved and must be zero");
    }
    at_ += n;
  }
  /// Throws errc::corrupt unless every parameter byte was read.
  void finish() const {
    check_field(at_ == in_.size(), kind_, "params_bytes",
                "= " + std::to_string(in_.size()) + ", but the parameters take " + std::to_string(at_) + " bytes");
  }
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - at_; }
  [[nodiscard]] std::string_view kind() const noexcept { return kind_; }

 private:
  template <class T>
  T get(std::string_view field) {
    room(sizeof(T), field);
    const T v = load_le<T>(in_.data() + at_);
    at_ += sizeof(T);
    return v;
  }
  void room(std::size_t n, std::string_view field) const {
    check_field(n <= in_.size() - at_, kind_, field,
                "lies past the end of the " + std::to_string(in_.size()) + "-byte parameter section");
  }
  std::span<const std::byte> in_;
  std::string_view kind_;
  std::size_t at_ = 0;
};

// ---- payload words ----------------------------------------------------------
//
// Payloads are arrays of unsigned words stored little-endian. On a
// little-endian host the in-memory array already is the payload, so it is
// written and checksummed in one piece; elsewhere each word goes through
// store_le/load_le. Both paths are always compiled and the tests compare them.

/// A block type made of one array of unsigned words and nothing else
/// (block512, block256), so its object bytes are its words in order.
template <class Block>
concept word_block = requires(const Block& b) {
  requires std::is_array_v<decltype(b.words)>;
} && std::unsigned_integral<std::remove_extent_t<decltype(Block::words)>> &&
    sizeof(Block) == sizeof(decltype(Block::words)) && std::is_trivially_copyable_v<Block>;

template <class Block>
using block_word_t = std::remove_cv_t<std::remove_extent_t<decltype(Block::words)>>;

template <class Block>
inline constexpr std::size_t block_word_count = std::extent_v<decltype(Block::words)>;

/// Writes `items` (unsigned words, or word_blocks) through `sink` one word at
/// a time, little-endian, whatever the host order.
template <class Item, class Sink>
void write_items_portable(std::span<const Item> items, Sink& sink) {
  std::array<std::byte, 4096> buffer;
  std::size_t used = 0;
  auto put = [&](auto word) {
    if (used + sizeof(word) > buffer.size()) {
      sink(std::span<const std::byte>(buffer.data(), used));
      used = 0;
    }
    store_le(buffer.data() + used, word);
    used += sizeof(word);
  };
  for (const Item& item : items) {
    if constexpr (std::unsigned_integral<Item>) {
      put(item);
    } else {
      for (auto word : item.words) put(word);
    }
  }
  if (used > 0) sink(std::span<const std::byte>(buffer.data(), used));
}

/// Writes `items` little-endian: one sink call on little-endian hosts.
template <class Item, class Sink>
void write_items(std::span<const Item> items, Sink& sink) {
  static_assert(std::unsigned_integral<Item> || word_block<Item>);
  if constexpr (std::endian::native == std::endian::little) {
    if (!items.empty()) sink(std::as_bytes(items));
  } else {
    write_items_portable(items, sink);
  }
}

/// The writing half of a codec whose payload is one array of little-endian
/// 64-bit words, `Source::words()`, in order (every kind whose state is one
/// word array). A codec derives from it and adds its
/// parameters and reading.
template <class Source>
struct word_payload {
  static constexpr std::size_t payload_alignment = alignof(std::uint64_t);
  static std::uint64_t payload_bytes(const Source& f) noexcept { return f.words().size_bytes(); }
  template <class Sink>
  static void write_payload(const Source& f, Sink& sink) {
    write_items(f.words(), sink);
  }
};

/// Fills `out` from little-endian `bytes` (bytes.size() == out.size_bytes()),
/// one word at a time.
template <class Item>
void read_items_portable(std::span<const std::byte> bytes, std::span<Item> out) noexcept {
  std::size_t at = 0;
  for (Item& item : out) {
    if constexpr (std::unsigned_integral<Item>) {
      item = load_le<Item>(bytes.data() + at);
      at += sizeof(Item);
    } else {
      for (auto& word : item.words) {
        word = load_le<std::remove_cvref_t<decltype(word)>>(bytes.data() + at);
        at += sizeof(word);
      }
    }
  }
}

/// A vector of `bytes.size() / sizeof(Item)` items decoded from little-endian
/// `bytes`. The caller has checked that the size is an exact multiple, and the
/// size is bounded by the input, so a lying length cannot allocate hugely.
template <class Item>
std::vector<Item> read_items(std::span<const std::byte> bytes) {
  static_assert(std::unsigned_integral<Item> || word_block<Item>);
  // vector_or_fail: a large payload is advised for huge pages before the copy
  // first touches it, as a constructed filter's is (detail/memory.hpp). A
  // split_block_bloom of 10^8 keys loaded into a plain vector answered batched
  // lookups in 16.1-16.6 ns against 12.7-13.3 for the one it was saved from
  // (scratch program, same process, 2^24 random hashes, -march=x86-64-v2).
  auto out = vector_or_fail<Item>(bytes.size() / sizeof(Item), Item{}, "loading a filter's payload");
  if constexpr (std::endian::native == std::endian::little) {
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(Item));
  } else {
    read_items_portable(bytes, std::span<Item>(out));
  }
  return out;
}

/// `bytes` seen in place as items: the zero-copy path of view(). Only on
/// little-endian hosts (the caller checks), with `bytes` aligned for Item
/// (the caller checks) and an exact multiple of sizeof(Item) long.
template <class Item>
std::span<const Item> items_in_place(std::span<const std::byte> bytes) noexcept {
  // The bytes are a file's image of an array of implicit-lifetime Items (a
  // mapping or a buffer the caller filled); reading them as Items is how
  // every mmap-based format works, and what C++23 names start_lifetime_as.
  return std::span<const Item>(reinterpret_cast<const Item*>(bytes.data()), bytes.size() / sizeof(Item));
}

// ---- the fixed header ---------------------------------------------------------

/// How parse_header treats a bad header checksum.
enum class checksum_mode : std::uint8_t {
  enforce,  ///< throw errc::checksum
  report,   ///< record it in header::header_checksum_ok and go on (inspect)
};

/// Decodes and checks the fixed header of `bytes` in this order: magic,
/// version, the lengths (against each other and the bytes available), the
/// header checksum, reserved and padding bytes, the hash algorithm, the
/// design point, and payload_bytes against the bytes after the header. It
/// does not check the kind or its parameters (the codec does) or the payload
/// checksum. Throws bloomkit::error naming the field; never reads past `bytes`.
inline header parse_header(std::span<const std::byte> bytes, checksum_mode mode) {
  const std::size_t size = bytes.size();
  if (size < magic.size()) {
    fail(errc::truncated, "the file is " + std::to_string(size) + " bytes long, shorter than the 8-byte magic");
  }
  if (std::memcmp(bytes.data(), magic.data(), magic.size()) != 0) {
    fail(errc::corrupt, "bad magic: this is not a bloomkit filter file");
  }
  if (size < offset::version + 4) fail(errc::truncated, "the file ends inside the 'version' field");
  header h;
  h.version = load_le<std::uint32_t>(bytes.data() + offset::version);
  if (h.version == 0) fail(errc::corrupt, "field 'version' is 0, which no writer produces");
  if (h.version > current_version) {
    fail(errc::unsupported_version, "format version " + std::to_string(h.version) +
                                        " is newer than this reader understands (versions 1 to " +
                                        std::to_string(current_version) + "); upgrade bloomkit to read it");
  }
  if (size < fixed_header_bytes) {
    fail(errc::truncated, "the file is " + std::to_string(size) + " bytes long, shorter than the " +
                              std::to_string(fixed_header_bytes) + "-byte fixed header");
  }
  h.kind_id = std::to_integer<std::uint8_t>(bytes[offset::kind]);
  const std::uint8_t algorithm = std::to_integer<std::uint8_t>(bytes[offset::hash_algorithm]);
  h.hash = hash_spec{static_cast<hash_algorithm>(algorithm), load_le<std::uint64_t>(bytes.data() + offset::hash_seed)};
  h.header_bytes = load_le<std::uint32_t>(bytes.data() + offset::header_bytes);
  h.params_bytes = load_le<std::uint32_t>(bytes.data() + offset::params_bytes);
  h.inserted = load_le<std::uint64_t>(bytes.data() + offset::inserted);
  h.capacity = load_le<std::uint64_t>(bytes.data() + offset::capacity);
  h.target_fpr = double_from_bits(load_le<std::uint64_t>(bytes.data() + offset::target_fpr));
  h.payload_bytes = load_le<std::uint64_t>(bytes.data() + offset::payload_bytes);
  h.payload_checksum = load_le<std::uint64_t>(bytes.data() + offset::payload_checksum);

  if (h.params_bytes > max_params_bytes) {
    fail(errc::corrupt, "field 'params_bytes' = " + std::to_string(h.params_bytes) + " exceeds the limit of " +
                            std::to_string(max_params_bytes));
  }
  const std::uint64_t expected_header = header_bytes_for(h.params_bytes);
  if (h.header_bytes != expected_header) {
    fail(errc::corrupt, "field 'header_bytes' = " + std::to_string(h.header_bytes) + ", but params_bytes = " +
                            std::to_string(h.params_bytes) + " implies " + std::to_string(expected_header));
  }
  if (size < h.header_bytes) {
    fail(errc::truncated, "the file is " + std::to_string(size) + " bytes long, shorter than its " +
                              std::to_string(h.header_bytes) + "-byte header");
  }
  const std::size_t checksum_at = h.header_bytes - 8;
  h.header_checksum_ok =
      checksum(bytes.first(checksum_at)) == load_le<std::uint64_t>(bytes.data() + checksum_at);
  if (!h.header_checksum_ok && mode == checksum_mode::enforce) {
    fail(errc::checksum, "the header checksum does not match: the header was altered after it was written");
  }
  if (h.version < accuracy_version) {
    if (bytes[offset::reserved] != std::byte{0} || bytes[offset::reserved + 1] != std::byte{0}) {
      fail(errc::corrupt, "field 'reserved' (offset 14) must be zero");
    }
  } else {
    // Version 2 exists only to say that `inserted` is not a count: an exact
    // count is written as version 1, so the encoding stays canonical. From
    // version 3 on, 0 (exact) is valid too; whether the version is the
    // oldest the filter needs is checked once the kind is decoded
    // (registry.hpp, require_header_agrees).
    const auto accuracy = std::to_integer<std::uint8_t>(bytes[offset::inserted_accuracy]);
    const bool exact_allowed = h.version >= probe_scheme_version && accuracy == 0;
    if (!exact_allowed && accuracy != static_cast<std::uint8_t>(count_accuracy::at_most) &&
        accuracy != static_cast<std::uint8_t>(count_accuracy::estimated)) {
      fail(errc::corrupt, "field 'inserted_accuracy' (offset 14) = " + std::to_string(accuracy) +
                              " in a version 2 file; it must be 1 (at most) or 2 (estimated), and an exact count is "
                              "written as version 1");
    }
    h.accuracy = static_cast<count_accuracy>(accuracy);
    const auto keys = std::to_integer<std::uint8_t>(bytes[offset::key_type]);
    if (h.version < key_type_version) {
      if (keys != 0) fail(errc::corrupt, "field 'reserved' (offset 15) must be zero");
    } else {
      if (keys > max_key_type) {
        fail(errc::corrupt, "field 'key_type' (offset 15) = " + std::to_string(keys) +
                                " names no key type (0 to " + std::to_string(max_key_type) + ")");
      }
      h.hash.keys = static_cast<key_type>(keys);
    }
  }
  for (std::size_t i = offset::params + h.params_bytes; i < checksum_at; ++i) {
    if (bytes[i] != std::byte{0}) fail(errc::corrupt, "header padding byte at offset " + std::to_string(i) + " is not zero");
  }
  if (!is_known(h.hash.algorithm)) {
    fail(errc::unsupported, "field 'hash_algorithm' = " + std::to_string(algorithm) +
                                " names a hash this build does not know");
  }
  if (h.capacity < 1) fail(errc::corrupt, "field 'capacity' is 0; a filter's design capacity is at least 1");
  if (!(h.target_fpr > 0.0 && h.target_fpr < 1.0)) {
    fail(errc::corrupt, "field 'target_fpr' = " + exact_decimal(h.target_fpr) + " is not in (0, 1)");
  }
  const std::uint64_t available = size - h.header_bytes;
  if (h.payload_bytes > available) {
    fail(errc::truncated, "field 'payload_bytes' = " + std::to_string(h.payload_bytes) + ", but only " +
                              std::to_string(available) + " bytes follow the header");
  }
  if (h.payload_bytes < available) {
    fail(errc::corrupt, std::to_string(available - h.payload_bytes) + " unexpected bytes follow the " +
                            std::to_string(h.payload_bytes) + "-byte payload");
  }
  return h;
}

/// Lays out the header for `common`, the kind id and parameters, and the
/// payload's length and checksum; the caller writes the parameters into
/// params() and then calls seal().
class header_builder {
 public:
  header_builder(filter_kind kind, const common_fields& common, std::uint32_t params_bytes,
                 std::uint64_t payload_bytes, std::uint64_t payload_checksum)
      : bytes_(header_bytes_for(params_bytes), std::byte{0}), params_bytes_(params_bytes) {
    if (params_bytes > max_params_bytes) {
      throw error::from_file_format(errc::invalid_argument, "a codec declared " + std::to_string(params_bytes) +
                                              " parameter bytes, above the limit of " + std::to_string(max_params_bytes));
    }
    std::memcpy(bytes_.data(), magic.data(), magic.size());
    store_le(bytes_.data() + offset::version, written_version(common));
    bytes_[offset::inserted_accuracy] = static_cast<std::byte>(common.accuracy);
    bytes_[offset::key_type] = static_cast<std::byte>(common.hash.keys);
    bytes_[offset::kind] = static_cast<std::byte>(kind);
    bytes_[offset::hash_algorithm] = static_cast<std::byte>(common.hash.algorithm);
    store_le(bytes_.data() + offset::hash_seed, common.hash.seed);
    store_le(bytes_.data() + offset::header_bytes, static_cast<std::uint32_t>(bytes_.size()));
    store_le(bytes_.data() + offset::params_bytes, params_bytes);
    store_le(bytes_.data() + offset::inserted, common.inserted);
    store_le(bytes_.data() + offset::capacity, common.capacity);
    store_le(bytes_.data() + offset::target_fpr, double_bits(common.target_fpr));
    store_le(bytes_.data() + offset::payload_bytes, payload_bytes);
    store_le(bytes_.data() + offset::payload_checksum, payload_checksum);
  }
  [[nodiscard]] std::span<std::byte> params() noexcept {
    return std::span<std::byte>(bytes_).subspan(offset::params, params_bytes_);
  }
  /// Stores the header checksum and returns the finished header.
  std::span<const std::byte> seal() noexcept {
    const std::size_t at = bytes_.size() - 8;
    store_le(bytes_.data() + at, checksum(std::span<const std::byte>(bytes_).first(at)));
    return bytes_;
  }

 private:
  std::vector<std::byte> bytes_;
  std::uint32_t params_bytes_;
};

/// Recomputes both checksums of `bytes` in place if its lengths are
/// structurally sound, and returns whether it did. For the fuzzer and for
/// tests that must reach the field checks behind the checksums.
inline bool reseal(std::span<std::byte> bytes) noexcept {
  if (bytes.size() < fixed_header_bytes) return false;
  if (std::memcmp(bytes.data(), magic.data(), magic.size()) != 0) return false;
  const auto header_bytes = load_le<std::uint32_t>(bytes.data() + offset::header_bytes);
  const auto params_bytes = load_le<std::uint32_t>(bytes.data() + offset::params_bytes);
  if (params_bytes > max_params_bytes || header_bytes != header_bytes_for(params_bytes)) return false;
  if (bytes.size() < header_bytes) return false;
  const auto payload = std::span<const std::byte>(bytes).subspan(header_bytes);
  store_le(bytes.data() + offset::payload_checksum, checksum(payload));
  store_le(bytes.data() + header_bytes - 8, checksum(std::span<const std::byte>(bytes).first(header_bytes - 8)));
  return true;
}

}  // namespace detail::format
}  // namespace bloomkit
