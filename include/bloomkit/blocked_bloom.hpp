// bloomkit/blocked_bloom.hpp - cache-line blocked Bloom filter.
//
// Putze, Sanders and Singler (2007), "Cache-, hash- and space-efficient Bloom
// filters": each key sets k bits inside one 512-bit block (one 64-byte cache
// line), so a query costs one cache miss instead of k. The price is a higher
// FPR than a standard filter of the same size, because blocks fill unevenly
// (Poisson block loads); sizing uses that blocked formula, so a blocked_bloom
// built for 1 % really measures 1 % (about 10.6 bits/key at k = 8 vs 9.6 for
// the standard layout).
//
// Layout (fixed; part of the file format):
//   block  = ((h >> 32) * blocks) >> 32              (multiply-shift on the high half)
//   x      = low 32 bits of h
//   bit i  = (uint32)(x * salt[i]) >> 23, i < k     (9 bits: 0..511)
//            -> word bit_i / 64, bit bit_i % 64 of the block's eight 64-bit words
// Each salt is an odd 32-bit constant, so each bit index is a multiply-shift
// hash of x (Dietzfelbinger et al. 1997); k is configurable from 1 to 16.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "bloomkit/detail/block_filter.hpp"
#include "bloomkit/detail/simd.hpp"

namespace bloomkit {

namespace detail {

/// One 512-bit block: eight 64-bit words, cache-line aligned.
struct alignas(64) block512 {
  std::uint64_t words[8];
  friend bool operator==(const block512&, const block512&) = default;
};

/// Odd multipliers for the in-block bit positions. The first eight are the
/// Parquet salts; the rest are odd constants from xxHash and MurmurHash3.
inline constexpr std::array<std::uint32_t, 16> blocked_salts = {
    0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU, 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U,
    0x9e3779b1U, 0x85ebca77U, 0xc2b2ae3dU, 0x27d4eb2fU, 0x165667b1U, 0xd3a2646dU, 0xfd7046c5U, 0xb55a4f09U};

/// The k-bit mask of key x inside a 512-bit block, as eight 64-bit words.
/// The portable kernel; SIMD kernels must produce the same mask.
inline void blocked_mask_scalar(std::uint32_t x, std::uint32_t k, std::uint64_t (&mask)[8]) noexcept {
  for (auto& w : mask) w = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint32_t bit = (x * blocked_salts[i]) >> 23;
    mask[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
}

/// Block layout policy of blocked_bloom (see the header comment).
struct cache_line_policy {
  using block_type = block512;
  static constexpr std::string_view name = "blocked_bloom";
  static constexpr std::uint32_t block_bits = 512;
  static constexpr std::uint32_t min_k = 1;
  static constexpr std::uint32_t max_k = 16;
  static constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;
  static constexpr hash_spec default_hash{hash_algorithm::xxh3_64, 0};

  static void set(block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    std::uint64_t mask[8];
    blocked_mask_scalar(static_cast<std::uint32_t>(h), k, mask);
    for (int w = 0; w < 8; ++w) block.words[w] |= mask[w];
  }
  static bool test(const block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    std::uint64_t mask[8];
    blocked_mask_scalar(static_cast<std::uint32_t>(h), k, mask);
    std::uint64_t missing = 0;
    for (int w = 0; w < 8; ++w) missing |= mask[w] & ~block.words[w];
    return missing == 0;
  }
  static std::uint32_t popcount(const block_type& block) noexcept {
    std::uint32_t c = 0;
    for (auto w : block.words) c += static_cast<std::uint32_t>(std::popcount(w));
    return c;
  }
  static void merge(block_type& block, const block_type& other) noexcept {
    for (int w = 0; w < 8; ++w) block.words[w] |= other.words[w];
  }
  static void intersect(block_type& block, const block_type& other) noexcept {
    for (int w = 0; w < 8; ++w) block.words[w] &= other.words[w];
  }
  static double block_fpr(const block_type& block, std::uint32_t k) {
    return std::pow(popcount(block) / 512.0, static_cast<double>(k));
  }
  static double block_cardinality(const block_type& block, std::uint32_t k) {
    const double set = std::min(popcount(block) + 0.0, 511.5);  // a full block counts as nearly full
    return -(512.0 / k) * std::log1p(-set / 512.0);
  }
  static double model_fpr(std::uint64_t blocks, double n, std::uint32_t k) {
    return sizing::blocked_fpr(static_cast<double>(blocks) * 512.0, n, k, 512);
  }
  static sizing::blocked_plan plan(std::uint64_t n, double p) { return sizing::blocked_blocks_for(n, p, 512, max_k); }
};

}  // namespace detail

/// Cache-line blocked Bloom filter: one 64-byte block per key, k bits in it.
using blocked_bloom = block_filter<detail::cache_line_policy>;
/// Read-only blocked_bloom over borrowed blocks (e.g. a mapped file).
using blocked_bloom_view = block_filter_view<detail::cache_line_policy>;

}  // namespace bloomkit
