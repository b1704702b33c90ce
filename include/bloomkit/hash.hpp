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
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
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
#include "bloomkit/key_type.hpp"

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

/// Which hash a filter was built with, and what its keys are. A filter
/// refuses to be queried, merged or loaded as another hash (error code
/// hash_mismatch/mismatch); `keys` (key_type.hpp, docs/KEYS.md) decides how
/// hash_key turns a key into bytes: `unspecified` hashes every key's own
/// canonical bytes, as bloomkit always did; any other type converts the key
/// into that type's bytes or refuses it with errc::mismatch.
struct hash_spec {
  /// hash_spec{algorithm, seed, keys}, in that order (every part optional:
  /// XXH3-64, seed 0, unspecified keys).
  constexpr hash_spec(hash_algorithm algorithm_ = hash_algorithm::xxh3_64, std::uint64_t seed_ = 0,
                      key_type keys_ = key_type::unspecified) noexcept
      : seed(seed_), algorithm(algorithm_), keys(keys_) {}

  // The seed first, so that the struct is 16 bytes and travels in two
  // registers: hash_key takes it by value on every single-key call.
  std::uint64_t seed = 0;
  hash_algorithm algorithm = hash_algorithm::xxh3_64;
  key_type keys = key_type::unspecified;

  friend constexpr bool operator==(const hash_spec&, const hash_spec&) = default;
};
static_assert(sizeof(hash_spec) == 16);

/// True when `a` and `b` compute the same hash of the same bytes (algorithm
/// and seed), whatever their key types: for checks about the hash function
/// alone (a Parquet filter's XXH64 seed 0, a loader's expected hash).
constexpr bool same_hash_function(const hash_spec& a, const hash_spec& b) noexcept {
  return a.algorithm == b.algorithm && a.seed == b.seed;
}

namespace detail {
/// The merge / intersect check of two filters' hash_specs: errc::mismatch
/// "<prefix>hash specs differ" for another algorithm or seed, and one naming
/// both key types for another key type. `prefix` names the operation.
inline void require_same_hash(const hash_spec& a, const hash_spec& b, const std::string& prefix) {
  if (!same_hash_function(a, b)) [[unlikely]] throw error(errc::mismatch, prefix + "hash specs differ");
  require_same_key_type(a.keys, b.keys, prefix);
}
}  // namespace detail

/// The hash every Parquet split-block Bloom filter uses: XXH64 with seed 0
/// (key type unspecified; a column's filter records its physical type).
inline constexpr hash_spec parquet_hash_spec{hash_algorithm::xxh64, 0, key_type::unspecified};

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
  switch (algorithm) {
    case hash_algorithm::xxh64:
    case hash_algorithm::xxh3_64: return true;
  }
  return false;
}

/// Every algorithm this build can compute, in id order: what the name
/// lookups below search, and what a shell lists in its help.
inline constexpr std::array<hash_algorithm, 2> known_hash_algorithms{hash_algorithm::xxh64, hash_algorithm::xxh3_64};

/// The algorithm whose to_string is exactly `name` ("xxh64", "xxh3_64"), or
/// nullopt. For names a program wrote (shard manifests, parameter dicts),
/// which are always the canonical ones.
constexpr std::optional<hash_algorithm> hash_algorithm_named(std::string_view name) noexcept {
  for (const hash_algorithm a : known_hash_algorithms) {
    if (to_string(a) == name) return a;
  }
  return std::nullopt;
}

