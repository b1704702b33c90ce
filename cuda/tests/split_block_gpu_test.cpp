// The GPU split-block filter against the CPU's: equal bytes, equal answers.
//
// Every case builds the same filter twice, with split_block_bloom on the CPU
// and device_split_block_bloom on the GPU, from the same keys or hashes, and
// checks (1) the GPU's bitset equals the CPU's byte for byte, (2) contains
// answers as the CPU's may_contain for every added key (all true: no false
// negatives) and for as many keys never added. Key sets: random, all equal,
// sequential, keys whose hashes all pick one block; filters from one block
// to BLOOMKIT_GPU_TEST_GIB GiB (default 17: past 2^32 32-bit words, so
// 64-bit word offsets are exercised). Needs a CUDA device; run by
// ./bloomkit.sh test-gpu, never by ./bloomkit.sh test.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <xxhash.h>

#include "bloomkit/cuda/device_split_block.cuh"
#include "bloomkit/cuda/split_block.cuh"
#include "bloomkit/split_block_bloom.hpp"

namespace {

using bloomkit::block_filter_params;
using bloomkit::hash_spec;
using bloomkit::parquet_hash_spec;
using bloomkit::split_block_bloom;
using bloomkit::cuda::device_split_block_bloom;

void cuda_ok(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

/// A device array, freed on scope exit.
template <class T>
struct device_array {
  T* ptr = nullptr;
  std::size_t n = 0;
  explicit device_array(std::size_t count) : n(count) {
    bloomkit::cuda::check(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(n, 1) * sizeof(T)),
                          "test allocation");
  }
  explicit device_array(const std::vector<T>& host) : device_array(host.size()) {
    bloomkit::cuda::check(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice), "test upload");
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() { cudaFree(ptr); }
  // bool comes back as unsigned char (std::vector<bool> has no data()).
  using host_type = std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>;
  std::vector<host_type> to_host() const {
    static_assert(sizeof(host_type) == sizeof(T));
    std::vector<host_type> out(n);
    bloomkit::cuda::check(cudaMemcpy(out.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), "test download");
    return out;
  }
};

std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t seed) {
  bloomkit::splitmix64 g(seed);
  std::vector<std::uint64_t> keys(n);
  for (auto& k : keys) k = g();
  return keys;
}

block_filter_params params_of(std::uint64_t blocks, hash_spec hash = parquet_hash_spec) {
  return block_filter_params{blocks, 8, std::max<std::uint64_t>(blocks * 24, 1), 0.01, hash};
}

bool same_bytes(const split_block_bloom& a, const split_block_bloom& b) {
  return a.params() == b.params() && a.blocks().size() == b.blocks().size() &&
         std::memcmp(a.blocks().data(), b.blocks().data(), a.blocks().size_bytes()) == 0;
}

/// The first block index where the two filters differ, for failure messages.
std::string first_difference(const split_block_bloom& a, const split_block_bloom& b) {
  for (std::size_t i = 0; i < a.blocks().size() && i < b.blocks().size(); ++i) {
    if (!(a.blocks()[i] == b.blocks()[i])) return "first differing block: " + std::to_string(i);
  }
  return "sizes or parameters differ";
}

/// Builds from keys on both sides and checks bytes and answers (added keys
/// and `probes` never added).
void check_keys(std::uint64_t blocks, const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& probes,
                hash_spec hash = parquet_hash_spec) {
  split_block_bloom cpu(params_of(blocks, hash));
  for (auto k : keys) cpu.insert(k);

  device_split_block_bloom gpu(params_of(blocks, hash));
  device_array<std::uint64_t> dkeys(keys);
  gpu.add_keys(dkeys.ptr, keys.size());
  const split_block_bloom back = gpu.to_host();
  ASSERT_TRUE(same_bytes(cpu, back)) << first_difference(cpu, back);
  EXPECT_EQ(back.inserted(), keys.size());

  device_array<bool> found(keys.size());
  gpu.contains_keys(dkeys.ptr, keys.size(), found.ptr);
  const auto answers = found.to_host();
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(answers[i]) << "false negative for key " << keys[i];

  device_array<std::uint64_t> dprobes(probes);
  device_array<bool> pfound(probes.size());
  gpu.contains_keys(dprobes.ptr, probes.size(), pfound.ptr);
  const auto panswers = pfound.to_host();
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(static_cast<bool>(panswers[i]), cpu.may_contain(probes[i])) << "probe " << probes[i];
  }
}

