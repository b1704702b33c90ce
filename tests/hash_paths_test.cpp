// Every fast hashing path gives the library's hash, bit for bit:
// the fixed-width scalar path (detail/fixed_hash.hpp, used by hash_key for
// 4- and 8-byte keys), the batched path under every kernel this CPU runs
// (detail/hash_batch.hpp), and the filters' keyed batch calls built on them.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/file_format.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/hash_batch.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/ribbon.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "test_support.hpp"

namespace {

using bloomkit::test::kernel_guard;
using bloomkit::hash_algorithm;
using bloomkit::hash_key;
using bloomkit::hash_spec;
using bloomkit::kernel;
using bloomkit::test::supported_kernels;

/// The library's hash of the little-endian bytes of `value` (width bytes).
std::uint64_t library_hash(std::uint64_t value, std::size_t width, hash_spec spec) {
  std::array<unsigned char, 8> bytes{};
  for (std::size_t i = 0; i < width; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
  return spec.algorithm == hash_algorithm::xxh64 ? XXH64(bytes.data(), width, spec.seed)
                                                 : XXH3_64bits_withSeed(bytes.data(), width, spec.seed);
}

/// Seeds that exercise XXH3's seed folding (low half swapped into the high
/// half) and XXH64's seed addition: zero, small, all ones, halves apart.
std::vector<std::uint64_t> seeds() {
  return {0, 1, 42, 0xffffffffULL, 0x100000000ULL, 0xdeadbeefcafebabeULL, ~std::uint64_t{0}, 0x8000000000000000ULL};
}

std::vector<std::uint64_t> values(std::size_t count) {
  std::vector<std::uint64_t> out = {0, 1, 0xff, 0x100, 0xffffffffULL, 0x100000000ULL, ~std::uint64_t{0},
                                    0x8000000000000000ULL, 0x0123456789abcdefULL};
  bloomkit::detail::splitmix64 rng(7);
  while (out.size() < count) out.push_back(rng());
  return out;
}

const hash_algorithm algorithms[] = {hash_algorithm::xxh64, hash_algorithm::xxh3_64};

TEST(HashPaths, FixedWidthIntegersMatchTheLibrary) {
  for (auto algorithm : algorithms) {
    for (auto seed : seeds()) {
      const hash_spec spec{algorithm, seed};
      for (auto v : values(2000)) {
        ASSERT_EQ(hash_key(v, spec), library_hash(v, 8, spec)) << v << " seed " << seed;
        ASSERT_EQ(hash_key(static_cast<std::int64_t>(v), spec), library_hash(v, 8, spec));
        const auto v32 = static_cast<std::uint32_t>(v);
        ASSERT_EQ(hash_key(v32, spec), library_hash(v32, 4, spec)) << v32 << " seed " << seed;
        ASSERT_EQ(hash_key(static_cast<std::int32_t>(v32), spec), library_hash(v32, 4, spec));
      }
    }
  }
}

TEST(HashPaths, FloatingPointMatchesTheLibrary) {
  const double doubles[] = {0.0, -0.0, 1.5, -3.25e300, 1e-310};
  const float floats[] = {0.0f, -0.0f, 1.5f, -3.25e30f, 1e-40f};
  for (auto algorithm : algorithms) {
    for (auto seed : seeds()) {
      const hash_spec spec{algorithm, seed};
      for (double d : doubles) EXPECT_EQ(hash_key(d, spec), library_hash(std::bit_cast<std::uint64_t>(d), 8, spec));
      for (float f : floats) EXPECT_EQ(hash_key(f, spec), library_hash(std::bit_cast<std::uint32_t>(f), 4, spec));
    }
  }
}

TEST(HashPaths, GoldenValuesPinTheFixedPath) {
  // Recorded from libxxhash 0.8.1 over the 8 little-endian bytes of 42 and
  // the 4 of 7; also in the Parquet fixtures' INT32 golden (hash_test.cpp).
  EXPECT_EQ(hash_key(std::uint64_t{42}, bloomkit::parquet_hash_spec), library_hash(42, 8, bloomkit::parquet_hash_spec));
  EXPECT_EQ(hash_key(std::int32_t{-542827039}, bloomkit::parquet_hash_spec), 0x3e12485924de6267ULL);
}

TEST(HashPaths, BatchedHashingMatchesScalarUnderEveryKernel) {
  const auto keys = values(1000);
  for (kernel k : supported_kernels()) {
    for (auto algorithm : algorithms) {
      for (auto seed : seeds()) {
        const hash_spec spec{algorithm, seed};
        // Every length up to 40 (all tails of the 8-lane loop), then 1000.
        for (std::size_t n : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 23, 31, 33, 40, 1000}) {
          std::vector<std::uint64_t> out(n + 1, 0x5555);
          bloomkit::detail::hash_keys(k, keys.data(), n, spec, out.data());
          for (std::size_t i = 0; i < n; ++i)
            ASSERT_EQ(out[i], library_hash(keys[i], 8, spec)) << to_string(k) << " n=" << n << " i=" << i;
          EXPECT_EQ(out[n], 0x5555U) << "wrote past the end under " << to_string(k);
        }
      }
    }
  }
}

TEST(HashPaths, BatchedDoublesMatchScalar) {
  std::vector<double> keys;
  for (auto v : values(100)) keys.push_back(static_cast<double>(v) * 0.5);
  for (kernel k : supported_kernels()) {
    std::vector<std::uint64_t> out(keys.size());
    bloomkit::detail::hash_keys(k, keys.data(), keys.size(), hash_spec{}, out.data());
    for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(out[i], hash_key(keys[i], hash_spec{}));
  }
}

/// The filter's bits as bytes (blocks or words).
template <class Filter>
std::vector<unsigned char> raw_bits(const Filter& f) {
  const auto span = [&] {
    if constexpr (requires { f.blocks(); }) return f.blocks();
    else return f.words();
  }();
  std::vector<unsigned char> out(span.size_bytes());
  std::memcpy(out.data(), span.data(), out.size());
  return out;
}

/// insert_keys / may_contain_keys (keys hashed a tile at a time, then the
/// prefetch pipeline over the tile) give the same filter and answers as
/// per-key calls, for sizes around the tile (detail::keyed_batch_tile) and
/// the pipeline's window.
template <class Filter>
void check_keyed_batches(const Filter& empty) {
  kernel_guard guard;
  const auto all = values(3000);
  for (kernel k : supported_kernels()) {
    bloomkit::set_kernel(k);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17}, std::size_t{127}, std::size_t{128},
                          std::size_t{129}, std::size_t{1000}, std::size_t{1023}, std::size_t{1024},
                          std::size_t{1025}, std::size_t{2048}, std::size_t{3000}}) {
      const std::vector<std::uint64_t> keys(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
      Filter batched = empty, single = empty;
      batched.insert_keys(keys);
      for (auto key : keys) single.insert(key);
      ASSERT_EQ(raw_bits(batched), raw_bits(single)) << to_string(k) << " n=" << n;
      std::vector<std::uint64_t> queries = all;  // the inserted keys and others
      std::unique_ptr<bool[]> out(new bool[queries.size()]);
      batched.may_contain_keys(std::span<const std::uint64_t>(queries), std::span<bool>(out.get(), queries.size()));
      for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_EQ(out[i], single.may_contain(queries[i])) << i;
    }
  }
}