/// The algorithm a user's spelling names: a canonical name (to_string), or
/// "xxh3" for xxh3_64; nullopt for anything else (case matters). The one
/// parser of hash names typed by people: the CLI's --hash and Python's
/// hash= arguments read it and word their own errors.
constexpr std::optional<hash_algorithm> parse_hash_algorithm(std::string_view name) noexcept {
  if (name == "xxh3") return hash_algorithm::xxh3_64;
  return hash_algorithm_named(name);
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

namespace detail {

/// What a C++ key is, for the conversions of docs/KEYS.md ("What converts").
enum class key_source : std::uint8_t { bytes, signed_integer, unsigned_integer, boolean, float32, float64 };

/// The value a user type's bloomkit_key_bytes hook gives, recursively: the
/// key whose source class (and conversion) a user type has.
template <class T>
struct key_beneath {
  using type = T;
};
template <class T>
  requires has_user_key_bytes<T>
struct key_beneath<T> {
  using type = typename key_beneath<std::remove_cvref_t<decltype(bloomkit_key_bytes(std::declval<const T&>()))>>::type;
};
template <class T>
using key_beneath_t = typename key_beneath<std::remove_cvref_t<T>>::type;

/// The source class of a key type that is not a user type.
template <class T>
constexpr key_source source_of() noexcept {
  if constexpr (std::is_same_v<T, bool>) return key_source::boolean;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return key_source::signed_integer;
  else if constexpr (std::is_integral_v<T>) return key_source::unsigned_integer;
  else if constexpr (std::is_same_v<T, float>) return key_source::float32;
  else if constexpr (std::is_same_v<T, double>) return key_source::float64;
  else return key_source::bytes;
}

/// How a key of class `from` (of `width` bytes) reaches a filter of type `to`:
///   same_bytes  its own canonical bytes are already the type's bytes (no conversion)
///   widen       a conversion that every value survives (an int16 into int64)
///   checked     a conversion only some values survive (an int64 into int32)
///   refused     no value converts (text into int64)
enum class key_conversion : std::uint8_t { same_bytes, widen, checked, refused };

constexpr key_conversion conversion(key_source from, std::size_t width, key_type to) noexcept {
  constexpr auto same_bytes = key_conversion::same_bytes, widen = key_conversion::widen,
                 checked = key_conversion::checked, refused = key_conversion::refused;
  switch (to) {
    case key_type::unspecified: return same_bytes;
    case key_type::bytes: return from == key_source::bytes ? same_bytes : refused;
    case key_type::int64:
      switch (from) {
        case key_source::signed_integer:
        case key_source::unsigned_integer: return width == 8 ? same_bytes : widen;
        case key_source::boolean: return widen;
        case key_source::float32:
        case key_source::float64: return checked;
        case key_source::bytes: return refused;
      }
      return refused;
    case key_type::int32:
      switch (from) {
        case key_source::signed_integer:
        case key_source::unsigned_integer: return width == 4 ? same_bytes : width < 4 ? widen : checked;
        case key_source::boolean: return widen;
        case key_source::float32:
        case key_source::float64: return checked;
        case key_source::bytes: return refused;
      }
      return refused;
    case key_type::float64:
      switch (from) {
        case key_source::signed_integer:
        case key_source::unsigned_integer: return width <= 4 ? widen : checked;
        case key_source::float32: return widen;
        case key_source::float64: return same_bytes;
        case key_source::boolean:
        case key_source::bytes: return refused;
      }
      return refused;
    case key_type::float32:
      switch (from) {
        case key_source::signed_integer:
        case key_source::unsigned_integer: return width <= 2 ? widen : checked;
        case key_source::float32: return same_bytes;
        case key_source::float64: return checked;
        case key_source::boolean:
        case key_source::bytes: return refused;
      }
      return refused;
    case key_type::timestamp_us:
    case key_type::date32: return refused;  // no C++ key is a date or an instant (docs/KEYS.md)
  }
  return refused;
}

/// conversion() for the C++ key type K.
template <class K>
constexpr key_conversion conversion_of(key_type to) noexcept {
  using T = key_beneath_t<K>;
  return conversion(source_of<T>(), source_of<T>() == key_source::bytes ? 0 : sizeof(T), to);
}

/// Bit t set when keys of type K keep their own bytes in a filter of key
/// type t (conversion same_bytes): hash_key's one test per call, a shift
/// and a bit test instead of the conversion table (key types are 0..7).
template <class K>
inline constexpr std::uint32_t same_bytes_types = [] {
  std::uint32_t mask = 0;
  for (std::uint8_t t = 0; t <= max_key_type; ++t) {
    if (conversion_of<K>(static_cast<key_type>(t)) == key_conversion::same_bytes) mask |= std::uint32_t{1} << t;
  }
  return mask;
}();

/// True when k's own canonical bytes are what a filter of key type `type`
/// hashes (no conversion, no check): unspecified, and e.g. 8-byte integers
/// into int64 or strings into bytes.
template <class K>
constexpr bool keeps_own_bytes(key_type type) noexcept {
  return ((same_bytes_types<K> >> (static_cast<unsigned>(type) & 31U)) & 1U) != 0;
}

/// The name of K's class in a mismatch message: "int32", "uint8", "bool",
/// "float32 (float)", "float64 (double)", "bytes (a string or byte container)".
template <class K>
std::string key_source_name() {
  using T = key_beneath_t<K>;
  constexpr key_source from = source_of<T>();
  switch (from) {
    case key_source::bytes: return "bytes (a string or byte container)";
    case key_source::boolean: return "bool";
    case key_source::signed_integer: return "int" + std::to_string(8 * sizeof(T));
    case key_source::unsigned_integer: return "uint" + std::to_string(8 * sizeof(T));
    case key_source::float32: return "float32 (float)";
    case key_source::float64: return "float64 (double)";
  }
  return "an unknown key";
}

/// The errc::mismatch error of a key that does not convert into `to`: the
/// whole class (`value` empty) or one value of it.
template <class K>
[[noreturn]] void refuse_key(key_type to, const std::string& value = {}) {
  std::string message = "the filter holds " + std::string(to_string(to)) + " keys; got " + key_source_name<K>();
  if (!value.empty()) message += " value " + value + ", which does not convert exactly into " + std::string(to_string(to));
  throw error(errc::mismatch, message);
}

/// A number's text for refuse_key (%.17g for floats: exact, and within
/// what every C++ library this project targets can print).
template <class T>
std::string key_value_text(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", static_cast<double>(v));
    return text;
  }
}

/// The IEEE-754 bits of a float (U = uint32_t) or double (U = uint64_t);
/// memcpy rather than std::bit_cast, which the playground's libc++ lacks.
template <class U, class F>
inline U bits_of(F value) noexcept {
  static_assert(sizeof(U) == sizeof(F));
  U bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

/// The number beneath a key: the key itself, or what its user type's
/// bloomkit_key_bytes hook gives, recursively (numbers only).
template <class K>
constexpr key_beneath_t<K> value_beneath(const K& k) {
  if constexpr (has_user_key_bytes<std::remove_cvref_t<K>>) return value_beneath(bloomkit_key_bytes(k));
  else return k;
}

/// The bytes of `v` converted into the fixed-width type `to` as the
/// little-endian value of key_width(to) bytes, or nullopt when the value
/// does not convert exactly (docs/KEYS.md's table). T is an integer, bool,
/// float or double, and conversion(T, to) is neither same_bytes for a
/// bytes or unspecified type nor refused.
template <class T>
std::optional<std::uint64_t> convert_number(T v, key_type to) noexcept {
  constexpr double two_63 = 9223372036854775808.0;
  constexpr double two_31 = 2147483648.0;
  // An integral floating value in [lo, hi), as an int64.
  const auto integral_in = [](double d, double lo, double hi) -> std::optional<std::int64_t> {
    if (!(d >= lo && d < hi) || std::trunc(d) != d) return std::nullopt;
    return static_cast<std::int64_t>(d);
  };
  switch (to) {
    case key_type::int64:
      if constexpr (std::is_same_v<T, bool>) return v ? 1U : 0U;
      else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
      else if constexpr (std::is_integral_v<T>) return static_cast<std::uint64_t>(v);
      else {
        const auto i = integral_in(static_cast<double>(v), -two_63, two_63);
        if (!i) return std::nullopt;
        return static_cast<std::uint64_t>(*i);
      }
    case key_type::int32:
      // Integers that fit in 32 bits, read as signed or unsigned: values of
      // 2^31 or more keep their bit pattern, as uint32 keys do (docs/KEYS.md).
      if constexpr (std::is_same_v<T, bool>) return v ? 1U : 0U;
      else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        const auto i = static_cast<std::int64_t>(v);
        if (i < -2147483648LL || i > 4294967295LL) return std::nullopt;
        return static_cast<std::uint32_t>(i);
      } else if constexpr (std::is_integral_v<T>) {
        if (static_cast<std::uint64_t>(v) > 0xFFFFFFFFULL) return std::nullopt;
        return static_cast<std::uint32_t>(v);
      } else {
        const auto i = integral_in(static_cast<double>(v), -two_31, two_31);
        if (!i) return std::nullopt;
        return static_cast<std::uint32_t>(*i);
      }
    case key_type::float64:
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        constexpr std::uint64_t limit = std::uint64_t{1} << 53;
        if constexpr (std::is_signed_v<T>) {
          const auto i = static_cast<std::int64_t>(v);
          if (i < -static_cast<std::int64_t>(limit) || i > static_cast<std::int64_t>(limit)) return std::nullopt;
        } else if (static_cast<std::uint64_t>(v) > limit) {
          return std::nullopt;
        }
        return bits_of<std::uint64_t>(static_cast<double>(v));
      } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        return bits_of<std::uint64_t>(static_cast<double>(v));
      } else {
        return std::nullopt;
      }
    case key_type::float32:
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        constexpr std::int64_t limit = std::int64_t{1} << 24;
        if constexpr (std::is_signed_v<T>) {
          const auto i = static_cast<std::int64_t>(v);
          if (i < -limit || i > limit) return std::nullopt;
        } else if (static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(limit)) {
          return std::nullopt;
        }
        return bits_of<std::uint32_t>(static_cast<float>(v));
      } else if constexpr (std::is_same_v<T, float>) {
        return bits_of<std::uint32_t>(v);
      } else if constexpr (std::is_same_v<T, double>) {
        // Exactly a float32: narrowing and widening back gives the same bits.
        const float f = static_cast<float>(v);
        if (bits_of<std::uint64_t>(static_cast<double>(f)) != bits_of<std::uint64_t>(v)) return std::nullopt;
        return bits_of<std::uint32_t>(f);
      } else {
        return std::nullopt;
      }
    case key_type::unspecified:
    case key_type::bytes:
    case key_type::timestamp_us:
    case key_type::date32: return std::nullopt;
  }
  return std::nullopt;
}

