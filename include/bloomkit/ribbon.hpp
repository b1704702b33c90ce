// bloomkit/ribbon.hpp - the standard Ribbon filter (Dillinger and Walzer
// 2021, "Ribbon filter: practically smaller than Bloom and Xor").
//
// Design: standard (not homogeneous) Ribbon, ribbon width w = 128, r result
// bits per key with r any of 1..16, so the false-positive rate is exactly
// 2^-r. A static filter: built once from the whole key set, then queried.
//
//   The algebra (over GF(2)). Each key x gives, from its seeded hash:
//     s(x)  start slot, uniform in [0, m - w]
//     c(x)  w-bit coefficient row with c_0 = 1  (so the row has a pivot at s)
//     f(x)  r-bit fingerprint ("result")
//   and the filter stores an m x r bit matrix Z solving, for every key,
//
//        f(x) = c(x)^T . Z[s(x) .. s(x)+w-1, 0 .. r-1]
//
//   Stacking the keys' rows gives a banded system, each row w wide:
//
//        slot:  0 1 2 3 4 5 6 7 8 9 ...                  m-1
//             +-----------------------------------------------+   +---+   +------+
//   key a     | 1 c c c c c c c                               |   |z_0|   | f(a) |
//   key b     |     1 c c c c c c c                           |   |z_1|   | f(b) |
//   key c     |         1 c c c c c c c                       | . | : | = |  :   |
//   key d     |               1 c c c c c c c                 |   | : |   |  :   |
//             +-----------------------------------------------+   +---+   +------+
//             m slots, about n (1 + eps); each z_i is an r-bit row of Z
//
//   Banding (on-the-fly Gaussian elimination, §2 of the paper): keep one
//   stored row per slot. Insert (s, c, f): if slot s is empty, store the row
//   there. Otherwise XOR the stored row into it (c ^= C[s], f ^= F[s]); c's
//   bit 0 cancels, so shift c right past its trailing zeros and move s up by
//   as many. c = 0 with f = 0 means the key was redundant (a duplicate); c = 0
//   with f != 0 means the system is inconsistent: retry with a new seed.
//   Rows never leave the band [s, s + w), so no slot index passes m - 1.
//
//   Back substitution from slot m-1 down: z_i = F[i] ^ parity(C[i] & z_(i+1..))
//   per result bit, with free (empty) slots set to 0. A query recomputes the
//   parity of c(x) & Z over its band and compares with f(x). For a key not in
//   the set, f(x) is independent of the band, so it matches with probability
//   exactly 2^-r (Dillinger and Walzer §2.2; homogeneous Ribbon would
//   avoid construction failure but pay a little FPR for it).
//
// Why standard, w = 128: the space overhead eps that banding needs grows like
// log(n) / w (Dillinger and Walzer §3), so w = 64 would need about twice the
// overhead. Measured here (ribbon_size_factor, one seed succeeding >= 90 %):
// 3.5 % at 10^4 keys, 4.7 % at 10^6, 5.2 % at 10^7, 5.8 % at 10^8, so the
// filter stays under 1.06 x log2(1/p) bits/key up to 10^8 keys. Standard
// rather than homogeneous keeps the FPR exactly 2^-r; the price is a rare
// failed seed (a retry). docs/STATIC.md has the figures.
//
// Storage: "interleaved column-major" (the paper's §4): slots are grouped in
// 64-slot blocks; block b stores r 64-bit words, word j holding result bit j
// of its 64 slots. A query's 128-slot band touches three consecutive blocks
// (3r words, contiguous), and one padding block at the end keeps that read in
// bounds. Payload: (m / 64 + 1) * r words.
//
// Construction memory, n keys, m slots (about 1.05 n):
//   8n  remixed hashes, sorted by start (see detail/static_build.hpp)
//   18m one 128-bit row and a 16-bit result per slot
//   + the result, m r / 8 bytes. About 27 n bytes: 2.7 GB for 10^8 keys.
//
// The bumped layout (ribbon_layout::bumped): Bumped Ribbon Retrieval (BuRR;
// Dillinger, Hübschle-Schneider, Sanders and Walzer 2022, "Fast Succinct
// Retrieval and Approximate Membership using Ribbon", §3-§4) loads each
// table nearly full and, where a 64-slot bucket of start positions cannot
// be banded, "bumps" the bucket's keys whose offset in the bucket is below a
// threshold to the next layer, a smaller table of the same kind with its own
// seed. A 2-bit code per bucket records the threshold (§4.2's 2-bit variant):
//
//   layer 0  [ bucket 0 | bucket 1 | bucket 2 | ... ]  m_0 ~ 0.98 n slots
//   codes       0          2          0                 threshold per bucket
//   layer 1  [ keys bumped from layer 0 ]                m_1 ~ 0.98 n_1
//   ...
//   last     a standard Ribbon over the rest (few keys; retries as usual)
//
// A query walks the layers: in each bumping layer it reads its bucket's
// code; an offset at or above the threshold is answered by that layer's
// band, one below goes on to the next layer. Every key ends in exactly one
// layer and is compared with an r-bit fingerprint drawn independently of
// that layer's solution, so the FPR stays exactly 2^-r (BuRR §2; no
// homogeneous-Ribbon penalty), while space falls from 1.05 to 1.005 x r
// bits per key at 10^6 keys (1.02 at 10^4; measured, docs/STATIC.md). Layers never fail to band (the
// last code bumps a whole bucket), so only the small last layer can retry.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/detail/memory.hpp"
#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/facade.hpp"
#include "bloomkit/detail/filter_state.hpp"
#include "bloomkit/detail/simd.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/detail/static_build.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// How a Ribbon filter's slots are organised (both give FPR exactly 2^-r).
enum class ribbon_layout : std::uint32_t {
  standard = 0,  ///< one table with about 5 % spare slots (Dillinger and Walzer 2021)
  bumped = 1,    ///< BuRR: nearly full layers, overloaded buckets bumped onward (about 1 % spare)
};

/// Most layers a bumped Ribbon has (the last one a standard Ribbon).
inline constexpr std::uint32_t ribbon_max_layers = 4;

