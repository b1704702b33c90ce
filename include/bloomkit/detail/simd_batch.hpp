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

namespace bloomkit::detail {

/// Keys in flight in every batched call (see the header comment).
inline constexpr std::size_t batch_window = 16;

/// Runs the pipeline over n items:
///   hash_at(i)     -> the 64-bit hash of item i (a load, or hashing a key)
///   prefetch(h)    -> requests the line(s) that visiting h will touch
///   visit(i, h)    -> the real work for item i (set bits, or test and store)
/// Items are visited in order 0..n-1, so inserts keep their sequential
/// meaning. Each item is hashed exactly once.
template <std::size_t Window, class HashAt, class Prefetch, class Visit>
inline void prefetch_pipeline(std::size_t n, HashAt&& hash_at, Prefetch&& prefetch, Visit&& visit) {
  static_assert(Window > 0 && (Window & (Window - 1)) == 0, "the window must be a power of two");
  std::uint64_t ring[Window] = {};  // zeroed: only written slots are read, but GCC 12 cannot see that
  const std::size_t lead = n < Window ? n : Window;
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

}  // namespace bloomkit::detail