/// The hash of the key `k` converted into spec.keys, which is not
/// unspecified and for which K's bytes are not already the type's bytes.
/// Throws errc::mismatch (naming both types) for a key that does not convert.
/// Cold and out of line: hash_key's common case (a key that keeps its own
/// bytes) must stay small enough to inline into every single-key call.
template <class K>
[[gnu::cold, gnu::noinline]] std::uint64_t hash_converted_key(const K& k, hash_spec spec) {
  using T = std::remove_cvref_t<K>;
  if constexpr (has_user_key_bytes<T>) {
    return hash_converted_key(bloomkit_key_bytes(k), spec);
  } else if constexpr (source_of<T>() == key_source::bytes) {
    refuse_key<T>(spec.keys);  // bytes convert only into bytes, which keeps them as they are
  } else {
    if (conversion_of<T>(spec.keys) == key_conversion::refused) refuse_key<T>(spec.keys);
    const std::optional<std::uint64_t> v = convert_number(k, spec.keys);
    if (!v) refuse_key<T>(spec.keys, key_value_text(k));
    if (key_width(spec.keys) == 8) return hash_fixed_key(*v, spec);
    return hash_fixed_key(static_cast<std::uint32_t>(*v), spec);
  }
}

}  // namespace detail

/// True unless keys of the C++ type K never convert into a filter of key
/// type `type` (docs/KEYS.md: text into int64, an integer into bytes, any
/// C++ key into timestamp_us); some values may still not convert (2^40 into
/// int32), which hash_key reports per key. Every K converts into unspecified.
template <class K>
constexpr bool converts_into(key_type type) noexcept {
  return detail::conversion_of<std::remove_cvref_t<K>>(type) != detail::key_conversion::refused;
}

