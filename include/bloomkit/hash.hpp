// bloomkit/hash.hpp - hash algorithms, the hash_spec a filter records, and
// key canonicalisation.
//
// Every bloomkit filter works on one 64-bit hash per key and derives all of
// its probes from it (DESIGN.md). The hash must be the same on every machine,
// so keys are first turned into canonical bytes:
//   * integers of any width  -> their fixed-width two's-complement bytes, little-endian
//   * float / double         -> their IEEE-754 bit pattern, little-endian (no
//                               canonicalisation: +0.0 and -0.0 differ, as in Parquet)
//   * strings, string views, byte spans, std::array / std::vector of bytes
//                            -> exactly their bytes (no length prefix, no terminator)
//   * const char* and char arrays -> the bytes of the NUL-terminated C string
//   * a user type T          -> whatever `bloomkit_key_bytes(const T&)`, found by
//                               argument-dependent lookup, returns (itself a key):
//
//       namespace geo {
//       struct point { std::int32_t x, y; };
//       inline std::array<std::byte, 8> bloomkit_key_bytes(const point& p) {
//         std::array<std::byte, 8> out{};
//         bloomkit::store_le(out.data(), static_cast<std::uint32_t>(p.x));
//         bloomkit::store_le(out.data() + 4, static_cast<std::uint32_t>(p.y));
//         return out;
//       }
//       }  // namespace geo
//
//     Raw structs are never hashed as memory: padding bytes are indeterminate
//     and byte order differs between machines (STYLE.md).
//
// Hashes come from Debian's libxxhash (xxhash.h, inlined): XXH64 (the hash
// Parquet fixes, seed 0) and XXH3-64 (faster on short keys, the default).
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {

/// Hash algorithms a filter can record. The numeric values are stored in
/// files (docs/FORMAT.md): never renumber.
enum class hash_algorithm : std::uint8_t {
  xxh64 = 1,    ///< XXH64 (xxHash spec 0.1.1); Parquet's split-block filters use it with seed 0
  xxh3_64 = 2,  ///< XXH3 64-bit; bloomkit's default for its own filters
};

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny deterministic generator
/// of well-mixed 64-bit values, for test keys, demos and benchmarks (the
/// CLI's demo, the playground and bench/ draw their keys from it). Not for
/// cryptographic use. `splitmix64 g(seed); g()` gives the next value.
using detail::splitmix64;

/// Which hash a filter was built with. A filter refuses to be queried,
/// merged or loaded as another hash_spec (error code hash_mismatch/mismatch).
struct hash_spec {
  hash_algorithm algorithm = hash_algorithm::xxh3_64;
  std::uint64_t seed = 0;

  friend constexpr bool operator==(const hash_spec&, const hash_spec&) = default;
};

/// The hash every Parquet split-block Bloom filter uses: XXH64 with seed 0.
inline constexpr hash_spec parquet_hash_spec{hash_algorithm::xxh64, 0};

/// "xxh64" or "xxh3_64"; "unknown" for a value no release defines.
constexpr std::string_view to_string(hash_algorithm algorithm) noexcept {
  switch (algorithm) {
    case hash_algorithm::xxh64: return "xxh64";
    case hash_algorithm::xxh3_64: return "xxh3_64";
  }
  return "unknown";
}

/// True for the algorithm ids this build can compute.
constexpr bool is_known(hash_algorithm algorithm) noexcept {
  return algorithm == hash_algorithm::xxh64 || algorithm == hash_algorithm::xxh3_64;
}

/// Hashes `size` bytes at `data` with `spec`. Deterministic across machines.
/// Throws bloomkit::error(invalid_argument) for an unknown algorithm id.
inline std::uint64_t hash_bytes(const void* data, std::size_t size, hash_spec spec) {
  switch (spec.algorithm) {
    case hash_algorithm::xxh64: return XXH64(data, size, spec.seed);
    case hash_algorithm::xxh3_64: return XXH3_64bits_withSeed(data, size, spec.seed);
  }
  throw error(errc::invalid_argument, "unknown hash algorithm id " +
                                          std::to_string(static_cast<int>(spec.algorithm)));
}

/// Convenience overload for a span of bytes.
inline std::uint64_t hash_bytes(std::span<const std::byte> bytes, hash_spec spec) {
  return hash_bytes(bytes.data(), bytes.size(), spec);
}

namespace detail {

/// Writes `value` as little-endian bytes at `out` (sizeof(T) bytes).
template <std::unsigned_integral T>
constexpr void store_le(std::byte* out, T value) noexcept {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out[i] = static_cast<std::byte>(static_cast<unsigned char>(value >> (8 * i)));
  }
}

/// Reads a little-endian T from `in` (sizeof(T) bytes), whatever the host order.
template <std::unsigned_integral T>
constexpr T load_le(const std::byte* in) noexcept {
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<T>(std::to_integer<unsigned char>(in[i])) << (8 * i));
  }
  return value;
}

