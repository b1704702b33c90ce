// bloomkit/detail/simd_batch.hpp - the software pipeline behind every batched
// call (insert_many, may_contain_many, insert_keys, may_contain_keys).
//
// A lookup in a filter larger than the caches is one (blocked) or a few
// (standard) cache misses of ~80-100 ns each, while the work per key is a few
// ns. A plain loop waits for each miss in turn. The pipeline instead runs
// `window` keys ahead: it hashes key i + window, computes the address it will
// touch and prefetches it, then probes key i, whose line was requested
// `window` iterations earlier. So up to `window` misses are in flight at once
// (memory-level parallelism), as in RocksDB's batched MultiGet and in
// "Hash joins and hash teams" style group prefetching (Chen, Ailamaki, Gibbons
// and Mowry 2004, "Improving hash join performance through prefetching").
//
// Choosing the window. It must cover the memory latency (window x time per key
// >= latency) but stay below what the core can track (Intel cores since
// Skylake have 12-16 L1 fill buffers and a 32-48 entry L2 queue; AMD Zen 4
// has 24 miss buffers). Measured with bench/micro (BM_window/W: lookups in a
// 128 MiB blocked filter, thread CPU time) on this project's shared 2-core
// Xeon VM: W = 1, 4, 8 cost 2.3x, 1.6x, 1.15x the time of W = 16; W = 16, 32
// and 64 are within 1.5 % of each other; 128 is 7 % slower (lines prefetched
// too early are evicted before use). 16 is the smallest window on the
// plateau, keeps the ring of pending hashes in two cache lines, and leaves
// fill buffers for the loads of the keys themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bloomkit::detail {

/// Keys in flight in every batched call (see the header comment).
inline constexpr std::size_t batch_window = 16;

/// hash_at for hashes already in memory (the caller's array of hashes, or a
/// keyed batch's tile): hash i is data[i]. prefetch_pipeline reads these
/// where they lie instead of copying each through its ring. Why: the ring's
/// store and reload sit on every key's path, and with nothing to compute
/// they are the largest cost left in a cached batch (about a fifth of a
/// split_block_bloom lookup over 10^6 hashes).
struct hashes_in_memory {
  const std::uint64_t* data;
  std::uint64_t operator()(std::size_t i) const noexcept { return data[i]; }
};

/// Runs the pipeline over n items:
///   hash_at(i)     -> the 64-bit hash of item i (a load, or hashing a key)
///   prefetch(h)    -> requests the line(s) that visiting h will touch
///   visit(i, h)    -> the real work for item i (set bits, or test and store)
/// Items are visited in order 0..n-1, so inserts keep their sequential
/// meaning. Each item is hashed exactly once (hashes_in_memory: read twice,
/// once to prefetch and once to visit).
template <std::size_t Window, class HashAt, class Prefetch, class Visit>
inline void prefetch_pipeline(std::size_t n, HashAt&& hash_at, Prefetch&& prefetch, Visit&& visit) {
  static_assert(Window > 0 && (Window & (Window - 1)) == 0, "the window must be a power of two");
  const std::size_t lead = n < Window ? n : Window;
  if constexpr (std::is_same_v<std::remove_cvref_t<HashAt>, hashes_in_memory>) {
    const std::uint64_t* hashes = hash_at.data;
    for (std::size_t i = 0; i < lead; ++i) prefetch(hashes[i]);
    std::size_t i = 0;
    for (; i + Window < n; ++i) {
      prefetch(hashes[i + Window]);
      visit(i, hashes[i]);
    }
    for (; i < n; ++i) visit(i, hashes[i]);
  } else {
    std::uint64_t ring[Window] = {};  // zeroed: only written slots are read, but GCC 12 cannot see that
    for (std::size_t i = 0; i < lead; ++i) {
      ring[i] = hash_at(i);
      prefetch(ring[i]);
    }
    std::size_t i = 0;
    for (; i + Window < n; ++i) {
      const std::uint64_t h = ring[i & (Window - 1)];
      const std::uint64_t ahead = hash_at(i + Window);
      ring[i & (Window - 1)] = ahead;
      prefetch(ahead);
      visit(i, h);
    }
    for (; i < n; ++i) visit(i, ring[i & (Window - 1)]);
  }
}

}  // namespace bloomkit::detail
