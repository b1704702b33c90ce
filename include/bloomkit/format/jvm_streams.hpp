// bloomkit/format/jvm_streams.hpp - Spark's and Guava's own serialized forms,
// read and written exactly (the bytes their writeTo produces and their
// readFrom accepts).
//
//   auto spark = bloomkit::read_spark_stream(bytes);          // Spark's BloomFilter.writeTo bytes
//   std::vector<std::byte> out = bloomkit::write_spark_stream(spark);
//   auto guava = bloomkit::read_guava_stream(bytes);          // Guava's BloomFilter.writeTo bytes
//   auto any = bloomkit::read_jvm_filter(bytes);              // either, told apart by their headers
//   auto v = bloomkit::view_jvm_filter(mapped.bytes());       // either, zero-copy (words queried in place)
//   auto f = bloomkit::load_jvm_filter("filter.bin");         // from a file
//   bloomkit::save_jvm_filter(f, "out.bin");                  // atomically, in its own format
//
// Spark (java.io.DataOutputStream, all big-endian):
//   version 1:  int32 version = 1 | int32 numHashFunctions | int32 numWords | numWords x int64
//   version 2:  int32 version = 2 | int32 numHashFunctions | int32 seed | int32 numWords | numWords x int64
// Guava:
//   int8 strategy ordinal | uint8 numHashFunctions | int32 numWords (big-endian) | numWords x int64 (big-endian)
//
// Reading is strict: every header field is checked before anything is
// allocated, and the stream must be exactly as long as its word count says
// (a file holds one filter; a shorter stream is errc::truncated, a longer
// one errc::corrupt). A lying word count therefore never allocates: the
// bytes for it must already be there. Unknown Spark versions are
// errc::unsupported_version, unknown Guava strategies errc::unsupported.
//
// The two headers cannot be confused: Spark's first two bytes are 0 (a
// version below 2^16), Guava's first byte is 0 or 1 and its second is k >= 1;
// bloomkit's own files start with 0x89. read_jvm_filter uses exactly that.
//
// The filters keep their words big-endian, as the streams hold them
// (detail/java_bit_array.hpp): reading a stream copies its payload, writing
// one copies the words after the header, and a view queries the stream's
// bytes where they lie (any alignment). bloomkit::load(path, any_format)
// (file_format.hpp) returns these kinds beside bloomkit's own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/file_io.hpp"  // with_file_bytes, atomic_file_writer
#include "bloomkit/guava_bloom.hpp"
#include "bloomkit/spark_bloom.hpp"

