// bloomkit/detail/hash_lanes_strings_avx512.hpp - XXH64 and XXH3-64 of
// short strings, eight lanes per step under AVX-512 (hash_lanes_strings.hpp
// says which strings the lanes take).
//
// XXH64 takes strings of up to S::xxh64_lane_max bytes. XXH3 takes 0-64
// bytes: its paths for 9-16 bytes and the first two steps of 17-128 are one
// to four 64x64->128-bit products of words read inside the string, which
// the lanes build from 32x32->64-bit products; 0-8 bytes are a few
// multiplies of at most 8 bytes. Longer strings take the scalar hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/hash_lanes_strings.hpp"
#include "bloomkit/detail/hash_lanes_u64_avx512.hpp"
#include "bloomkit/detail/simd.hpp"

#if BLOOMKIT_X86_KERNELS
namespace bloomkit::detail {

/// The 64-bit field of strings at .. at + 7 of a tile.
BLOOMKIT_TARGET_AVX512 inline __m512i tile_lanes(const std::uint64_t* field, std::size_t at) noexcept {
  return _mm512_load_si512(field + at);
}

/// XXH64 of G groups of eight strings of fewer than 32 bytes: lane j of
/// group g hashes string at + 8g + j of tile t into h[g]. Lanes outside
/// live[g] give garbage. A live lane with 1-7 trailing bytes takes them from
/// its tail word, so the string holds 8 bytes or ends at byte 8 or later
/// (xxh64_strings_avx512 sends the others to the scalar path); a string of
/// 24-31 bytes gathers its third 8-byte word. Why G groups: each step is a
/// 64-bit multiply on the lane's own chain (15 cycles' latency on Intel), so
/// one group alone waits on latency; G independent chains side by side fill
/// it.
template <int G>
BLOOMKIT_TARGET_AVX512 inline void xxh64_short_strings(const std::byte* data, const string_tile& t, std::size_t at,
                                                       const __mmask8* live, std::uint64_t seed, __m512i* h) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i p1 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_1));
  const __m512i p2 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_2));
  const __m512i p3 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_3));
  const __m512i p4 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_4));
  const __m512i p5 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_5));
  const __m512i zero = _mm512_setzero_si512();
  __m512i acc[G], len[G];
  // Step 1 (short input) and 3: acc = seed + PRIME64_5 + len.
  for (int g = 0; g < G; ++g) {
    len[g] = tile_lanes(t.len, at + 8 * g);
    acc[g] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(seed + xxh_prime64_5)), len[g]);
  }
  // Step 4: each whole 8-byte lane: acc ^= round(0, lane); acc = rotl(acc, 27) * P1 + P4.
  for (int r = 0; r < 3; ++r) {
    __mmask8 m[G];
    unsigned any = 0;
    for (int g = 0; g < G; ++g) {
      m[g] = live[g] & _mm512_cmpge_epu64_mask(len[g], _mm512_set1_epi64(8 * (r + 1)));
      any |= m[g];
    }
    if (any == 0) break;
    for (int g = 0; g < G; ++g) {
      __m512i v;
      if (r == 0) {
        v = tile_lanes(t.head, at + 8 * g);
      } else if (r == 1) {
        v = tile_lanes(t.second, at + 8 * g);
      } else {
        const __m512i third = _mm512_add_epi64(tile_lanes(t.begin, at + 8 * g), _mm512_set1_epi64(16));
        v = _mm512_mask_i64gather_epi64(zero, m[g], third, data, 1);
      }
      const __m512i k1 = _mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, _mm512_maskz_mullo_epi64(all, v, p2), 31), p1);
      const __m512i x = _mm512_xor_si512(acc[g], k1);
      acc[g] = _mm512_mask_mov_epi64(acc[g], m[g], _mm512_add_epi64(_mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, x, 27), p1), p4));
    }
  }
  // The 0-7 trailing bytes, as the low bytes of `tail` (the 8 bytes ending the string, shifted down).
  __m512i tail[G], rem[G];
  __mmask8 m4[G];
  unsigned any4 = 0;
  for (int g = 0; g < G; ++g) {
    rem[g] = _mm512_and_si512(len[g], _mm512_set1_epi64(7));
    tail[g] = _mm512_maskz_srlv_epi64(all, tile_lanes(t.tail, at + 8 * g),
                                      _mm512_maskz_slli_epi64(all, _mm512_sub_epi64(_mm512_set1_epi64(8), rem[g]), 3));
    m4[g] = live[g] & _mm512_test_epi64_mask(rem[g], _mm512_set1_epi64(4));
    any4 |= m4[g];
  }
  // A 4-byte lane: acc ^= lane * P1; acc = rotl(acc, 23) * P2 + P3.
  if (any4 != 0) {
    for (int g = 0; g < G; ++g) {
      const __m512i word = _mm512_and_si512(tail[g], _mm512_set1_epi64(0xffffffffLL));
      const __m512i x = _mm512_xor_si512(acc[g], _mm512_maskz_mullo_epi64(all, word, p1));
      acc[g] = _mm512_mask_mov_epi64(acc[g], m4[g], _mm512_add_epi64(_mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, x, 23), p2), p3));
      tail[g] = _mm512_mask_mov_epi64(tail[g], m4[g], _mm512_maskz_srli_epi64(all, tail[g], 32));
    }
  }
  // Step 5's single bytes: acc ^= byte * P5; acc = rotl(acc, 11) * P1.
  for (int j = 0; j < 3; ++j) {
    __mmask8 m[G];
    unsigned any = 0;
    for (int g = 0; g < G; ++g) {
      m[g] = live[g] & _mm512_cmpgt_epu64_mask(_mm512_and_si512(rem[g], _mm512_set1_epi64(3)), _mm512_set1_epi64(j));
      any |= m[g];
    }
    if (any == 0) break;
    for (int g = 0; g < G; ++g) {
      const __m512i byte = _mm512_and_si512(tail[g], _mm512_set1_epi64(0xff));
      const __m512i x = _mm512_xor_si512(acc[g], _mm512_maskz_mullo_epi64(all, byte, p5));
      acc[g] = _mm512_mask_mov_epi64(acc[g], m[g], _mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, x, 11), p1));
      tail[g] = _mm512_maskz_srli_epi64(all, tail[g], 8);
    }
  }
  // Step 6: the avalanche.
  for (int g = 0; g < G; ++g) h[g] = xxh64_avalanche_lanes(acc[g]);
}

