// bloomkit/split_block_bloom.hpp - the Parquet split-block Bloom filter (SBBF).
//
// Bit-exact with Apache Parquet's BloomFilter.md (facts in docs/PARQUET.md):
//   blocks of eight 32-bit words (256 bits); block i = ((h >> 32) * z) >> 32;
//   x = low 32 bits of h; word w gets bit (uint32)(x * SALT[w]) >> 27;
//   keys hashed with XXH64, seed 0, over the value's plain encoding;
//   words stored little-endian, block after block.
// A key sets exactly one bit in each of the block's eight words (k = 8).
//
// Sizing: split_block_bloom(n, p) uses the true split-block FPR (a Poisson
// mixture over block loads, sizing::split_block_fpr): 10.53 bits/key at 1 %.
// The spec's -8/ln(1 - p^(1/8)) ignores uneven block loads and gives 9.7
// bits/key, which gives about 1.46 % (docs/MATH.md). For filters that must
// match a Parquet writer byte for byte, use parquet_sized_split_block().
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/detail/simd.hpp"

namespace bloomkit {

namespace detail {

/// One 256-bit split block: eight 32-bit words.
struct alignas(32) block256 {
  std::uint32_t words[8];
  friend bool operator==(const block256&, const block256&) = default;
};

/// The eight salts of Parquet's BloomFilter.md.
inline constexpr std::array<std::uint32_t, 8> parquet_salts = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

/// Block layout policy of split_block_bloom (the Parquet SBBF).
struct split_block_policy : block_word_ops<block256> {
  using block_type = block256;
  static constexpr std::string_view name = "split_block_bloom";
  static constexpr std::uint32_t block_bits = 256;
  static constexpr std::uint32_t min_k = 8;
  static constexpr std::uint32_t max_k = 8;
  static constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;
  static constexpr hash_spec default_hash = parquet_hash_spec;

