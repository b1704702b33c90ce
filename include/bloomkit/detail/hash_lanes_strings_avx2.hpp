// bloomkit/detail/hash_lanes_strings_avx2.hpp - XXH64 of short strings,
// four lanes per step under AVX2, two steps side by side (hash_lanes_strings.hpp
// says which strings the lanes take). AVX2 keeps XXH3 of strings scalar.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/hash_lanes_strings.hpp"
#include "bloomkit/detail/hash_lanes_u64_avx2.hpp"
#include "bloomkit/detail/simd.hpp"

#if BLOOMKIT_X86_KERNELS
namespace bloomkit::detail {

/// Lanes where a >= b; lengths and offsets are below 2^63, so signed compares serve.
BLOOMKIT_TARGET_AVX2 inline __m256i ge_avx2(__m256i a, long long b) noexcept {
  return _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(b - 1));
}

/// The 64-bit field of strings at .. at + 3 of a tile.
BLOOMKIT_TARGET_AVX2 inline __m256i tile_lanes4(const std::uint64_t* field, std::size_t at) noexcept {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(field + at));
}

/// xxh64_short_strings for G groups of four lanes under AVX2: strings
/// at + 4g .. at + 4g + 3 of tile t into h[g]. live[g] is a lane mask (all
/// ones or zero per lane); the same reading rules apply (a 24-31-byte
/// string gathers its third word). G groups side by side for the same
/// reason as xxh64_short_strings: an emulated 64-bit multiply is three.
template <int G>
BLOOMKIT_TARGET_AVX2 inline void xxh64_short_strings_avx2(const std::byte* data, const string_tile& t, std::size_t at,
                                                          const __m256i* live, std::uint64_t seed, __m256i* h) noexcept {
  const avx2_prime p1 = avx2_prime_of(xxh_prime64_1), p2 = avx2_prime_of(xxh_prime64_2);
  const avx2_prime p3 = avx2_prime_of(xxh_prime64_3), p5 = avx2_prime_of(xxh_prime64_5);
  const __m256i p4 = _mm256_set1_epi64x(static_cast<long long>(xxh_prime64_4));
  const __m256i zero = _mm256_setzero_si256();
  __m256i len[G], acc[G], tail[G], bytes[G];
  for (int g = 0; g < G; ++g) {
    len[g] = tile_lanes4(t.len, at + 4 * g);
    acc[g] = _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(seed + xxh_prime64_5)), len[g]);
  }
  for (int r = 0; r < 3; ++r) {
    __m256i m[G];
    bool any = false;
    for (int g = 0; g < G; ++g) {
      m[g] = _mm256_and_si256(live[g], ge_avx2(len[g], 8 * (r + 1)));
      any = any || !_mm256_testz_si256(m[g], m[g]);
    }
    if (!any) break;
    for (int g = 0; g < G; ++g) {
      __m256i v;
      if (r == 0) {
        v = tile_lanes4(t.head, at + 4 * g);
      } else if (r == 1) {
        v = tile_lanes4(t.second, at + 4 * g);
      } else {
        const __m256i third = _mm256_add_epi64(tile_lanes4(t.begin, at + 4 * g), _mm256_set1_epi64x(16));
        v = _mm256_mask_i64gather_epi64(zero, reinterpret_cast<const long long*>(data), third, m[g], 1);
      }
      const __m256i x = _mm256_xor_si256(acc[g], mul(rotl64_avx2<31>(mul(v, p2)), p1));
      acc[g] = _mm256_blendv_epi8(acc[g], _mm256_add_epi64(mul(rotl64_avx2<27>(x), p1), p4), m[g]);
    }
  }
  // The 0-7 trailing bytes, as the low bytes of `tail` (the 8 bytes ending the string, shifted down).
  const __m256i four = _mm256_set1_epi64x(4);
  for (int g = 0; g < G; ++g) {
    const __m256i rem = _mm256_and_si256(len[g], _mm256_set1_epi64x(7));
    tail[g] = _mm256_srlv_epi64(tile_lanes4(t.tail, at + 4 * g), _mm256_slli_epi64(_mm256_sub_epi64(_mm256_set1_epi64x(8), rem), 3));
    const __m256i m4 = _mm256_and_si256(live[g], _mm256_cmpeq_epi64(_mm256_and_si256(rem, four), four));
    if (!_mm256_testz_si256(m4, m4)) {
      const __m256i word = _mm256_and_si256(tail[g], _mm256_set1_epi64x(0xffffffffLL));
      const __m256i x = _mm256_xor_si256(acc[g], mul(word, p1));
      acc[g] = _mm256_blendv_epi8(acc[g], _mm256_add_epi64(mul(rotl64_avx2<23>(x), p2), p3.lo), m4);
      tail[g] = _mm256_blendv_epi8(tail[g], _mm256_srli_epi64(tail[g], 32), m4);
    }
    bytes[g] = _mm256_and_si256(rem, _mm256_set1_epi64x(3));
  }
  for (int j = 0; j < 3; ++j) {
    __m256i m[G];
    bool any = false;
    for (int g = 0; g < G; ++g) {
      m[g] = _mm256_and_si256(live[g], _mm256_cmpgt_epi64(bytes[g], _mm256_set1_epi64x(j)));
      any = any || !_mm256_testz_si256(m[g], m[g]);
    }
    if (!any) break;
    for (int g = 0; g < G; ++g) {
      const __m256i byte = _mm256_and_si256(tail[g], _mm256_set1_epi64x(0xff));
      const __m256i x = _mm256_xor_si256(acc[g], mul(byte, p5));
      acc[g] = _mm256_blendv_epi8(acc[g], mul(rotl64_avx2<11>(x), p1), m[g]);
      tail[g] = _mm256_srli_epi64(tail[g], 8);
    }
  }
  for (int g = 0; g < G; ++g) {
    __m256i a = _mm256_xor_si256(acc[g], _mm256_srli_epi64(acc[g], 33));
    a = mul(a, p2);
    a = _mm256_xor_si256(a, _mm256_srli_epi64(a, 29));
    a = mul(a, p3);
    h[g] = _mm256_xor_si256(a, _mm256_srli_epi64(a, 32));
  }
}

