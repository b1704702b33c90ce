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
#include <limits>
#include <cstdint>

#include "bloomkit/block_filter.hpp"
#include "bloomkit/filter.hpp"
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

/// Bit i (i < k) of key x in its 512-bit block: the layout's definition,
/// which every kernel reproduces.
constexpr std::uint32_t blocked_bit(std::uint32_t x, std::uint32_t i) noexcept {
  return (x * blocked_salts[i]) >> 23;
}

/// The k-bit mask of key x inside a 512-bit block, as eight 64-bit words
/// (for callers that apply it word by word, such as the atomic ORs).
inline void blocked_mask_scalar(std::uint32_t x, std::uint32_t k, std::uint64_t (&mask)[8]) noexcept {
  for (auto& w : mask) w = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint32_t bit = blocked_bit(x, i);
    mask[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
}

/// Block layout policy of blocked_bloom (see the header comment).
struct cache_line_policy : block_word_ops<block512> {
  using block_type = block512;
  static constexpr std::string_view name = "blocked_bloom";
  static constexpr std::uint32_t block_bits = 512;
  static constexpr std::uint32_t min_k = 1;
  static constexpr std::uint32_t max_k = 16;
  static constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;
  static constexpr hash_spec default_hash{hash_algorithm::xxh3_64, 0};
  /// set_avx512 switches on k to steps unrolled for it: batched inserts
  /// run a loop per k (block_filter.hpp, block_set_loop).
  static constexpr bool set_unrolled_by_k = true;

  // The portable kernels (every CPU without AVX2, every non-x86 target, and
  // BLOOMKIT_FORCE_SCALAR) touch the block's words bit by bit, never a mask
  // array on the stack: building the mask first, with an OR into a slot
  // chosen at run time per bit, made each insert a chain of stores and
  // reloads that the CPU could not disambiguate early (about twice the time
  // per key of the direct ORs).
  static void set(block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    const auto x = static_cast<std::uint32_t>(h);
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::uint32_t bit = blocked_bit(x, i);
      block.words[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    }
  }
  static bool test(const block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    const auto x = static_cast<std::uint32_t>(h);
    std::uint64_t all = 1;  // bit 0 stays set while every probed bit is set; no branch per bit
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::uint32_t bit = blocked_bit(x, i);
      all &= block.words[bit >> 6] >> (bit & 63);
    }
    return (all & 1) != 0;
  }
  /// The key's k-bit mask as a block, as set() ORs it in. For callers that
  /// apply the mask themselves (for example an atomic OR per word).
  static block_type mask(std::uint64_t h, std::uint32_t k) noexcept {
    block_type m;
    blocked_mask_scalar(static_cast<std::uint32_t>(h), k, m.words);
    return m;
  }

#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
  // SSE4.1 kernel (SSSE3's pshufb, SSE4.1's pmulld, packusdw and ptest), for
  // targets that guarantee x86-64-v2 (the release preset). It needs no
  // run-time check, but it is long (55 instructions per keyed lookup
  // inlined, callgrind; the dispatched AVX-512 kernel's whole call is
  // shorter). Inlined into single calls it is slower than the dispatched
  // call once the filter is out of cache (fewer lookups fit in the
  // out-of-order window; bench/micro BM_blocked_v2). So single calls keep the
  // dispatch (no sse41_inlines; block_filter.hpp, "single-key calls"), and
  // this kernel is what single and batched calls run under kernel::sse41
  // (CPUs with SSE4.1 and without AVX2) in place of the portable loop, which
  // it beats (same benchmark).
  //
  // Test: the k bit indices come from pmulld (four salts per register) and
  // a shift; each index is split into its byte (index >> 3, 0..63) and its
  // bit in that byte (index & 7), packed into byte lanes, one lane per salt.
  // The block is four 16-byte quarters (the same bytes as the eight
  // little-endian words: bit b is bit b % 8 of byte b / 8). pshufb fetches
  // lane i's byte from a quarter when the lane's selector is in [0, 16) and
  // yields 0 when the selector's bit 7 is set; selector = saturating
  // (byte ^ 16 q) + 0x70 maps the bytes of quarter q to 0x70..0x7F (low
  // nibble kept) and every other byte to >= 0x80, so the OR of the four
  // lookups is the wanted byte in every lane. The bit masks are a pshufb of
  // {1, 2, 4, ..., 128}. Lanes >= k are masked off; the key is present iff
  // no lane misses its bit (ptest). No branch on the block, the same
  // instructions for every k in each of the two forms (k <= 8: half the
  // multiplies; the branch on k is fixed per filter, so it predicts).
  static void indices_sse41(std::uint64_t h, std::uint32_t k, __m128i& byte, __m128i& bit) noexcept {
    const __m128i x = _mm_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    const auto* salts = reinterpret_cast<const __m128i*>(blocked_salts.data());
    const __m128i seven = _mm_set1_epi16(7);
    const __m128i pow2 = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    // 16-bit lanes 0..7: indices 0..7 (each < 512, so the saturating packs are exact).
    const __m128i lo = _mm_packus_epi32(_mm_srli_epi32(_mm_mullo_epi32(x, _mm_loadu_si128(salts)), 23),
                                        _mm_srli_epi32(_mm_mullo_epi32(x, _mm_loadu_si128(salts + 1)), 23));
    if (k <= 8) {  // bytes in lanes 0..7, bits in lanes 8..15, moved down to 0..7
      byte = _mm_packus_epi16(_mm_srli_epi16(lo, 3), _mm_and_si128(lo, seven));
      bit = _mm_srli_si128(_mm_shuffle_epi8(pow2, byte), 8);
    } else {
      const __m128i hi = _mm_packus_epi32(_mm_srli_epi32(_mm_mullo_epi32(x, _mm_loadu_si128(salts + 2)), 23),
                                          _mm_srli_epi32(_mm_mullo_epi32(x, _mm_loadu_si128(salts + 3)), 23));
      byte = _mm_packus_epi16(_mm_srli_epi16(lo, 3), _mm_srli_epi16(hi, 3));
      bit = _mm_shuffle_epi8(pow2, _mm_packus_epi16(_mm_and_si128(lo, seven), _mm_and_si128(hi, seven)));
    }
    // 0xff in lanes 0..k-1: a 16-byte window of sixteen 0xff then sixteen 0.
    alignas(32) static constexpr unsigned char first_lanes[32] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    bit = _mm_and_si128(bit, _mm_loadu_si128(reinterpret_cast<const __m128i*>(first_lanes + 16 - k)));
  }
  static bool test_sse41(const block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    __m128i byte, bit;
    indices_sse41(h, k, byte, bit);
    const __m128i bias = _mm_set1_epi8(0x70);
    const auto* q = reinterpret_cast<const __m128i*>(block.words);
    const __m128i s0 = _mm_adds_epu8(byte, bias);
    const __m128i s1 = _mm_adds_epu8(_mm_xor_si128(byte, _mm_set1_epi8(16)), bias);
    const __m128i s2 = _mm_adds_epu8(_mm_xor_si128(byte, _mm_set1_epi8(32)), bias);
    const __m128i s3 = _mm_adds_epu8(_mm_xor_si128(byte, _mm_set1_epi8(48)), bias);
    const __m128i fetched =
        _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(_mm_loadu_si128(q), s0), _mm_shuffle_epi8(_mm_loadu_si128(q + 1), s1)),
                     _mm_or_si128(_mm_shuffle_epi8(_mm_loadu_si128(q + 2), s2), _mm_shuffle_epi8(_mm_loadu_si128(q + 3), s3)));
    const __m128i missing = _mm_andnot_si128(fetched, bit);
    return _mm_testz_si128(missing, missing) != 0;
  }
  // Set: the portable set, the k bits ORed straight into the block's words:
  // SSE4.1 has no variable shift to build the mask in registers, and a mask
  // built on the stack and loaded back as xmm words would stall (those loads
  // cannot be forwarded from the word stores).
  static void set_sse41(block_type& block, std::uint64_t h, std::uint32_t k) noexcept { set(block, h, k); }