TEST(HashPaths, SplitBlockKeyedBatchesMatchSingleCalls) {
  check_keyed_batches(bloomkit::split_block_bloom(2000, 0.01));  // XXH64, seed 0
}
TEST(HashPaths, BlockedKeyedBatchesMatchSingleCalls) {
  check_keyed_batches(bloomkit::blocked_bloom(2000, 0.01));  // XXH3
}
TEST(HashPaths, StandardKeyedBatchesMatchSingleCalls) {
  check_keyed_batches(bloomkit::standard_bloom(2000, 0.01, hash_spec{hash_algorithm::xxh64, 99}));
}

/// A static filter's keyed batch (may_contain_keys: a tile of keys hashed,
/// then the kind's pipeline over seeded hashes) answers as may_contain on
/// each key and as may_contain_many on the keys' hashes, under every kernel,
/// for lengths around the pipeline's window and the tile.
template <class Filter>
void check_static_keyed_batches(const Filter& filter, hash_spec spec) {
  kernel_guard guard;
  const auto all = values(3000);
  for (kernel k : supported_kernels()) {
    bloomkit::set_kernel(k);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                          std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{1023},
                          std::size_t{1024}, std::size_t{1025}, std::size_t{3000}}) {
      const std::span<const std::uint64_t> keys(all.data(), n);
      std::vector<std::uint64_t> hashes(n);
      for (std::size_t i = 0; i < n; ++i) hashes[i] = hash_key(keys[i], spec);
      std::unique_ptr<bool[]> keyed(new bool[n + 1]), hashed(new bool[n + 1]);
      filter.may_contain_keys(keys, std::span<bool>(keyed.get(), n));
      filter.may_contain_many(hashes, std::span<bool>(hashed.get(), n));
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(keyed[i], filter.may_contain(keys[i])) << to_string(k) << " n=" << n << " i=" << i;
        ASSERT_EQ(hashed[i], keyed[i]) << to_string(k) << " n=" << n << " i=" << i;
      }
    }
  }
}