/// The same with precomputed hashes.
void check_hashes(std::uint64_t blocks, const std::vector<std::uint64_t>& hashes,
                  const std::vector<std::uint64_t>& probes) {
  split_block_bloom cpu(params_of(blocks));
  for (auto h : hashes) cpu.insert_hash(h);

  device_split_block_bloom gpu(params_of(blocks));
  device_array<std::uint64_t> dh(hashes);
  gpu.add_hashes(dh.ptr, hashes.size());
  const split_block_bloom back = gpu.to_host();
  ASSERT_TRUE(same_bytes(cpu, back)) << first_difference(cpu, back);

  device_array<bool> found(hashes.size());
  gpu.contains_hashes(dh.ptr, hashes.size(), found.ptr);
  const auto answers = found.to_host();
  for (std::size_t i = 0; i < hashes.size(); ++i) ASSERT_TRUE(answers[i]) << "false negative for hash " << hashes[i];

  device_array<std::uint64_t> dp(probes);
  device_array<bool> pfound(probes.size());
  gpu.contains_hashes(dp.ptr, probes.size(), pfound.ptr);
  const auto panswers = pfound.to_host();
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(static_cast<bool>(panswers[i]), cpu.may_contain_hash(probes[i])) << "probe hash " << probes[i];
  }
}

TEST(SplitBlockGpu, HostHashesMatchLibxxhash) {
  bloomkit::splitmix64 g(7);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t v = i < 64 ? (std::uint64_t{1} << i) : g();
    const std::uint64_t seed = i % 3 == 0 ? 0 : g();
    unsigned char bytes[8];
    for (int b = 0; b < 8; ++b) bytes[b] = static_cast<unsigned char>(v >> (8 * b));
    ASSERT_EQ(bloomkit::cuda::xxh64_of_u64(v, seed), XXH64(bytes, 8, seed));
    ASSERT_EQ(bloomkit::cuda::xxh3_of_u64(v, seed), XXH3_64bits_withSeed(bytes, 8, seed));
  }
}

TEST(SplitBlockGpu, HostModelOfTheKernelsMatchesCpu) {
  // The kernels' arithmetic run on the host: four 64-bit ORs per hash at
  // 64-bit word 4 * block_of(h) + j, read back as little-endian 32-bit
  // words, give the CPU filter's bytes (this machine is little-endian, as
  // CUDA devices are). Needs no GPU.
  for (std::uint64_t blocks : {1ULL, 7ULL, 1000ULL, 65536ULL}) {
    split_block_bloom cpu(params_of(blocks));
    std::vector<std::uint64_t> words(blocks * 4, 0);
    bloomkit::splitmix64 g(blocks);
    for (int i = 0; i < 200000; ++i) {
      const std::uint64_t key = g();
      cpu.insert(key);
      const std::uint64_t h = bloomkit::cuda::xxh64_of_u64(key, 0);
      for (int j = 0; j < 4; ++j) words[bloomkit::cuda::block_of(h, blocks) * 4 + j] |= bloomkit::cuda::word64_mask(h, j);
    }
    ASSERT_EQ(std::memcmp(words.data(), cpu.blocks().data(), blocks * 32), 0) << blocks << " blocks";
  }
}

TEST(SplitBlockGpu, DeviceHashesMatchCpu) {
  auto keys = random_keys(1 << 20, 11);
  for (std::uint64_t i = 0; i < 64; ++i) keys[i] = i;
  keys[64] = ~std::uint64_t{0};
  device_array<std::uint64_t> dkeys(keys);
  device_array<std::uint64_t> out(keys.size());
  for (const hash_spec spec : {parquet_hash_spec, hash_spec{bloomkit::hash_algorithm::xxh64, 12345},
                               hash_spec{bloomkit::hash_algorithm::xxh3_64, 0},
                               hash_spec{bloomkit::hash_algorithm::xxh3_64, 0x9E3779B97F4A7C15ULL}}) {
    cuda_ok(bloomkit::cuda::hash_keys(dkeys.ptr, keys.size(), bloomkit::cuda::key_hash_of(spec), spec.seed, out.ptr,
                                      nullptr),
            "hash_keys");
    const auto hashes = out.to_host();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(hashes[i], bloomkit::hash_key(keys[i], spec)) << "key " << keys[i];
    }
  }
}

TEST(SplitBlockGpu, OneBlockManyKeys) {
  check_keys(1, random_keys(1000, 1), random_keys(1000, 2));
  check_keys(1, random_keys(10, 3), random_keys(100000, 4));
}

TEST(SplitBlockGpu, RandomKeysSeveralSizes) {
  // Sizes off powers of two and a block count whose reduction rounds often.
  for (std::uint64_t blocks : {2ULL, 3ULL, 1000ULL, 4099ULL, 1ULL << 16, (1ULL << 20) + 7, 40000000ULL}) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(blocks * 20, 8000000));
    check_keys(blocks, random_keys(n, blocks), random_keys(n, ~blocks));
  }
}