/// Which strings at .. at + 7 of tile t may take the XXH64 lanes: at most
/// max_len (< 32) bytes, and 8 bytes or ending at byte 8 or later when they have
/// a 1-7-byte tail.
BLOOMKIT_TARGET_AVX512 inline __mmask8 xxh64_lane_mask(const string_tile& t, std::size_t at, std::size_t max_len) noexcept {
  const __m512i len = tile_lanes(t.len, at);
  const __m512i end = _mm512_add_epi64(tile_lanes(t.begin, at), len);
  const __mmask8 short_enough = _mm512_cmple_epu64_mask(len, _mm512_set1_epi64(static_cast<long long>(max_len)));
  const __mmask8 tail_readable = _mm512_cmpge_epu64_mask(end, _mm512_set1_epi64(8)) |
                                 _mm512_cmpeq_epi64_mask(_mm512_and_si512(len, _mm512_set1_epi64(7)), _mm512_setzero_si512());
  return short_enough & tail_readable;
}

/// XXH64 in eight lanes per group under AVX-512, four groups side by side
/// (hash_string_tiles runs it; the top of this file says which strings go
/// to the scalar XXH64 instead). Why four: a string of 17-31 bytes puts
/// about a dozen dependent vpmullq on its lane's chain (15 cycles each on
/// Intel), so the step is bound by latency until enough independent groups
/// share it; for 19-byte keys four groups beat two, six and eight (about
/// 3.6 ns a key against 11-13 for scalar XXH64).
struct xxh64_avx512_step : string_lanes<8, 4, true> {
  /// Strings i .. i + 8G - 1 of source s (at .. at + 8G - 1 of tile t)
  /// through the lanes (G groups of eight), the ones the lanes leave out
  /// through the scalar XXH64.
  template <int G, class S>
  BLOOMKIT_TARGET_AVX512 static void run(const S& s, const string_tile& t, std::size_t at, std::size_t i,
                                         std::uint64_t seed, std::uint64_t* out) {
    __m512i h[G];
    __mmask8 live[G];
    unsigned all_live = 0xff;
    for (int g = 0; g < G; ++g) {
      live[g] = xxh64_lane_mask(t, at + 8 * g, S::xxh64_lane_max);
      all_live &= live[g];
    }
    xxh64_short_strings<G>(s.gather_base(), t, at, live, seed, h);
    for (int g = 0; g < G; ++g) _mm512_mask_storeu_epi64(out + i + 8 * g, live[g], h[g]);
    if (all_live != 0xff) [[unlikely]] {
      for (int g = 0; g < G; ++g) strings_left_out<true>(s, i + 8 * g, live[g], seed, out);
    }
  }
};