namespace bloomkit {

namespace detail::jvm {

inline std::uint32_t load_be32(const std::byte* p) noexcept {
  return static_cast<std::uint32_t>(std::to_integer<unsigned char>(p[0])) << 24 |
         static_cast<std::uint32_t>(std::to_integer<unsigned char>(p[1])) << 16 |
         static_cast<std::uint32_t>(std::to_integer<unsigned char>(p[2])) << 8 |
         static_cast<std::uint32_t>(std::to_integer<unsigned char>(p[3]));
}
inline void store_be32(std::byte* p, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (24 - 8 * i));
}

[[noreturn]] inline void fail(errc code, const char* format_name, const std::string& what) {
  throw error(code, std::string(format_name) + " stream: " + what);
}

/// Checks the word count against the bytes that follow the header and
/// returns it. Nothing is allocated before this passes.
inline std::uint64_t checked_words(const char* format_name, std::int32_t words, std::size_t header,
                                   std::size_t total) {
  if (words <= 0) {
    fail(errc::corrupt, format_name,
         "the word count is " + std::to_string(words) + " (a filter has at least one 64-bit word)");
  }
  const std::uint64_t need = std::uint64_t{8} * static_cast<std::uint64_t>(words);
  const std::uint64_t have = total - header;
  if (have < need) {
    fail(errc::truncated, format_name,
         "the header says " + std::to_string(words) + " words (" + std::to_string(need) + " bytes) but only " +
             std::to_string(have) + " bytes follow it");
  }
  if (have > need) {
    fail(errc::corrupt, format_name,
         std::to_string(have - need) + " bytes follow the last of the " + std::to_string(words) +
             " words (one stream holds one filter)");
  }
  return static_cast<std::uint64_t>(words);
}

/// A stream's parameters and where its words start, every field checked
/// (see read_spark_stream / read_guava_stream for the errors).
template <class Params>
struct parsed_stream {
  Params params;
  std::span<const std::byte> words;  ///< 8 * params.words bytes, big-endian
};

inline parsed_stream<spark_bloom_params> parse_spark(std::span<const std::byte> bytes) {
  constexpr const char* name = "Spark BloomFilter";
  if (bytes.size() < 4) fail(errc::truncated, name, std::to_string(bytes.size()) + " bytes, shorter than the 4-byte version");
  const auto version = static_cast<std::int32_t>(load_be32(bytes.data()));
  if (version != 1 && version != 2) {
    fail(errc::unsupported_version, name, "unknown version " + std::to_string(version) + " (Spark writes 1 and 2)");
  }
  const std::size_t header = version == 1 ? 12 : 16;
  if (bytes.size() < header) {
    fail(errc::truncated, name,
         std::to_string(bytes.size()) + " bytes, shorter than the " + std::to_string(header) + "-byte version " +
             std::to_string(version) + " header");
  }
  const auto k = static_cast<std::int32_t>(load_be32(bytes.data() + 4));
  if (k < 1 || static_cast<std::uint32_t>(k) > spark_max_k) {
    fail(errc::corrupt, name,
         "numHashFunctions is " + std::to_string(k) + " (bloomkit reads [1, " + std::to_string(spark_max_k) + "])");
  }
  const std::int32_t seed = version == 2 ? static_cast<std::int32_t>(load_be32(bytes.data() + 8)) : 0;
  const auto declared = static_cast<std::int32_t>(load_be32(bytes.data() + header - 4));
  const std::uint64_t words = checked_words(name, declared, header, bytes.size());
  return {spark_bloom_params{version == 1 ? spark_bloom_version::v1 : spark_bloom_version::v2,
                             static_cast<std::uint32_t>(k), words, seed},
          bytes.subspan(header)};
}

inline parsed_stream<guava_bloom_params> parse_guava(std::span<const std::byte> bytes) {
  constexpr const char* name = "Guava BloomFilter";
  if (bytes.size() < 6) fail(errc::truncated, name, std::to_string(bytes.size()) + " bytes, shorter than the 6-byte header");
  const auto strategy = static_cast<std::int8_t>(std::to_integer<unsigned char>(bytes[0]));
  if (strategy != 0 && strategy != 1) {
    fail(errc::unsupported, name,
         "unknown strategy ordinal " + std::to_string(strategy) + " (Guava defines 0 MURMUR128_MITZ_32 and 1 MURMUR128_MITZ_64)");
  }
  const unsigned k = std::to_integer<unsigned char>(bytes[1]);
  if (k == 0) fail(errc::corrupt, name, "numHashFunctions is 0");
  const auto declared = static_cast<std::int32_t>(load_be32(bytes.data() + 2));
  const std::uint64_t words = checked_words(name, declared, 6, bytes.size());
  return {guava_bloom_params{static_cast<guava_strategy>(strategy), k, words}, bytes.subspan(6)};
}

/// The header, then the words as the filter holds them (already big-endian).
inline std::vector<std::byte> with_header(std::span<const std::byte> header, std::span<const std::byte> words) {
  std::vector<std::byte> out;
  out.reserve(header.size() + words.size());
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), words.begin(), words.end());
  return out;
}

}  // namespace detail::jvm


/// Reads Spark's BloomFilter.writeTo bytes (version 1 or 2), copying the
/// words. Throws bloomkit::error: truncated (shorter than its header or word
/// count says), unsupported_version (a version other than 1 and 2), corrupt
/// (k outside [1, spark_max_k], a word count below 1, trailing bytes).
inline spark_bloom read_spark_stream(std::span<const std::byte> bytes) {
  const auto parsed = detail::jvm::parse_spark(bytes);
  return spark_bloom(parsed.params, parsed.words);
}

/// A zero-copy view of the Spark stream in `bytes` (which must outlive it
/// and stay unchanged), with read_spark_stream's checks. Nothing is copied
/// or allocated: queries read the stream's words where they lie.
inline spark_bloom_view view_spark_stream(std::span<const std::byte> bytes) {
  const auto parsed = detail::jvm::parse_spark(bytes);
  return spark_bloom_view(parsed.params, parsed.words);
}

/// The size of write_spark_stream's output for `f`.
inline std::size_t spark_stream_size(const spark_bloom_view& f) noexcept {
  return (f.version() == spark_bloom_version::v1 ? 12 : 16) + f.size_in_bytes();
}
inline std::size_t spark_stream_size(const spark_bloom& f) noexcept { return spark_stream_size(f.view()); }

/// Spark's BloomFilter.writeTo bytes for `f` (Spark's readFrom reads them
/// back into an equal filter).
inline std::vector<std::byte> write_spark_stream(const spark_bloom_view& f) {
  using namespace detail::jvm;
  std::byte header[16];
  std::size_t size = 0;
  store_be32(header, static_cast<std::uint32_t>(f.version()));
  store_be32(header + 4, f.k());
  size = 8;
  if (f.version() == spark_bloom_version::v2) {
    store_be32(header + size, static_cast<std::uint32_t>(f.seed()));
    size += 4;
  }
  store_be32(header + size, static_cast<std::uint32_t>(f.word_count()));
  size += 4;
  return with_header(std::span<const std::byte>(header, size), f.bytes());
}
inline std::vector<std::byte> write_spark_stream(const spark_bloom& f) { return write_spark_stream(f.view()); }

/// Reads Guava's BloomFilter.writeTo bytes, copying the words. Throws
/// bloomkit::error: truncated, unsupported (a strategy ordinal other than 0
/// and 1), corrupt (k = 0, a word count below 1, trailing bytes).
inline guava_bloom read_guava_stream(std::span<const std::byte> bytes) {
  const auto parsed = detail::jvm::parse_guava(bytes);
  return guava_bloom(parsed.params, parsed.words);
}

