// bloomkit/detail/fixed_hash.hpp - XXH64 and XXH3-64 of one 4- or 8-byte
// key, as straight-line arithmetic on the key's value.
//
// Why: the general entry points (XXH64, XXH3_64bits_withSeed) take a pointer
// and a length, so a fixed-width integer key first goes to a byte buffer and
// through the length switch. For the widths bloomkit's canonical encoding
// gives integers (little-endian two's complement, hash.hpp) the functions
// below compute the same value from the integer itself: no buffer, no
// length test, a few multiplies the compiler can schedule across keys.
//
// The formulas are the xxHash specification's, for these lengths only:
//   XXH64 (doc/xxhash_spec.md, "XXH64 algorithm"): with fewer than 32 input
//     bytes, acc = seed + PRIME64_5 + len; each 8-byte lane is folded with
//     round(0, lane) then rotl 27, * PRIME64_1, + PRIME64_4; a 4-byte lane
//     with * PRIME64_1, rotl 23, * PRIME64_2, + PRIME64_3; then the avalanche.
//   XXH3-64 (doc/xxhash_spec.md, "XXH3 algorithm", 4 <= len <= 8): the seed
//     gets its byte-swapped low half in its high half; the key's first and
//     last 4 bytes form input64 = last + (first << 32); it is XORed with
//     (secret[8..16) ^ secret[16..24)) - seed and finished with rrmxmx(len).
// Golden tests (tests/hash_test.cpp) check every width, seed class and path
// against the library's own functions, so a slip here cannot go unnoticed.
#pragma once

#include <bit>
#include <cstdint>

namespace bloomkit::detail {

inline constexpr std::uint64_t xxh_prime64_1 = 0x9E3779B185EBCA87ULL;
inline constexpr std::uint64_t xxh_prime64_2 = 0xC2B2AE3D27D4EB4FULL;
inline constexpr std::uint64_t xxh_prime64_3 = 0x165667B19E3779F9ULL;
inline constexpr std::uint64_t xxh_prime64_4 = 0x85EBCA77C2B2AE63ULL;
inline constexpr std::uint64_t xxh_prime64_5 = 0x27D4EB2F165667C5ULL;
/// XXH3's rrmxmx multiplier.
inline constexpr std::uint64_t xxh3_prime_mx2 = 0x9FB21C651E98DF25ULL;
/// XXH3's default secret, bytes 8..15 and 16..23 read little-endian, XORed:
/// the only part of the secret that 4- to 8-byte inputs use.
inline constexpr std::uint64_t xxh3_secret_8_24 = 0x1CAD21F72C81017CULL ^ 0xDB979083E96DD4DEULL;

/// XXH64's final mix.
constexpr std::uint64_t xxh64_avalanche(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= xxh_prime64_2;
  h ^= h >> 29;
  h *= xxh_prime64_3;
  h ^= h >> 32;
  return h;
}

/// XXH64(8 bytes whose little-endian value is v, seed).
constexpr std::uint64_t xxh64_of_u64(std::uint64_t v, std::uint64_t seed) noexcept {
  std::uint64_t acc = seed + xxh_prime64_5 + 8;
  acc ^= std::rotl(v * xxh_prime64_2, 31) * xxh_prime64_1;  // round(0, v)
  acc = std::rotl(acc, 27) * xxh_prime64_1 + xxh_prime64_4;
  return xxh64_avalanche(acc);
}

/// XXH64(4 bytes whose little-endian value is v, seed).
constexpr std::uint64_t xxh64_of_u32(std::uint32_t v, std::uint64_t seed) noexcept {
  std::uint64_t acc = seed + xxh_prime64_5 + 4;
  acc ^= static_cast<std::uint64_t>(v) * xxh_prime64_1;
  acc = std::rotl(acc, 23) * xxh_prime64_2 + xxh_prime64_3;
  return xxh64_avalanche(acc);
}

/// XXH3's rrmxmx finaliser for 4- to 8-byte inputs of length `len`.
constexpr std::uint64_t xxh3_rrmxmx(std::uint64_t h, std::uint64_t len) noexcept {
  h ^= std::rotl(h, 49) ^ std::rotl(h, 24);
  h *= xxh3_prime_mx2;
  h ^= (h >> 35) + len;
  h *= xxh3_prime_mx2;
  return h ^ (h >> 28);
}

/// The seed as XXH3's 4-to-8-byte path folds it.
constexpr std::uint64_t xxh3_short_seed(std::uint64_t seed) noexcept {
  const auto low = static_cast<std::uint32_t>(seed);
  const std::uint32_t swapped = (low >> 24) | ((low >> 8) & 0xFF00U) | ((low << 8) & 0xFF0000U) | (low << 24);
  return seed ^ (static_cast<std::uint64_t>(swapped) << 32);
}

/// XXH3_64bits_withSeed(8 bytes whose little-endian value is v, seed).
constexpr std::uint64_t xxh3_of_u64(std::uint64_t v, std::uint64_t seed) noexcept {
  const std::uint64_t input64 = (v >> 32) + (v << 32);  // last 4 bytes + (first 4 bytes << 32)
  return xxh3_rrmxmx(input64 ^ (xxh3_secret_8_24 - xxh3_short_seed(seed)), 8);
}

/// XXH3_64bits_withSeed(4 bytes whose little-endian value is v, seed).
constexpr std::uint64_t xxh3_of_u32(std::uint32_t v, std::uint64_t seed) noexcept {
  const std::uint64_t input64 = static_cast<std::uint64_t>(v) + (static_cast<std::uint64_t>(v) << 32);
  return xxh3_rrmxmx(input64 ^ (xxh3_secret_8_24 - xxh3_short_seed(seed)), 4);
}

}  // namespace bloomkit::detail
