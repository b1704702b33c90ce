// bloomkit/detail/hash_lanes_strings.hpp - what the string lanes share:
// the layout of an Arrow string column, the tile they stage strings into,
// and the scalar hash of the strings they leave out.
//
// Many variable-length keys laid out as Arrow lays out a string or binary
// column: one data buffer and n + 1 offsets into it. One XXH64 of a short
// string is a dependent chain whose steps depend on the length (8-byte
// rounds, a 4-byte step, single bytes: doc/xxhash_spec.md, "XXH64
// algorithm", steps 1, 4 and 5), so the scalar loop mispredicts on mixed
// lengths and waits on each chain. The lane versions
// (hash_lanes_strings_avx512.hpp, hash_lanes_strings_avx2.hpp) run the
// chains of 8 (AVX-512) or 4 (AVX2) strings side by side, each lane with
// its own length: every step is done by all lanes and kept (a masked
// blend) only where that lane's length has the step. The lanes read a
// staged tile: plain loads put each string's first, second, last (and, for
// XXH3, second-to-last) 8-byte word into one array per word, so a group of
// strings' word is one aligned vector load; the 1-7 trailing bytes come
// from the 8 bytes that end the string (shifted down), which needs the
// string to end at byte 8 of the buffer or later; rarer words are
// gathered. A string shorter than 8 bytes at the very start of the buffer,
// and any string of 32 bytes or more (XXH64's four-accumulator stripes),
// goes to the scalar XXH64 instead. tests/string_hash_test.cpp checks every
// path against the library's XXH64 / XXH3, lane by lane.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bloomkit/detail/simd.hpp"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace bloomkit::detail {

/// Offsets of an Arrow string/binary (int32) or large_string/large_binary
/// (int64) column.
template <class O>
concept string_offset = std::is_same_v<O, std::int32_t> || std::is_same_v<O, std::int64_t>;

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
/// them: stage() fills a tile, hash<Xxh64>() is the scalar hash of one string.
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
  /// XXH64 (Xxh64) or XXH3-64 with `seed` of string j.
  template <bool Xxh64>
  [[nodiscard]] std::uint64_t hash(std::size_t j, std::uint64_t seed) const noexcept {
    const std::byte* begin = data + offsets[j];
    const auto len = static_cast<std::size_t>(offsets[j + 1] - offsets[j]);
    return Xxh64 ? XXH64(begin, len, seed) : XXH3_64bits_withSeed(begin, len, seed);
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

/// out[j] for the strings of group `base` of source s that `live` leaves
/// out: the scalar XXH64 (Xxh64) or XXH3-64. Kept out of line: the lane
/// loops call it for a few strings only, and inlined it costs them the
/// registers and code size of a whole scalar hash (bench/micro
/// BM_hash_column, BM_hash_key_strings).
template <bool Xxh64, class S>
[[gnu::noinline]] void strings_left_out(const S& s, std::size_t base, unsigned live, std::uint64_t seed, std::uint64_t* out) {
  for (unsigned rest = ~live & 0xffU; rest != 0; rest &= rest - 1) {
    const std::size_t j = base + static_cast<std::size_t>(__builtin_ctz(rest));
    out[j] = s.template hash<Xxh64>(j, seed);
  }
}
#endif

}  // namespace bloomkit::detail