/// out[i] = XXH64 of string i of source s, i < n, through
/// xxh64_avx512_step. A column whose strings end before byte 8 of the
/// buffer is hashed scalar (too short to stage).
template <class S>
BLOOMKIT_TARGET_AVX512 void xxh64_strings_avx512(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  hash_string_tiles<xxh64_avx512_step>(s, n, seed, out);
}

/// The 8 little-endian bytes of XXH3's default secret at byte `at`
/// (xxhash.h's own table; the seeded 0-240-byte paths use it).
inline std::uint64_t xxh3_secret_word(std::size_t at) noexcept {
  std::uint64_t word;
  std::memcpy(&word, XXH3_kSecret + at, sizeof word);
  return word;
}

/// XXH3's mul128_fold64 per 64-bit lane: the low and the high 64 bits of the
/// 128-bit product a * b, xored. AVX-512 multiplies at most 64x64->64, so
/// the product is built from the four 32x32->64 products of the halves
/// (the textbook long multiplication; the middle sum cannot overflow: it is
/// at most (2^32 - 1)^2 + 2 (2^32 - 1) = 2^64 - 1).
BLOOMKIT_TARGET_AVX512 inline __m512i mul128_fold64_lanes(__m512i a, __m512i b) noexcept {
  constexpr __mmask8 all = 0xff;  // the zero-masking forms: see xxh64_lanes
  const __m512i low32 = _mm512_set1_epi64(0xffffffffLL);
  const __m512i a_hi = _mm512_maskz_srli_epi64(all, a, 32), b_hi = _mm512_maskz_srli_epi64(all, b, 32);
  const __m512i ll = _mm512_maskz_mul_epu32(all, a, b), lh = _mm512_maskz_mul_epu32(all, a, b_hi);
  const __m512i hl = _mm512_maskz_mul_epu32(all, a_hi, b), hh = _mm512_maskz_mul_epu32(all, a_hi, b_hi);
  const __m512i middle = _mm512_add_epi64(_mm512_add_epi64(_mm512_maskz_srli_epi64(all, ll, 32), _mm512_and_si512(lh, low32)), hl);
  const __m512i high = _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_maskz_srli_epi64(all, lh, 32)), _mm512_maskz_srli_epi64(all, middle, 32));
  const __m512i low = _mm512_or_si512(_mm512_maskz_slli_epi64(all, middle, 32), _mm512_and_si512(ll, low32));
  return _mm512_xor_si512(low, high);
}

/// XXH3's avalanche (the end of its 9-128-byte paths), per lane.
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_avalanche_lanes(__m512i h) noexcept {
  constexpr __mmask8 all = 0xff;  // the zero-masking forms: see xxh64_lanes
  h = _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 37));
  h = _mm512_maskz_mullo_epi64(all, h, _mm512_set1_epi64(static_cast<long long>(0x165667919E3779F9ULL)));
  return _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 32));
}

/// The 8 bytes at data + at + plus in each lane of `m` (zero elsewhere, not read).
BLOOMKIT_TARGET_AVX512 inline __m512i gather_words(const std::byte* data, __mmask8 m, __m512i at, long long plus) noexcept {
  return _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, _mm512_add_epi64(at, _mm512_set1_epi64(plus)), data, 1);
}

/// Shortest string xxh3_mid_strings takes (XXH3's 9-16-byte path; it
/// takes up to 64 bytes: that path and the first two steps of 17-128).
inline constexpr std::size_t xxh3_mid_min = 9;