TEST(SplitBlockGpu, OtherHashSpecs) {
  check_keys(5000, random_keys(100000, 21), random_keys(100000, 22), hash_spec{bloomkit::hash_algorithm::xxh64, 99});
  check_keys(5000, random_keys(100000, 23), random_keys(100000, 24), hash_spec{bloomkit::hash_algorithm::xxh3_64, 0});
}

TEST(SplitBlockGpu, AllEqualKeys) {
  // Two million atomic ORs on the same four words.
  check_keys(1000, std::vector<std::uint64_t>(2000000, 0x1234567890ABCDEFULL), random_keys(100000, 31));
  check_keys(1000, std::vector<std::uint64_t>(100000, 0), random_keys(100000, 32));
}

TEST(SplitBlockGpu, SequentialKeys) {
  std::vector<std::uint64_t> keys(3000000);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = i;
  std::vector<std::uint64_t> probes(1000000);
  for (std::size_t i = 0; i < probes.size(); ++i) probes[i] = keys.size() + i;
  check_keys(300000, keys, probes);
}

TEST(SplitBlockGpu, KeysCollidingInOneBlock) {
  // Keys whose XXH64 picks block 17 of 1024, found by scanning.
  const std::uint64_t blocks = 1024;
  std::vector<std::uint64_t> keys;
  for (std::uint64_t k = 0; keys.size() < 20000; ++k) {
    if (bloomkit::cuda::block_of(bloomkit::cuda::xxh64_of_u64(k, 0), blocks) == 17) keys.push_back(k);
  }
  check_keys(blocks, keys, random_keys(100000, 41));
}

TEST(SplitBlockGpu, HashesCollidingInOneBlockAndEdgeHashes) {
  // Equal high halves (one block), every low half pattern class; then the
  // extreme hashes that select the first and last blocks.
  std::vector<std::uint64_t> hashes;
  bloomkit::splitmix64 g(51);
  for (int i = 0; i < 1000000; ++i) hashes.push_back((0xDEADBEEFULL << 32) | (g() & 0xFFFFFFFFULL));
  for (std::uint64_t h : {0ULL, ~0ULL, 0xFFFFFFFF00000000ULL, 0x00000000FFFFFFFFULL}) hashes.push_back(h);
  check_hashes(777, hashes, random_keys(200000, 52));
  check_hashes(1, random_keys(100, 53), random_keys(100000, 54));
}

TEST(SplitBlockGpu, UploadAddMoreDownload) {
  // A CPU filter with some keys, uploaded, more keys added on the GPU: the
  // CPU filter with both sets, and the counts add up.
  const auto first = random_keys(500000, 61);
  const auto second = random_keys(500000, 62);
  split_block_bloom cpu(params_of(60000));
  for (auto k : first) cpu.insert(k);
  device_split_block_bloom gpu(cpu);
  device_array<std::uint64_t> d(second);
  gpu.add_keys(d.ptr, second.size());
  for (auto k : second) cpu.insert(k);
  const split_block_bloom back = gpu.to_host();
  ASSERT_TRUE(same_bytes(cpu, back)) << first_difference(cpu, back);
  EXPECT_EQ(back.inserted(), 1000000u);
  split_block_bloom other(params_of(60001));
  EXPECT_THROW(gpu.copy_to(other), bloomkit::error);
  gpu.clear();
  EXPECT_EQ(gpu.to_host().set_bit_count(), 0u);
}

TEST(SplitBlockGpu, BadParametersThrowTyped) {
  try {
    device_split_block_bloom bad(params_of(0));
    FAIL() << "zero blocks accepted";
  } catch (const bloomkit::error& e) {
    EXPECT_EQ(e.code(), bloomkit::errc::invalid_argument);
  }
  EXPECT_EQ(bloomkit::cuda::add_hashes(nullptr, 0, nullptr, 1, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(bloomkit::cuda::add_hashes(nullptr, (1ULL << 32) + 1, nullptr, 1, nullptr), cudaErrorInvalidValue);
}

TEST(SplitBlockGpu, SeveralGiB) {
  // Default 17 GiB: 557 million blocks, word offsets past 2^32. The keys
  // reach every part of it; the CPU filter and the copy back take 2x the
  // size in host memory.
  const char* env = std::getenv("BLOOMKIT_GPU_TEST_GIB");
  const std::uint64_t gib = std::max<std::uint64_t>(env != nullptr ? std::strtoull(env, nullptr, 10) : 17, 1);
  const std::uint64_t blocks = (gib << 30) / 32 + 3;
  check_keys(blocks, random_keys(20000000, 71), random_keys(2000000, 72));
}

}  // namespace