/// The parameters that fix a Ribbon filter's layout and meaning (all a file
/// format must store beside the solution words).
struct ribbon_params {
  std::uint32_t result_bits = 8;  ///< r in [1, 16]: false-positive rate 2^-r
  std::uint64_t slots = 0;        ///< m: a multiple of 64, >= 128 (bumped: all layers'); 0 only when empty
  std::uint64_t seed = 0;         ///< seed of the construction (bumped: of the bumping layers)
  std::uint64_t keys = 0;         ///< keys stored, duplicates not counted (0 = empty: rejects everything)
  hash_spec hash{};               ///< hash used for keys
  ribbon_layout layout = ribbon_layout::standard;  ///< standard, or bumped (BuRR)
  /// Bumped only: the number of layers (1..ribbon_max_layers; 0 when empty),
  /// each layer's slots (unused entries 0) and the last layer's seed (the
  /// bumping layers' seeds derive from `seed`: detail::ribbon_layer_seed).
  std::uint32_t layers = 0;
  std::array<std::uint64_t, ribbon_max_layers> layer_slots{};
  std::uint64_t last_seed = 0;

  /// 64-bit words of the payload, or 0 when empty. Standard: (m / 64 + 1) r
  /// solution words. Bumped: each layer's (m_i / 64 + 1) r solution words,
  /// then for each bumping layer (all but the last) its 2-bit bucket codes,
  /// 32 to a word, for m_i / 64 - 1 buckets.
  [[nodiscard]] constexpr std::uint64_t word_count() const noexcept {
    if (layout != ribbon_layout::bumped) return slots == 0 ? 0 : (slots / 64 + 1) * result_bits;
    std::uint64_t words = 0;
    for (std::uint32_t i = 0; i < layers && i < ribbon_max_layers; ++i) {
      words += (layer_slots[i] / 64 + 1) * result_bits;
      if (i + 1 < layers) words += (layer_slots[i] / 64 - 1 + 31) / 32;
    }
    return words;
  }

  friend bool operator==(const ribbon_params&, const ribbon_params&) = default;
};

/// How to build a Ribbon filter.
struct ribbon_options {
  std::uint32_t result_bits = 8;                     ///< r in [1, 16]; FPR 2^-r
  hash_spec hash{};                                  ///< hash for keys (default XXH3-64, seed 0)
  std::uint64_t seed = detail::default_static_seed;  ///< first construction seed
  std::uint32_t max_attempts = 32;                   ///< seeds to try in all before errc::construction_failed (>= 1)
  /// Seeds tried at one size before the table grows: each growth step g
  /// multiplies the slots per key by (17/16)^g and adds at least 64 g slots
  /// (banding only gets easier with more slots; the FPR 2^-r is unchanged).
  /// 0 never grows. With the defaults a build tries 8 sizes.
  std::uint32_t attempts_per_size = 4;
  double size_factor = 0.0;  ///< slots per key (m / n); 0 picks ribbon_size_factor(n). Below 1 always fails.
  /// standard, or bumped (BuRR: about 1 % spare slots instead of 5 %, the
  /// same FPR 2^-r, a second table lookup for the few bumped keys). With
  /// bumped, size_factor and the attempt options apply to the last layer only.
  ribbon_layout layout = ribbon_layout::standard;
};

/// Slots per key the builder uses for n keys at w = 128 when the caller does
/// not choose: small enough for the space goal, large enough that one seed
/// succeeds with probability above ~90 % (measured; docs/STATIC.md).
inline double ribbon_size_factor(std::uint64_t n) noexcept {
  // Banding fails when some stretch of slots is overloaded; the excess needed
  // grows like log(n) / w (Dillinger and Walzer, §3). Fit to measured success
  // rates of one seed: eps = 0.012 + 0.0025 ln n gives 3.5 % at 10^4, 4.7 %
  // at 10^6, 5.8 % at 10^8.
  const double ln_n = std::log(static_cast<double>(std::max<std::uint64_t>(n, 2)));
  return 1.012 + 0.0025 * ln_n;
}

namespace detail {

inline constexpr std::uint32_t ribbon_width = 128;

/// One key's row: start slot, 128-bit coefficient (bit 0 set), r-bit result.
struct ribbon_row {
  std::uint64_t start;
  std::uint64_t lo, hi;
  std::uint32_t result;
};

/// The row of seeded hash x in a filter of `slots` slots with r result bits.
/// Start from x's high bits, result from its low bits, the coefficient from
/// a second bijective mix of x so the three are independent in practice.
constexpr ribbon_row ribbon_row_of(std::uint64_t x, std::uint64_t slots, std::uint32_t result_bits) noexcept {
  const std::uint64_t t = mix64(x ^ 0x5851f42d4c957f2dULL);
  const uint128 c = static_cast<uint128>(t) * 0x9e3779b97f4a7c15ULL;
  return ribbon_row{reduce64(x, slots - ribbon_width + 1), static_cast<std::uint64_t>(c) | 1,
                    static_cast<std::uint64_t>(c >> 64),
                    static_cast<std::uint32_t>(x & ((std::uint32_t{1} << result_bits) - 1))};
}

/// The column loop of ribbon_evaluate for a fixed r (unrolled, constant offsets).
template <std::uint32_t R>
inline std::uint32_t ribbon_columns(const std::uint64_t* base, std::uint64_t c0, std::uint64_t c1,
                                    std::uint64_t c2) noexcept {
  std::uint32_t out = 0;
  for (std::uint32_t j = 0; j < R; ++j) {
    out |= parity64((base[j] & c0) ^ (base[R + j] & c1) ^ (base[2 * R + j] & c2)) << j;
  }
  return out;
}

template <std::uint32_t... R>
inline std::uint32_t ribbon_columns_for(std::uint32_t r, const std::uint64_t* base, std::uint64_t c0, std::uint64_t c1,
                                        std::uint64_t c2, std::integer_sequence<std::uint32_t, R...>) noexcept {
  std::uint32_t out = 0;
  (void)((r == R + 1 ? (out = ribbon_columns<R + 1>(base, c0, c1, c2), true) : false) || ...);
  return out;
}

/// parity(window & coefficient) for each result bit, where window = Z's 128
/// slots from `start`: one bit per result column j, gathered into an integer.
/// The coefficient is shifted once to the 64-slot block grid (192 bits over
/// three words), so each column costs three loads, three ANDs and a parity,
/// with no per-column shifts; r picks an unrolled loop.
inline std::uint32_t ribbon_evaluate(const std::uint64_t* words, std::uint32_t result_bits, std::uint64_t start,
                                     std::uint64_t lo, std::uint64_t hi) noexcept {
  const std::uint64_t* base = words + (start / 64) * result_bits;
  const unsigned e = static_cast<unsigned>(start % 64);
  // (x >> 1) >> (63 - e) is x >> (64 - e) without the undefined shift by 64 at e = 0.
  const std::uint64_t c0 = lo << e;
  const std::uint64_t c1 = (hi << e) | ((lo >> 1) >> (63 - e));
  const std::uint64_t c2 = (hi >> 1) >> (63 - e);
  return ribbon_columns_for(result_bits, base, c0, c1, c2, std::make_integer_sequence<std::uint32_t, 16>{});
}

#if BLOOMKIT_X86_KERNELS
/// Per-lane parity of eight 64-bit lanes, as a bit mask (lane j -> bit j):
/// XOR-fold each lane to one bit (AVX-512 F has no per-lane popcount; the
/// VPOPCNTDQ extension is rarer than the rest of the kernel's target).
BLOOMKIT_TARGET_AVX512 inline __mmask8 ribbon_lane_parity(__m512i x) noexcept {
  constexpr __mmask8 all = 0xff;
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 32));
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 16));
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 8));
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 4));
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 2));
  x = _mm512_xor_si512(x, _mm512_maskz_srli_epi64(all, x, 1));
  return _mm512_test_epi64_mask(x, _mm512_set1_epi64(1));
}