  static void set(block_type& block, std::uint64_t h, std::uint32_t /*k = 8*/) noexcept {
    const auto x = static_cast<std::uint32_t>(h);
    for (int w = 0; w < 8; ++w) block.words[w] |= std::uint32_t{1} << ((x * parquet_salts[w]) >> 27);
  }
  static bool test(const block_type& block, std::uint64_t h, std::uint32_t /*k = 8*/) noexcept {
    const auto x = static_cast<std::uint32_t>(h);
    std::uint32_t missing = 0;
    for (int w = 0; w < 8; ++w) missing |= (std::uint32_t{1} << ((x * parquet_salts[w]) >> 27)) & ~block.words[w];
    return missing == 0;
  }
  /// The key's eight one-bit words, as set() ORs them in. For callers that
  /// apply the mask themselves (for example an atomic OR per word).
  static block_type mask(std::uint64_t h, std::uint32_t /*k = 8*/) noexcept {
    const auto x = static_cast<std::uint32_t>(h);
    block_type m;
    for (int w = 0; w < 8; ++w) m.words[w] = std::uint32_t{1} << ((x * parquet_salts[w]) >> 27);
    return m;
  }

#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
  // SSE4.1 kernel, for targets that guarantee SSE4.1 (x86-64-v2 and up):
  // it needs no run-time check, so single-key calls inline it. The eight
  // words are two xmm registers; pmulld gives x * salt, and 1 << (p >> 27)
  // without AVX2's variable shift is the float 2^(p >> 27) built from its
  // exponent bits and converted back with cvttps2dq (exact for 2^0..2^30;
  // 2^31 overflows to 0x80000000, the "integer indefinite", which is
  // exactly 1 << 31). Same bits as set/test.
  static __m128i mask_sse41_half(__m128i x, __m128i salts) noexcept {
    const __m128i exponent = _mm_and_si128(_mm_srli_epi32(_mm_mullo_epi32(x, salts), 4), _mm_set1_epi32(0x0F800000));
    return _mm_cvttps_epi32(_mm_castsi128_ps(_mm_add_epi32(exponent, _mm_set1_epi32(0x3F800000))));
  }
  /// As short as the AVX2 kernel: single calls inline it (block_filter.hpp).
  static constexpr bool sse41_inlines = true;
  static void mask_sse41(std::uint64_t h, __m128i& lo, __m128i& hi) noexcept {
    const __m128i x = _mm_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    lo = mask_sse41_half(x, _mm_setr_epi32(static_cast<int>(parquet_salts[0]), static_cast<int>(parquet_salts[1]),
                                           static_cast<int>(parquet_salts[2]), static_cast<int>(parquet_salts[3])));
    hi = mask_sse41_half(x, _mm_setr_epi32(static_cast<int>(parquet_salts[4]), static_cast<int>(parquet_salts[5]),
                                           static_cast<int>(parquet_salts[6]), static_cast<int>(parquet_salts[7])));
  }
  static void set_sse41(block_type& block, std::uint64_t h, std::uint32_t /*k*/) noexcept {
    __m128i lo, hi;
    mask_sse41(h, lo, hi);
    auto* p = reinterpret_cast<__m128i*>(block.words);
    _mm_storeu_si128(p, _mm_or_si128(_mm_loadu_si128(p), lo));
    _mm_storeu_si128(p + 1, _mm_or_si128(_mm_loadu_si128(p + 1), hi));
  }
  static bool test_sse41(const block_type& block, std::uint64_t h, std::uint32_t /*k*/) noexcept {
    __m128i lo, hi;
    mask_sse41(h, lo, hi);
    const auto* p = reinterpret_cast<const __m128i*>(block.words);
    const __m128i missing = _mm_or_si128(_mm_andnot_si128(_mm_loadu_si128(p), lo), _mm_andnot_si128(_mm_loadu_si128(p + 1), hi));
    return _mm_testz_si128(missing, missing) != 0;
  }
#endif

#if BLOOMKIT_X86_KERNELS
  // AVX2 kernel: the eight words of a block are one ymm register, so a key is
  // one vpmulld (x * salts), one shift, one vpsllvd (the mask), then one OR
  // (set) or one vptest (test). The AVX-512 kernel uses the same code: a
  // 256-bit block gains nothing from zmm registers. Unaligned loads, so views
  // over any borrowed memory work; blocks are 32-byte aligned anyway.
  BLOOMKIT_TARGET_AVX2 static __m256i mask_avx2(std::uint64_t h) noexcept {
    const __m256i salts = _mm256_setr_epi32(
        static_cast<int>(parquet_salts[0]), static_cast<int>(parquet_salts[1]), static_cast<int>(parquet_salts[2]),
        static_cast<int>(parquet_salts[3]), static_cast<int>(parquet_salts[4]), static_cast<int>(parquet_salts[5]),
        static_cast<int>(parquet_salts[6]), static_cast<int>(parquet_salts[7]));
    const __m256i product = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h))), salts);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(product, 27));
  }
  BLOOMKIT_TARGET_AVX2 static void set_avx2(block_type& block, std::uint64_t h, std::uint32_t /*k*/) noexcept {
    auto* p = reinterpret_cast<__m256i*>(block.words);
    _mm256_storeu_si256(p, _mm256_or_si256(_mm256_loadu_si256(p), mask_avx2(h)));
  }
  BLOOMKIT_TARGET_AVX2 static bool test_avx2(const block_type& block, std::uint64_t h, std::uint32_t /*k*/) noexcept {
    const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block.words));
    return _mm256_testc_si256(words, mask_avx2(h)) != 0;  // CF: (~words & mask) == 0
  }
#endif
  /// A random key passes iff its bit is set in each word: prod_w popcount(w)/32.
  static double block_fpr(const block_type& block, std::uint32_t /*k*/) {
    double p = 1.0;
    for (auto w : block.words) p *= std::popcount(w) / 32.0;
    return p;
  }
  /// Each key sets one uniform bit per word: invert E[set] = 32(1 - (31/32)^n)
  /// per word and average the eight words. A full word counts as 31.5 set
  /// while another word still has a clear bit; a block with all 256 bits set
  /// is +infinity (it may hold any number of keys, so the filter's estimate
  /// is unbounded, as a full standard filter's is).
  static double block_cardinality(const block_type& block, std::uint32_t /*k*/) {
    bool full = true;
    for (auto w : block.words) full = full && w == ~decltype(w){0};
    if (full) return std::numeric_limits<double>::infinity();
    double sum = 0.0;
    for (auto w : block.words) {
      const double set = std::min(std::popcount(w) + 0.0, 31.5);
      sum += std::log1p(-set / 32.0) / std::log1p(-1.0 / 32.0);
    }
    return sum / 8.0;
  }
  static double model_fpr(std::uint64_t blocks, double n, std::uint32_t /*k*/) {
    return sizing::split_block_fpr(static_cast<double>(blocks), n);
  }
  static sizing::blocked_plan plan(std::uint64_t n, double p) { return {sizing::split_block_blocks_for(n, p), 8}; }
};

}  // namespace detail

