// bloomkit/murmur3.hpp - the two MurmurHash3 variants the JVM's Bloom filters fix.
//
// Austin Appleby's MurmurHash3 (SMHasher, public domain description of the
// algorithm) in the two forms Spark's and Guava's filters depend on:
//
//   * spark_murmur3_x86_32(bytes, seed): Spark's `Murmur3_x86_32.hashUnsafeBytes`
//     (common/sketch). Its 4-byte blocks are MurmurHash3_x86_32's, but the
//     tail is NOT: each trailing byte (length % 4 of them), sign-extended to
//     32 bits as Java's `byte` is, goes through a whole block round (mixK1
//     then mixH1) on its own. For lengths that are multiples of 4 the result
//     is the standard MurmurHash3_x86_32; Spark's `hashLong(v, seed)` is this
//     function over v's 8 little-endian bytes.
//   * murmur3_x64_128(bytes, seed): the standard MurmurHash3_x64_128, as
//     Guava's `Hashing.murmur3_128(seed)`. Guava's HashCode bytes are h1
//     then h2, each little-endian; `asLong()` is h1.
//
// Both are checked against values the real spark-sketch 4.3.0 and Guava
// 33.8.0 jars print (tests/fixtures/jvm/golden.txt, tests/jvm_formats_test.cpp).
//
// Why our own code: Debian's libmurmurhash (1.5) has the standard x86_32 but
// not Spark's tail, and is a shared library, while bloomkit is header-only;
// the algorithm is a few dozen lines and fully pinned by the golden tests.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace bloomkit {

namespace detail::murmur3 {

inline constexpr std::uint32_t c1_32 = 0xcc9e2d51u;
inline constexpr std::uint32_t c2_32 = 0x1b873593u;

constexpr std::uint32_t mix_k1(std::uint32_t k1) noexcept {
  k1 *= c1_32;
  k1 = std::rotl(k1, 15);
  return k1 * c2_32;
}

constexpr std::uint32_t mix_h1(std::uint32_t h1, std::uint32_t k1) noexcept {
  h1 ^= k1;
  h1 = std::rotl(h1, 13);
  return h1 * 5 + 0xe6546b64u;
}

constexpr std::uint32_t fmix32(std::uint32_t h1, std::uint32_t length) noexcept {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  h1 ^= h1 >> 16;
  return h1;
}

constexpr std::uint64_t fmix64(std::uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

inline std::uint32_t load32(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

inline std::uint64_t load64(const unsigned char* p) noexcept {
  return static_cast<std::uint64_t>(load32(p)) | static_cast<std::uint64_t>(load32(p + 4)) << 32;
}

}  // namespace detail::murmur3

/// Spark's Murmur3_x86_32.hashUnsafeBytes over `size` bytes at `data` with
/// `seed` (a Java int: pass its bits). The result is a Java int's bits.
/// Deterministic on every machine (bytes are read little-endian).
inline std::uint32_t spark_murmur3_x86_32(const void* data, std::size_t size, std::uint32_t seed) noexcept {
  using namespace detail::murmur3;
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t aligned = size - size % 4;
  std::uint32_t h1 = seed;
  for (std::size_t i = 0; i < aligned; i += 4) h1 = mix_h1(h1, mix_k1(load32(p + i)));
  for (std::size_t i = aligned; i < size; ++i) {
    // Java's byte is signed: 0x80..0xff become negative ints before mixing.
    const auto sign_extended = static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<signed char>(p[i])));
    h1 = mix_h1(h1, mix_k1(sign_extended));
  }
  // Java passes the length as an int; Spark's arrays are below 2^31 bytes.
  return fmix32(h1, static_cast<std::uint32_t>(size));
}

/// Spark's Murmur3_x86_32.hashLong(value, seed): the hash of value's eight
/// little-endian bytes (two blocks, no tail).
constexpr std::uint32_t spark_murmur3_hash_long(std::uint64_t value, std::uint32_t seed) noexcept {
  using namespace detail::murmur3;
  std::uint32_t h1 = mix_h1(seed, mix_k1(static_cast<std::uint32_t>(value)));
  h1 = mix_h1(h1, mix_k1(static_cast<std::uint32_t>(value >> 32)));
  return fmix32(h1, 8);
}

/// The two 64-bit halves of a MurmurHash3_x64_128 result.
struct murmur3_128_result {
  std::uint64_t h1 = 0;  ///< Guava's asLong() and the first 8 bytes of its HashCode
  std::uint64_t h2 = 0;  ///< the last 8 bytes

  friend constexpr bool operator==(const murmur3_128_result&, const murmur3_128_result&) = default;
};

/// MurmurHash3_x64_128 of `size` bytes at `data` with a 32-bit `seed` (as
/// Guava's murmur3_128(int seed), which sign-extends it into both lanes).
inline murmur3_128_result murmur3_x64_128(const void* data, std::size_t size, std::uint32_t seed = 0) noexcept {
  using namespace detail::murmur3;
  constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
  constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
  const auto* p = static_cast<const unsigned char*>(data);
  const auto lane = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(seed)));
  std::uint64_t h1 = lane, h2 = lane;
  const std::size_t blocks = size / 16;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint64_t k1 = load64(p + 16 * i), k2 = load64(p + 16 * i + 8);
    k1 *= c1; k1 = std::rotl(k1, 31); k1 *= c2; h1 ^= k1;
    h1 = std::rotl(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
    k2 *= c2; k2 = std::rotl(k2, 33); k2 *= c1; h2 ^= k2;
    h2 = std::rotl(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
  }
  const unsigned char* tail = p + 16 * blocks;
  const std::size_t rest = size % 16;
  std::uint64_t k1 = 0, k2 = 0;
  for (std::size_t i = rest; i > 8; --i) k2 |= static_cast<std::uint64_t>(tail[i - 1]) << (8 * (i - 9));
  for (std::size_t i = rest < 8 ? rest : 8; i > 0; --i) k1 |= static_cast<std::uint64_t>(tail[i - 1]) << (8 * (i - 1));
  if (rest > 8) { k2 *= c2; k2 = std::rotl(k2, 33); k2 *= c1; h2 ^= k2; }
  if (rest > 0) { k1 *= c1; k1 = std::rotl(k1, 31); k1 *= c2; h1 ^= k1; }
  h1 ^= static_cast<std::uint64_t>(size);
  h2 ^= static_cast<std::uint64_t>(size);
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

/// Convenience overload over a byte span.
inline murmur3_128_result murmur3_x64_128(std::span<const std::byte> bytes, std::uint32_t seed = 0) noexcept {
  return murmur3_x64_128(bytes.data(), bytes.size(), seed);
}

}  // namespace bloomkit
