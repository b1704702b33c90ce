// bloomkit/cuda/device_split_block.cuh - a split_block_bloom whose blocks live
// in GPU memory, with bulk add and contains over device arrays.
//
// Host code: compiles with any C++20 compiler given the CUDA runtime's
// headers, and links bloomkit::cuda (cuda/CMakeLists.txt). The bits are
// split_block_bloom's exactly: to_host() of a filter built here equals the
// CPU filter built from the same keys, byte for byte (cuda/tests).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "bloomkit/cuda/launch.cuh"
#include "bloomkit/error.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace bloomkit::cuda {

/// Throws bloomkit::error naming `what` unless `status` is cudaSuccess:
/// errc::out_of_memory for cudaErrorMemoryAllocation, errc::invalid_argument
/// for cudaErrorInvalidValue (a size past a launch's limits), else
/// errc::unsupported (no device, a driver too old, a failed kernel).
inline void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  const errc code = status == cudaErrorMemoryAllocation ? errc::out_of_memory
                    : status == cudaErrorInvalidValue   ? errc::invalid_argument
                                                        : errc::unsupported;
  throw error(code, "bloomkit::cuda: " + what + ": " + cudaGetErrorName(status) + " (" +
                        cudaGetErrorString(status) + ")");
}

/// The key_hash a filter's hash_spec names (the same numbering).
inline key_hash key_hash_of(const hash_spec& spec) {
  switch (spec.algorithm) {
    case hash_algorithm::xxh64: return key_hash::xxh64;
    case hash_algorithm::xxh3_64: return key_hash::xxh3_64;
  }
  throw error(errc::unsupported, "bloomkit::cuda: a hash algorithm this build does not know");
}

/// A split_block_bloom on the current CUDA device. Holds the filter's
/// parameters and inserted() count on the host and its blocks in one
/// cudaMalloc'd buffer. Movable, not copyable. Bulk calls take device
/// pointers (or managed memory), queue work on `stream` and return without
/// waiting; to_host() and copy_to() wait for the stream. add_* calls may
/// run concurrently with each other (atomic ORs); no add may run while a
/// contains_* call on the same filter runs.
class device_split_block_bloom {
 public:
  /// A zeroed filter with these parameters (validated as split_block_bloom
  /// validates them). Throws errc::out_of_memory when the device lacks room.
  explicit device_split_block_bloom(const block_filter_params& params) : device_split_block_bloom(params, 0) {}

  /// A copy of `host` (its bits, parameters and inserted() count) on the
  /// device. Waits until the copy is done.
  explicit device_split_block_bloom(const split_block_bloom_view& host)
      : device_split_block_bloom(host.params(), host.inserted()) {
    const auto blocks = host.blocks();
    check(cudaMemcpy(words_, blocks.data(), blocks.size_bytes(), cudaMemcpyHostToDevice),
          "copying a split_block_bloom to the device");
  }
  /// As above, from an owning filter.
  explicit device_split_block_bloom(const split_block_bloom& host)
      : device_split_block_bloom(host.view()) {}

  device_split_block_bloom(const device_split_block_bloom&) = delete;
  device_split_block_bloom& operator=(const device_split_block_bloom&) = delete;
  device_split_block_bloom(device_split_block_bloom&& other) noexcept
      : params_(other.params_), inserted_(other.inserted_), words_(std::exchange(other.words_, nullptr)) {}
  device_split_block_bloom& operator=(device_split_block_bloom&& other) noexcept {
    if (this != &other) {
      release();
      params_ = other.params_;
      inserted_ = other.inserted_;
      words_ = std::exchange(other.words_, nullptr);
    }
    return *this;
  }
  ~device_split_block_bloom() { release(); }