/// Up to eight result columns (mask m) of the band at `at`: parity of
/// (block0 & c0) ^ (block1 & c1) ^ (block2 & c2) per column.
BLOOMKIT_TARGET_AVX512 inline std::uint32_t ribbon_columns_avx512(const std::uint64_t* at, std::uint32_t r, __mmask8 m,
                                                                  __m512i c0, __m512i c1, __m512i c2) noexcept {
  const __m512i a = _mm512_and_si512(_mm512_maskz_loadu_epi64(m, at), c0);
  const __m512i b = _mm512_and_si512(_mm512_maskz_loadu_epi64(m, at + r), c1);
  const __m512i c = _mm512_and_si512(_mm512_maskz_loadu_epi64(m, at + 2 * r), c2);
  return static_cast<std::uint32_t>(ribbon_lane_parity(_mm512_ternarylogic_epi64(a, b, c, 0x96)));  // a ^ b ^ c
}

/// ribbon_evaluate with SIMD over the result columns: up to eight columns
/// of a block are one zmm, so a band's three blocks are three masked loads,
/// one three-way AND/XOR (vpternlogq) with the shifted coefficient, and one
/// lane-parity fold; r > 8 takes a second zmm per block. Same value as the
/// scalar loop for every r in [1, 16] (tests/ribbon_kernel_test.cpp).
BLOOMKIT_TARGET_AVX512 inline std::uint32_t ribbon_evaluate_avx512(const std::uint64_t* words, std::uint32_t r,
                                                                   std::uint64_t start, std::uint64_t lo,
                                                                   std::uint64_t hi) noexcept {
  const std::uint64_t* base = words + (start / 64) * r;
  const unsigned e = static_cast<unsigned>(start % 64);
  const __m512i c0 = _mm512_set1_epi64(static_cast<long long>(lo << e));
  const __m512i c1 = _mm512_set1_epi64(static_cast<long long>((hi << e) | ((lo >> 1) >> (63 - e))));
  const __m512i c2 = _mm512_set1_epi64(static_cast<long long>((hi >> 1) >> (63 - e)));
  if (r <= 8) return ribbon_columns_avx512(base, r, static_cast<__mmask8>((1U << r) - 1U), c0, c1, c2);
  return ribbon_columns_avx512(base, r, 0xff, c0, c1, c2) |
         (ribbon_columns_avx512(base + 8, r, static_cast<__mmask8>((1U << (r - 8)) - 1U), c0, c1, c2) << 8);
}
#endif

/// ribbon_evaluate under kernel K (avx512: the column-SIMD version; every
/// other kernel the portable loop, which AVX2 does not beat at r <= 16).
/// Runs only where K's target is available (code compiled for it, or after
/// the CPU was checked).
template <kernel K>
inline std::uint32_t ribbon_evaluate_under(const std::uint64_t* words, std::uint32_t result_bits,
                                           std::uint64_t start, std::uint64_t lo, std::uint64_t hi) noexcept {
#if BLOOMKIT_X86_KERNELS
  if constexpr (K == kernel::avx512) return ribbon_evaluate_avx512(words, result_bits, start, lo, hi);
#endif
  return ribbon_evaluate(words, result_bits, start, lo, hi);
}

/// ribbon_evaluate under kernel `k`, which this CPU must support.
inline std::uint32_t ribbon_evaluate(kernel k, const std::uint64_t* words, std::uint32_t result_bits,
                                     std::uint64_t start, std::uint64_t lo, std::uint64_t hi) noexcept {
  return with_kernel(k, [&](auto tag) {
    return ribbon_evaluate_under<decltype(tag)::value>(words, result_bits, start, lo, hi);
  });
}

/// The batched query loop under kernel K over hash_at(0..n): the band of
/// the hash a window ahead is prefetched (its first and last line; the
/// middle ones follow from the adjacent-line prefetcher when r is large)
/// while the current one is evaluated. Each hash is read once, in order.
template <kernel K, class HashAt>
inline void ribbon_query_many(const std::uint64_t* words, const ribbon_params& p, std::size_t n, HashAt& hash_at,
                              bool* out) {
  const std::uint32_t r = p.result_bits;
  prefetch_pipeline<8>(
      n, [&](std::size_t i) { return seeded_hash(hash_at(i), p.seed); },
      [&](std::uint64_t x) {
        const std::uint64_t* base = words + (reduce64(x, p.slots - ribbon_width + 1) / 64) * r;
        prefetch(base);
        prefetch(base + 3 * r - 1);
      },
      [&](std::size_t i, std::uint64_t x) {
        const ribbon_row row = ribbon_row_of(x, p.slots, r);
        out[i] = ribbon_evaluate_under<K>(words, r, row.start, row.lo, row.hi) == row.result;
      });
}