template <class T>
inline constexpr bool is_char_like_v =
    std::is_same_v<T, char> || std::is_same_v<T, unsigned char> || std::is_same_v<T, signed char> ||
    std::is_same_v<T, std::byte> || std::is_same_v<T, char8_t>;

/// A contiguous container of one-byte elements: string, string_view, span,
/// vector or array of bytes. Its bytes are the key.
template <class T>
concept byte_container = requires(const T& t) {
  { t.data() };
  { t.size() } -> std::convertible_to<std::size_t>;
} && std::is_pointer_v<decltype(std::declval<const T&>().data())> &&
    is_char_like_v<std::remove_cv_t<std::remove_pointer_t<decltype(std::declval<const T&>().data())>>>;

template <class T>
concept c_string = std::is_same_v<std::decay_t<T>, const char*> || std::is_same_v<std::decay_t<T>, char*>;

template <class T>
concept has_user_key_bytes = requires(const T& t) { bloomkit_key_bytes(t); };

/// Calls `sink(const void* data, std::size_t size)` with the canonical bytes
/// of `key` and returns what the sink returns.
template <class K, class Sink>
constexpr decltype(auto) with_key_bytes(const K& key, Sink&& sink) {
  using T = std::remove_cvref_t<K>;
  if constexpr (has_user_key_bytes<T>) {
    const auto bytes = bloomkit_key_bytes(key);
    return with_key_bytes(bytes, static_cast<Sink&&>(sink));
  } else if constexpr (std::is_same_v<T, bool>) {
    const unsigned char b = key ? 1 : 0;
    return sink(&b, std::size_t{1});
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    std::array<std::byte, sizeof(T)> buffer{};
    store_le(buffer.data(), static_cast<U>(key));
    return sink(buffer.data(), buffer.size());
  } else if constexpr (std::is_same_v<T, float>) {
    std::uint32_t bits;
    std::memcpy(&bits, &key, sizeof bits);
    std::array<std::byte, 4> buffer{};
    store_le(buffer.data(), bits);
    return sink(buffer.data(), buffer.size());
  } else if constexpr (std::is_same_v<T, double>) {
    std::uint64_t bits;
    std::memcpy(&bits, &key, sizeof bits);
    std::array<std::byte, 8> buffer{};
    store_le(buffer.data(), bits);
    return sink(buffer.data(), buffer.size());
  } else if constexpr (c_string<T> || (std::is_array_v<T> && std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>)) {
    const std::string_view view(key);
    return sink(view.data(), view.size());
  } else {
    static_assert(byte_container<T>, "not a bloomkit key; see hash.hpp for the supported key types");
    return sink(static_cast<const void*>(key.data()), static_cast<std::size_t>(key.size()));
  }
}

}  // namespace detail

/// Writes an unsigned integer's bytes little-endian at `out` (the byte
/// order every key and file uses); for bloomkit_key_bytes of a user type.
using detail::store_le;