#endif

#if BLOOMKIT_X86_KERNELS
  // SIMD kernels. The block is seen as sixteen 32-bit lanes (the same bytes
  // as eight little-endian 64-bit words: bit b of the block is bit b % 32 of
  // lane b / 32). The k <= 16 bit indices of a key are one vpmulld per eight
  // salts and a shift: index_i = (x * salt_i) >> 23, lane i.
  //
  // Testing needs no mask: lane i fetches the block word holding bit index_i
  // with a permute (the block is the permute's table) and checks that one
  // bit, so a test is the same dozen instructions for every k, with no loop
  // and no branch on the block. AVX2 permutes within 8 lanes, so each half of
  // the indices picks from both halves of the block and blends on
  // index >= 256; for k <= 8 (1 % and above) the upper half is skipped, a
  // branch on k that predicts (k is fixed per filter).
  //
  // Setting under AVX2 is the portable set: k scalar ORs straight into the
  // block's words. AVX2 can build the 512-bit mask only with about seven
  // instructions per bit (twice the AVX-512 kernel's), which costs more than
  // the ORs at every filter size (bench/micro, an AVX2-only CPU: about 3x at
  // 1 MiB of blocks). With k fixed per batch (set_unrolled_by_k) the compiler
  // unrolls the ORs.
  BLOOMKIT_TARGET_AVX2 static void set_avx2(block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    set(block, h, k);
  }
  /// Bit i of the result: bit index[i] of the block (halves lo, hi) is clear.
  BLOOMKIT_TARGET_AVX2 static std::uint32_t missing_lanes_avx2(__m256i block_lo, __m256i block_hi,
                                                              __m256i index) noexcept {
    const __m256i word = _mm256_srli_epi32(index, 5);  // 0..15; the permute reads its low 3 bits
    const __m256i from_lo = _mm256_permutevar8x32_epi32(block_lo, word);
    const __m256i from_hi = _mm256_permutevar8x32_epi32(block_hi, word);
    const __m256i in_hi = _mm256_cmpgt_epi32(index, _mm256_set1_epi32(255));
    const __m256i fetched = _mm256_blendv_epi8(from_lo, from_hi, in_hi);
    const __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_and_si256(index, _mm256_set1_epi32(31)));
    const __m256i clear = _mm256_cmpeq_epi32(_mm256_and_si256(fetched, bit), _mm256_setzero_si256());
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(clear)));
  }
  BLOOMKIT_TARGET_AVX2 static bool test_avx2(const block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    const __m256i x = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    const auto* salts = reinterpret_cast<const __m256i*>(blocked_salts.data());
    const auto* p = reinterpret_cast<const __m256i*>(block.words);
    const __m256i block_lo = _mm256_loadu_si256(p), block_hi = _mm256_loadu_si256(p + 1);
    const std::uint32_t used = (std::uint32_t{1} << k) - 1;  // k <= 16
    const std::uint32_t lanes_lo =
        missing_lanes_avx2(block_lo, block_hi, _mm256_srli_epi32(_mm256_mullo_epi32(x, _mm256_loadu_si256(salts)), 23));
    if (k <= 8) return (lanes_lo & used) == 0;  // salts 8..15 unused
    const std::uint32_t lanes_hi =
        missing_lanes_avx2(block_lo, block_hi, _mm256_srli_epi32(_mm256_mullo_epi32(x, _mm256_loadu_si256(salts + 1)), 23));
    return ((lanes_lo | (lanes_hi << 8)) & used) == 0;
  }

  // AVX-512: the whole block is one zmm. The zero-masking forms (with an
  // all-ones mask, which compiles to the plain instruction) avoid GCC 12's
  // false -Wmaybe-uninitialized on the unmasked intrinsics (GCC bug 105593).
  template <std::uint32_t K>
  BLOOMKIT_TARGET_AVX512 static __m512i mask_avx512(__m512i index) noexcept {
    constexpr __mmask16 all = 0xffff;
    const __m512i lane = _mm512_setr_epi32(0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480);
    const __m512i one = _mm512_set1_epi32(1);
    __m512i mask = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (std::uint32_t i = 0; i < K; ++i) {  // lane j gets 1 << (index_i - 32 j) if that is in [0, 32)
      const __m512i bit = _mm512_maskz_permutexvar_epi32(all, _mm512_set1_epi32(static_cast<int>(i)), index);
      mask = _mm512_or_si512(mask, _mm512_maskz_sllv_epi32(all, one, _mm512_sub_epi32(bit, lane)));
    }
    return mask;
  }
  // Set: the key's 512-bit mask built in one zmm, then ONE read-modify-write
  // of the block. For each index i, lane j gets 1 << (index_i - 32 j):
  // vpsllvd yields 0 for any count outside [0, 31] (negative counts are huge
  // unsigned ones), so only the lane holding bit index_i receives it. Writing
  // the k bits with k scalar ORs instead is 15 % faster while the filter is
  // in L1 (bench/micro BM_blocked_set), but at 10^8 keys each of those
  // k stores waits for the block's cache miss in the store buffer, which then
  // fills and stalls the pipeline: bench/compare measured 77 ns per single
  // insert that way against 39 for split_block_bloom, whose set is one store.
  //
  // The per-bit steps are unrolled for each k (one switch on k per call,
  // which predicts: k is fixed per filter): the permute then takes a
  // constant lane instead of a counter carried from step to step. Batched
  // inserts at 10^6 keys (in L2) took 7.5 ns a key against 10.0 with the
  // loop (AVX-512, a scratch loop over insert_many's pipeline, best of 7).
  BLOOMKIT_TARGET_AVX512 static void set_avx512(block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    constexpr __mmask16 all = 0xffff;
    const __m512i x = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    const __m512i salts = _mm512_loadu_si512(blocked_salts.data());
    const __m512i index = _mm512_maskz_srli_epi32(all, _mm512_mullo_epi32(x, salts), 23);
    __m512i mask;
    switch (k) {
      case 1: mask = mask_avx512<1>(index); break;
      case 2: mask = mask_avx512<2>(index); break;
      case 3: mask = mask_avx512<3>(index); break;
      case 4: mask = mask_avx512<4>(index); break;
      case 5: mask = mask_avx512<5>(index); break;
      case 6: mask = mask_avx512<6>(index); break;
      case 7: mask = mask_avx512<7>(index); break;
      case 8: mask = mask_avx512<8>(index); break;
      case 9: mask = mask_avx512<9>(index); break;
      case 10: mask = mask_avx512<10>(index); break;
      case 11: mask = mask_avx512<11>(index); break;
      case 12: mask = mask_avx512<12>(index); break;
      case 13: mask = mask_avx512<13>(index); break;
      case 14: mask = mask_avx512<14>(index); break;
      case 15: mask = mask_avx512<15>(index); break;
      default: mask = mask_avx512<16>(index); break;  // k <= 16 (validate_params)
    }
    _mm512_storeu_si512(block.words, _mm512_or_si512(_mm512_loadu_si512(block.words), mask));
  }
  // Test as in test_avx2, but one vpermd spans the whole block.
  BLOOMKIT_TARGET_AVX512 static bool test_avx512(const block_type& block, std::uint64_t h, std::uint32_t k) noexcept {
    constexpr __mmask16 all = 0xffff;
    const __m512i x = _mm512_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(h)));
    const __m512i salts = _mm512_loadu_si512(blocked_salts.data());
    const __m512i index = _mm512_maskz_srli_epi32(all, _mm512_mullo_epi32(x, salts), 23);
    const __m512i word = _mm512_maskz_srli_epi32(all, index, 5);
    const __m512i bit =
        _mm512_maskz_sllv_epi32(all, _mm512_set1_epi32(1), _mm512_and_si512(index, _mm512_set1_epi32(31)));
    const __m512i fetched = _mm512_maskz_permutexvar_epi32(all, word, _mm512_loadu_si512(block.words));
    const auto used = static_cast<__mmask16>((std::uint32_t{1} << k) - 1);  // k <= 16
    return _mm512_mask_test_epi32_mask(used, fetched, bit) == used;
  }