/// Parquet split-block Bloom filter (bit-exact with the Parquet spec).
using split_block_bloom = block_filter<detail::split_block_policy>;
/// Read-only split_block_bloom over borrowed blocks.
using split_block_bloom_view = block_filter_view<detail::split_block_policy>;

/// A split_block_bloom sized exactly as a Parquet writer sizes its filters
/// for `ndv` distinct values at `fpp` (docs/PARQUET.md §5), so that
/// inserting the same values yields the writer's bytes. Hash: XXH64 seed 0.
inline split_block_bloom parquet_sized_split_block(std::uint64_t ndv, double fpp,
                                                   sizing::parquet_writer writer = sizing::parquet_writer::duckdb) {
  const std::uint64_t bytes = sizing::parquet_writer_bytes(ndv, fpp, writer);
  return split_block_bloom(block_filter_params{bytes / 32, 8, std::max<std::uint64_t>(ndv, 1), fpp, parquet_hash_spec});
}

/// The filter's bitset as Parquet stores it: 32 bytes per block, words
/// little-endian (whatever the host's byte order).
inline std::vector<std::byte> to_parquet_bitset(const split_block_bloom_view& filter) {
  std::vector<std::byte> out(filter.blocks().size() * 32);
  std::size_t at = 0;
  for (const auto& block : filter.blocks()) {
    for (auto w : block.words) {
      detail::store_le(out.data() + at, w);
      at += 4;
    }
  }
  return out;
}

/// A split_block_bloom holding a Parquet bitset (for example one read from a
/// file's BloomFilterHeader + bitset). `bitset.size()` must be a positive
/// multiple of 32; otherwise errc::corrupt. `capacity` and `target_fpr` only
/// set the design point reported for saturation; `inserted` is unknown in
/// Parquet and starts at 0.
inline split_block_bloom from_parquet_bitset(std::span<const std::byte> bitset, std::uint64_t capacity,
                                             double target_fpr, hash_spec hash = parquet_hash_spec) {
  detail::require(!bitset.empty() && bitset.size() % 32 == 0, errc::corrupt,
                  "split_block_bloom: a Parquet bitset must be a positive multiple of 32 bytes, got " +
                      std::to_string(bitset.size()));
  std::vector<detail::block256> blocks(bitset.size() / 32);
  std::size_t at = 0;
  for (auto& block : blocks) {
    for (auto& w : block.words) {
      w = detail::load_le<std::uint32_t>(bitset.data() + at);
      at += 4;
    }
  }
  const std::uint64_t count = blocks.size();
  return split_block_bloom(block_filter_params{count, 8, capacity, target_fpr, hash}, std::move(blocks), 0);
}

/// split_block_bloom's facts (filter.hpp).
template <>
struct kind_traits<split_block_bloom> {
  static constexpr filter_kind kind = filter_kind::split_block_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "split-block";
  static constexpr std::string_view summary =
      "Apache Parquet's split-block filter (256-bit blocks, k = 8, XXH64)";
  static constexpr std::string_view python_class = "SplitBlockBloom";
  static constexpr hash_spec default_hash = detail::split_block_policy::default_hash;
  static constexpr bool is_static = false;
  static constexpr bool grows = false;
  static constexpr bool removes = false;
  static constexpr bool merges = true;
  static constexpr bool windows = false;
};
template <>
struct kind_traits<split_block_bloom_view> : kind_traits<split_block_bloom> {};

static_assert(incremental_filter<split_block_bloom> && filter<split_block_bloom_view>);

}  // namespace bloomkit
