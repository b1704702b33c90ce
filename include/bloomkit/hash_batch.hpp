// bloomkit/hash_batch.hpp - hashing many 8-byte keys at once.
//
// XXH64 and XXH3-64 of one 8-byte key are a chain of 64-bit multiplies,
// rotates, shifts and XORs (fixed_hash.hpp) with no branch and no table, so
// eight keys map onto the eight 64-bit lanes of a zmm register: vpmullq
// (AVX-512 DQ) for the multiplies, vprolq for the rotates. The AVX-512
// kernel of detail/simd.hpp requires DQ, so the choice is the active kernel:
// avx512 runs the lane version; avx2 runs half of the keys in lanes, half
// scalar (AVX2 has no 64-bit multiply; see hash_keys_mixed_avx2); everything else
// the scalar loop. All give the scalar hash bit for bit
// (tests/hash_paths_test.cpp runs every kernel against the library's XXH64 /
// XXH3_64bits_withSeed).
//
// hash_strings hashes many variable-length keys laid out as Arrow lays out a
// string or binary column: one data buffer and n + 1 offsets into it. One
// XXH64 of a short string is a dependent chain whose steps depend on the
// length (8-byte rounds, a 4-byte step, single bytes: doc/xxhash_spec.md,
// "XXH64 algorithm", steps 1, 4 and 5), so the scalar loop mispredicts on
// mixed lengths and waits on each chain. The lane versions run the chains of
// 8 (AVX-512) or 4 (AVX2) strings side by side, each lane with its own
// length: every step is done by all lanes and kept (a masked blend) only
// where that lane's length has the step. The lanes read a staged tile:
// plain loads put each string's first, second, last (and, for XXH3,
// second-to-last) 8-byte word into one array per word, so a group of
// strings' word is one aligned vector load (gathers cost most of each step
// on AMD Zen 4); the 1-7 trailing bytes come from the 8 bytes that end the
// string (shifted down), which needs the string to end at byte 8 of the
// buffer or later; rarer words (XXH64's third round, XXH3's 33-64-byte
// steps) are gathered. A string shorter than 8 bytes at the very start of
// the buffer, and any string of 32 bytes or more (XXH64's four-accumulator
// stripes), goes to the scalar XXH64 instead. XXH3 (the other kinds'
// default) of strings of 0-64 bytes takes 8 lanes under AVX-512: its paths
// for 9-16 bytes and the first two steps of 17-128 are one to four
// 64x64->128-bit products of words read inside the string, which the lanes
// build from 32x32->64-bit products; 0-8 bytes are a few multiplies of at
// most 8 bytes. Longer strings, and XXH3 under AVX2, keep the scalar loop.
// tests/string_hash_test.cpp checks every path against the library's
// XXH64 / XXH3, lane by lane.
//
// Keyed batch calls hash a tile of keys into a buffer with these functions,
// then run the kind's prehashed batch over the buffer (detail/facade.hpp,
// keyed_batches_in_tiles).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/simd.hpp"
#include "bloomkit/detail/unreachable.hpp"
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
  switch (spec.algorithm) {
    case hash_algorithm::xxh64:
      for (std::size_t i = 0; i < n; ++i) out[i] = xxh64_of_u64(key_value_at(keys, i), spec.seed);
      return;
    case hash_algorithm::xxh3_64:
      for (std::size_t i = 0; i < n; ++i) out[i] = xxh3_of_u64(key_value_at(keys, i), spec.seed);
      return;
  }
  unreachable();
}

#if BLOOMKIT_X86_KERNELS
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
  switch (spec.algorithm) {
    case hash_algorithm::xxh64: hash_keys_lanes<true>(keys, n, spec.seed, out); return;
    case hash_algorithm::xxh3_64: hash_keys_lanes<false>(keys, n, spec.seed, out); return;
  }
  unreachable();
}

// AVX2 has no 64-bit multiply: a product by a constant is three 32x32->64
// vpmuludq, two shifts and two adds, so four keys in lanes alone are about
// as fast as the scalar loop (XXH64 of one key is five multiplies, XXH3's
// two plus rotates). But lanes and scalar chains use different units, so
// each step hashes four keys in lanes beside four scalar ones, which on an
// AVX2-only CPU takes about two thirds of the scalar loop's time
// (bench/micro BM_hash_u64).

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

