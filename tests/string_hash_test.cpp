// hash_strings (hash_batch.hpp): many variable-length keys laid out as an
// Arrow string column (one data buffer, n + 1 offsets), hashed under every
// kernel this CPU runs, must give the library's XXH64 / XXH3 of each string,
// bit for bit. The lane kernels give each lane its own length, so every group
// of 8 (AVX-512) or 4 (AVX2) consecutive strings here mixes lengths, and each
// hash is checked on its own: a wrong lane (a mask, a gather offset, a tail
// shift) fails on the strings it hashed.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hash.hpp"
#include "bloomkit/hash_batch.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::hash_algorithm;
using bloomkit::hash_spec;
using bloomkit::kernel;
using bloomkit::test::kernel_guard;
using bloomkit::test::supported_kernels;

/// The library's own hash of each string, one call each (the reference).
std::uint64_t reference(const std::byte* p, std::size_t len, hash_spec spec) {
  return spec.algorithm == hash_algorithm::xxh64 ? XXH64(p, len, spec.seed) : XXH3_64bits_withSeed(p, len, spec.seed);
}

/// A column: `lengths` strings of random bytes, back to back from byte
/// `lead` of the buffer (the bytes before it belong to no string, as in a
/// sliced array), with `slack` spare bytes after the last one.
struct column {
  std::vector<std::byte> bytes;
  std::vector<std::int64_t> offsets;
};

column make_column(const std::vector<std::size_t>& lengths, std::size_t lead, std::size_t slack, std::uint64_t seed) {
  column c;
  c.offsets.push_back(static_cast<std::int64_t>(lead));
  for (std::size_t len : lengths) c.offsets.push_back(c.offsets.back() + static_cast<std::int64_t>(len));
  c.bytes.resize(static_cast<std::size_t>(c.offsets.back()) + slack);
  bloomkit::detail::splitmix64 rng(seed);
  for (auto& b : c.bytes) b = static_cast<std::byte>(rng());
  return c;
}

/// Hashes `c` under kernel k with int64 and int32 offsets, from a data
/// pointer at `shift` bytes into a copy (unaligned data), and checks every
/// hash and that nothing past the n outputs was written.
void check_column(const column& c, kernel k, hash_spec spec, std::size_t shift, const std::string& what) {
  const std::size_t n = c.offsets.size() - 1;
  std::vector<std::byte> moved(shift + c.bytes.size());
  std::copy(c.bytes.begin(), c.bytes.end(), moved.begin() + static_cast<std::ptrdiff_t>(shift));
  const std::byte* data = moved.data() + shift;
  std::vector<std::int32_t> offsets32(c.offsets.begin(), c.offsets.end());
  for (int width : {64, 32}) {
    std::vector<std::uint64_t> out(n + 1, 0x5555);
    if (width == 64) {
      bloomkit::detail::hash_strings(k, data, c.offsets.data(), n, spec, out.data());
    } else {
      bloomkit::detail::hash_strings(k, data, offsets32.data(), n, spec, out.data());
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto begin = static_cast<std::size_t>(c.offsets[i]);
      const auto len = static_cast<std::size_t>(c.offsets[i + 1] - c.offsets[i]);
      ASSERT_EQ(out[i], reference(data + begin, len, spec))
          << what << ": kernel " << to_string(k) << ", " << to_string(spec.algorithm) << " seed " << spec.seed
          << ", int" << width << " offsets, string " << i << " (lane " << i % 8 << "), length " << len
          << ", at byte " << begin;
    }
    EXPECT_EQ(out[n], 0x5555U) << what << ": wrote past the end under " << to_string(k);
  }
}

const std::uint64_t seeds[] = {0, 1, 0xdeadbeefcafebabeULL, ~std::uint64_t{0}};
const hash_algorithm algorithms[] = {hash_algorithm::xxh64, hash_algorithm::xxh3_64};

TEST(StringHash, ReferenceIsTheLibrarysXxh64) {
  // Pins the reference itself: XXH64 of "abc" with seed 0 (xxHash's sanity values).
  const char abc[] = "abc";
  EXPECT_EQ(XXH64(abc, 3, 0), 0x44BC2CF5AD770999ULL);
  EXPECT_EQ(XXH64(abc, 0, 0), 0xEF46DB3751D8E999ULL);
}