/// XXH3-64 with `seed` (default secret) of eight strings of 9-64 bytes:
/// lane j hashes string at + j of tile t (staged with before_tail); lanes
/// outside `live` give garbage. Every word lies inside its string: the
/// first and last 8 bytes; for 17-64 bytes the 8 after the first 8 and
/// before the last 8; for 33-64 bytes also bytes 16-31 and the 16 before
/// the last 16, gathered from data (xxhash's XXH3_len_9to16_64b and
/// XXH3_len_17to128_64b; doc/xxhash_spec.md).
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_mid_strings(const std::byte* data, const string_tile& t, std::size_t at,
                                                       __mmask8 live, std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;  // the zero-masking forms: see xxh64_lanes
  const __m512i len = tile_lanes(t.len, at);
  const __mmask8 longer = live & _mm512_cmpgt_epu64_mask(len, _mm512_set1_epi64(16));
  const __mmask8 shorter = live & ~longer;
  const __m512i first = tile_lanes(t.head, at);
  const __m512i last = tile_lanes(t.tail, at);
  __m512i h = _mm512_setzero_si512();
  if (longer != 0) {
    // acc = len * PRIME64_1 + mix16B(bytes 0-15, secret 0) + mix16B(last 16 bytes, secret 16).
    const __m512i second = tile_lanes(t.second, at);
    const __m512i before_last = tile_lanes(t.before_tail, at);
    __m512i acc = _mm512_maskz_mullo_epi64(all, len, broadcast64(xxh_prime64_1));
    acc = _mm512_add_epi64(acc, mul128_fold64_lanes(_mm512_xor_si512(first, broadcast64(xxh3_secret_word(0) + seed)),
                                                    _mm512_xor_si512(second, broadcast64(xxh3_secret_word(8) - seed))));
    acc = _mm512_add_epi64(acc, mul128_fold64_lanes(_mm512_xor_si512(before_last, broadcast64(xxh3_secret_word(16) + seed)),
                                                    _mm512_xor_si512(last, broadcast64(xxh3_secret_word(24) - seed))));
    const __mmask8 longest = longer & _mm512_cmpgt_epu64_mask(len, _mm512_set1_epi64(32));
    if (longest != 0) {
      // 33-64 bytes add mix16B(bytes 16-31, secret 32) + mix16B(the 16 bytes before the last 16, secret 48).
      const __m512i begin = tile_lanes(t.begin, at);
      const __m512i end = _mm512_add_epi64(begin, len);
      const __m512i more = _mm512_add_epi64(
          mul128_fold64_lanes(_mm512_xor_si512(gather_words(data, longest, begin, 16), broadcast64(xxh3_secret_word(32) + seed)),
                              _mm512_xor_si512(gather_words(data, longest, begin, 24), broadcast64(xxh3_secret_word(40) - seed))),
          mul128_fold64_lanes(_mm512_xor_si512(gather_words(data, longest, end, -32), broadcast64(xxh3_secret_word(48) + seed)),
                              _mm512_xor_si512(gather_words(data, longest, end, -24), broadcast64(xxh3_secret_word(56) - seed))));
      acc = _mm512_mask_add_epi64(acc, longest, acc, more);
    }
    h = xxh3_avalanche_lanes(acc);
  }
  if (shorter != 0) {
    // lo, hi = first / last 8 bytes ^ bitflips; acc = len + bswap64(lo) + hi + mul128_fold64(lo, hi).
    const __m512i lo = _mm512_xor_si512(first, broadcast64((xxh3_secret_word(24) ^ xxh3_secret_word(32)) + seed));
    const __m512i hi = _mm512_xor_si512(last, broadcast64((xxh3_secret_word(40) ^ xxh3_secret_word(48)) - seed));
    const __m512i byte_swap = _mm512_set4_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607);
    __m512i acc = _mm512_add_epi64(_mm512_add_epi64(len, _mm512_maskz_shuffle_epi8(~__mmask64{0}, lo, byte_swap)), hi);
    acc = _mm512_add_epi64(acc, mul128_fold64_lanes(lo, hi));
    h = _mm512_mask_mov_epi64(h, shorter, xxh3_avalanche_lanes(acc));
  }
  return h;
}

