// The bulk kernels of bloomkit/cuda/launch.cuh.
//
//   add: each thread loads kPerThread keys spaced blockDim.x apart (every
//   load coalesced across the warp) and hashes them. A key is four 64-bit atomic ORs (fire-and-forget reductions, the
//   result unused), spread over four lanes: in round r lanes 4q..4q+3 OR
//   the four words of the warp's key 8r + q, so one warp instruction covers
//   eight whole 32-byte blocks and the memory system merges each block's
//   four ORs into one request (cuco::bloom_filter spreads its eight 32-bit
//   ORs over eight lanes for the same reason). Hashes move between lanes by
//   shuffles; lanes whose key is past n do nothing.
//   contains: one key per thread, two 16-byte read-only loads of its block.
//   On an H200 this beat 2, 4 and 8 keys per thread and plain loads at every
//   size from 10^6 to 10^9 keys (gpu_bench --variants 1;
//   cuda/bench/results/h200_run3_variants.txt), and reached the bound of a
//   kernel that only reads the same blocks (bw read bound).
#include "bloomkit/cuda/launch.cuh"

namespace bloomkit::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kPerThread = 4;
constexpr std::uint64_t kPerBlock = std::uint64_t{kThreads} * kPerThread;  // keys per add block

// The hashes against libxxhash 0.8.1's answers for the 8 bytes 0x00..0x07
// (little-endian value 0x0706050403020100), seeds 0 and 0x9E3779B97F4A7C15;
// cuda/tests checks many more keys against the CPU, on the host and the GPU.
constexpr std::uint64_t kBytes0to7 = 0x0706050403020100ULL;
constexpr std::uint64_t kSeed = 0x9E3779B97F4A7C15ULL;
static_assert(xxh64_of_u64(kBytes0to7, 0) == 0x884a173614b81b8dULL);
static_assert(xxh3_of_u64(kBytes0to7, 0) == 0x3a1c2d7c85af88f8ULL);
static_assert(xxh64_of_u64(kBytes0to7, kSeed) == 0xd18b6d7a5a668732ULL);
static_assert(xxh3_of_u64(kBytes0to7, kSeed) == 0xb82d9ef5fd6b3172ULL);
// The last block of the largest filter (2^32 blocks) is reachable and the
// product does not overflow.
static_assert(block_of(~std::uint64_t{0}, std::uint64_t{1} << 32) == (std::uint64_t{1} << 32) - 1);
static_assert(kThreads % 32 == 0, "add_kernel's shuffles need whole warps");
static_assert(salt(0) == 0x47b6137bU && salt(3) == 0xa2b7289dU && salt(4) == 0x705495c7U && salt(7) == 0x5c6bfb31U);

enum class input { keys, hashes };

template <input In>
__device__ __forceinline__ std::uint64_t hash_of(std::uint64_t v, key_hash algorithm, std::uint64_t seed) {
  if constexpr (In == input::hashes) {
    return v;
  } else {
    return hash_u64(algorithm, v, seed);
  }
}

template <input In>
__global__ void __launch_bounds__(kThreads) add_kernel(unsigned long long* words, std::uint64_t blocks,
                                                       const std::uint64_t* in, std::uint64_t n,
                                                       key_hash algorithm, std::uint64_t seed) {
  const std::uint64_t base = blockIdx.x * kPerBlock + threadIdx.x;
  std::uint64_t h[kPerThread];
#pragma unroll
  for (unsigned i = 0; i < kPerThread; ++i) {
    const std::uint64_t at = base + i * kThreads;
    h[i] = at < n ? hash_of<In>(__ldg(in + at), algorithm, seed) : 0;
  }
  // This lane ORs 64-bit word `word` (32-bit words 2 word and 2 word + 1).
  const unsigned lane = threadIdx.x & 31U;
  const int word = static_cast<int>(lane & 3U);
  const std::uint32_t salt_lo = salt(2 * word);
  const std::uint32_t salt_hi = salt(2 * word + 1);
  const std::uint64_t warp_base = base - lane;  // the key index of lane 0 in set 0
  // Every lane reaches every shuffle: the block has whole warps (kThreads
  // is a multiple of 32) and no lane leaves early.
#pragma unroll
  for (unsigned i = 0; i < kPerThread; ++i) {
#pragma unroll
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned source = 8 * r + (lane >> 2);
      const std::uint64_t hk = __shfl_sync(0xFFFFFFFFU, h[i], source);
      if (warp_base + i * kThreads + source < n) {
        const auto x = static_cast<std::uint32_t>(hk);
        const std::uint64_t mask = static_cast<std::uint64_t>(std::uint32_t{1} << ((x * salt_lo) >> 27)) |
                                   (static_cast<std::uint64_t>(std::uint32_t{1} << ((x * salt_hi) >> 27)) << 32);
        atomicOr(words + block_of(hk, blocks) * 4 + word, static_cast<unsigned long long>(mask));
      }
    }
  }
}