TEST(StringHash, EveryLengthInEveryLaneUnderEveryKernel) {
  // Lengths 0..70 (every branch of XXH64's short input below 32 bytes, the
  // stripes above it) in an order that puts each length in each lane
  // position: string i has length (i * 37 + i / 71) % 71, 71 * 8 strings.
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 71 * 8; ++i) lengths.push_back((i * 37 + i / 71) % 71);
  for (std::size_t lead : {0, 3, 8, 13}) {
    const column c = make_column(lengths, lead, 0, 100 + lead);
    for (kernel k : supported_kernels())
      for (auto algorithm : algorithms)
        for (auto seed : seeds)
          for (std::size_t shift : {0, 1, 7}) check_column(c, k, hash_spec{algorithm, seed}, shift, "mixed lengths, lead " + std::to_string(lead));
  }
}

TEST(StringHash, GroupsOfOneLengthAndTails) {
  // Every length 0..70 in whole groups of one length (all lanes alike, so
  // XXH3's 9-16-, 17-32- and 33-64-byte lanes each run alone; 72
  // strings are two 32-string steps and one group of eight), and every count
  // 0..44 of strings (the 32-, 8- and 4-lane loops' tails).
  for (std::size_t len = 0; len <= 70; ++len) {
    const column c = make_column(std::vector<std::size_t>(72, len), 5, 0, len);
    for (kernel k : supported_kernels())
      for (auto algorithm : algorithms)
        for (auto seed : {std::uint64_t{0}, std::uint64_t{0xdeadbeefcafebabeULL}})
          check_column(c, k, hash_spec{algorithm, seed}, 0, "all of length " + std::to_string(len));
  }
  for (std::size_t n = 0; n <= 44; ++n) {
    std::vector<std::size_t> lengths(n);
    std::iota(lengths.begin(), lengths.end(), std::size_t{1});
    const column c = make_column(lengths, 0, 0, 900 + n);
    for (kernel k : supported_kernels())
      for (auto algorithm : algorithms) check_column(c, k, hash_spec{algorithm, 0}, 0, std::to_string(n) + " strings");
  }
}

TEST(StringHash, ShortStringsAtTheBufferStartAndLongStrings) {
  // Strings shorter than 8 bytes ending before byte 8 of the buffer cannot
  // take the lanes' tail read (it would start before the buffer): the first
  // strings here end at bytes 1, 3, 6, 7, then 8 (the first that may).
  // Long strings (100, 1000, 5000 bytes) between short ones take XXH64's
  // stripes, scalar.
  const column start = make_column({1, 2, 3, 1, 1, 0, 5, 9, 2, 7, 4, 3}, 0, 0, 7);
  const column longs = make_column({5, 100, 3, 1000, 0, 31, 32, 33, 5000, 63, 64, 65, 2, 17, 9, 128}, 2, 0, 8);
  for (kernel k : supported_kernels()) {
    for (auto algorithm : algorithms) {
      for (auto seed : seeds) {
        check_column(start, k, hash_spec{algorithm, seed}, 0, "short strings at the start");
        check_column(longs, k, hash_spec{algorithm, seed}, 3, "long strings");
      }
    }
  }
}

TEST(StringHash, PublicCallUsesTheActiveKernelAndMatches) {
  std::vector<std::size_t> lengths;
  for (std::size_t i = 0; i < 1000; ++i) lengths.push_back(i % 23);
  const column c = make_column(lengths, 0, 0, 11);
  std::vector<std::uint64_t> out(lengths.size());
  bloomkit::hash_strings(c.bytes.data(), std::span<const std::int64_t>(c.offsets), bloomkit::parquet_hash_spec,
                         std::span<std::uint64_t>(out));
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    ASSERT_EQ(out[i], bloomkit::hash_bytes(c.bytes.data() + c.offsets[i], lengths[i], bloomkit::parquet_hash_spec)) << i;
  }
  bloomkit::hash_strings(c.bytes.data(), std::span<const std::int64_t>(c.offsets.data(), 1), bloomkit::parquet_hash_spec,
                         std::span<std::uint64_t>());  // no keys: nothing read or written
}

/// A user key type whose bytes bloomkit reads through bloomkit_key_bytes
/// (a temporary: the lanes must stage it while it lives).
struct tagged_key {
  std::string text;
};
std::string bloomkit_key_bytes(const tagged_key& k) { return "tag:" + k.text; }

