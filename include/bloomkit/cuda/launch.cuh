// bloomkit/cuda/launch.cuh - bulk split-block kernels over device arrays, as
// plain functions (compiled in cuda/src/split_block_kernels.cu, library
// bloomkit_cuda). Callers that hold a bloomkit filter use the class in
// device_split_block.cuh; these are for callers that manage device memory
// themselves (Python, other languages).
//
// Every pointer is a device pointer (or one the device can read, such as
// managed memory). `words` is a split-block bitset in Parquet's layout
// (split_block.cuh): 32 bytes per block, `blocks` blocks, 1 <= blocks <= 2^32,
// 16-byte aligned (cudaMalloc gives 256). Work is queued on `stream` and
// returns at once; a launch error is returned as the cudaError_t, not thrown.
// Keys are 8-byte integers hashed with key_hash `algorithm` and `seed`;
// "hashes" are already 64-bit hash values.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "bloomkit/cuda/split_block.cuh"

namespace bloomkit::cuda {

/// Adds n keys. Concurrent adds and the order of keys do not change the bits.
cudaError_t add_keys(std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* keys, std::uint64_t n,
                     key_hash algorithm, std::uint64_t seed, cudaStream_t stream) noexcept;
/// Adds n precomputed hashes.
cudaError_t add_hashes(std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* hashes, std::uint64_t n,
                       cudaStream_t stream) noexcept;
/// out[i] = whether key i may be in the filter (false: certainly not). No add
/// may run on `words` while this runs (it reads through the read-only cache).
cudaError_t contains_keys(const std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* keys,
                          std::uint64_t n, key_hash algorithm, std::uint64_t seed, bool* out,
                          cudaStream_t stream) noexcept;
/// contains_keys over precomputed hashes.
cudaError_t contains_hashes(const std::uint32_t* words, std::uint64_t blocks, const std::uint64_t* hashes,
                            std::uint64_t n, bool* out, cudaStream_t stream) noexcept;
/// out[i] = the hash of key i (the hash add_keys and contains_keys use).
cudaError_t hash_keys(const std::uint64_t* keys, std::uint64_t n, key_hash algorithm, std::uint64_t seed,
                      std::uint64_t* out, cudaStream_t stream) noexcept;

}  // namespace bloomkit::cuda