/// A zero-copy view of the Guava stream in `bytes`, with read_guava_stream's checks.
inline guava_bloom_view view_guava_stream(std::span<const std::byte> bytes) {
  const auto parsed = detail::jvm::parse_guava(bytes);
  return guava_bloom_view(parsed.params, parsed.words);
}

/// The size of write_guava_stream's output for `f`.
inline std::size_t guava_stream_size(const guava_bloom_view& f) noexcept { return 6 + f.size_in_bytes(); }
inline std::size_t guava_stream_size(const guava_bloom& f) noexcept { return guava_stream_size(f.view()); }

/// Guava's BloomFilter.writeTo bytes for `f`.
inline std::vector<std::byte> write_guava_stream(const guava_bloom_view& f) {
  std::byte header[6];
  header[0] = static_cast<std::byte>(f.strategy());
  header[1] = static_cast<std::byte>(f.k());
  detail::jvm::store_be32(header + 2, static_cast<std::uint32_t>(f.word_count()));
  return detail::jvm::with_header(header, f.bytes());
}
inline std::vector<std::byte> write_guava_stream(const guava_bloom& f) { return write_guava_stream(f.view()); }

/// Which JVM stream a byte string is, by its header alone.
enum class jvm_stream_kind { spark, guava };

/// The JVM format these bytes claim to be, or nullopt when they are neither
/// (bloomkit files, Parquet, anything else). Only the first bytes are read;
/// read_jvm_filter then checks everything.
inline std::optional<jvm_stream_kind> detect_jvm_stream(std::span<const std::byte> bytes) noexcept {
  if (bytes.size() < 2) return std::nullopt;
  const auto b0 = std::to_integer<unsigned char>(bytes[0]);
  const auto b1 = std::to_integer<unsigned char>(bytes[1]);
  // Spark: a big-endian version below 2^16 (read_spark_stream then names an
  // unknown one). Guava: strategy 0 or 1, then k >= 1.
  if (b0 == 0 && b1 == 0) return jvm_stream_kind::spark;
  if (b0 <= 1) return jvm_stream_kind::guava;
  return std::nullopt;
}

/// A filter read from a Spark or Guava stream.
using jvm_filter = std::variant<spark_bloom, guava_bloom>;

/// Reads a Spark or Guava stream, telling them apart by detect_jvm_stream.
/// Throws errc::unknown_kind when the bytes are neither, else what
/// read_spark_stream / read_guava_stream throw.
inline jvm_filter read_jvm_filter(std::span<const std::byte> bytes) {
  const auto kind = detect_jvm_stream(bytes);
  if (!kind) throw error(errc::unknown_kind, "not a Spark or Guava BloomFilter stream");
  if (*kind == jvm_stream_kind::spark) return read_spark_stream(bytes);
  return read_guava_stream(bytes);
}

/// A zero-copy view of a Spark or Guava stream.
using jvm_filter_view = std::variant<spark_bloom_view, guava_bloom_view>;

/// A view of the Spark or Guava stream in `bytes` (which must outlive it),
/// told apart and checked as read_jvm_filter does; nothing is copied.
inline jvm_filter_view view_jvm_filter(std::span<const std::byte> bytes) {
  const auto kind = detect_jvm_stream(bytes);
  if (!kind) throw error(errc::unknown_kind, "not a Spark or Guava BloomFilter stream");
  if (*kind == jvm_stream_kind::spark) return view_spark_stream(bytes);
  return view_guava_stream(bytes);
}

/// Reads the Spark or Guava filter in the file at `path` (a regular file is
/// mapped; a pipe or /dev/stdin is read to its end). errc::io when it cannot
/// be read; the errors of read_jvm_filter prefixed with the path.
inline jvm_filter load_jvm_filter(const std::filesystem::path& path) {
  return with_file_bytes(path, [&](std::span<const std::byte> bytes) {
    try {
      return read_jvm_filter(bytes);
    } catch (const error& e) {
      throw error::in_context(path.string() + ": ", e);
    }
  });
}

/// The stream bytes of either kind (its own writeTo form).
inline std::vector<std::byte> write_jvm_filter(const jvm_filter& f) {
  return std::visit(
      [](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, spark_bloom>) {
          return write_spark_stream(x);
        } else {
          return write_guava_stream(x);
        }
      },
      f);
}

/// Writes `f` to `path` as its own stream (Spark's or Guava's readFrom reads
/// the file), atomically: a temporary file in the same folder, fsync, rename,
/// so `path` never holds a partial filter and may be one of the inputs it
/// was computed from. Throws errc::io naming `path`.
inline void save_jvm_filter(const jvm_filter& f, const std::filesystem::path& path) {
  const std::vector<std::byte> bytes = write_jvm_filter(f);
  atomic_file_writer file(path);
  file.write(bytes);
  file.commit();
}

}  // namespace bloomkit