/// Throws errc::mismatch unless every key of keys[0, n) converts into
/// spec.keys: once for the whole batch when K's class decides it, key by key
/// only for conversions that some values fail (an int64 into int32). The
/// keyed batches (insert_keys, may_contain_keys) call it before they change
/// anything; bindings call it before their own batch loops.
template <class K>
void require_keys_convert(const K* keys, std::size_t n, hash_spec spec) {
  using T = std::remove_cvref_t<K>;
  switch (detail::conversion_of<T>(spec.keys)) {
    case detail::key_conversion::same_bytes:
    case detail::key_conversion::widen: return;
    case detail::key_conversion::refused: detail::refuse_key<T>(spec.keys);
    case detail::key_conversion::checked:
      if constexpr (detail::source_of<detail::key_beneath_t<T>>() != detail::key_source::bytes) {
        for (std::size_t i = 0; i < n; ++i) {
          const auto v = detail::value_beneath(keys[i]);
          if (!detail::convert_number(v, spec.keys)) detail::refuse_key<T>(spec.keys, detail::key_value_text(v));
        }
      }
      return;
  }
}

/// The 64-bit hash of `k` under `spec`. With spec.keys unspecified, of k's
/// canonical bytes (hash.hpp's top comment); with a key type, of k converted
/// into that type's bytes by docs/KEYS.md's table (every integer widened
/// into int64, float into float64, ...), or errc::mismatch naming both types
/// for a key that does not convert exactly. 4- and 8-byte integers, float
/// and double are hashed from their value (same result as hashing their
/// canonical bytes, detail/fixed_hash.hpp); other keys go through their bytes.
template <key K>
std::uint64_t hash_key(const K& k, hash_spec spec) {
  if (!detail::keeps_own_bytes<std::remove_cvref_t<K>>(spec.keys)) [[unlikely]] {
    return detail::hash_converted_key(k, spec);
  }
  if constexpr (detail::fixed_width_key<std::remove_cvref_t<K>>) {
    return detail::hash_fixed_key(k, spec);
  } else {
    return detail::with_key_bytes(k, [spec](const void* data, std::size_t size) {
      return hash_bytes(data, size, spec);
    });
  }
}

namespace detail {
template <class>
inline constexpr bool not_a_key = false;
}  // namespace detail

/// A type that is not a key: every filter's insert / may_contain reach this
/// overload, so the compiler's first error is the message below, naming
/// the hook a user type needs, rather than a list of unsatisfied
/// constraints that never mentions it.
template <class K>
  requires(!key<K>)
std::uint64_t hash_key(const K&, hash_spec) {
  static_assert(detail::not_a_key<K>,
                "bloomkit: this type is not a key. Give it an ADL function bloomkit_key_bytes(const T&) "
                "returning its bytes (e.g. std::array<std::byte, N>, or a std::string), declared in T's "
                "namespace; see bloomkit/hash.hpp");
  return 0;
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
