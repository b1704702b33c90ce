// bloomkit/hash_batch.hpp - hashing many 8-byte keys at once.
//
// XXH64 and XXH3-64 of one 8-byte key are a chain of 64-bit multiplies,
// rotates, shifts and XORs (fixed_hash.hpp) with no branch and no table, so
// eight keys map onto the eight 64-bit lanes of a zmm register: vpmullq
// (AVX-512 DQ) for the multiplies, vprolq for the rotates. The AVX-512
// kernel of detail/simd.hpp requires DQ, so the choice is the active kernel:
// avx512 runs the lane version, every other kernel the scalar loop (AVX2 has
// no 64-bit multiply; emulating it with three 32-bit ones loses to scalar
// imul). Both give the scalar hash bit for bit (tests/hash_test.cpp runs
// every kernel against the library's XXH64 / XXH3_64bits_withSeed).
//
// batch_key_hasher feeds the batched calls' prefetch pipeline
// (simd_batch.hpp): it is the pipeline's hash_at(i), which asks for keys in
// increasing order, and hashes the next `chunk` keys whenever i leaves the
// ones it holds. The pipeline itself is unchanged, so there is no bubble at
// chunk edges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/simd.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit::detail {

/// Keys whose hash the batch path computes: 8-byte fixed-width keys.
template <class K>
concept batch_hashable_key = fixed_width_key<K> && sizeof(K) == 8;

/// The loaded value of 8-byte key i (its canonical little-endian value).
template <batch_hashable_key K>
inline std::uint64_t key_value_at(const K* keys, std::size_t i) noexcept {
  return fixed_key_value(keys[i]);
}

/// out[i] = hash_key(keys[i], spec) for i < n, portable.
template <batch_hashable_key K>
inline void hash_keys_scalar(const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
  if (spec.algorithm == hash_algorithm::xxh64) {
    for (std::size_t i = 0; i < n; ++i) out[i] = xxh64_of_u64(key_value_at(keys, i), spec.seed);
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = xxh3_of_u64(key_value_at(keys, i), spec.seed);
  }
}

#if BLOOMKIT_X86_KERNELS
// The zero-masking forms with an all-ones mask compile to the plain
// instructions and avoid GCC 12's false -Wmaybe-uninitialized on the
// unmasked ones (GCC bug 105593), as in blocked_bloom.hpp.
/// XXH64 of eight 8-byte values (fixed_hash.hpp's xxh64_of_u64 per lane).
BLOOMKIT_TARGET_AVX512 inline __m512i xxh64_lanes(__m512i v, std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i p1 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_1));
  const __m512i p2 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_2));
  const __m512i p3 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_3));
  const __m512i p4 = _mm512_set1_epi64(static_cast<long long>(xxh_prime64_4));
  __m512i acc = _mm512_set1_epi64(static_cast<long long>(seed + xxh_prime64_5 + 8));
  const __m512i k1 = _mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, _mm512_maskz_mullo_epi64(all, v, p2), 31), p1);
  acc = _mm512_xor_si512(acc, k1);
  acc = _mm512_add_epi64(_mm512_maskz_mullo_epi64(all, _mm512_maskz_rol_epi64(all, acc, 27), p1), p4);
  acc = _mm512_xor_si512(acc, _mm512_maskz_srli_epi64(all, acc, 33));
  acc = _mm512_maskz_mullo_epi64(all, acc, p2);
  acc = _mm512_xor_si512(acc, _mm512_maskz_srli_epi64(all, acc, 29));
  acc = _mm512_maskz_mullo_epi64(all, acc, p3);
  return _mm512_xor_si512(acc, _mm512_maskz_srli_epi64(all, acc, 32));
}

