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

/// The shape of a lane loop of one ISA and one algorithm, which its step
/// type derives from; hash_string_tiles reads it:
///   lanes        strings per group (a power of two: 8 for AVX-512, 4 for AVX2)
///   groups       groups hashed side by side in the wide step (>= 1)
///   xxh64        XXH64 (true) or XXH3-64 (false): the scalar hash of the rest
///   before_tail  whether the tile stages string_tile::before_tail (XXH3's
///                17-64-byte path reads it; XXH64's lanes do not)
/// The step type adds run<G>(s, t, at, i, seed, out): strings at .. at +
/// G lanes - 1 of tile t, which are strings i .. of source s, into out[i ..]
/// (the lanes' own, and the rest through strings_left_out).
template <std::size_t Lanes, int Groups, bool Xxh64>
struct string_lanes {
  static_assert(Lanes > 0 && (Lanes & (Lanes - 1)) == 0, "lanes come in powers of two");
  static_assert(Groups >= 1, "a step hashes at least one group");
  static constexpr std::size_t lanes = Lanes;
  static constexpr int groups = Groups;
  static constexpr bool xxh64 = Xxh64;
  static constexpr bool before_tail = !Xxh64;
};

/// out[i] = the hash (Step::xxh64: XXH64, else XXH3-64) with `seed` of
/// string i of source s, i < n: tiles of string_tile_size strings, each
/// staged, then Step::groups groups of Step::lanes strings per step while
/// that many remain in the tile, one group per step for the rest; the
/// strings after the last whole group, and every string of a source that
/// cannot be staged, through the scalar hash. The tiling of every string
/// lane loop, written once.
///
/// Always inlined, and called only from a function compiled for Step's
/// target (the per-ISA entry points): there Step::run inlines as a target
/// function into a caller of the same target. Why not a generic lambda for
/// the step: GCC compiles a lambda for the default target even inside a
/// target function, so the intrinsics in it would not compile.
template <class Step, class S>
[[gnu::always_inline]] inline void hash_string_tiles(const S& s, std::size_t n, std::uint64_t seed,
                                                     std::uint64_t* out) {
  constexpr std::size_t lanes = Step::lanes;
  constexpr std::size_t wide = lanes * static_cast<std::size_t>(Step::groups);
  std::size_t i = 0;
  if (s.stageable()) {
    string_tile t;
    while (n - i >= lanes) {
      const std::size_t count = std::min(string_tile_size, (n - i) & ~(lanes - 1));
      s.template stage<Step::before_tail>(i, count, t);
      std::size_t at = 0;
      if constexpr (Step::groups > 1) {
        for (; at + wide <= count; at += wide) Step::template run<Step::groups>(s, t, at, i + at, seed, out);
      }
      for (; at < count; at += lanes) Step::template run<1>(s, t, at, i + at, seed, out);
      i += count;
    }
  }
  for (; i < n; ++i) out[i] = s.template hash<Step::xxh64>(i, seed);
}
#endif

}  // namespace bloomkit::detail