  /// Adds n 8-byte integer keys (device array), each hashed as the CPU's
  /// insert(std::uint64_t) hashes it: this filter's hash_spec over the key's
  /// 8 little-endian bytes. inserted() grows by n.
  void add_keys(const std::uint64_t* keys, std::uint64_t n, cudaStream_t stream = nullptr) {
    check(bloomkit::cuda::add_keys(words_, params_.blocks, keys, n, key_hash_of(params_.hash), params_.hash.seed,
                                   stream),
          "add_keys");
    inserted_ += n;
  }
  /// Adds n precomputed 64-bit hashes (device array), as insert_hash does on
  /// the CPU. inserted() grows by n.
  void add_hashes(const std::uint64_t* hashes, std::uint64_t n, cudaStream_t stream = nullptr) {
    check(bloomkit::cuda::add_hashes(words_, params_.blocks, hashes, n, stream), "add_hashes");
    inserted_ += n;
  }
  /// out[i] = may_contain(keys[i]) (device arrays of n elements).
  void contains_keys(const std::uint64_t* keys, std::uint64_t n, bool* out, cudaStream_t stream = nullptr) const {
    check(bloomkit::cuda::contains_keys(words_, params_.blocks, keys, n, key_hash_of(params_.hash),
                                        params_.hash.seed, out, stream),
          "contains_keys");
  }
  /// out[i] = may_contain_hash(hashes[i]) (device arrays of n elements).
  void contains_hashes(const std::uint64_t* hashes, std::uint64_t n, bool* out, cudaStream_t stream = nullptr) const {
    check(bloomkit::cuda::contains_hashes(words_, params_.blocks, hashes, n, out, stream), "contains_hashes");
  }

  /// A host split_block_bloom with this filter's bits, parameters and
  /// inserted() count. Waits for `stream` first.
  [[nodiscard]] split_block_bloom to_host(cudaStream_t stream = nullptr) const {
    check(cudaStreamSynchronize(stream), "waiting for the stream before copying to the host");
    std::vector<detail::block256> blocks(params_.blocks);
    check(cudaMemcpy(blocks.data(), words_, bytes(), cudaMemcpyDeviceToHost), "copying a split_block_bloom to the host");
    return split_block_bloom(params_, std::move(blocks), inserted_);
  }
  /// Overwrites `host`'s blocks and count with this filter's. Throws
  /// errc::mismatch (and changes nothing) unless the parameters are equal.
  void copy_to(split_block_bloom& host, cudaStream_t stream = nullptr) const {
    detail::require(host.params() == params_, errc::mismatch,
                    "bloomkit::cuda: copy_to needs a host filter with the same parameters");
    host = to_host(stream);
  }

  /// Zeroes every bit (queued on `stream`); inserted() becomes 0.
  void clear(cudaStream_t stream = nullptr) {
    check(cudaMemsetAsync(words_, 0, bytes(), stream), "clearing a device filter");
    inserted_ = 0;
  }

  /// The parameters (blocks, k = 8, design point, hash_spec), as the host filter's.
  [[nodiscard]] const block_filter_params& params() const noexcept { return params_; }
  /// Number of 32-byte blocks.
  [[nodiscard]] std::uint64_t num_blocks() const noexcept { return params_.blocks; }
  /// Size of the device bitset in bytes (32 per block).
  [[nodiscard]] std::uint64_t bytes() const noexcept { return params_.blocks * 32; }
  /// Keys added (host count; concurrent adds from other code are not seen).
  [[nodiscard]] std::uint64_t inserted() const noexcept { return inserted_; }
  /// The device bitset: 8 * num_blocks() 32-bit words in Parquet's layout
  /// (for the functions of launch.cuh and split_block.cuh). Writes through it
  /// are not counted in inserted().
  [[nodiscard]] std::uint32_t* data() noexcept { return words_; }
  /// Read-only access to the device bitset.
  [[nodiscard]] const std::uint32_t* data() const noexcept { return words_; }

 private:
  // Allocates and zeroes the blocks; validates the parameters first.
  device_split_block_bloom(const block_filter_params& params, std::uint64_t inserted)
      : params_(params), inserted_(inserted) {
    detail::validate_params<detail::split_block_policy>(params_);
    void* p = nullptr;
    check(cudaMalloc(&p, bytes()), "allocating a " + std::to_string(bytes()) + "-byte split_block_bloom");
    words_ = static_cast<std::uint32_t*>(p);
    if (const cudaError_t e = cudaMemset(words_, 0, bytes()); e != cudaSuccess) {
      release();
      check(e, "zeroing a device filter");
    }
  }
  void release() noexcept {
    if (words_ != nullptr) cudaFree(words_);
    words_ = nullptr;
  }

  block_filter_params params_;
  std::uint64_t inserted_ = 0;
  std::uint32_t* words_ = nullptr;
};

}  // namespace bloomkit::cuda