/// XXH3-64 with `seed` (default secret) of eight strings of 0-8 bytes:
/// lane j hashes the len bytes that end its `tail` word (the 8 bytes ending
/// the string, staged; so the string ends at byte 8 or later, or is empty:
/// the caller sends the others to the scalar path). 4-8 bytes use their
/// first and last 4 bytes, 1-3 bytes their first, middle and last byte out
/// of the 4 ending the string (xxhash's XXH3_len_1to3_64b, XXH3_len_4to8_64b
/// and the empty input; doc/xxhash_spec.md). Lanes outside `live` give
/// garbage.
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_short_strings(__m512i tail, __m512i len, __mmask8 live,
                                                         std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;  // the zero-masking forms: see xxh64_lanes
  const __mmask8 four_up = live & _mm512_cmpge_epu64_mask(len, _mm512_set1_epi64(4));
  const __mmask8 one_up = live & ~four_up & _mm512_test_epi64_mask(len, len);
  // The empty string: XXH64's avalanche of seed ^ secret words 56 and 64.
  __m512i h = xxh64_avalanche_lanes(broadcast64(seed ^ xxh3_secret_word(56) ^ xxh3_secret_word(64)));
  if (four_up != 0) {
    // keyed = (last 4 bytes + (first 4 bytes << 32)) ^ bitflip, then rrmxmx.
    const __m512i last = _mm512_maskz_srli_epi64(all, tail, 32);
    const __m512i first = _mm512_and_si512(
        _mm512_maskz_srlv_epi64(all, tail, _mm512_maskz_slli_epi64(all, _mm512_sub_epi64(_mm512_set1_epi64(8), len), 3)),
        _mm512_set1_epi64(0xffffffffLL));
    const __m512i keyed = _mm512_xor_si512(_mm512_add_epi64(last, _mm512_maskz_slli_epi64(all, first, 32)),
                                           broadcast64(xxh3_secret_8_24 - xxh3_short_seed(seed)));
    h = _mm512_mask_mov_epi64(h, four_up, xxh3_rrmxmx_lanes(keyed, len));
  }
  if (one_up != 0) {
    // Byte p of a 1-3-byte string is byte 4 - len + p of the 4 bytes ending it.
    const __m512i w = _mm512_maskz_srli_epi64(all, tail, 32);
    const __m512i skip = _mm512_sub_epi64(_mm512_set1_epi64(4), len);
    const __m512i byte_mask = _mm512_set1_epi64(0xff);
    const __m512i c1 = _mm512_and_si512(_mm512_maskz_srlv_epi64(all, w, _mm512_maskz_slli_epi64(all, skip, 3)), byte_mask);
    const __m512i mid = _mm512_add_epi64(skip, _mm512_maskz_srli_epi64(all, len, 1));
    const __m512i c2 = _mm512_and_si512(_mm512_maskz_srlv_epi64(all, w, _mm512_maskz_slli_epi64(all, mid, 3)), byte_mask);
    const __m512i c3 = _mm512_maskz_srli_epi64(all, w, 24);
    const __m512i combined = _mm512_or_si512(
        _mm512_or_si512(_mm512_maskz_slli_epi64(all, c1, 16), _mm512_maskz_slli_epi64(all, c2, 24)),
        _mm512_or_si512(c3, _mm512_maskz_slli_epi64(all, len, 8)));
    const std::uint64_t bitflip = ((xxh3_secret_word(0) & 0xffffffffU) ^ (xxh3_secret_word(4) & 0xffffffffU)) + seed;
    h = _mm512_mask_mov_epi64(h, one_up, xxh64_avalanche_lanes(_mm512_xor_si512(combined, broadcast64(bitflip))));
  }
  return h;
}

/// XXH3-64 in eight lanes, one group per step under AVX-512: strings of 9
/// to S::xxh3_lane_max bytes through xxh3_mid_strings, of 0-8 bytes through
/// xxh3_short_strings (a non-empty one ending before byte 8 of the buffer
/// excepted), the others through the scalar XXH3 (hash_string_tiles runs
/// it).
struct xxh3_avx512_step : string_lanes<8, 1, false> {
  /// Strings i .. i + 7 of source s (at .. at + 7 of tile t).
  template <int G, class S>
  BLOOMKIT_TARGET_AVX512 static void run(const S& s, const string_tile& t, std::size_t at, std::size_t i,
                                         std::uint64_t seed, std::uint64_t* out) {
    static_assert(G == 1, "one group per step");
    const __m512i len = tile_lanes(t.len, at);
    const __m512i end = _mm512_add_epi64(tile_lanes(t.begin, at), len);
    const __mmask8 mid = _mm512_cmpge_epu64_mask(len, _mm512_set1_epi64(xxh3_mid_min)) &
                         _mm512_cmple_epu64_mask(len, _mm512_set1_epi64(static_cast<long long>(S::xxh3_lane_max)));
    const __mmask8 short_readable = _mm512_cmplt_epu64_mask(len, _mm512_set1_epi64(xxh3_mid_min)) &
                                    (_mm512_cmpge_epu64_mask(end, _mm512_set1_epi64(8)) |
                                     _mm512_cmpeq_epi64_mask(len, _mm512_setzero_si512()));
    const unsigned live = mid | short_readable;
    __m512i h = mid != 0 ? xxh3_mid_strings(s.gather_base(), t, at, mid, seed) : _mm512_setzero_si512();
    if (short_readable != 0) h = _mm512_mask_mov_epi64(h, short_readable, xxh3_short_strings(tile_lanes(t.tail, at), len, short_readable, seed));
    _mm512_mask_storeu_epi64(out + i, static_cast<__mmask8>(live), h);
    if (live != 0xff) strings_left_out<false>(s, i, live, seed, out);
  }
};

/// out[i] = XXH3 of string i of source s, i < n, through xxh3_avx512_step.
/// A column whose strings end before byte 8 of the buffer is hashed scalar.
template <class S>
BLOOMKIT_TARGET_AVX512 void xxh3_strings_avx512(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  hash_string_tiles<xxh3_avx512_step>(s, n, seed, out);
}

}  // namespace bloomkit::detail
#endif