#endif
  static double block_fpr(const block_type& block, std::uint32_t k) {
    return std::pow(popcount(block) / 512.0, static_cast<double>(k));
  }
  /// Swamidass-Baldi within the block; +infinity when all 512 bits are set
  /// (a full block may hold any number of keys, so the filter's sum is then
  /// unbounded too, as a full standard filter's estimate is).
  static double block_cardinality(const block_type& block, std::uint32_t k) {
    const double set = popcount(block) + 0.0;
    if (set >= 512.0) return std::numeric_limits<double>::infinity();
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

/// blocked_bloom's facts (filter.hpp).
template <>
struct kind_traits<blocked_bloom> {
  static constexpr filter_kind kind = filter_kind::blocked_bloom;
  static constexpr std::string_view name = to_string(kind);
  static constexpr std::string_view cli_name = "blocked";
  static constexpr std::string_view summary =
      "all k probes in one 64-byte cache line: one cache miss per lookup";
  static constexpr std::string_view python_class = "BlockedBloom";
  static constexpr hash_spec default_hash = detail::cache_line_policy::default_hash;
  static constexpr bool is_static = false;
  static constexpr bool grows = false;
  static constexpr bool removes = false;
  static constexpr bool merges = true;
  static constexpr bool windows = false;
};
template <>
struct kind_traits<blocked_bloom_view> : kind_traits<blocked_bloom> {};

static_assert(incremental_filter<blocked_bloom> && filter<blocked_bloom_view>);

}  // namespace bloomkit