#if BLOOMKIT_X86_KERNELS
/// ribbon_query_many compiled for AVX-512, its column kernel inlined.
template <class HashAt>
BLOOMKIT_TARGET_AVX512 BLOOMKIT_FLATTEN void ribbon_query_many_avx512(const std::uint64_t* words,
                                                                      const ribbon_params& p, std::size_t n,
                                                                      HashAt& hash_at, bool* out) {
  ribbon_query_many<kernel::avx512>(words, p, n, hash_at, out);
}
#endif

// ---- bumped layout (BuRR) ------------------------------------------------------

#ifndef BLOOMKIT_RIBBON_BUMP_CUTS
#define BLOOMKIT_RIBBON_BUMP_CUTS 0, 16, 32, 64
#endif
#ifndef BLOOMKIT_RIBBON_BUMP_LOAD
#define BLOOMKIT_RIBBON_BUMP_LOAD 0.98
#endif

/// A bucket's 2-bit code -> its threshold: keys whose start lies at offset
/// < cut (of 64) in the bucket are bumped to the next layer. Code 3 bumps the
/// whole bucket, so every bucket can be banded (BuRR §4.2). Part of the file
/// format (docs/FORMAT.md, kind 7).
inline constexpr std::array<std::uint32_t, 4> ribbon_bump_cuts{BLOOMKIT_RIBBON_BUMP_CUTS};
/// Slots per key of a bumping layer (BuRR loads layers nearly full, §4.3):
/// measured to minimise total space at w = 128 (docs/STATIC.md).
inline constexpr double ribbon_bump_load = BLOOMKIT_RIBBON_BUMP_LOAD;
/// Fewer keys than this go straight to the last (standard) layer.
inline constexpr std::uint64_t ribbon_min_bump_keys = 1024;

/// The seed of bumping layer `layer` of a filter with base seed `seed`.
constexpr std::uint64_t ribbon_layer_seed(std::uint64_t seed, std::uint32_t layer) noexcept {
  return layer == 0 ? seed : attempt_seed(seed ^ 0x62756d7065640000ULL, layer);  // "bumped"
}

/// Where each layer lives in a bumped payload (derived from ribbon_params).
struct ribbon_layer_map {
  std::uint32_t layers = 0;
  std::array<std::uint64_t, ribbon_max_layers> slots{}, seed{}, words{}, codes{};
};

inline ribbon_layer_map ribbon_map_of(const ribbon_params& p) noexcept {
  ribbon_layer_map map;
  if (p.layout != ribbon_layout::bumped) return map;
  map.layers = std::min(p.layers, ribbon_max_layers);
  std::uint64_t at = 0;
  for (std::uint32_t i = 0; i < map.layers; ++i) {
    map.slots[i] = p.layer_slots[i];
    map.seed[i] = i + 1 == map.layers ? p.last_seed : ribbon_layer_seed(p.seed, i);
    map.words[i] = at;
    at += (p.layer_slots[i] / 64 + 1) * p.result_bits;
  }
  for (std::uint32_t i = 0; i + 1 < map.layers; ++i) {
    map.codes[i] = at;
    at += (p.layer_slots[i] / 64 - 1 + 31) / 32;
  }
  return map;
}

/// The 2-bit code of bucket `bucket` in a code array.
inline std::uint32_t ribbon_code_at(const std::uint64_t* codes, std::uint64_t bucket) noexcept {
  return static_cast<std::uint32_t>(codes[bucket / 32] >> (2 * (bucket % 32))) & 3U;
}

/// The bumped query of key hash h: walk the layers until one keeps the key
/// (offset >= its bucket's cut) or the last, and compare there.
template <kernel K>
inline bool ribbon_bumped_query(const std::uint64_t* words, const ribbon_layer_map& map, std::uint32_t r,
                                std::uint64_t h) noexcept {
  for (std::uint32_t i = 0;; ++i) {
    const ribbon_row row = ribbon_row_of(seeded_hash(h, map.seed[i]), map.slots[i], r);
    if (i + 1 < map.layers &&
        row.start % 64 < ribbon_bump_cuts[ribbon_code_at(words + map.codes[i], row.start / 64)]) {
      continue;
    }
    return ribbon_evaluate_under<K>(words + map.words[i], r, row.start, row.lo, row.hi) == row.result;
  }
}

/// ribbon_query_many for the bumped layout: layer 0's band and code word
/// are prefetched a window ahead (most keys end there); bumped keys read
/// their next layers unprefetched.
template <kernel K, class HashAt>
inline void ribbon_bumped_query_many(const std::uint64_t* words, const ribbon_layer_map& map, std::uint32_t r,
                                     std::size_t n, HashAt& hash_at, bool* out) {
  prefetch_pipeline<8>(
      n, [&](std::size_t i) { return hash_at(i); },
      [&](std::uint64_t h) {
        const std::uint64_t start = reduce64(seeded_hash(h, map.seed[0]), map.slots[0] - ribbon_width + 1);
        const std::uint64_t* base = words + (start / 64) * r;
        prefetch(base);
        prefetch(base + 3 * r - 1);
        if (map.layers > 1) prefetch(words + map.codes[0] + start / 64 / 32);
      },
      [&](std::size_t i, std::uint64_t h) { out[i] = ribbon_bumped_query<K>(words, map, r, h); });
}

#if BLOOMKIT_X86_KERNELS
template <class HashAt>
BLOOMKIT_TARGET_AVX512 BLOOMKIT_FLATTEN void ribbon_bumped_query_many_avx512(const std::uint64_t* words,
                                                                             const ribbon_layer_map& map,
                                                                             std::uint32_t r, std::size_t n,
                                                                             HashAt& hash_at, bool* out) {
  ribbon_bumped_query_many<kernel::avx512>(words, map, r, n, hash_at, out);
}
#endif

/// What banding one row did.
enum class ribbon_band_result { placed, redundant, inconsistent };

