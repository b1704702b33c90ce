// gpu_bench: bulk add and contains of 8-byte keys into a split-block
// (Parquet) filter on one GPU: bloomkit's kernels, cuco::bloom_filter with
// the same layout (when built with BLOOMKIT_BENCH_CUCO), and two trivial
// kernels with the same memory access pattern that bound both.
//
//   gpu_bench [--sizes 1e6,1e7,1e8,1e9] [--reps 7] [--bits-per-key 10.53] [--variants 1]
//
// Each row: n random keys (splitmix64 of 0..n-1, on the device), a filter of
// ceil(n * bits_per_key / 256) blocks (10.53 bits/key is what
// split_block_bloom(n, 0.01) chooses); add = all n keys into a zeroed
// filter, contains = the same n keys; the median of --reps timed runs after
// one warm-up, timed with CUDA events on one stream. G keys/s = n / time.
// The bandwidth kernels read each key, take its block from the key's bits
// (no hash), and do one 32-byte read-modify-write (add bound) or one
// 32-byte read and a 1-byte write (contains bound) per key.
// After the add, the bitsets of bloomkit's bulk add, its one-thread-per-key
// add and cuco's are compared byte for byte ("same bits").
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "bloomkit/cuda/launch.cuh"

#if BLOOMKIT_BENCH_CUCO
#include <cuda/version>
#if CCCL_MAJOR_VERSION >= 3
// CCCL 3 dropped thrust::identity, which the stored cuCollections snapshot
// still names; a stand-in with its meaning (return the argument).
#include <thrust/functional.h>
namespace thrust {
template <class T = void>
struct identity {
  __host__ __device__ constexpr const T& operator()(const T& x) const { return x; }
};
template <>
struct identity<void> {
  template <class U>
  __host__ __device__ constexpr U&& operator()(U&& x) const {
    return static_cast<U&&>(x);
  }
};
}  // namespace thrust
#endif
#include <cuco/bloom_filter.cuh>
#include <cuco/hash_functions.cuh>
#endif

namespace {

#define CUDA_OK(call)                                                                                   \
  do {                                                                                                  \
    const cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                            \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
      std::exit(1);                                                                                     \
    }                                                                                                   \
  } while (0)

__global__ void make_keys(std::uint64_t* keys, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ULL;  // splitmix64's step and finaliser
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  keys[i] = z ^ (z >> 31);
}

// bloomkit's single-key device add() (split_block.cuh), one thread per key:
// four 64-bit atomic ORs each, not coalesced across lanes. For comparison
// with the bulk kernel, which spreads each key over four lanes.
__global__ void __launch_bounds__(256) add_thread_per_key(unsigned long long* words, std::uint64_t blocks,
                                                          const std::uint64_t* keys, std::uint64_t n) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * 1024 + threadIdx.x;
  std::uint64_t h[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = base + i * 256 < n ? bloomkit::cuda::xxh64_of_u64(keys[base + i * 256], 0) : 0;
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (base + i * 256 < n) bloomkit::cuda::add(words, blocks, h[i]);
}

// One 32-byte read-modify-write per key at the block the key's own bits pick.
__global__ void __launch_bounds__(256) bw_rmw(ulonglong2* blocks2, std::uint64_t blocks, const std::uint64_t* keys,
                                              std::uint64_t n) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * 1024 + threadIdx.x;
  std::uint64_t k[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) k[i] = base + i * 256 < n ? keys[base + i * 256] : 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (base + i * 256 >= n) continue;
    ulonglong2* b = blocks2 + bloomkit::cuda::block_of(k[i], blocks) * 2;
    ulonglong2 x = b[0], y = b[1];
    x.x |= k[i] & 0x0101010101010101ULL;
    y.y |= k[i] & 0x8080808080808080ULL;
    b[0] = x;
    b[1] = y;
  }
}

// The add kernel's access pattern with no hashing: per key four 64-bit
// atomic ORs on one 32-byte block, spread over four lanes (the bulk add's
// layout), block and bits taken from the key itself.
__global__ void __launch_bounds__(256) bw_red(unsigned long long* words, std::uint64_t blocks,
                                              const std::uint64_t* keys, std::uint64_t n) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * 1024 + threadIdx.x;
  const unsigned lane = threadIdx.x & 31U;
  std::uint64_t k[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) k[i] = base + i * 256 < n ? keys[base + i * 256] : 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