/// out[i] = hash_key(keys[i]) with XXH64 (Xxh64) or XXH3 for i < n: per
/// step of eight keys, four in lanes and four scalar; the last n % 8 keys
/// scalar.
template <bool Xxh64, batch_hashable_key K>
BLOOMKIT_TARGET_AVX2 void hash_keys_mixed_avx2(const K* keys, std::size_t n, std::uint64_t seed,
                                               std::uint64_t* out) noexcept {
  const auto one = [seed](std::uint64_t v) { return Xxh64 ? xxh64_of_u64(v, seed) : xxh3_of_u64(v, seed); };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), Xxh64 ? xxh64_lanes_avx2(v, seed) : xxh3_lanes_avx2(v, seed));
    for (std::size_t j = i + 4; j < i + 8; ++j) out[j] = one(key_value_at(keys, j));
  }
  for (; i < n; ++i) out[i] = one(key_value_at(keys, i));
}

/// hash_keys_mixed_avx2 for spec's algorithm.
template <batch_hashable_key K>
inline void hash_keys_avx2(const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
  switch (spec.algorithm) {
    case hash_algorithm::xxh64: hash_keys_mixed_avx2<true>(keys, n, spec.seed, out); return;
    case hash_algorithm::xxh3_64: hash_keys_mixed_avx2<false>(keys, n, spec.seed, out); return;
  }
  unreachable();
}
#endif

/// out[i] = hash_key(keys[i], spec) for i < n under kernel `k` (the lane
/// versions for kernel::avx512 and kernel::avx2, which this CPU must
/// support; the portable loop under sse41 and scalar). spec must be a known
/// algorithm (the filters validate theirs).
template <batch_hashable_key K>
inline void hash_keys(kernel k, const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
  with_kernel(k, [&]([[maybe_unused]] auto tag) {
#if BLOOMKIT_X86_KERNELS
    if constexpr (decltype(tag)::value == kernel::avx512) {
      hash_keys_avx512(keys, n, spec, out);
      return;
    } else if constexpr (decltype(tag)::value == kernel::avx2) {
      hash_keys_avx2(keys, n, spec, out);
      return;
    }
#endif
    hash_keys_scalar(keys, n, spec, out);
  });
}

/// Offsets of an Arrow string/binary (int32) or large_string/large_binary
/// (int64) column.
template <class O>
concept string_offset = std::is_same_v<O, std::int32_t> || std::is_same_v<O, std::int64_t>;

/// out[i] = hash_bytes(data + offsets[i], offsets[i + 1] - offsets[i], spec)
/// for i < n, one library call per string. offsets[0..n] must be
/// non-decreasing and within the readable bytes at data; spec a known
/// algorithm.
template <string_offset O>
inline void hash_strings_scalar(const std::byte* data, const O* offsets, std::size_t n, hash_spec spec,
                                std::uint64_t* out) noexcept {
  switch (spec.algorithm) {
    case hash_algorithm::xxh64:
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = XXH64(data + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i]), spec.seed);
      }
      return;
    case hash_algorithm::xxh3_64:
      for (std::size_t i = 0; i < n; ++i) {
        out[i] = XXH3_64bits_withSeed(data + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i]),
                                      spec.seed);
      }
      return;
  }
  unreachable();
}

/// Strings of at most this many bytes take the lanes (XXH64's short-input
/// path; 32 and more use its four stripes: scalar).
inline constexpr std::size_t lane_string_max = 31;

#if BLOOMKIT_X86_KERNELS
/// Strings staged at a time for the string lanes.
inline constexpr std::size_t string_tile_size = 256;

/// Up to string_tile_size strings as the string lanes read them, one array
/// per field so that one aligned load gives eight (AVX2: four) consecutive strings'
/// field: where each begins in the data buffer and its length, the 8 bytes
/// at its start (`head`), the 8 after those (`second`), the 8 ending it
/// (`tail`) and the 8 before those (`before_tail`, staged for XXH3 only).
/// Why a tile of plain loads rather than a gather per word and group of
/// eight: on AMD Zen 4 the gathers took most of each lane step (perf puts
/// about 60 % of XXH64's samples on them); staging the same words with
/// scalar loads makes the lanes about 1.5x faster. Words a string needs
/// beyond these (XXH64's third 8-byte round, XXH3's 33-64-byte steps, XXH3's
/// 0-8-byte reads) are still gathered.
struct string_tile {
  alignas(64) std::uint64_t begin[string_tile_size];
  alignas(64) std::uint64_t len[string_tile_size];
  alignas(64) std::uint64_t head[string_tile_size];
  alignas(64) std::uint64_t second[string_tile_size];
  alignas(64) std::uint64_t tail[string_tile_size];
  alignas(64) std::uint64_t before_tail[string_tile_size];
};