/// The first 1000 of `all` are in the filter: half of the queries are members.
std::vector<std::uint64_t> member_hashes(hash_spec spec) {
  std::vector<std::uint64_t> out;
  for (auto v : values(1000)) out.push_back(hash_key(v, spec));
  return out;
}

TEST(HashPaths, BinaryFuseKeyedBatchesMatchSingleCalls) {
  const hash_spec spec{};  // XXH3, seed 0
  for (std::uint32_t arity : {3u, 4u}) {
    bloomkit::binary_fuse_options options;
    options.arity = arity;
    check_static_keyed_batches(bloomkit::binary_fuse8(member_hashes(spec), options), spec);
    check_static_keyed_batches(bloomkit::binary_fuse16(member_hashes(spec), options), spec);
    check_static_keyed_batches(bloomkit::binary_fuse(member_hashes(spec), 8, options), spec);
  }
  check_static_keyed_batches(bloomkit::binary_fuse8(std::span<const std::uint64_t>{}), spec);  // empty
}
TEST(HashPaths, RibbonKeyedBatchesMatchSingleCalls) {
  check_static_keyed_batches(bloomkit::ribbon(member_hashes(hash_spec{})), hash_spec{});
}

/// Pins the answers of the static filters' query paths (single, batched,
/// keyed) for a fixed build and fixed probes: a digest of the answer bits.
/// Recorded before the batch path was rewritten (commit 91ef788); a change
/// here changes what stored filters answer.
TEST(HashPaths, StaticFilterAnswersArePinned) {
  const hash_spec spec{};
  const auto probes = values(3000);
  const auto digest = [&](const auto& filter) {
    std::vector<unsigned char> bits(probes.size());
    for (std::size_t i = 0; i < probes.size(); ++i) bits[i] = filter.may_contain(probes[i]) ? 1 : 0;
    std::unique_ptr<bool[]> out(new bool[probes.size()]);
    filter.may_contain_keys(std::span<const std::uint64_t>(probes), std::span<bool>(out.get(), probes.size()));
    for (std::size_t i = 0; i < probes.size(); ++i) EXPECT_EQ(out[i], bits[i] == 1) << i;
    return XXH64(bits.data(), bits.size(), 0);
  };
  EXPECT_EQ(digest(bloomkit::binary_fuse8(member_hashes(spec))), 0x43b657cd9f5dbd3fULL) << "binary_fuse8";
  bloomkit::binary_fuse_options four;
  four.arity = 4;
  EXPECT_EQ(digest(bloomkit::binary_fuse16(member_hashes(spec), four)), 0xcae7de7a5c4fa7b2ULL) << "binary_fuse16 4-wise";
  EXPECT_EQ(digest(bloomkit::ribbon(member_hashes(spec))), 0x7885fe66729eeaf6ULL) << "ribbon";
}