#pragma unroll
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned source = 8 * r + (lane >> 2);
      const std::uint64_t kk = __shfl_sync(0xFFFFFFFFU, k[i], source);
      if (base - lane + i * 256 + source < n)
        atomicOr(words + bloomkit::cuda::block_of(kk, blocks) * 4 + (lane & 3U), kk & 0x0101010101010101ULL);
    }
  }
}

// contains with K keys per thread, through the read-only path (NC) or plain
// loads: the layouts tried for the bulk contains kernel (--variants).
template <int K, bool NC>
__global__ void __launch_bounds__(256) contains_variant(const unsigned long long* words, std::uint64_t blocks,
                                                        const std::uint64_t* keys, std::uint64_t n, bool* out) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * (256 * K) + threadIdx.x;
  std::uint64_t h[K];
#pragma unroll
  for (int i = 0; i < K; ++i) h[i] = base + i * 256 < n ? bloomkit::cuda::xxh64_of_u64(keys[base + i * 256], 0) : 0;
  bool r[K];
#pragma unroll
  for (int i = 0; i < K; ++i) {
    const auto* b = reinterpret_cast<const ulonglong2*>(words + bloomkit::cuda::block_of(h[i], blocks) * 4);
    ulonglong2 x, y;
    if constexpr (NC) {
      x = __ldg(b);
      y = __ldg(b + 1);
    } else {
      x = b[0];
      y = b[1];
    }
    r[i] = ((bloomkit::cuda::word64_mask(h[i], 0) & ~x.x) | (bloomkit::cuda::word64_mask(h[i], 1) & ~x.y) |
            (bloomkit::cuda::word64_mask(h[i], 2) & ~y.x) | (bloomkit::cuda::word64_mask(h[i], 3) & ~y.y)) == 0;
  }
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (base + i * 256 < n) out[base + i * 256] = r[i];
}