/// The 8 bytes at p as a little-endian value (x86 only: the lanes' hosts).
inline std::uint64_t load_word(const std::byte* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// The strings of an Arrow column (data, offsets[0..n]) as the lanes read
/// them: stage() fills a tile, hash() is the scalar hash of one string.
template <string_offset O>
struct column_strings {
  const std::byte* data;
  const O* offsets;
  std::uint64_t limit;  ///< offsets[n]: the end of the last string, the readable bytes at data

  /// Longest strings the XXH64 / XXH3 lanes take (the rest: scalar).
  static constexpr std::size_t xxh64_lane_max = lane_string_max;
  static constexpr std::size_t xxh3_lane_max = 64;  // xxh3_mid_strings' longest

  /// Whether the lanes may run: staging reads 8-byte words inside data[0, limit).
  [[nodiscard]] bool stageable() const noexcept { return limit >= 8; }
  /// The base the lanes gather rarer words from (begin is an offset into it).
  [[nodiscard]] const std::byte* gather_base() const noexcept { return data; }
  [[nodiscard]] std::uint64_t hash(std::size_t j, hash_spec spec) const noexcept {
    std::uint64_t h;
    hash_strings_scalar(data, offsets + j, 1, spec, &h);
    return h;
  }

  /// Stages strings i .. i + count - 1 (count <= string_tile_size) into t.
  /// Every read lies in data[0, limit): a word that would start past
  /// limit - 8 is read at limit - 8 and one that would start before the
  /// buffer at byte 0. Only words no lane uses are moved so: the lanes use
  /// head when the string holds 8 bytes, second when it holds 16, tail when
  /// it holds 8 or ends at byte 8 or later, before_tail when it holds 17.
  /// Not vectorized: GCC turns this loop into emulated gathers (vpinsrq),
  /// slower than the scalar loads.
  template <bool BeforeTail>
#if defined(__GNUC__) && !defined(__clang__)
  __attribute__((optimize("no-tree-vectorize")))
#endif
  void stage(std::size_t i, std::size_t count, string_tile& t) const noexcept {
    const std::uint64_t last_word = limit - 8;
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (std::size_t j = 0; j < count; ++j) {
      const auto b = static_cast<std::uint64_t>(offsets[i + j]);
      const auto e = static_cast<std::uint64_t>(offsets[i + j + 1]);
      t.begin[j] = b;
      t.len[j] = e - b;
      t.head[j] = load_word(data + std::min(b, last_word));
      t.second[j] = load_word(data + std::min(b + 8, last_word));
      t.tail[j] = load_word(data + (e >= 8 ? e - 8 : 0));
      if constexpr (BeforeTail) t.before_tail[j] = load_word(data + (e >= 16 ? e - 16 : 0));
    }
  }
};

/// Keys that are not fixed-width (strings, byte containers, user types'
/// bytes) as the XXH64 lanes read them. Each key's bytes may be their own
/// allocation, so nothing outside them is read: every key stages as if it
/// began at byte 0 (so the lanes' "ends at byte 8 or later" reads "holds 8
/// bytes": a 1-7-byte key goes to the scalar hash), and the lanes take only
/// lengths whose words are all staged (no gather). XXH3 keys are not staged:
/// its scalar short paths have no length-dependent loop, and over 10^6
/// separate decimal strings of 17-19 bytes the lanes are slower than the
/// scalar hash, where XXH64's lanes are faster.
template <class K>
struct key_strings {
  const K* keys;

  static constexpr std::size_t xxh64_lane_max = 23;

  [[nodiscard]] static constexpr bool stageable() noexcept { return true; }
  [[nodiscard]] static constexpr const std::byte* gather_base() noexcept { return nullptr; }
  [[nodiscard]] std::uint64_t hash(std::size_t j, hash_spec spec) const { return hash_key(keys[j], spec); }

  /// Stages keys i .. i + count - 1: a word the key does not hold reads
  /// a zero word instead (a select, not a branch).
  template <bool BeforeTail>
  void stage(std::size_t i, std::size_t count, string_tile& t) const {
    static_assert(!BeforeTail, "keys take the XXH64 lanes only");
    static constexpr std::byte zeros[8] = {};
    for (std::size_t j = 0; j < count; ++j) {
      with_key_bytes(keys[i + j], [&](const void* bytes, std::size_t len) {
        const auto* p = static_cast<const std::byte*>(bytes);
        t.begin[j] = 0;
        t.len[j] = len;
        t.head[j] = load_word(len >= 8 ? p : zeros);
        t.second[j] = load_word(len >= 16 ? p + 8 : zeros);
        t.tail[j] = load_word(len >= 8 ? p + len - 8 : zeros);
        return 0;
      });
    }
  }
};

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

/// out[j] for the strings of group `base` of source s that `live` leaves
/// out: the scalar hash.
template <class S>
inline void strings_left_out(const S& s, std::size_t base, unsigned live, hash_spec spec, std::uint64_t* out) {
  for (unsigned rest = ~live & 0xffU; rest != 0; rest &= rest - 1) {
    const std::size_t j = base + static_cast<std::size_t>(__builtin_ctz(rest));
    out[j] = s.hash(j, spec);
  }
}

/// Strings i .. i + 8G - 1 of source s (at .. at + 8G - 1 of tile t)
/// through the lanes (G groups of eight), the ones the lanes leave out
/// through the scalar XXH64.
template <int G, class S>
BLOOMKIT_TARGET_AVX512 inline void xxh64_string_groups(const S& s, const string_tile& t, std::size_t at, std::size_t i,
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
    for (int g = 0; g < G; ++g) strings_left_out(s, i + 8 * g, live[g], hash_spec{hash_algorithm::xxh64, seed}, out);
  }
}