/// XXH3-64 of eight 8-byte values (fixed_hash.hpp's xxh3_of_u64 per lane).
BLOOMKIT_TARGET_AVX512 inline __m512i xxh3_lanes(__m512i v, std::uint64_t seed) noexcept {
  constexpr __mmask8 all = 0xff;
  const __m512i mx2 = _mm512_set1_epi64(static_cast<long long>(xxh3_prime_mx2));
  const __m512i flip = _mm512_set1_epi64(static_cast<long long>(xxh3_secret_8_24 - xxh3_short_seed(seed)));
  __m512i h = _mm512_xor_si512(_mm512_maskz_rol_epi64(all, v, 32), flip);
  h = _mm512_xor_si512(h, _mm512_xor_si512(_mm512_maskz_rol_epi64(all, h, 49), _mm512_maskz_rol_epi64(all, h, 24)));
  h = _mm512_maskz_mullo_epi64(all, h, mx2);
  h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_maskz_srli_epi64(all, h, 35), _mm512_set1_epi64(8)));
  h = _mm512_maskz_mullo_epi64(all, h, mx2);
  return _mm512_xor_si512(h, _mm512_maskz_srli_epi64(all, h, 28));
}

/// out[i] = hash_key(keys[i], spec) for i < n with XXH64 (Xxh64) or XXH3,
/// eight keys per step; the last n % 8 keys with a masked load and store.
template <bool Xxh64, batch_hashable_key K>
BLOOMKIT_TARGET_AVX512 void hash_keys_lanes(const K* keys, std::size_t n, std::uint64_t seed,
                                            std::uint64_t* out) noexcept {
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

/// hash_keys_lanes for spec's algorithm.
template <batch_hashable_key K>
inline void hash_keys_avx512(const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
  if (spec.algorithm == hash_algorithm::xxh64) {
    hash_keys_lanes<true>(keys, n, spec.seed, out);
  } else {
    hash_keys_lanes<false>(keys, n, spec.seed, out);
  }
}
#endif

/// out[i] = hash_key(keys[i], spec) for i < n under kernel `k` (the lane
/// version for kernel::avx512, which this CPU must support). spec must be a
/// known algorithm (the filters validate theirs).
template <batch_hashable_key K>
inline void hash_keys(kernel k, const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
#if BLOOMKIT_X86_KERNELS
  if (k == kernel::avx512) return hash_keys_avx512(keys, n, spec, out);
#endif
  (void)k;
  hash_keys_scalar(keys, n, spec, out);
}

/// The pipeline's hash_at(i) over 8-byte keys: hashes `chunk` keys at a
/// time with the active kernel's hash_keys. Must be called with i = 0, 1,
/// 2, ... (prefetch_pipeline does).
template <batch_hashable_key K>
class batch_key_hasher {
 public:
  static constexpr std::size_t chunk = 256;

  batch_key_hasher(const K* keys, std::size_t n, hash_spec spec) noexcept
      : keys_(keys), n_(n), spec_(spec), kernel_(active_kernel()) {}

  std::uint64_t operator()(std::size_t i) noexcept {
    if (i - base_ >= filled_) [[unlikely]]
      refill(i);
    return hashes_[i - base_];
  }

 private:
  void refill(std::size_t i) noexcept {
    base_ = i;
    filled_ = n_ - i < chunk ? n_ - i : chunk;
    hash_keys(kernel_, keys_ + i, filled_, spec_, hashes_);
  }

  const K* keys_;
  std::size_t n_;
  hash_spec spec_;
  kernel kernel_;
  std::size_t base_ = 0, filled_ = 0;
  std::uint64_t hashes_[chunk] = {};  // zeroed so that a copy never reads indeterminate values
};

/// The hash_at a batched keyed call uses for keys of type K: the chunked
/// SIMD hasher for 8-byte keys, hash_key per key otherwise.
template <key K>
inline auto key_hash_at(const K* keys, std::size_t n, hash_spec spec) {
  if constexpr (batch_hashable_key<std::remove_cv_t<K>>) {
    return batch_key_hasher<std::remove_cv_t<K>>(keys, n, spec);
  } else {
    (void)n;
    return [keys, spec](std::size_t i) { return hash_key(keys[i], spec); };
  }
}

}  // namespace bloomkit::detail

namespace bloomkit {

/// The hash_at of a keyed batch call on a kind that declares
/// hash_at_in_order (detail/facade.hpp finds it by argument-dependent
/// lookup on hash_spec): chunked SIMD hashing for 8-byte keys, hash_key per
/// key otherwise. Same hashes as hash_key.
template <key K>
inline auto batch_hash_at(const K* keys, std::size_t n, hash_spec spec) {
  return detail::key_hash_at(keys, n, spec);
}

}  // namespace bloomkit
