// bloomkit/detail/bits.hpp - small bit tricks shared by the filters.
#pragma once

#include <bit>
#include <cstdint>

namespace bloomkit::detail {

__extension__ using uint128 = unsigned __int128;

/// Multiply-shift range reduction (Lemire 2019, "Fast random integer generation
/// in an interval"): maps a uniform 64-bit x onto [0, range) without a division.
/// Uses the high bits of x, so callers derive x from well-mixed hash bits.
constexpr std::uint64_t reduce64(std::uint64_t x, std::uint64_t range) noexcept {
  return static_cast<std::uint64_t>((static_cast<uint128>(x) * range) >> 64);
}

/// The same reduction on 32 bits, as Parquet's split-block filter fixes it:
/// ((h >> 32) * z) >> 32 picks a block among z < 2^32.
constexpr std::uint64_t reduce32(std::uint32_t x, std::uint64_t range) noexcept {
  return (static_cast<std::uint64_t>(x) * range) >> 32;
}

/// A bijective 64-bit finaliser (MurmurHash3's fmix64). Used to derive the
/// second hash of double hashing from the first, so its high bits do not
/// repeat the first hash's high bits.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Prefetches are written as volatile asm on x86 (elsewhere the builtin
// followed by an empty volatile asm), never as a bare __builtin_prefetch.
// Why: GCC models the builtin as touching no memory, so a function whose
// body is only prefetches (a loop over a key's probe lines, a batch window's
// slots) is found to have no side effects, and GCC 12 deletes every call to
// it: at -O2 standard_bloom's concurrent batched inserts and the batched
// lookups of the static and fingerprint kinds would compile with no
// prefetch at all. tests/codegen/prefetch.cmake checks that each batch path
// keeps them.

/// Hints the CPU to bring the line holding `address` into cache (for
/// reading). Never faults, whatever the address; a no-op where the compiler
/// has no prefetch builtin.
inline void prefetch(const void* address) noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(address)));
#elif defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(address, 0, 3);
  asm volatile("" : : "r"(address));
#else
  (void)address;
#endif
}

/// Prefetch for a line about to be written: PREFETCHW where the target has
/// it (the line arrives ready to be modified), otherwise as prefetch().
inline void prefetch_for_write(const void* address) noexcept {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__PRFCHW__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(__x86_64__) && !defined(__i386__)
  __builtin_prefetch(address, 1, 3);
  asm volatile("" : : "r"(address));
#else
  prefetch(address);
#endif
}

/// A SplitMix64 generator: deterministic keys for tests, demos and benchmarks
/// (Steele, Lea and Flood 2014). Not for cryptographic use.
class splitmix64 {
 public:
  constexpr explicit splitmix64(std::uint64_t seed) noexcept : state_(seed) {}
  constexpr std::uint64_t operator()() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

}  // namespace bloomkit::detail
