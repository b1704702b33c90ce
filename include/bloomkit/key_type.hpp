// bloomkit/key_type.hpp - what a filter's keys are (docs/KEYS.md).
//
// A Bloom filter answers for the bytes it hashed, not for the value a user
// had in mind: the same number hashed as 4 bytes on one side and as 8 on the
// other is a silent false negative. So every filter records a key type (in
// its hash_spec, and in its file at header offset 15, docs/FORMAT.md), and
// every key is converted by that type before it is hashed, or refused with
// errc::mismatch naming both types. `unspecified` is the type of files
// written before format version 5 and of filters used only with precomputed
// hashes: keys are hashed exactly as they always were (hash.hpp).
//
// The numeric values are stored in files: never renumber.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"

namespace bloomkit {

/// The key types of docs/KEYS.md, each with the bytes a key of it hashes:
///   bytes         the byte string itself (text as its UTF-8 bytes)
///   int64         8 bytes little-endian two's complement (every integer, widened)
///   float64       the 8 bytes of the IEEE-754 binary64, little-endian
///   int32         4 bytes little-endian two's complement (Parquet INT32)
///   float32       the 4 bytes of the IEEE-754 binary32, little-endian (Parquet FLOAT)
///   timestamp_us  8 bytes little-endian: microseconds since 1970-01-01 00:00 UTC
///   date32        4 bytes little-endian: days since 1970-01-01
enum class key_type : std::uint8_t {
  unspecified = 0,
  bytes = 1,
  int64 = 2,
  float64 = 3,
  int32 = 4,
  float32 = 5,
  timestamp_us = 6,
  date32 = 7,
};

/// The largest key_type value this build defines; a file's larger value is corrupt.
inline constexpr std::uint8_t max_key_type = 7;

/// The name of a key type ("unspecified", "bytes", "int64", ...), as docs/KEYS.md,
/// the CLI's `info` and Python spell it; "unknown" for a value no release defines.
constexpr std::string_view to_string(key_type type) noexcept {
  switch (type) {
    case key_type::unspecified: return "unspecified";
    case key_type::bytes: return "bytes";
    case key_type::int64: return "int64";
    case key_type::float64: return "float64";
    case key_type::int32: return "int32";
    case key_type::float32: return "float32";
    case key_type::timestamp_us: return "timestamp_us";
    case key_type::date32: return "date32";
  }
  return "unknown";
}

/// The key type named `name` (exactly one of to_string's names, "unknown"
/// excluded); nullopt for any other text.
constexpr std::optional<key_type> parse_key_type(std::string_view name) noexcept {
  for (std::uint8_t v = 0; v <= max_key_type; ++v) {
    const auto type = static_cast<key_type>(v);
    if (to_string(type) == name) return type;
  }
  return std::nullopt;
}

/// True for the values 0..max_key_type.
constexpr bool is_known(key_type type) noexcept { return static_cast<std::uint8_t>(type) <= max_key_type; }

/// The width in bytes of a key of a fixed-width type (8 or 4); 0 for bytes
/// and unspecified, whose keys have any length.
constexpr std::size_t key_width(key_type type) noexcept {
  switch (type) {
    case key_type::int64:
    case key_type::float64:
    case key_type::timestamp_us: return 8;
    case key_type::int32:
    case key_type::float32:
    case key_type::date32: return 4;
    case key_type::unspecified:
    case key_type::bytes: return 0;
  }
  return 0;
}

namespace detail {

/// The mismatch error of two filters (merge, intersect) whose key types
/// differ: "<prefix>key types differ (int64 and bytes); ...". `prefix` names
/// the operation ("split_block_bloom merge: ").
inline void require_same_key_type(key_type a, key_type b, std::string_view prefix) {
  if (a == b) return;
  throw error(errc::mismatch, std::string(prefix) + "key types differ (" + std::string(to_string(a)) + " and " +
                                  std::string(to_string(b)) + "); filters of different key types hash different bytes");
}

/// The type a filter of key type `current` has after adopt_key_type(`wanted`):
/// `wanted` if `current` is unspecified, `current` if they are equal;
/// otherwise errc::mismatch naming both. `what` names the filter.
inline key_type adopted_key_type(key_type current, key_type wanted, std::string_view what) {
  if (!is_known(wanted)) {
    throw error(errc::invalid_argument, std::string(what) + ": key type " +
                                            std::to_string(static_cast<unsigned>(wanted)) + " is not defined");
  }
  if (current == key_type::unspecified || current == wanted) return wanted == key_type::unspecified ? current : wanted;
  throw error(errc::mismatch, std::string(what) + " holds " + std::string(to_string(current)) + " keys; cannot adopt " +
                                  std::string(to_string(wanted)));
}

}  // namespace detail

}  // namespace bloomkit
