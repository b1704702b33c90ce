// bloomkit/cuda/split_block.cuh - the Parquet split-block filter's arithmetic
// for CUDA kernels: the 8-byte-key hashes and the block and bit choice.
//
// Headers under bloomkit/cuda/ need the CUDA toolkit (nvcc, or its headers for
// host code) and are named .cuh so that CPU-only builds and checks never see
// them. This one compiles under nvcc (host and device) and under any C++20
// compiler (host only), so that host tests can compare it with the CPU code.
//
// The layout is split_block_bloom's (split_block_bloom.hpp, Parquet's
// BloomFilter.md, docs/PARQUET.md): block i = ((h >> 32) * blocks) >> 32;
// x = low 32 bits of h; word w of the block gets bit (x * SALT[w]) >> 27;
// words are 32-bit little-endian, block after block. CUDA devices are
// little-endian, so 32-bit word w of block i is at word offset 8 i + w, and
// the 64-bit word j (j < 4) holds words 2j (low half) and 2j + 1 (high half).
//
// The hashes are the xxHash specification's for an input of exactly 8 bytes
// (the little-endian bytes of the key), as detail/fixed_hash.hpp writes them
// for the CPU; cuda/tests/split_block_gpu_test.cpp checks both against
// libxxhash on the host and the device's against the CPU's on the GPU.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define BLOOMKIT_CUDA_HD __host__ __device__
#define BLOOMKIT_CUDA_D __device__
#else
#define BLOOMKIT_CUDA_HD
#endif

