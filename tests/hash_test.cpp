// Golden hash outputs and key canonicalisation (hash.hpp).
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"

namespace {

using bloomkit::hash_algorithm;
using bloomkit::hash_key;
using bloomkit::hash_spec;
using bloomkit::parquet_hash_spec;

TEST(Hash, GoldenXxh64EmptyInput) {
  // xxHash spec 0.1.1 / PARQUET.md: XXH64 of zero bytes with seed 0.
  EXPECT_EQ(bloomkit::hash_bytes("", 0, parquet_hash_spec), 0xef46db3751d8e999ULL);
  EXPECT_EQ(hash_key(std::string(), parquet_hash_spec), 0xef46db3751d8e999ULL);
}

TEST(Hash, GoldenXxh3EmptyInput) {
  EXPECT_EQ(bloomkit::hash_bytes("", 0, hash_spec{hash_algorithm::xxh3_64, 0}), 0x2d06800538d394c2ULL);
}

TEST(Hash, GoldenValuesFromParquetFixtures) {
  // Values and hashes recorded by DuckDB-written fixtures (pub_tiny.json,
  // parquet-testing): an INT32 as 4 LE bytes, strings as their bytes.
  EXPECT_EQ(hash_key(std::int32_t{-542827039}, parquet_hash_spec), 0x3e12485924de6267ULL);
  EXPECT_EQ(hash_key(std::string_view("Hello"), parquet_hash_spec), 0x0a75a91375b27d44ULL);
  EXPECT_EQ(hash_key("How", parquet_hash_spec), 0x634b00538da86186ULL);
  EXPECT_EQ(hash_key("a", parquet_hash_spec), 0xd24ec4f1a98c6e5bULL);
}

TEST(Hash, SeedChangesTheHash) {
  const hash_spec a{hash_algorithm::xxh3_64, 0};
  const hash_spec b{hash_algorithm::xxh3_64, 1};
  EXPECT_NE(hash_key(std::uint64_t{42}, a), hash_key(std::uint64_t{42}, b));
  EXPECT_NE(hash_key(std::uint64_t{42}, a), hash_key(std::uint64_t{42}, parquet_hash_spec));
}

TEST(Hash, IntegersAreFixedWidthLittleEndian) {
  const hash_spec spec{};
  const std::array<std::byte, 4> le{std::byte{0x04}, std::byte{0x03}, std::byte{0x02}, std::byte{0x01}};
  EXPECT_EQ(hash_key(std::uint32_t{0x01020304}, spec), bloomkit::hash_bytes(std::span<const std::byte>(le), spec));
  // Same bits, different signedness: same bytes, same hash.
  EXPECT_EQ(hash_key(std::int32_t{-1}, spec), hash_key(std::uint32_t{0xffffffffU}, spec));
  // Same value, different width: different bytes, different hash.
  EXPECT_NE(hash_key(std::int32_t{7}, spec), hash_key(std::int64_t{7}, spec));
  EXPECT_NE(hash_key(std::uint8_t{7}, spec), hash_key(std::uint16_t{7}, spec));
  // Keys that differ only in byte order are different keys.
  EXPECT_NE(hash_key(std::uint32_t{0x01020304}, spec), hash_key(std::uint32_t{0x04030201}, spec));
}

TEST(Hash, FloatingPointIsItsIeeeBits) {
  const hash_spec spec{};
  EXPECT_NE(hash_key(0.0, spec), hash_key(-0.0, spec));  // no canonicalisation, as in Parquet
  EXPECT_EQ(hash_key(1.5, spec), hash_key(std::uint64_t{0x3ff8000000000000ULL}, spec));
  EXPECT_EQ(hash_key(1.5f, spec), hash_key(std::uint32_t{0x3fc00000U}, spec));
}

TEST(Hash, AllStringFormsHashAlike) {
  const hash_spec spec{hash_algorithm::xxh64, 7};
  const std::uint64_t expected = bloomkit::hash_bytes("bloom", 5, spec);
  const char array[] = "bloom";
  const char* pointer = "bloom";
  const std::string text = "bloom";
  const std::vector<std::byte> bytes{std::byte{'b'}, std::byte{'l'}, std::byte{'o'}, std::byte{'o'}, std::byte{'m'}};
  const std::vector<unsigned char> uchars{'b', 'l', 'o', 'o', 'm'};
  EXPECT_EQ(hash_key(array, spec), expected);
  EXPECT_EQ(hash_key(pointer, spec), expected);
  EXPECT_EQ(hash_key(text, spec), expected);
  EXPECT_EQ(hash_key(std::string_view(text), spec), expected);
  EXPECT_EQ(hash_key(std::span<const std::byte>(bytes), spec), expected);
  EXPECT_EQ(hash_key(bytes, spec), expected);
  EXPECT_EQ(hash_key(uchars, spec), expected);
  // Embedded NUL bytes are part of a std::string key.
  EXPECT_NE(hash_key(std::string("a\0b", 3), spec), hash_key(std::string("a"), spec));
}

}  // namespace

namespace geo {
struct point {
  std::int32_t x, y;
};
// The documented way to make a user type a key: provide its canonical bytes.
inline std::array<std::byte, 8> bloomkit_key_bytes(const point& p) {
  std::array<std::byte, 8> out{};
  bloomkit::detail::store_le(out.data(), static_cast<std::uint32_t>(p.x));
  bloomkit::detail::store_le(out.data() + 4, static_cast<std::uint32_t>(p.y));
  return out;
}
}  // namespace geo

namespace {

static_assert(bloomkit::key<geo::point>);
static_assert(bloomkit::key<std::string>);
static_assert(bloomkit::key<double>);
static_assert(!bloomkit::key<std::vector<int>>);  // not bytes: must not be hashed as memory
static_assert(!bloomkit::key<long double>);

TEST(Hash, UserTypesPlugInThroughTheirBytes) {
  const hash_spec spec{};
  const geo::point p{1, -2};
  std::array<std::byte, 8> expected{};
  bloomkit::detail::store_le(expected.data(), std::uint32_t{1});
  bloomkit::detail::store_le(expected.data() + 4, static_cast<std::uint32_t>(-2));
  EXPECT_EQ(hash_key(p, spec), bloomkit::hash_bytes(std::span<const std::byte>(expected), spec));
  EXPECT_EQ(bloomkit::hasher(spec)(p), hash_key(p, spec));
}

TEST(Hash, UnknownAlgorithmIsAnError) {
  const hash_spec bad{static_cast<hash_algorithm>(99), 0};
  try {
    (void)bloomkit::hash_bytes("x", 1, bad);
    FAIL() << "expected bloomkit::error";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), bloomkit::errc::invalid_argument);
  }
}

}  // namespace