/// out[i] = XXH64 of string i of source s, i < n: tiles of
/// string_tile_size strings, each staged, then hashed 32 strings (four
/// groups of eight) per step (see the top of this file for which strings go
/// to the scalar XXH64 instead). Why four: a string of 17-31 bytes puts
/// about a dozen dependent vpmullq on its lane's chain (15 cycles each on
/// Intel), so the step is bound by latency until enough independent groups
/// share it; for 19-byte keys four groups beat two, six and eight (about
/// 3.6 ns a key against 11-13 for scalar XXH64). A column
/// whose strings end before byte 8 of the buffer is hashed scalar (too
/// short to stage).
template <class S>
BLOOMKIT_TARGET_AVX512 void xxh64_strings_avx512(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  std::size_t i = 0;
  if (s.stageable()) {
    string_tile t;
    while (n - i >= 8) {
      const std::size_t count = std::min(string_tile_size, (n - i) & ~std::size_t{7});
      s.template stage<false>(i, count, t);
      std::size_t at = 0;
      for (; at + 32 <= count; at += 32) xxh64_string_groups<4>(s, t, at, i + at, seed, out);
      for (; at < count; at += 8) xxh64_string_groups<1>(s, t, at, i + at, seed, out);
      i += count;
    }
  }
  for (; i < n; ++i) out[i] = s.hash(i, hash_spec{hash_algorithm::xxh64, seed});
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

/// out[i] = XXH3 of string i of source s, i < n: tiles of
/// string_tile_size strings, each staged, then eight strings per step:
/// those of 9 to S::xxh3_lane_max bytes through xxh3_mid_strings, of 0-8
/// bytes through xxh3_short_strings (a non-empty one ending before byte 8 of
/// the buffer excepted), the others through the scalar XXH3. A column
/// whose strings end before byte 8 of the buffer is hashed scalar.
template <class S>
BLOOMKIT_TARGET_AVX512 void xxh3_strings_avx512(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  const hash_spec spec{hash_algorithm::xxh3_64, seed};
  std::size_t i = 0;
  if (s.stageable()) {
    string_tile t;
    while (n - i >= 8) {
      const std::size_t count = std::min(string_tile_size, (n - i) & ~std::size_t{7});
      s.template stage<true>(i, count, t);
      for (std::size_t at = 0; at < count; at += 8) {
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
        _mm512_mask_storeu_epi64(out + i + at, static_cast<__mmask8>(live), h);
        if (live != 0xff) strings_left_out(s, i + at, live, spec, out);
      }
      i += count;
    }
  }
  for (; i < n; ++i) out[i] = s.hash(i, spec);
}

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

/// Strings i .. i + 4G - 1 of source s (at .. at + 4G - 1 of tile t)
/// through the AVX2 lanes, the ones they leave out through the scalar
/// XXH64.
template <int G, class S>
BLOOMKIT_TARGET_AVX2 inline void xxh64_string_groups_avx2(const S& s, const string_tile& t, std::size_t at, std::size_t i,
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
    const auto lanes = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(live[g])));
    if (lanes != 0xfU) strings_left_out(s, i + 4 * g, lanes | 0xf0U, hash_spec{hash_algorithm::xxh64, seed}, out);
  }
}