// One 32-byte read and a 1-byte write per key.
__global__ void __launch_bounds__(256) bw_read(const ulonglong2* blocks2, std::uint64_t blocks,
                                               const std::uint64_t* keys, std::uint64_t n, bool* out) {
  const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * 1024 + threadIdx.x;
  std::uint64_t k[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) k[i] = base + i * 256 < n ? keys[base + i * 256] : 0;
  bool r[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const ulonglong2* b = blocks2 + bloomkit::cuda::block_of(k[i], blocks) * 2;
    const ulonglong2 x = __ldg(b), y = __ldg(b + 1);
    r[i] = ((x.x & y.y) & k[i]) == (k[i] & 0x0001000100010001ULL);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
    if (base + i * 256 < n) out[base + i * 256] = r[i];
}

#if BLOOMKIT_BENCH_CUCO
// The Parquet split-block layout as a cuco bloom_filter policy (the
// interface of cuco's bloom_filter_policy: hash, block_index, word_pattern):
// XXH64 seed 0 of the key's 8 bytes (cuco's own xxhash_64), block
// ((h >> 32) * blocks) >> 32, word w's bit (low32(h) * SALT[w]) >> 27.
struct parquet_layout_policy {
  using hasher = cuco::xxhash_64<std::uint64_t>;
  using hash_argument_type = std::uint64_t;
  using hash_result_type = std::uint64_t;
  using word_type = std::uint32_t;
  static constexpr std::uint32_t words_per_block = 8;

  __host__ __device__ constexpr parquet_layout_policy() {}
  __device__ constexpr hash_result_type hash(hash_argument_type const& key) const { return hasher{0}(key); }
  template <class Extent>
  __device__ constexpr auto block_index(hash_result_type h, Extent num_blocks) const {
    return static_cast<std::size_t>(bloomkit::cuda::block_of(h, static_cast<std::uint64_t>(num_blocks)));
  }
  __device__ constexpr word_type word_pattern(hash_result_type h, std::uint32_t w) const {
    return bloomkit::cuda::word_mask(h, static_cast<int>(w));
  }
};
using cuco_filter = cuco::bloom_filter<std::uint64_t, cuco::extent<std::size_t>, cuda::thread_scope_device,
                                       parquet_layout_policy>;
#endif

struct timer {
  cudaStream_t stream;
  cudaEvent_t start, stop;
  explicit timer(cudaStream_t s) : stream(s) {
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
  }
  // Median milliseconds of `reps` runs of `body` after one warm-up; `reset`
  // runs before each, untimed.
  template <class Reset, class Body>
  double median_ms(int reps, Reset reset, Body body) {
    std::vector<double> ms;
    for (int r = 0; r <= reps; ++r) {
      reset();
      CUDA_OK(cudaEventRecord(start, stream));
      body();
      CUDA_OK(cudaEventRecord(stop, stream));
      CUDA_OK(cudaEventSynchronize(stop));
      CUDA_OK(cudaGetLastError());
      float t = 0;
      CUDA_OK(cudaEventElapsedTime(&t, start, stop));
      if (r > 0) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

std::vector<std::uint64_t> parse_sizes(const char* s) {
  std::vector<std::uint64_t> out;
  std::string text(s);
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string part = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!part.empty()) out.push_back(static_cast<std::uint64_t>(std::strtod(part.c_str(), nullptr)));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes = {1000000, 10000000, 100000000, 1000000000};
  int reps = 7;
  double bits_per_key = 10.53;
  bool variants = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = parse_sizes(argv[i + 1]);
    else if (std::strcmp(argv[i], "--variants") == 0) variants = std::atoi(argv[i + 1]) != 0;
    else if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(1, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--bits-per-key") == 0) bits_per_key = std::strtod(argv[i + 1], nullptr);
    else {
      std::fprintf(stderr, "usage: gpu_bench [--sizes 1e6,1e7] [--reps 7] [--bits-per-key 10.53] [--variants 1]\n");
      return 2;
    }
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  CUDA_OK(cudaDriverGetVersion(&driver));
  CUDA_OK(cudaRuntimeGetVersion(&runtime));
  std::printf("device: %s, %d SMs, L2 %d MiB, %.1f GiB; driver %d, runtime %d; %d reps (median), %.2f bits/key\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              static_cast<double>(prop.totalGlobalMem) / (1 << 30), driver, runtime, reps, bits_per_key);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  timer t(stream);

  std::printf("\n| keys | filter MiB | bloomkit add | add, thread/key | cuco add | bw RED bound | bw RMW bound | bloomkit contains | cuco contains | bw read bound | same bits |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--:|\n");
  for (const std::uint64_t n : sizes) {
    const std::uint64_t blocks =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(n) * bits_per_key / 256.0 + 0.999));
    std::uint64_t* keys = nullptr;
    bool* out = nullptr;
    std::uint32_t* words = nullptr;
    std::uint32_t* scratch = nullptr;
    CUDA_OK(cudaMalloc(&keys, n * 8));
    CUDA_OK(cudaMalloc(&out, n));
    CUDA_OK(cudaMalloc(&words, blocks * 32));
    CUDA_OK(cudaMalloc(&scratch, blocks * 32));
    const unsigned grid = static_cast<unsigned>((n + 1023) / 1024);
    make_keys<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(keys, n, 42);
    CUDA_OK(cudaGetLastError());
    const double gk = static_cast<double>(n) / 1e9;

    const double bk_add = t.median_ms(
        reps, [&] { CUDA_OK(cudaMemsetAsync(words, 0, blocks * 32, stream)); },
        [&] { CUDA_OK(bloomkit::cuda::add_keys(words, blocks, keys, n, bloomkit::cuda::key_hash::xxh64, 0, stream)); });
    const double bk_add1 = t.median_ms(
        reps, [&] { CUDA_OK(cudaMemsetAsync(scratch, 0, blocks * 32, stream)); },
        [&] {
          add_thread_per_key<<<grid, 256, 0, stream>>>(reinterpret_cast<unsigned long long*>(scratch), blocks, keys, n);
        });
    std::vector<std::uint32_t> ref_bits(blocks * 8), bulk_bits(blocks * 8);
    CUDA_OK(cudaMemcpy(ref_bits.data(), scratch, blocks * 32, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(bulk_bits.data(), words, blocks * 32, cudaMemcpyDeviceToHost));
    bool same_bits = std::memcmp(ref_bits.data(), bulk_bits.data(), blocks * 32) == 0;
    const double bk_contains = t.median_ms(
        reps, [] {},
        [&] {
          CUDA_OK(bloomkit::cuda::contains_keys(words, blocks, keys, n, bloomkit::cuda::key_hash::xxh64, 0, out, stream));
        });
    std::vector<unsigned char> found(n);
    CUDA_OK(cudaMemcpy(found.data(), out, n, cudaMemcpyDeviceToHost));
    const bool all_found = std::all_of(found.begin(), found.end(), [](unsigned char c) { return c == 1; });

    const double rmw = t.median_ms(
        reps, [&] { CUDA_OK(cudaMemsetAsync(scratch, 0, blocks * 32, stream)); },
        [&] { bw_rmw<<<grid, 256, 0, stream>>>(reinterpret_cast<ulonglong2*>(scratch), blocks, keys, n); });
    const double red = t.median_ms(
        reps, [&] { CUDA_OK(cudaMemsetAsync(scratch, 0, blocks * 32, stream)); },
        [&] { bw_red<<<grid, 256, 0, stream>>>(reinterpret_cast<unsigned long long*>(scratch), blocks, keys, n); });
    const double rd = t.median_ms(reps, [] {}, [&] {
      bw_read<<<grid, 256, 0, stream>>>(reinterpret_cast<const ulonglong2*>(scratch), blocks, keys, n, out);
    });

    double cuco_add = 0, cuco_contains = 0;
    const char* same = same_bits ? "yes" : "NO";
#if BLOOMKIT_BENCH_CUCO
    {
      cuco_filter filter{cuco::extent<std::size_t>{blocks}, {}, {}, {}, cuda::stream_ref{stream}};
      cuco_add = t.median_ms(
          reps, [&] { filter.clear_async(cuda::stream_ref{stream}); },
          [&] { filter.add_async(keys, keys + n, cuda::stream_ref{stream}); });
      cuco_contains = t.median_ms(reps, [] {}, [&] { filter.contains_async(keys, keys + n, out, cuda::stream_ref{stream}); });
      CUDA_OK(cudaStreamSynchronize(stream));
      std::vector<std::uint32_t> b(blocks * 8);
      CUDA_OK(cudaMemcpy(b.data(), filter.data(), blocks * 32, cudaMemcpyDeviceToHost));
      same = same_bits && std::memcmp(bulk_bits.data(), b.data(), blocks * 32) == 0 ? "yes" : "NO";
    }
#endif
    auto rate = [&](double ms) { return ms > 0 ? gk / (ms / 1e3) : 0.0; };
    std::printf("| %.0e | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |%s\n", static_cast<double>(n),
                static_cast<double>(blocks * 32) / (1 << 20), rate(bk_add), rate(bk_add1), rate(cuco_add), rate(red), rate(rmw),
                rate(bk_contains), rate(cuco_contains), rate(rd), same,
                all_found ? "" : " FALSE NEGATIVES");
    if (variants) {
      const auto* w = reinterpret_cast<const unsigned long long*>(words);
      auto g = [&](int k) { return static_cast<unsigned>((n + 256 * k - 1) / (256 * k)); };
      const double v1 = t.median_ms(reps, [] {}, [&] { contains_variant<1, true><<<g(1), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double v2 = t.median_ms(reps, [] {}, [&] { contains_variant<2, true><<<g(2), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double v4 = t.median_ms(reps, [] {}, [&] { contains_variant<4, true><<<g(4), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double v8 = t.median_ms(reps, [] {}, [&] { contains_variant<8, true><<<g(8), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double p1 = t.median_ms(reps, [] {}, [&] { contains_variant<1, false><<<g(1), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double p4 = t.median_ms(reps, [] {}, [&] { contains_variant<4, false><<<g(4), 256, 0, stream>>>(w, blocks, keys, n, out); });
      const double p8 = t.median_ms(reps, [] {}, [&] { contains_variant<8, false><<<g(8), 256, 0, stream>>>(w, blocks, keys, n, out); });
      std::printf("  contains variants (keys/thread, load): 1 nc %.1f | 2 nc %.1f | 4 nc %.1f | 8 nc %.1f | 1 plain %.1f | 4 plain %.1f | 8 plain %.1f\n",
                  rate(v1), rate(v2), rate(v4), rate(v8), rate(p1), rate(p4), rate(p8));
    }
    std::fflush(stdout);
    CUDA_OK(cudaFree(keys));
    CUDA_OK(cudaFree(out));
    CUDA_OK(cudaFree(words));
    CUDA_OK(cudaFree(scratch));
    if (!all_found || std::strcmp(same, "NO") == 0) return 1;
  }
  std::printf("(G keys/s; bw bounds: the trivial kernels of the same access pattern)\n");
  return 0;
}
