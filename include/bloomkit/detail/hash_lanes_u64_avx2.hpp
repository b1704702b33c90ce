// bloomkit/detail/hash_lanes_u64_avx2.hpp - XXH64 and XXH3-64 of 8-byte
// keys, four at a time in the 64-bit lanes of a ymm register.
//
// AVX2 has no 64-bit multiply: a product by a constant is three 32x32->64
// vpmuludq, two shifts and two adds, so four keys in lanes alone are about
// as fast as the scalar loop (XXH64 of one key is five multiplies, XXH3's
// two plus rotates). But lanes and scalar chains use different units, so
// each step hashes four keys in lanes beside four scalar ones, which on an
// AVX2-only CPU takes about two thirds of the scalar loop's time
// (bench/micro BM_hash_u64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/simd.hpp"

#if BLOOMKIT_X86_KERNELS
namespace bloomkit::detail {

/// The 8-byte key i as a value: its bytes in the host's order (x86, the
/// lanes' only host: little-endian, the canonical value of the key).
template <class K>
inline std::uint64_t lane_key_word(const K* keys, std::size_t i) noexcept {
  static_assert(sizeof(K) == 8);
  std::uint64_t v;
  std::memcpy(&v, keys + i, sizeof v);
  return v;
}

/// 64-bit lane multiply for AVX2 (which has only 32x32->64): the low 64
/// bits of a * b from three vpmuludq; b_hi is b >> 32, hoisted by callers
/// whose b is a constant.
BLOOMKIT_TARGET_AVX2 inline __m256i mullo64_avx2(__m256i a, __m256i b, __m256i b_hi) noexcept {
  const __m256i low = _mm256_mul_epu32(a, b);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, b_hi));
  return _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32));
}

/// A 64-bit constant as mullo64_avx2 takes it: itself and its high half.
struct avx2_prime {
  __m256i lo, hi;
};

BLOOMKIT_TARGET_AVX2 inline avx2_prime avx2_prime_of(std::uint64_t p) noexcept {
  return avx2_prime{_mm256_set1_epi64x(static_cast<long long>(p)), _mm256_set1_epi64x(static_cast<long long>(p >> 32))};
}

BLOOMKIT_TARGET_AVX2 inline __m256i mul(__m256i a, const avx2_prime& p) noexcept { return mullo64_avx2(a, p.lo, p.hi); }

/// v rotated left by R per 64-bit lane.
template <int R>
BLOOMKIT_TARGET_AVX2 inline __m256i rotl64_avx2(__m256i v) noexcept {
  return _mm256_or_si256(_mm256_slli_epi64(v, R), _mm256_srli_epi64(v, 64 - R));
}

/// XXH64 of four 8-byte values (fixed_hash.hpp's xxh64_of_u64 per lane).
BLOOMKIT_TARGET_AVX2 inline __m256i xxh64_lanes_avx2(__m256i v, std::uint64_t seed) noexcept {
  const avx2_prime p1 = avx2_prime_of(xxh_prime64_1), p2 = avx2_prime_of(xxh_prime64_2);
  __m256i acc = _mm256_set1_epi64x(static_cast<long long>(seed + xxh_prime64_5 + 8));
  acc = _mm256_xor_si256(acc, mul(rotl64_avx2<31>(mul(v, p2)), p1));
  acc = _mm256_add_epi64(mul(rotl64_avx2<27>(acc), p1), _mm256_set1_epi64x(static_cast<long long>(xxh_prime64_4)));
  acc = mul(_mm256_xor_si256(acc, _mm256_srli_epi64(acc, 33)), p2);
  acc = mul(_mm256_xor_si256(acc, _mm256_srli_epi64(acc, 29)), avx2_prime_of(xxh_prime64_3));
  return _mm256_xor_si256(acc, _mm256_srli_epi64(acc, 32));
}

/// XXH3-64 of four 8-byte values (fixed_hash.hpp's xxh3_of_u64 per lane).
BLOOMKIT_TARGET_AVX2 inline __m256i xxh3_lanes_avx2(__m256i v, std::uint64_t seed) noexcept {
  const avx2_prime mx2 = avx2_prime_of(xxh3_prime_mx2);
  const __m256i flip = _mm256_set1_epi64x(static_cast<long long>(xxh3_secret_8_24 - xxh3_short_seed(seed)));
  __m256i h = _mm256_xor_si256(rotl64_avx2<32>(v), flip);
  h = _mm256_xor_si256(h, _mm256_xor_si256(rotl64_avx2<49>(h), rotl64_avx2<24>(h)));
  h = mul(h, mx2);
  h = _mm256_xor_si256(h, _mm256_add_epi64(_mm256_srli_epi64(h, 35), _mm256_set1_epi64x(8)));
  h = mul(h, mx2);
  return _mm256_xor_si256(h, _mm256_srli_epi64(h, 28));
}

/// out[i] = XXH64 (Xxh64) or XXH3-64 with `seed` of the 8-byte value
/// keys[i] for i < n: per step of eight keys, four in lanes and four
/// scalar; the last n % 8 keys scalar.
template <bool Xxh64, class K>
BLOOMKIT_TARGET_AVX2 void hash_keys_mixed_avx2(const K* keys, std::size_t n, std::uint64_t seed,
                                               std::uint64_t* out) noexcept {
  const auto one = [seed](std::uint64_t v) { return Xxh64 ? xxh64_of_u64(v, seed) : xxh3_of_u64(v, seed); };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), Xxh64 ? xxh64_lanes_avx2(v, seed) : xxh3_lanes_avx2(v, seed));
    for (std::size_t j = i + 4; j < i + 8; ++j) out[j] = one(lane_key_word(keys, j));
  }
  for (; i < n; ++i) out[i] = one(lane_key_word(keys, i));
}

}  // namespace bloomkit::detail
#endif