namespace bloomkit::cuda {

/// 64-bit rotate left by r, 0 < r < 64.
BLOOMKIT_CUDA_HD constexpr std::uint64_t rotl64(std::uint64_t v, unsigned r) noexcept {
  return (v << r) | (v >> (64U - r));
}

/// XXH64(the 8 little-endian bytes of v, seed), per the xxHash spec for an
/// input shorter than 32 bytes: acc = seed + PRIME64_5 + 8; one 8-byte lane
/// folded as round(0, lane), rotl 27, * PRIME64_1, + PRIME64_4; avalanche.
BLOOMKIT_CUDA_HD constexpr std::uint64_t xxh64_of_u64(std::uint64_t v, std::uint64_t seed) noexcept {
  constexpr std::uint64_t p1 = 0x9E3779B185EBCA87ULL;
  constexpr std::uint64_t p2 = 0xC2B2AE3D27D4EB4FULL;
  constexpr std::uint64_t p3 = 0x165667B19E3779F9ULL;
  constexpr std::uint64_t p4 = 0x85EBCA77C2B2AE63ULL;
  constexpr std::uint64_t p5 = 0x27D4EB2F165667C5ULL;
  std::uint64_t acc = seed + p5 + 8;
  acc ^= rotl64(v * p2, 31) * p1;
  acc = rotl64(acc, 27) * p1 + p4;
  acc ^= acc >> 33;
  acc *= p2;
  acc ^= acc >> 29;
  acc *= p3;
  acc ^= acc >> 32;
  return acc;
}

/// XXH3_64bits_withSeed(the 8 little-endian bytes of v, seed), per the
/// xxHash spec for 4 <= len <= 8: the seed gets its byte-swapped low half
/// XORed into its high half; input64 = last 4 bytes + (first 4 bytes << 32)
/// is XORed with (secret[8..16) ^ secret[16..24)) - seed and finished with
/// rrmxmx(len = 8).
BLOOMKIT_CUDA_HD constexpr std::uint64_t xxh3_of_u64(std::uint64_t v, std::uint64_t seed) noexcept {
  constexpr std::uint64_t secret_8_24 = 0x1CAD21F72C81017CULL ^ 0xDB979083E96DD4DEULL;
  constexpr std::uint64_t mx2 = 0x9FB21C651E98DF25ULL;
  const auto low = static_cast<std::uint32_t>(seed);
  const std::uint32_t swapped = (low >> 24) | ((low >> 8) & 0xFF00U) | ((low << 8) & 0xFF0000U) | (low << 24);
  const std::uint64_t s = seed ^ (static_cast<std::uint64_t>(swapped) << 32);
  std::uint64_t h = ((v >> 32) + (v << 32)) ^ (secret_8_24 - s);
  h ^= rotl64(h, 49) ^ rotl64(h, 24);
  h *= mx2;
  h ^= (h >> 35) + 8;
  h *= mx2;
  return h ^ (h >> 28);
}

/// Which of the two hashes a kernel applies to 8-byte keys (the values of
/// bloomkit::hash_algorithm, hash.hpp).
enum class key_hash : std::uint8_t { xxh64 = 1, xxh3_64 = 2 };

/// The hash of an 8-byte key under `algorithm` and `seed`.
BLOOMKIT_CUDA_HD constexpr std::uint64_t hash_u64(key_hash algorithm, std::uint64_t v, std::uint64_t seed) noexcept {
  return algorithm == key_hash::xxh64 ? xxh64_of_u64(v, seed) : xxh3_of_u64(v, seed);
}

/// The block a hash selects among `blocks` (1 <= blocks <= 2^32): Parquet's
/// ((h >> 32) * blocks) >> 32. The product fits in 64 bits.
BLOOMKIT_CUDA_HD constexpr std::uint64_t block_of(std::uint64_t h, std::uint64_t blocks) noexcept {
  return ((h >> 32) * blocks) >> 32;
}

/// Parquet's eight salts (BloomFilter.md), 0 <= w < 8. A chain of selects,
/// not an array, so that a run-time w stays in registers on the device.
BLOOMKIT_CUDA_HD constexpr std::uint32_t salt(int w) noexcept {
  return w < 4 ? (w < 2 ? (w == 0 ? 0x47b6137bU : 0x44974d91U) : (w == 2 ? 0x8824ad5bU : 0xa2b7289dU))
               : (w < 6 ? (w == 4 ? 0x705495c7U : 0x2df1424bU) : (w == 6 ? 0x9efc4947U : 0x5c6bfb31U));
}

/// The one-bit mask of 32-bit word w (0 <= w < 8) for hash h.
BLOOMKIT_CUDA_HD constexpr std::uint32_t word_mask(std::uint64_t h, int w) noexcept {
  return std::uint32_t{1} << ((static_cast<std::uint32_t>(h) * salt(w)) >> 27);
}

/// The mask of 64-bit word j (0 <= j < 4): 32-bit words 2j (low) and 2j + 1.
BLOOMKIT_CUDA_HD constexpr std::uint64_t word64_mask(std::uint64_t h, int j) noexcept {
  return static_cast<std::uint64_t>(word_mask(h, 2 * j)) | (static_cast<std::uint64_t>(word_mask(h, 2 * j + 1)) << 32);
}

#if defined(__CUDACC__)

/// Adds hash h to the filter at `words` (4 * blocks 64-bit words, 8-byte
/// aligned) with four relaxed atomic ORs (one per 64-bit word of the block):
/// safe beside other add() and contains() calls on the same filter; the
/// bits that end up set do not depend on the order of the adds. (The bulk
/// kernels spread one key's four ORs over four lanes instead, so that a
/// warp's ORs on one block coalesce: cuda/src/split_block_kernels.cu.)
BLOOMKIT_CUDA_D inline void add(unsigned long long* words, std::uint64_t blocks, std::uint64_t h) noexcept {
  unsigned long long* block = words + block_of(h, blocks) * 4;
#pragma unroll
  for (int j = 0; j < 4; ++j) atomicOr(block + j, static_cast<unsigned long long>(word64_mask(h, j)));
}

/// True iff every bit of hash h is set in its block (a key that was added
/// always answers true). `words` must be 16-byte aligned; reads through the
/// read-only data path, so no add() may run on the filter during the launch.
BLOOMKIT_CUDA_D inline bool contains(const unsigned long long* words, std::uint64_t blocks, std::uint64_t h) noexcept {
  const auto* block = reinterpret_cast<const ulonglong2*>(words + block_of(h, blocks) * 4);
  const ulonglong2 a = __ldg(block);
  const ulonglong2 b = __ldg(block + 1);
  const std::uint64_t missing = (word64_mask(h, 0) & ~a.x) | (word64_mask(h, 1) & ~a.y) |
                                (word64_mask(h, 2) & ~b.x) | (word64_mask(h, 3) & ~b.y);
  return missing == 0;
}

#endif  // __CUDACC__

}  // namespace bloomkit::cuda