/// A type bloomkit can hash: integers, float, double, strings, byte
/// containers, C strings, or a type with an ADL `bloomkit_key_bytes`.
template <class K>
concept key = detail::has_user_key_bytes<std::remove_cvref_t<K>> ||
              std::is_integral_v<std::remove_cvref_t<K>> || std::is_same_v<std::remove_cvref_t<K>, float> ||
              std::is_same_v<std::remove_cvref_t<K>, double> || detail::c_string<std::remove_cvref_t<K>> ||
              (std::is_array_v<std::remove_cvref_t<K>> &&
               std::is_same_v<std::remove_cv_t<std::remove_extent_t<std::remove_cvref_t<K>>>, char>) ||
              detail::byte_container<std::remove_cvref_t<K>>;

namespace detail {

/// Keys whose canonical bytes are one 4- or 8-byte little-endian value
/// (integers of those widths, float, double, and no user override): they
/// take the fixed-width path of fixed_hash.hpp instead of a byte buffer.
template <class K>
concept fixed_width_key = !has_user_key_bytes<K> && !std::is_same_v<K, bool> &&
                          (std::is_integral_v<K> || std::is_same_v<K, float> || std::is_same_v<K, double>) &&
                          (sizeof(K) == 4 || sizeof(K) == 8);

/// The canonical little-endian value of a fixed_width_key (its bytes read as
/// an unsigned integer of the same width): the integer itself, or a float's
/// IEEE-754 bits.
template <fixed_width_key K>
constexpr auto fixed_key_value(const K& k) noexcept {
  using U = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;
  if constexpr (std::is_integral_v<K>) {
    return static_cast<U>(k);
  } else {
    U bits;
    std::memcpy(&bits, &k, sizeof bits);
    return bits;
  }
}

/// hash_bytes(canonical bytes of k, spec) for a fixed_width_key, computed on
/// the value (fixed_hash.hpp). Throws like hash_bytes for an unknown id.
template <fixed_width_key K>
inline std::uint64_t hash_fixed_key(const K& k, hash_spec spec) {
  const auto v = fixed_key_value(k);
  switch (spec.algorithm) {
    case hash_algorithm::xxh64:
      if constexpr (sizeof(K) == 8) return xxh64_of_u64(v, spec.seed);
      else return xxh64_of_u32(v, spec.seed);
    case hash_algorithm::xxh3_64:
      if constexpr (sizeof(K) == 8) return xxh3_of_u64(v, spec.seed);
      else return xxh3_of_u32(v, spec.seed);
  }
  return hash_bytes(&v, sizeof v, spec);  // an unknown id: hash_bytes throws
}

}  // namespace detail

/// The 64-bit hash of `k`'s canonical bytes under `spec`. 4- and 8-byte
/// integers, float and double are hashed from their value (same result as
/// hashing their canonical bytes, detail/fixed_hash.hpp); other keys go
/// through their bytes.
template <key K>
std::uint64_t hash_key(const K& k, hash_spec spec) {
  if constexpr (detail::fixed_width_key<std::remove_cvref_t<K>>) {
    return detail::hash_fixed_key(k, spec);
  } else {
    return detail::with_key_bytes(k, [spec](const void* data, std::size_t size) {
      return hash_bytes(data, size, spec);
    });
  }
}

/// A function object hashing keys with a fixed hash_spec, for user code that
/// hashes once and passes hashes to several filters (insert_hash, insert_many).
class hasher {
 public:
  constexpr hasher() = default;
  constexpr explicit hasher(hash_spec spec) : spec_(spec) {}

  template <key K>
  std::uint64_t operator()(const K& k) const {
    return hash_key(k, spec_);
  }

  [[nodiscard]] constexpr hash_spec spec() const noexcept { return spec_; }

 private:
  hash_spec spec_{};
};

}  // namespace bloomkit