/// On-the-fly Gaussian elimination of one row into the band (lo, hi,
/// result per slot; lo == 0 marks an empty slot). Writes only the slot it
/// returns in `placed` (when placed), so undoing a row is clearing that slot.
inline ribbon_band_result ribbon_band_row(const ribbon_row& row, std::uint64_t* lo, std::uint64_t* hi,
                                          std::uint16_t* result, std::uint64_t& placed) noexcept {
  std::uint64_t s = row.start;
  std::uint64_t c_lo = row.lo, c_hi = row.hi;
  std::uint32_t f = row.result;
  for (;;) {
    if (lo[s] == 0) {  // empty: stored rows always have bit 0 set
      lo[s] = c_lo;
      hi[s] = c_hi;
      result[s] = static_cast<std::uint16_t>(f);
      placed = s;
      return ribbon_band_result::placed;
    }
    c_lo ^= lo[s];
    c_hi ^= hi[s];
    f ^= result[s];
    if (c_lo == 0 && c_hi == 0) {
      // f != 0: inconsistent (this seed cannot hold the row); f == 0: an
      // equal row (a duplicate key), nothing to store.
      return f != 0 ? ribbon_band_result::inconsistent : ribbon_band_result::redundant;
    }
    // Bit 0 cancelled; move the pivot to the next set bit.
    if (c_lo == 0) {
      s += 64;
      c_lo = c_hi;
      c_hi = 0;
    }
    const int shift = std::countr_zero(c_lo);
    s += static_cast<std::uint64_t>(shift);
    c_lo = (c_lo >> shift) | ((c_hi << 1) << (63 - shift));
    c_hi >>= shift;
  }
}

/// Back substitution, last slot first, into out[0 .. (slots / 64 + 1) r)
/// (zeroed by the caller; free slots get 0). state[j] holds z_j for the 128
/// slots from the current one: bit k = z_j[i + k].
inline void ribbon_back_substitute(const std::uint64_t* lo, const std::uint64_t* hi, const std::uint16_t* result,
                                   std::uint64_t slots, std::uint32_t r, std::uint64_t* out) noexcept {
  std::array<uint128, 16> state{};
  for (std::uint64_t i = slots; i-- > 0;) {
    const uint128 c = (static_cast<uint128>(hi[i]) << 64) | lo[i];
    for (std::uint32_t j = 0; j < r; ++j) {
      uint128 st = state[j] << 1;
      if (lo[i] != 0) {
        const uint128 m = st & c;
        const std::uint32_t bit =
            parity64(static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64)) ^ ((result[i] >> j) & 1U);
        st |= static_cast<uint128>(bit);
      }
      state[j] = st;
    }
    if (i % 64 == 0) {
      for (std::uint32_t j = 0; j < r; ++j) out[(i / 64) * r + j] = static_cast<std::uint64_t>(state[j]);
    }
  }
}

/// Slots of a bumping layer for n keys: n * ribbon_bump_load, a multiple
/// of 64, at least 128.
inline std::uint64_t ribbon_bump_slots(std::uint64_t n) noexcept {
  const auto wanted = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * ribbon_bump_load));
  return std::max<std::uint64_t>((wanted + 63) / 64 * 64, ribbon_width);
}

/// One bumping layer over key hashes `keys` with seed `seed` and `slots`
/// slots: appends its solution words to `words`, its bucket codes to
/// `codes`, the hashes it bumps to `bumped`; returns the distinct keys it
/// keeps (exact: duplicates are equal seeded hashes). Buckets are banded in order of start; a bucket
/// whose kept keys do not all band is undone and retried with the next code.
inline std::uint64_t ribbon_bump_layer(std::span<const std::uint64_t> keys, std::uint64_t seed, std::uint64_t slots,
                                       std::uint32_t r, std::vector<std::uint64_t>& words,
                                       std::vector<std::uint64_t>& codes, std::vector<std::uint64_t>& bumped) {
  const std::uint64_t buckets = slots / 64 - 1;  // starts lie in [0, slots - 128]
  // Counting sort of (seeded hash, key hash) by bucket, then by seeded hash
  // (= by start) inside each bucket: the order the codes' cuts assume.
  std::vector<std::uint64_t> first(buckets + 1, 0);
  for (const std::uint64_t h : keys) ++first[reduce64(seeded_hash(h, seed), slots - ribbon_width + 1) / 64 + 1];
  for (std::uint64_t b = 1; b <= buckets; ++b) first[b] += first[b - 1];
  auto order = vector_or_fail<std::pair<std::uint64_t, std::uint64_t>>(keys.size(), {}, "building a ribbon (bumping)");
  {
    std::vector<std::uint64_t> at(first.begin(), first.end() - 1);
    for (const std::uint64_t h : keys) {
      const std::uint64_t x = seeded_hash(h, seed);
      order[at[reduce64(x, slots - ribbon_width + 1) / 64]++] = {x, h};
    }
  }
  auto lo = vector_or_fail<std::uint64_t>(slots, 0, "building a ribbon (band rows)");
  auto hi = vector_or_fail<std::uint64_t>(slots, 0, "building a ribbon (band rows)");
  auto result = vector_or_fail<std::uint16_t>(slots, 0, "building a ribbon (solution)");
  const std::size_t code_base = codes.size();
  codes.resize(code_base + (buckets + 31) / 32, 0);
  std::vector<std::uint64_t> placed;
  std::uint64_t stored = 0;
  for (std::uint64_t b = 0; b < buckets; ++b) {
    const auto begin = order.begin() + first[b], end = order.begin() + first[b + 1];
    std::sort(begin, end);
    std::uint32_t code = 0;
    for (;; ++code) {
      placed.clear();
      bool ok = true;
      for (auto it = begin; it != end; ++it) {
        const ribbon_row row = ribbon_row_of(it->first, slots, r);
        if (row.start % 64 < ribbon_bump_cuts[code]) continue;
        std::uint64_t slot = 0;
        const ribbon_band_result what = ribbon_band_row(row, lo.data(), hi.data(), result.data(), slot);
        if (what == ribbon_band_result::inconsistent) {
          ok = false;
          break;
        }
        if (what == ribbon_band_result::placed) placed.push_back(slot);
      }
      if (ok) break;
      for (const std::uint64_t s : placed) lo[s] = hi[s] = result[s] = 0;  // undo the bucket
    }
    codes[code_base + b / 32] |= std::uint64_t{code} << (2 * (b % 32));
    // Count the distinct keys kept (equal seeded hashes are adjacent and are
    // one key): a kept row that reduced to zero was consistent, so that key
    // is stored too, by chance rather than by a pivot of its own.
    for (auto it = begin; it != end; ++it) {
      if (ribbon_row_of(it->first, slots, r).start % 64 < ribbon_bump_cuts[code]) {
        bumped.push_back(it->second);
      } else if (it == begin || std::prev(it)->first != it->first) {
        ++stored;
      }
    }
  }
  const std::size_t word_base = words.size();
  words.resize(word_base + (slots / 64 + 1) * r, 0);
  ribbon_back_substitute(lo.data(), hi.data(), result.data(), slots, r, words.data() + word_base);
  return stored;
}