/// out[i] = XXH64 of string i of source s, i < n, four strings per lane
/// step under AVX2 (two steps side by side), from staged tiles as
/// xxh64_strings_avx512 (the same rules for which strings go scalar).
template <class S>
BLOOMKIT_TARGET_AVX2 void xxh64_strings_avx2(const S& s, std::size_t n, std::uint64_t seed, std::uint64_t* out) {
  std::size_t i = 0;
  if (s.stageable()) {
    string_tile t;
    while (n - i >= 4) {
      const std::size_t count = std::min(string_tile_size, (n - i) & ~std::size_t{3});
      s.template stage<false>(i, count, t);
      std::size_t at = 0;
      for (; at + 8 <= count; at += 8) xxh64_string_groups_avx2<2>(s, t, at, i + at, seed, out);
      for (; at < count; at += 4) xxh64_string_groups_avx2<1>(s, t, at, i + at, seed, out);
      i += count;
    }
  }
  for (; i < n; ++i) out[i] = s.hash(i, hash_spec{hash_algorithm::xxh64, seed});
}
#endif

/// hash_strings_scalar under kernel `k` (which this CPU must support): XXH64
/// in 8 lanes under avx512, 4 under avx2; XXH3 in 8 lanes under avx512; every
/// other case the scalar loop. The same hashes in every case. spec must be
/// a known algorithm.
template <string_offset O>
inline void hash_strings(kernel k, const std::byte* data, const O* offsets, std::size_t n, hash_spec spec,
                         std::uint64_t* out) noexcept {
  with_kernel(k, [&]([[maybe_unused]] auto tag) {
#if BLOOMKIT_X86_KERNELS
    constexpr kernel K = decltype(tag)::value;
    if constexpr (K == kernel::avx512 || K == kernel::avx2) {
      const column_strings<O> strings{data, offsets, static_cast<std::uint64_t>(offsets[n])};
      switch (spec.algorithm) {
        case hash_algorithm::xxh64:
          if constexpr (K == kernel::avx512) {
            xxh64_strings_avx512(strings, n, spec.seed, out);
          } else {
            xxh64_strings_avx2(strings, n, spec.seed, out);
          }
          return;
        case hash_algorithm::xxh3_64:
          if constexpr (K == kernel::avx512) {
            xxh3_strings_avx512(strings, n, spec.seed, out);
          } else {
            hash_strings_scalar(data, offsets, n, spec, out);
          }
          return;
      }
      unreachable();
    }
#endif
    hash_strings_scalar(data, offsets, n, spec, out);
  });
}

/// out[i] = hash_key(keys[i], spec) for i < n, keys that are not
/// fixed-width (strings, byte containers, user types' bytes): the AVX-512
/// string lanes for XXH64 of 0 and 8-23 bytes (key_strings), the scalar
/// hash of each key otherwise. Throws like hash_key for an unknown
/// algorithm.
template <class K>
inline void hash_key_strings(kernel k, const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) {
  // The lanes, where a kernel has them. The key-by-key loop stays outside
  // the dispatch, one copy, small enough for the compiler to inline the
  // hash into it (bench/micro BM_hash_key_strings).
  const bool hashed = with_kernel(k, [&]([[maybe_unused]] auto tag) {
#if BLOOMKIT_X86_KERNELS
    if constexpr (decltype(tag)::value == kernel::avx512) {
      switch (spec.algorithm) {
        case hash_algorithm::xxh64: xxh64_strings_avx512(key_strings<K>{keys}, n, spec.seed, out); return true;
        case hash_algorithm::xxh3_64: return false;  // no XXH3 lanes for separate keys
      }
    }
#endif
    return false;
  });
  if (hashed) return;
  for (std::size_t i = 0; i < n; ++i) out[i] = hash_key(keys[i], spec);
}