/// Pins the dynamic block and standard filters, kernel by kernel: after the
/// same inserts through every path (single insert, keyed batch, prehashed
/// batch; each path must give the single path's bits), a digest of the
/// saved file's bytes and a digest of the answers to 3000 probes through
/// every query path (single keyed, single prehashed, keyed batch, prehashed
/// batch; each must give the single answer). The digests were recorded
/// before the release target's inlined single-call kernels (the SSE4.1
/// blocked kernel) and the classic filter's branchless rounds were written
/// (commit 68b0fc8): any differing bit or answer, under any kernel or in
/// any path, fails here. The blocked filter is pinned at k = 1, 6, 8, 9, 16
/// (the SSE4.1 kernel has a k <= 8 and a 16-lane form).
template <class Filter>
void pin_dynamic(const Filter& empty, std::uint64_t want_file, std::uint64_t want_answers, const char* what) {
  kernel_guard guard;
  const auto all = values(5000);
  const std::vector<std::uint64_t> keys(all.begin(), all.begin() + 2000);
  std::vector<std::uint64_t> hashes, probe_hashes;
  for (auto key : keys) hashes.push_back(hash_key(key, empty.hash()));
  for (auto key : all) probe_hashes.push_back(hash_key(key, empty.hash()));
  for (kernel k : supported_kernels()) {
    bloomkit::set_kernel(k);
    Filter single = empty, keyed = empty, hashed = empty;
    for (auto key : keys) single.insert(key);
    keyed.insert_keys(keys);
    hashed.insert_many(hashes);
    ASSERT_EQ(raw_bits(keyed), raw_bits(single)) << what << " " << to_string(k);
    ASSERT_EQ(raw_bits(hashed), raw_bits(single)) << what << " " << to_string(k);
    const auto file = bloomkit::save_to_bytes(single);
    EXPECT_EQ(XXH64(file.data(), file.size(), 0), want_file) << what << " file, kernel " << to_string(k);
    std::vector<unsigned char> bits(all.size());
    std::unique_ptr<bool[]> by_keys(new bool[all.size()]), by_hashes(new bool[all.size()]);
    single.may_contain_keys(std::span<const std::uint64_t>(all), std::span<bool>(by_keys.get(), all.size()));
    single.may_contain_many(std::span<const std::uint64_t>(probe_hashes), std::span<bool>(by_hashes.get(), all.size()));
    for (std::size_t i = 0; i < all.size(); ++i) {
      bits[i] = single.may_contain(all[i]) ? 1 : 0;
      ASSERT_EQ(single.may_contain_hash(probe_hashes[i]), bits[i] == 1) << what << " " << i;
      ASSERT_EQ(by_keys[i], bits[i] == 1) << what << " " << to_string(k) << " " << i;
      ASSERT_EQ(by_hashes[i], bits[i] == 1) << what << " " << to_string(k) << " " << i;
      if (i < keys.size()) {
        ASSERT_EQ(bits[i], 1) << what << " false negative " << i;
      }
    }
    EXPECT_EQ(XXH64(bits.data(), bits.size(), 0), want_answers) << what << " answers, kernel " << to_string(k);
  }
}

bloomkit::blocked_bloom blocked_with_k(std::uint32_t k) {
  // 40 blocks: 2000 keys fill them well past half, so the answers mix.
  return bloomkit::blocked_bloom(bloomkit::block_filter_params{40, k, 2000, 0.01, hash_spec{}});
}

TEST(HashPaths, DynamicFilterBitsAndAnswersArePinned) {
  pin_dynamic(blocked_with_k(1), 0xd790200cc1f5937dULL, 0x067087d8b28b2c06ULL, "blocked k=1");
  pin_dynamic(blocked_with_k(6), 0x79074a9d1a48738dULL, 0xf57669a4caeb4d3eULL, "blocked k=6");
  pin_dynamic(blocked_with_k(8), 0x47df7d6c4de28e14ULL, 0x80a86d59f233edf1ULL, "blocked k=8");
  pin_dynamic(blocked_with_k(9), 0xe54044f0f30679e7ULL, 0x723fdb4658b9fb92ULL, "blocked k=9");
  pin_dynamic(blocked_with_k(16), 0xa7e18869386ddbb4ULL, 0x21f3564a7f365ba4ULL, "blocked k=16");
  pin_dynamic(bloomkit::blocked_bloom(2000, 0.01), 0x61d682bfff290138ULL, 0x1be93ba6ffbec673ULL, "blocked 1 %");
  pin_dynamic(bloomkit::split_block_bloom(2000, 0.01), 0x311dfded19e0daacULL, 0x704658f00dbd7930ULL, "split_block 1 %");
  pin_dynamic(bloomkit::standard_bloom(2000, 0.01), 0x2dede95beb685459ULL, 0x5719c26b96b48155ULL, "standard 1 %");
  pin_dynamic(bloomkit::standard_bloom(2000, 0.001), 0xfb82b2a2b3bb8b8aULL, 0xc639dc239181a7bfULL, "standard 0.1 %");
  // 16000 bits for 2000 keys at k = 3: about 31 % of the bits set.
  pin_dynamic(bloomkit::standard_bloom(bloomkit::standard_bloom_params{16000, 3, 2000, 0.05, hash_spec{}}),
              0xe14637a012567b5bULL, 0x970995353c8722baULL, "standard k=3");
}

}  // namespace