/// The one domain check of ribbon_params (constructors, views and the
/// codec; see param_check).
inline void validate(const ribbon_params& p, const param_check& check = {"ribbon"}) {
  check(p.result_bits >= 1 && p.result_bits <= 16, "result_bits",
        "= " + std::to_string(p.result_bits) + " is not in [1, 16]");
  check(is_known(p.hash.algorithm), "hash_algorithm", "is not a known hash algorithm");
  check(is_known(p.hash.keys), "key_type", "is not a known key type");
  check(p.layout == ribbon_layout::standard || p.layout == ribbon_layout::bumped, "layout",
        "= " + std::to_string(static_cast<std::uint32_t>(p.layout)) + " is not 0 (standard) or 1 (bumped)");
  const auto unused_layers_zero = [&](std::uint32_t from) {
    bool zero = true;
    for (std::uint32_t i = from; i < ribbon_max_layers; ++i) zero = zero && p.layer_slots[i] == 0;
    return zero;
  };
  if (p.layout == ribbon_layout::bumped) {
    check(p.layers <= ribbon_max_layers && (p.keys == 0) == (p.layers == 0), "layers",
          "= " + std::to_string(p.layers) + " is not in [1, " + std::to_string(ribbon_max_layers) +
              "] (0 only when keys = 0)");
    check(unused_layers_zero(p.layers), "layer_slots", "of a layer past the last must be 0");
    std::uint64_t total = 0;
    for (std::uint32_t i = 0; i < p.layers; ++i) {
      const std::uint64_t m = p.layer_slots[i];
      if (!(m >= ribbon_width && m % 64 == 0 && m <= (std::uint64_t{1} << 40))) {
        std::string what = "= ";  // built by appends: GCC 12's -Wrestrict misfires on "[" + string
        what += std::to_string(m);
        what += " (layer ";
        what += std::to_string(i);
        what += ") is not a multiple of 64 in [128, 2^40]";
        check(false, "layer_slots", what);
      }
      total += m;
    }
    check(total == p.slots, "slots", "= " + std::to_string(p.slots) + " is not the sum of the layers' slots");
    if (p.keys == 0) check(p.last_seed == 0, "last_seed", "must be 0 in an empty filter");
    return;
  }
  check(p.layers == 0 && p.last_seed == 0 && unused_layers_zero(0), "layers",
        "are only for the bumped layout");
  if (p.keys == 0) {
    check(p.slots == 0, "slots", "must be 0 in an empty filter (keys = 0)");
    return;
  }
  check(p.slots >= ribbon_width && p.slots % 64 == 0 && p.slots <= (std::uint64_t{1} << 40), "slots",
        "= " + std::to_string(p.slots) + " is not a multiple of 64 in [128, 2^40]");
}

}  // namespace detail

namespace detail {

/// Throws `code` unless `words` holds exactly params.word_count() words.
inline void require_ribbon_payload(const ribbon_params& params, std::size_t words, errc code) {
  require(words == params.word_count(), code,
          "ribbon: expected " + std::to_string(params.word_count()) + " words, got " + std::to_string(words));
}

/// The query code of a Ribbon filter, shared by ribbon and ribbon_view; the
/// statistics come from static_facade. D provides params() and words().
template <class D>
class ribbon_reader : public static_facade<D> {
 public:
  static constexpr const char* kind_name = "ribbon";
  /// Keyed batches hash a tile of keys together, then run the prehashed
  /// batch core over it (detail/facade.hpp, hashes_keys_in_tiles).
  static constexpr bool keyed_batches_in_tiles = true;

  /// True if the key with hash `h` may be in the set; false means certainly
  /// not. Never false for a key the filter was built from.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    const ribbon_params& p = self().params();
    if (p.slots == 0) return false;
    if (p.layout == ribbon_layout::bumped) {
      return with_active_kernel([&](auto tag) {
        return ribbon_bumped_query<decltype(tag)::value>(self().words().data(), self().layer_map(), p.result_bits, h);
      });
    }
    const ribbon_row row = ribbon_row_of(seeded_hash(h, p.seed), p.slots, p.result_bits);
    return with_active_kernel([&](auto tag) {
      return ribbon_evaluate_under<decltype(tag)::value>(self().words().data(), p.result_bits, row.start, row.lo,
                                                         row.hi) == row.result;
    });
  }

  /// The batch core (detail::ribbon_query_many): the band of the hash a
  /// window ahead is prefetched while the current one is evaluated, under
  /// the kernel picked once for the whole batch.
  template <class HashAt>
  void test_pipelined(std::size_t n, HashAt hash_at, bool* out) const {
    const ribbon_params& p = self().params();
    if (p.slots == 0) {
      std::fill(out, out + n, false);
      return;
    }
    const std::uint64_t* words = self().words().data();
    // Only avx512 has a ribbon kernel of its own; the others share the portable loop.
    with_active_kernel([&]([[maybe_unused]] auto tag) {
      if (p.layout == ribbon_layout::bumped) {
#if BLOOMKIT_X86_KERNELS
        if constexpr (decltype(tag)::value == kernel::avx512) {
          ribbon_bumped_query_many_avx512(words, self().layer_map(), p.result_bits, n, hash_at, out);
          return;
        }
#endif
        ribbon_bumped_query_many<kernel::scalar>(words, self().layer_map(), p.result_bits, n, hash_at, out);
        return;
      }
#if BLOOMKIT_X86_KERNELS
      if constexpr (decltype(tag)::value == kernel::avx512) {
        ribbon_query_many_avx512(words, p, n, hash_at, out);
        return;
      }
#endif
      ribbon_query_many<kernel::scalar>(words, p, n, hash_at, out);
    });
  }

