// bloomkit/detail/static_build.hpp - pieces shared by the static filters
// (binary_fuse.hpp, ribbon.hpp): seed schedule, the seeded remix of a key
// hash, and a counting sort that puts remixed hashes in ascending order of
// their top bits so that construction walks its tables front to back.
//
// Why sort at all: both constructions touch, per key, table slots whose
// position is a monotone function of the remixed hash's high bits (binary
// fuse: h0 = (h * S) >> 64; ribbon: start = (h * (m - 127)) >> 64). Visiting
// keys in that order turns random accesses into a sweep through a window a
// few segments (or 128 slots) wide, which lives in cache. Graf and Lemire
// (2022, §4) make the same observation for binary fuse construction.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "bloomkit/detail/bits.hpp"

namespace bloomkit::detail {

/// 1 if x has an odd number of set bits. GCC and Clang expand the builtin
/// inline (XOR folding and the parity flag on x86); std::popcount would be a
/// libgcc call on the baseline x86-64 target the release build uses, which
/// made Ribbon queries 4x slower.
constexpr std::uint32_t parity64(std::uint64_t x) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  return static_cast<std::uint32_t>(__builtin_parityll(x));
#else
  return static_cast<std::uint32_t>(std::popcount(x) & 1);
#endif
}

/// The first construction seed when the caller gives none. Fixed, so the same
/// keys always build the same bytes (golden tests, reproducible files).
inline constexpr std::uint64_t default_static_seed = 0x726962626f6e6675ULL;  // "ribbonfu"

/// The seed of attempt `attempt` (0-based) after starting at `first`. A
/// SplitMix64 step per attempt: successive seeds are unrelated, so one
/// unlucky key set is not unlucky again.
constexpr std::uint64_t attempt_seed(std::uint64_t first, std::uint32_t attempt) noexcept {
  if (attempt == 0) return first;
  splitmix64 generator(first + attempt);
  return generator();
}

/// The per-filter remix of a key hash: a bijection of h for each seed, so two
/// distinct key hashes never collide here, and a new seed gives an unrelated
/// mapping. mix64 is MurmurHash3's fmix64 finaliser.
constexpr std::uint64_t seeded_hash(std::uint64_t key_hash, std::uint64_t seed) noexcept {
  return mix64(key_hash + seed);
}

/// Fills `out` with seeded_hash(h, seed) for every h in `hashes`, ordered by
/// their top `bucket_bits` bits (a single-pass counting sort: stable, O(n +
/// 2^bucket_bits), no comparison sort). Uses 8 * 2^bucket_bits bytes of
/// scratch beside `out`. `out` is resized to hashes.size().
inline void remix_in_bucket_order(std::span<const std::uint64_t> hashes, std::uint64_t seed,
                                  std::vector<std::uint64_t>& out) {
  const std::size_t n = hashes.size();
  out.resize(n);
  // About 256 keys per bucket: enough order for locality, a count array far
  // smaller than the keys (2^20 buckets = 8 MiB at most). The counts are
  // 64-bit: ribbon takes up to 2^38 keys; a bucket's count then stays near
  // 2^18, but the prefix sums reach n, past 32 bits from 2^32 keys on.
  const int bucket_bits = std::clamp(static_cast<int>(std::bit_width(n / 256)), 1, 20);
  const int shift = 64 - bucket_bits;
  std::vector<std::size_t> start((std::size_t{1} << bucket_bits) + 1, 0);
  for (const std::uint64_t h : hashes) ++start[(seeded_hash(h, seed) >> shift) + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  for (const std::uint64_t h : hashes) {
    const std::uint64_t x = seeded_hash(h, seed);
    out[start[x >> shift]++] = x;
  }
}

}  // namespace bloomkit::detail