template <input In>
__global__ void __launch_bounds__(kThreads) contains_kernel(const unsigned long long* words, std::uint64_t blocks,
                                                            const std::uint64_t* in, std::uint64_t n,
                                                            key_hash algorithm, std::uint64_t seed, bool* out) {
  const std::uint64_t at = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (at < n) out[at] = contains(words, blocks, hash_of<In>(__ldg(in + at), algorithm, seed));
}

__global__ void __launch_bounds__(kThreads) hash_kernel(const std::uint64_t* keys, std::uint64_t n,
                                                        key_hash algorithm, std::uint64_t seed, std::uint64_t* out) {
  const std::uint64_t at = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (at < n) out[at] = hash_u64(algorithm, keys[at], seed);
}

// Grid size for n inputs at `per_block` each; n >= 1. The grid's x limit is
// 2^31 - 1 blocks, so one launch takes up to about 2^39 keys (contains, 256
// per block) or 2^41 (add, 1024 per block); past that, launches refuse with
// cudaErrorInvalidValue.
std::uint64_t grid_for(std::uint64_t n, std::uint64_t per_block) { return (n + per_block - 1) / per_block; }

cudaError_t check_args(std::uint64_t blocks, std::uint64_t n, std::uint64_t per_block) {
  if (blocks == 0 || blocks > (std::uint64_t{1} << 32)) return cudaErrorInvalidValue;
  if (grid_for(n, per_block) > 0x7FFFFFFFULL) return cudaErrorInvalidValue;
  return cudaSuccess;
}

template <input In>
cudaError_t launch_add(std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* in, std::uint64_t n,
                       key_hash algorithm, std::uint64_t seed, cudaStream_t stream) {
  if (const cudaError_t e = check_args(blocks, n, kPerBlock); e != cudaSuccess) return e;
  if (n == 0) return cudaSuccess;
  add_kernel<In><<<static_cast<unsigned>(grid_for(n, kPerBlock)), kThreads, 0, stream>>>(
      reinterpret_cast<unsigned long long*>(words), blocks, in, n, algorithm, seed);
  return cudaGetLastError();
}

template <input In>
cudaError_t launch_contains(const std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* in,
                            std::uint64_t n, key_hash algorithm, std::uint64_t seed, bool* out,
                            cudaStream_t stream) {
  if (const cudaError_t e = check_args(blocks, n, kThreads); e != cudaSuccess) return e;
  if (n == 0) return cudaSuccess;
  contains_kernel<In><<<static_cast<unsigned>(grid_for(n, kThreads)), kThreads, 0, stream>>>(
      reinterpret_cast<const unsigned long long*>(words), blocks, in, n, algorithm, seed, out);
  return cudaGetLastError();
}

}  // namespace

cudaError_t add_keys(std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* keys, std::uint64_t n,
                     key_hash algorithm, std::uint64_t seed, cudaStream_t stream) noexcept {
  return launch_add<input::keys>(words, blocks, keys, n, algorithm, seed, stream);
}

cudaError_t add_hashes(std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* hashes, std::uint64_t n,
                       cudaStream_t stream) noexcept {
  return launch_add<input::hashes>(words, blocks, hashes, n, key_hash::xxh64, 0, stream);
}

cudaError_t contains_keys(const std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* keys,
                          std::uint64_t n, key_hash algorithm, std::uint64_t seed, bool* out,
                          cudaStream_t stream) noexcept {
  return launch_contains<input::keys>(words, blocks, keys, n, algorithm, seed, out, stream);
}

cudaError_t contains_hashes(const std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* hashes,
                            std::uint64_t n, bool* out, cudaStream_t stream) noexcept {
  return launch_contains<input::hashes>(words, blocks, hashes, n, key_hash::xxh64, 0, out, stream);
}

cudaError_t hash_keys(const std::uint64_t* keys, std::uint64_t n, key_hash algorithm, std::uint64_t seed,
                      std::uint64_t* out, cudaStream_t stream) noexcept {
  if (n == 0) return cudaSuccess;
  if (grid_for(n, kThreads) > 0x7FFFFFFFULL) return cudaErrorInvalidValue;
  hash_kernel<<<static_cast<unsigned>(grid_for(n, kThreads)), kThreads, 0, stream>>>(keys, n, algorithm, seed, out);
  return cudaGetLastError();
}

}  // namespace bloomkit::cuda