  [[nodiscard]] hash_spec hash() const noexcept { return self().params().hash; }
  [[nodiscard]] std::uint32_t result_bits() const noexcept { return self().params().result_bits; }
  /// The FPR exponent: 2^-fpr_bits() is the design rate.
  [[nodiscard]] std::uint32_t fpr_bits() const noexcept { return self().params().result_bits; }
  [[nodiscard]] std::uint64_t slots() const noexcept { return self().params().slots; }
  /// standard or bumped (BuRR).
  [[nodiscard]] ribbon_layout layout() const noexcept { return self().params().layout; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept {
    return self().words().size() * sizeof(std::uint64_t);
  }

 private:
  [[nodiscard]] const D& self() const noexcept { return static_cast<const D&>(*this); }
};

/// What a Ribbon filter keeps beside its words (detail/filter_state.hpp's
/// Side): where a bumped filter's layers lie, always ribbon_map_of(params),
/// kept so that queries need not derive it.
struct ribbon_side {
  ribbon_layer_map map_{};
};

}  // namespace detail

/// A read-only Ribbon filter over borrowed solution words (for example a
/// memory-mapped file). Owns nothing: the words must outlive it. Queries are
/// detail::ribbon_reader's, shared with ribbon.
class ribbon_view : public detail::ribbon_reader<ribbon_view>,
                    public detail::array_view_state<ribbon_params, std::uint64_t, detail::ribbon_side> {
  using state = detail::array_view_state<ribbon_params, std::uint64_t, detail::ribbon_side>;

 public:
  /// Views `words` with `params`. Validates the parameters and that
  /// words.size() == params.word_count(); throws bloomkit::error
  /// (invalid_argument for bad parameters, corrupt for a wrong length).
  ribbon_view(const ribbon_params& params, std::span<const std::uint64_t> words)
      : state(detail::trusted, params, words, {}) {
    detail::validate(params);
    detail::require_ribbon_payload(params, words.size(), errc::corrupt);
    map_ = detail::ribbon_map_of(params);
  }
  using state::state;  // (trusted_t, params, words, ribbon_side): no validation

  using state::params;
  /// The raw payload: word_count() words; block b's result column j at b * r + j.
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements(); }
  /// Where the layers of a bumped filter lie in words() (derived from params()).
  [[nodiscard]] const detail::ribbon_layer_map& layer_map() const noexcept { return map_; }
};