/// XXH64 in four lanes per group under AVX2, two groups side by side
/// (hash_string_tiles runs it; the same rules as the AVX-512 lanes for
/// which strings go scalar).
struct xxh64_avx2_step : string_lanes<4, 2, true> {
  /// Strings i .. i + 4G - 1 of source s (at .. at + 4G - 1 of tile t)
  /// through the AVX2 lanes, the ones they leave out through the scalar
  /// XXH64.
  template <int G, class S>
  BLOOMKIT_TARGET_AVX2 static void run(const S& s, const string_tile& t, std::size_t at, std::size_t i,
                                       std::uint64_t seed, std::uint64_t* out) {
    const __m256i max_len = _mm256_set1_epi64x(static_cast<long long>(S::xxh64_lane_max));
    const __m256i seven = _mm256_set1_epi64x(7);
    __m256i live[G], h[G];
    for (int g = 0; g < G; ++g) {
      const __m256i len = tile_lanes4(t.len, at + 4 * g);
      const __m256i end = _mm256_add_epi64(tile_lanes4(t.begin, at + 4 * g), len);
      const __m256i short_enough = _mm256_cmpgt_epi64(_mm256_add_epi64(max_len, _mm256_set1_epi64x(1)), len);
      const __m256i tail_readable = _mm256_or_si256(_mm256_cmpgt_epi64(end, seven),
                                                    _mm256_cmpeq_epi64(_mm256_and_si256(len, seven), _mm256_setzero_si256()));
      live[g] = _mm256_and_si256(short_enough, tail_readable);
    }
    xxh64_short_strings_avx2<G>(s.gather_base(), t, at, live, seed, h);
    for (int g = 0; g < G; ++g) {
      _mm256_maskstore_epi64(reinterpret_cast<long long*>(out + i + 4 * g), live[g], h[g]);
      // Four lanes: the upper four of strings_left_out's eight count as hashed.
      const auto lanes_live = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(live[g])));
      if (lanes_live != 0xfU) strings_left_out<true>(s, i + 4 * g, lanes_live | 0xf0U, seed, out);
    }
  }
};

/// out[i] = XXH64 of string i of source s, i < n, through xxh64_avx2_step.
template <class S>
BLOOMKIT_TARGET_AVX2 void xxh64_strings_avx2(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  hash_string_tiles<xxh64_avx2_step>(s, n, seed, out);
}

}  // namespace bloomkit::detail
#endif
