// bloomkit/detail/hash_lanes_u64_avx512.hpp - XXH64 and XXH3-64 of eight
// 8-byte keys at once, in the 64-bit lanes of a zmm register.
//
// One key's hash is a chain of 64-bit multiplies, rotates, shifts and XORs
// (fixed_hash.hpp) with no branch and no table, so eight keys map onto the
// eight lanes: vpmullq (AVX-512 DQ, which the avx512 kernel of simd.hpp
// requires) for the multiplies, vprolq for the rotates. Bit for bit the
// scalar hash (tests/hash_paths_test.cpp). The string lanes
// (hash_lanes_strings_avx512.hpp) reuse the per-lane steps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/simd.hpp"

#if BLOOMKIT_X86_KERNELS
namespace bloomkit::detail {

// The zero-masking forms with an all-ones mask compile to the plain
// instructions and avoid GCC 12's false -Wmaybe-uninitialized on the
// unmasked ones (GCC bug 105593), as in blocked_bloom.hpp.
/// v in every 64-bit lane.
BLOOMKIT_TARGET_AVX512 inline __m512i broadcast64(std::uint64_t v) noexcept { return _mm512_set1_epi64(static_cast<long long>(v)); }

/// XXH64's avalanche (XXH3 ends its 0-3-byte paths with it), per lane.
BLOOMKIT_TARGET_AVX512 inline __m512i xxh64_avalanche_lanes(__m512i h) noexcept {
  constexpr __mmask8 all = 0xff;  // the zero-masking forms: see xxh64_lanes
  h = _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 33));
  h = _mm512_maskz_mullo_epi64(all, h, broadcast64(xxh_prime64_2));
  h = _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 29));
  h = _mm512_maskz_mullo_epi64(all, h, broadcast64(xxh_prime64_3));
  return _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 32));
}

/// XXH3's rrmxmx (the end of its 4-8-byte path, fixed_hash.hpp's xxh3_rrmxmx) per lane.
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_rrmxmx_lanes(__m512i h, __m512i len) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i mx2 = broadcast64(xxh3_prime_mx2);
  h = _mm512_xor_si512(h, _mm512_xor_si512(_mm512_maskz_rol_epi64(all, h, 49), _mm512_maskz_rol_epi64(all, h, 24)));
  h = _mm512_maskz_mullo_epi64(all, h, mx2);
  h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_maskz_srli_epi64(all, h, 35), len));
  h = _mm512_maskz_mullo_epi64(all, h, mx2);
  return _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 28));
}

/// XXH64 of eight 8-byte values (fixed_hash.hpp's xxh64_of_u64 per lane).
BLOOMKIT_TARGET_AVX512 inline __m512i xxh64_lanes(__m512i v, std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i p1 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_1));
  const __m512i p2 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_2));
  const __m512i p4 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_4));
  __m512i acc = _mm512_set1_epi64(static_cast<long long>(seed + xxh_prime64_5 + 8));
  const __m512i k1 = _mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, _mm512_maskz_mullo_epi64(all, v, p2), 31), p1);
  acc = _mm512_xor_si512(acc, k1);
  acc = _mm512_add_epi64(_mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, acc, 27), p1), p4);
  return xxh64_avalanche_lanes(acc);
}

/// XXH3-64 of eight 8-byte values (fixed_hash.hpp's xxh3_of_u64 per lane).
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_lanes(__m512i v, std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i flip = broadcast64(xxh3_secret_8_24 - xxh3_short_seed(seed));
  return xxh3_rrmxmx_lanes(_mm512_xor_si512(_mm512_maskz_rol_epi64(all, v, 32), flip), _mm512_set1_epi64(8));
}

/// out[i] = XXH64 (Xxh64) or XXH3-64 with `seed` of the 8-byte value
/// keys[i] for i < n, eight keys per step; the last n % 8 keys with a
/// masked load and store.
template <bool Xxh64, class K>
BLOOMKIT_TARGET_AVX512 void hash_keys_lanes(const K* keys, std::size_t n, std::uint64_t seed,
                                            std::uint64_t* out) noexcept {
  static_assert(sizeof(K) == 8);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i v = _mm512_loadu_si512(keys + i);
    _mm512_storeu_si512(out + i, Xxh64 ? xxh64_lanes(v, seed) : xxh3_lanes(v, seed));
  }
  if (i < n) {
    const auto m = static_cast<__mmask8>((1U << (n - i)) - 1U);
    const __m512i v = _mm512_maskz_loadu_epi64(m, keys + i);
    _mm512_mask_storeu_epi64(out + i, m, Xxh64 ? xxh64_lanes(v, seed) : xxh3_lanes(v, seed));
  }
}

}  // namespace bloomkit::detail
#endif
