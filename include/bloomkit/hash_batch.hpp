// bloomkit/hash_batch.hpp - hashing many keys at once: batch_hash_into for
// keys of any key type, hash_strings for an Arrow string or binary column.
// Both give hash_key / hash_bytes of each key bit for bit; they differ only
// in speed. The lanes that make them fast live in detail/: hash_lanes_u64_*
// for 8-byte keys (AVX-512: eight per step; AVX2: four in lanes beside four
// scalar), hash_lanes_strings* for strings (XXH64 in 8 or 4 lanes, XXH3 in 8
// under AVX-512). The namespace detail part below chooses among them, once
// per batch, by the active kernel and the hash algorithm; the key-type
// rules that decide whether a key may take the lanes at all stay here, next
// to hash_key.
//
// Keyed batch calls hash a tile of keys into a buffer with these functions,
// then run the kind's prehashed batch over the buffer (detail/facade.hpp,
// keyed_batches_in_tiles).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "bloomkit/detail/fixed_hash.hpp"
#include "bloomkit/detail/hash_lanes_strings.hpp"
#include "bloomkit/detail/hash_lanes_strings_avx2.hpp"
#include "bloomkit/detail/hash_lanes_strings_avx512.hpp"
#include "bloomkit/detail/hash_lanes_u64_avx2.hpp"
#include "bloomkit/detail/hash_lanes_u64_avx512.hpp"
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

/// out[i] = hash_key(keys[i], spec) for i < n under kernel `k` (the lane
/// versions for kernel::avx512 and kernel::avx2, which this CPU must
/// support; the portable loop under sse41 and scalar). spec must be a known
/// algorithm (the filters validate theirs).
template <batch_hashable_key K>
inline void hash_keys(kernel k, const K* keys, std::size_t n, hash_spec spec, std::uint64_t* out) noexcept {
  with_kernel(k, [&]([[maybe_unused]] auto tag) {
#if BLOOMKIT_X86_KERNELS
    constexpr kernel run = decltype(tag)::value;
    if constexpr (run == kernel::avx512 || run == kernel::avx2) {
      // The lanes take the algorithm as a compile-time flag.
      const auto lanes = [&](auto xxh64) {
        if constexpr (run == kernel::avx512) {
          hash_keys_lanes<decltype(xxh64)::value>(keys, n, spec.seed, out);
        } else {
          hash_keys_mixed_avx2<decltype(xxh64)::value>(keys, n, spec.seed, out);
        }
      };
      switch (spec.algorithm) {
        case hash_algorithm::xxh64: lanes(std::true_type{}); return;
        case hash_algorithm::xxh3_64: lanes(std::false_type{}); return;
      }
      unreachable();
    }
#endif
    hash_keys_scalar(keys, n, spec, out);
  });
}

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

#if BLOOMKIT_X86_KERNELS
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
  template <bool Xxh64>
  [[nodiscard]] std::uint64_t hash(std::size_t j, std::uint64_t seed) const {
    static_assert(Xxh64, "keys take the XXH64 lanes only");
    return hash_key(keys[j], hash_spec{hash_algorithm::xxh64, seed});
  }

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
  if (keeps_own_bytes<std::remove_cv_t<K>>(spec.keys)) {
    // One algorithm for the whole batch: the choice and the key-type test
    // stay outside the loop, which is then a plain call of the hash per key.
    const std::uint64_t seed = spec.seed;
    switch (spec.algorithm) {
      case hash_algorithm::xxh64:
        for (std::size_t i = 0; i < n; ++i)
          out[i] = with_key_bytes(keys[i], [seed](const void* data, std::size_t size) { return XXH64(data, size, seed); });
        return;
      case hash_algorithm::xxh3_64:
        for (std::size_t i = 0; i < n; ++i)
          out[i] = with_key_bytes(
              keys[i], [seed](const void* data, std::size_t size) { return XXH3_64bits_withSeed(data, size, seed); });
        return;
    }
  }
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