/// Keys of every length 0..70 (each length in each lane position, as in
/// EveryLengthInEveryLaneUnderEveryKernel), each in a heap block of exactly
/// its own size, so a read outside a key is a heap overflow under ASan.
struct separate_keys {
  std::vector<std::unique_ptr<std::byte[]>> blocks;
  std::vector<std::string_view> views;
  explicit separate_keys(std::size_t n, std::uint64_t seed) {
    bloomkit::detail::splitmix64 rng(seed);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t len = (i * 37 + i / 71) % 71;
      blocks.emplace_back(len == 0 ? nullptr : new std::byte[len]);
      for (std::size_t b = 0; b < len; ++b) blocks.back()[b] = static_cast<std::byte>(rng());
      views.emplace_back(reinterpret_cast<const char*>(blocks.back().get()), len);
    }
  }
};

/// hash_key_strings under kernel k over `keys` gives hash_key of each key.
template <class K>
void check_keys(const std::vector<K>& keys, kernel k, hash_spec spec, const std::string& what) {
  std::vector<std::uint64_t> out(keys.size() + 1, 0x5555);
  bloomkit::detail::hash_key_strings(k, keys.data(), keys.size(), spec, out.data());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(out[i], bloomkit::hash_key(keys[i], spec))
        << what << ": kernel " << to_string(k) << ", " << to_string(spec.algorithm) << " seed " << spec.seed
        << ", key " << i << " (lane " << i % 8 << ")";
  }
  EXPECT_EQ(out[keys.size()], 0x5555U) << what << ": wrote past the end under " << to_string(k);
}

TEST(StringHash, SeparateKeysOfEveryLengthUnderEveryKernel) {
  // Keys that are not one buffer (std::string_view, std::string, byte
  // vectors, a user type's bytes): the lanes read nothing outside a key, so
  // keys of 1-7 bytes go scalar and the rest take the XXH64 lanes up to 23
  // bytes (XXH3 keys: scalar). 71 * 8 keys: two full tiles of 256 and a
  // part one.
  const separate_keys sep(71 * 8, 5);
  std::vector<std::string> strings;
  std::vector<std::vector<std::byte>> byte_vectors;
  std::vector<tagged_key> tagged;
  for (auto v : sep.views) {
    strings.emplace_back(v);
    byte_vectors.emplace_back(reinterpret_cast<const std::byte*>(v.data()), reinterpret_cast<const std::byte*>(v.data()) + v.size());
    tagged.push_back(tagged_key{std::string(v)});
  }
  for (kernel k : supported_kernels()) {
    for (auto algorithm : algorithms) {
      for (auto seed : seeds) {
        const hash_spec spec{algorithm, seed};
        check_keys(sep.views, k, spec, "string_view keys");
        check_keys(strings, k, spec, "string keys");
        check_keys(byte_vectors, k, spec, "byte vector keys");
        check_keys(tagged, k, spec, "bloomkit_key_bytes keys");
      }
    }
  }
}

TEST(StringHash, KeyedStringBatchesMatchSingleCalls) {
  // insert_keys / may_contain_keys over strings (batch_hash_into with the
  // active kernel, in tiles of 1024) set the bits and give the answers of
  // one call per key, under every kernel.
  kernel_guard guard;
  const separate_keys sep(3000, 6);
  for (kernel k : supported_kernels()) {
    bloomkit::set_kernel(k);
    bloomkit::split_block_bloom batched(2000, 0.01), single(2000, 0.01);
    const std::span<const std::string_view> added(sep.views.data(), 2000);
    batched.insert_keys(added);
    for (auto v : added) single.insert(v);
    ASSERT_EQ(std::memcmp(batched.blocks().data(), single.blocks().data(), batched.blocks().size_bytes()), 0)
        << "bits differ under " << to_string(k);
    std::unique_ptr<bool[]> out(new bool[sep.views.size()]);
    batched.may_contain_keys(std::span<const std::string_view>(sep.views), std::span<bool>(out.get(), sep.views.size()));
    for (std::size_t i = 0; i < sep.views.size(); ++i) {
      ASSERT_EQ(out[i], single.may_contain(sep.views[i])) << to_string(k) << " " << i;
      if (i < 2000) {
        ASSERT_TRUE(out[i]) << "false negative under " << to_string(k) << ", key " << i;
      }
    }
  }
}

}  // namespace