/// The active kernel as a value, for hash_key_strings: one call of it per
/// batch, so that its key-by-key loop (which inlines the hash of each key)
/// exists once, not once per kernel.
inline kernel active_kernel_value() noexcept {
  return with_active_kernel([](auto tag) { return decltype(tag)::value; });
}

}  // namespace bloomkit::detail

namespace bloomkit {

/// out[i] = hash_key(keys[i], spec) for i < n, hashed together (eight
/// 8-byte keys, or eight strings of 8-23 bytes under XXH64, per AVX-512
/// step; other keys one by one). The keyed batch
/// calls of the kinds that declare keyed_batches_in_tiles
/// (detail/facade.hpp) find it by argument-dependent lookup on hash_spec.
/// Same hashes as hash_key.
///
/// With a key type (spec.keys), the keys convert as hash_key converts them:
/// K's class is checked once for the batch; keys whose bytes are already the
/// type's (8-byte integers into int64, strings into bytes) take the same
/// path as untyped keys; narrower integers and floats are widened a chunk at
/// a time into 8-byte values for the same lanes; the rest convert key by
/// key. Throws errc::mismatch (naming both types) at the first key that does
/// not convert, having written only hashes of the keys before it.
template <key K>
inline void batch_hash_into(const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) {
  using V = std::remove_cv_t<K>;
  const detail::key_conversion conversion = detail::conversion_of<V>(spec.keys);
  if (conversion != detail::key_conversion::same_bytes) [[unlikely]] {
    if (conversion == detail::key_conversion::refused) detail::refuse_key<V>(spec.keys);
    if constexpr (std::is_arithmetic_v<V>) {
      if (conversion == detail::key_conversion::widen && key_width(spec.keys) == 8) {
        // Every value converts: widen a chunk into 8-byte values, hash them in lanes.
        constexpr std::size_t chunk = 256;
        std::uint64_t wide[chunk];
        for (std::size_t at = 0; at < n; at += chunk) {
          const std::size_t m = std::min(chunk, n - at);
          for (std::size_t i = 0; i < m; ++i) wide[i] = *detail::convert_number(keys[at + i], spec.keys);
          with_active_kernel([&](auto tag) {
            detail::hash_keys(decltype(tag)::value, static_cast<const std::uint64_t*>(wide), m, spec, out + at);
          });
        }
        return;
      }
    }
    for (std::size_t i = 0; i < n; ++i) out[i] = hash_key(keys[i], spec);
    return;
  }
  if constexpr (detail::batch_hashable_key<V>) {
    with_active_kernel([&](auto tag) { detail::hash_keys(decltype(tag)::value, keys, n, spec, out); });
  } else if constexpr (std::is_arithmetic_v<V>) {
    for (std::size_t i = 0; i < n; ++i) out[i] = hash_key(keys[i], spec);
  } else {
    detail::hash_key_strings(detail::active_kernel_value(), keys, n, spec, out);
  }
}

/// out[i] = hash_bytes(data + offsets[i], offsets[i + 1] - offsets[i], spec)
/// for every i < out.size(): the keys of an Arrow string/binary column (one
/// data buffer, offsets.size() = out.size() + 1 offsets into it), hashed
/// with the active kernel (AVX-512 lanes for XXH64 and XXH3, AVX2 for XXH64).
/// Preconditions: offsets non-decreasing, offsets.back() <= the readable
/// bytes at data, spec's algorithm known (the Python binding checks all
/// three first). Same hashes as hash_bytes per key.
template <detail::string_offset O>
inline void hash_strings(const std::byte* data, std::span<const O> offsets, hash_spec spec,
                         std::span<std::uint64_t> out) noexcept {
  if (out.empty()) return;
  with_active_kernel(
      [&](auto tag) { detail::hash_strings(decltype(tag)::value, data, offsets.data(), out.size(), spec, out.data()); });
}

}  // namespace bloomkit