/// An owning Ribbon filter (w = 128, r result bits; standard or bumped
/// layout). Immutable once built.
class ribbon : public detail::ribbon_reader<ribbon>,
               public detail::array_owner_state<ribbon_view, ribbon_params, std::uint64_t, detail::ribbon_side> {
  using state = detail::array_owner_state<ribbon_view, ribbon_params, std::uint64_t, detail::ribbon_side>;

 public:
  using view_type = ribbon_view;

  /// An empty filter (rejects every key).
  ribbon() = default;

  /// Builds a filter holding every hash in `hashes` (duplicates allowed).
  /// Throws errc::invalid_argument for bad options (result_bits outside
  /// [1, 16], max_attempts 0, size_factor that gives more than 2^40 slots) and
  /// errc::construction_failed when max_attempts seeds all fail to band.
  explicit ribbon(std::span<const std::uint64_t> hashes, const ribbon_options& options = {}) { build(hashes, options); }

  /// Builds from keys, hashed with options.hash. Same contract as above.
  template <key K>
  static ribbon from_keys(std::span<const K> keys, const ribbon_options& options = {}) {
    std::vector<std::uint64_t> hashes;
    hashes.reserve(keys.size());
    for (const auto& k : keys) hashes.push_back(hash_key(k, options.hash));
    return ribbon(hashes, options);
  }

  /// A filter from stored parts (loading). Validates like the view does.
  ribbon(const ribbon_params& params, std::vector<std::uint64_t> words) : state(params, std::move(words), {}) {
    detail::validate(params_);
    detail::require_ribbon_payload(params_, elements_.size(), errc::corrupt);
    map_ = detail::ribbon_map_of(params_);
  }

  /// Gives this filter the key type `type` if it has none (unspecified),
  /// does nothing if it already has `type` (or `type` is unspecified), and
  /// otherwise throws errc::mismatch naming both types, changing nothing.
  /// Keys hash by the filter's type from then on (hash.hpp, docs/KEYS.md);
  /// hash().keys reads it, and save() records it.
  void adopt_key_type(key_type type) {
    params_.hash.keys = detail::adopted_key_type(params_.hash.keys, type, "ribbon");
  }
  using state::params;
  [[nodiscard]] std::span<const std::uint64_t> words() const noexcept { return elements_; }
  /// Where the layers of a bumped filter lie in words() (derived from params()).
  [[nodiscard]] const detail::ribbon_layer_map& layer_map() const noexcept { return map_; }
  /// Construction attempts the last build needed (1 = first seed worked;
  /// bumped: the last layer's attempts).
  [[nodiscard]] std::uint32_t attempts() const noexcept { return attempts_; }

 private:
  void build(std::span<const std::uint64_t> hashes, const ribbon_options& options) {
    detail::require(options.result_bits >= 1 && options.result_bits <= 16, errc::invalid_argument,
                    "ribbon: result_bits must be in [1, 16], got " + std::to_string(options.result_bits));
    detail::require(options.max_attempts >= 1, errc::invalid_argument, "ribbon: max_attempts must be at least 1");
    detail::require(is_known(options.hash.algorithm), errc::invalid_argument, "ribbon: unknown hash algorithm");
    detail::require(options.size_factor == 0.0 || (options.size_factor > 0.0 && options.size_factor < 64.0),
                    errc::invalid_argument, "ribbon: size_factor must be 0 (automatic) or in (0, 64)");
    detail::require(static_cast<std::uint64_t>(hashes.size()) < (std::uint64_t{1} << 38), errc::invalid_argument,
                    "ribbon: at most 2^38 keys are supported");
    detail::require(options.layout == ribbon_layout::standard || options.layout == ribbon_layout::bumped,
                    errc::invalid_argument, "ribbon: layout must be standard or bumped");
    params_ = ribbon_params{};
    params_.result_bits = options.result_bits;
    params_.hash = options.hash;
    params_.seed = options.seed;
    if (options.layout == ribbon_layout::bumped) {
      build_bumped(hashes, options);
      return;
    }
    if (hashes.empty()) return;

    const std::uint64_t n = hashes.size();
    const double factor = options.size_factor > 0.0 ? options.size_factor : ribbon_size_factor(n);
    const auto slots_for = [&](std::uint32_t growth) {
      auto wanted = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * factor * std::pow(17.0 / 16.0, growth)));
      wanted = std::max<std::uint64_t>(wanted, detail::ribbon_width);
      return (wanted + 63) / 64 * 64;
    };
    const std::uint64_t planned = slots_for(0);

    std::vector<std::uint64_t> keys;
    std::uint64_t slots = planned;
    for (std::uint32_t attempt = 0; attempt < options.max_attempts; ++attempt) {
      const std::uint32_t growth = options.attempts_per_size == 0 ? 0 : attempt / options.attempts_per_size;
      slots = std::max(slots_for(growth), planned + std::uint64_t{64} * growth);
      const std::uint64_t seed = detail::attempt_seed(options.seed, attempt);
      attempts_ = attempt + 1;
      detail::remix_in_bucket_order(hashes, seed, keys);
      if (band_and_solve(keys, slots, options.result_bits)) {
        params_.slots = slots;
        params_.seed = seed;
        return;
      }
    }
    throw error(errc::construction_failed, "ribbon: construction failed after " +
                                               std::to_string(options.max_attempts) + " seeds for " +
                                               std::to_string(n) + " keys in " + std::to_string(slots) + " slots");
  }

  /// One attempt: bands every key (sorted by start) into `slots` rows, then
  /// back-substitutes into elements_. False if the system is inconsistent.
  bool band_and_solve(std::span<const std::uint64_t> keys, std::uint64_t slots, std::uint32_t r) {
    auto lo = detail::vector_or_fail<std::uint64_t>(slots, 0, "building a ribbon (band rows)");
    auto hi = detail::vector_or_fail<std::uint64_t>(slots, 0, "building a ribbon (band rows)");
    auto result = detail::vector_or_fail<std::uint16_t>(slots, 0, "building a ribbon (solution)");
    std::uint64_t redundant = 0;
    for (const std::uint64_t x : keys) {
      std::uint64_t placed = 0;
      switch (detail::ribbon_band_row(detail::ribbon_row_of(x, slots, r), lo.data(), hi.data(), result.data(), placed)) {
        case detail::ribbon_band_result::inconsistent: return false;  // this seed cannot hold the set
        case detail::ribbon_band_result::redundant: ++redundant; break;
        case detail::ribbon_band_result::placed: break;
      }
    }
    auto words = detail::vector_or_fail<std::uint64_t>((slots / 64 + 1) * r, 0, "building a ribbon (solution words)");
    detail::ribbon_back_substitute(lo.data(), hi.data(), result.data(), slots, r, words.data());
    elements_ = std::move(words);
    params_.keys = keys.size() - redundant;
    return true;
  }

  /// The bumped layout (BuRR §4): bumping layers while enough keys remain,
  /// then a standard Ribbon over the rest, whose retries and growth follow
  /// `options`. Payload order as ribbon_params::word_count says.
  void build_bumped(std::span<const std::uint64_t> hashes, const ribbon_options& options) {
    params_.layout = ribbon_layout::bumped;
    if (hashes.empty()) return;
    const std::uint32_t r = options.result_bits;
    std::vector<std::uint64_t> words, codes, next;
    std::vector<std::uint64_t> rest(hashes.begin(), hashes.end());
    std::uint64_t stored = 0;
    std::uint32_t layer = 0;
    for (; layer + 1 < ribbon_max_layers && rest.size() >= detail::ribbon_min_bump_keys; ++layer) {
      const std::uint64_t slots = detail::ribbon_bump_slots(rest.size());
      next.clear();
      stored += detail::ribbon_bump_layer(rest, detail::ribbon_layer_seed(options.seed, layer), slots, r, words,
                                          codes, next);
      params_.layer_slots[layer] = slots;
      params_.slots += slots;
      rest.swap(next);
    }
    if (rest.empty()) {
      // Nothing was bumped from the last bumping layer: it becomes the last
      // layer, and its codes (all 0) are dropped.
      codes.resize(codes.size() - (params_.layer_slots[layer - 1] / 64 - 1 + 31) / 32);
      params_.layers = layer;
      params_.last_seed = detail::ribbon_layer_seed(options.seed, layer - 1);
      attempts_ = 1;
    } else {
      ribbon_options last = options;
      last.layout = ribbon_layout::standard;
      last.seed = detail::ribbon_layer_seed(options.seed, layer);
      const ribbon tail(rest, last);
      attempts_ = tail.attempts();
      stored += tail.params().keys;
      params_.layer_slots[layer] = tail.params().slots;
      params_.slots += tail.params().slots;
      params_.last_seed = tail.params().seed;
      params_.layers = layer + 1;
      words.insert(words.end(), tail.words().begin(), tail.words().end());
    }
    words.insert(words.end(), codes.begin(), codes.end());
    params_.keys = stored;
    elements_ = std::move(words);
    map_ = detail::ribbon_map_of(params_);
  }

  std::uint32_t attempts_ = 0;
};

/// ribbon's facts (filter.hpp): static, FPR 2^-r for r = 1..16.
template <>
struct kind_traits<ribbon> {
  static constexpr filter_kind kind = filter_kind::ribbon;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "ribbon";
  static constexpr std::string_view summary =
      "static: Ribbon filter, FPR 2^-r for r = 1..16, ~1.05 r bits per key (--layout bumped: ~1.01 r)";
  static constexpr std::string_view python_class = "Ribbon";
  static constexpr hash_spec default_hash{};
  static constexpr bool is_static = true;
  static constexpr bool grows = false;
  static constexpr bool removes = false;
  static constexpr bool merges = false;
  static constexpr bool windows = false;
  /// The lowest FPR a result width reaches: 2^-16.
  static constexpr double min_fpr = 1.0 / 65536;
  /// The result width r for `target_fpr` (fpr_rule::ribbon_bits).
  static std::uint32_t fpr_bits(double target_fpr) noexcept { return fpr_rule::ribbon_bits(target_fpr); }
  /// A filter over `hashes` whose FPR is at or below target_fpr (>= min_fpr).
  static ribbon build(std::span<const std::uint64_t> hashes, double target_fpr, hash_spec hash) {
    ribbon_options options;
    options.hash = hash;
    options.result_bits = fpr_bits(target_fpr);
    return ribbon(hashes, options);
  }
};
template <>
struct kind_traits<ribbon_view> : kind_traits<ribbon> {};

static_assert(owning_filter<ribbon> && filter<ribbon_view>);

}  // namespace bloomkit
