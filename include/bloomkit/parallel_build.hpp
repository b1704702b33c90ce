// bloomkit/parallel_build.hpp - filling one filter from many threads without
// atomics: insert_parallel (into an existing filter) and build_parallel (a
// new filter from all hashes; build_keys_parallel from keys).
//
// Partition by address, then write without contention. A filter's words are
// split into `threads` contiguous ranges, range p owned by thread p. Each
// round of the input goes through two phases:
//
//   1. scatter: thread t takes a contiguous slice of the input, hashes the
//      keys (when given keys), computes what each key will touch (its block
//      for blocked_bloom / split_block_bloom, which is ONE word range since a
//      key sets bits in one block; its k bit indices for standard_bloom,
//      whose probes spread over the whole array) and appends it to bucket
//      (t, owner). Sequential writes only.
//   2. apply: thread p runs the plain (SIMD, prefetch-pipelined) kernel over
//      buckets (0, p), (1, p), ... Only thread p writes range p, so the
//      writes need no atomics and no two cores fight over a cache line
//      except at the two ends of a range.
//
// Setting bits is an OR, which is commutative and idempotent, so the words
// after a parallel build are bit-identical to a sequential insert_many of the
// same hashes: the order in which a word receives its bits does not matter.
// inserted() grows by the number of hashes, once, after the threads joined.
//
// Rounds bound the extra memory: parallel_round_keys hashes per round (8
// bytes each in the buckets, k x 8 for standard_bloom's bit indices), about
// 32 MiB, whatever the input size.
//
// Compared with many threads calling insert_many_concurrent (atomic OR, see
// detail/concurrent.hpp): no locked instructions and no line ping-pong, at
// the price of one extra sequential pass over 8 bytes per key (or per probe).
// BENCHMARKS.md, "Concurrent inserts", has the measured figures.
//
// Threads: std::thread, started per phase (tens of microseconds, against a
// round of milliseconds). If the system refuses a thread, the calling thread
// runs that thread's share, so the build still completes. If hashing a key
// throws, the first exception is rethrown after every thread joined; the
// filter then holds the bits of some of the keys and inserted() is unchanged
// (basic guarantee).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/block_filter.hpp"
#include "bloomkit/detail/concurrent.hpp"
#include "bloomkit/detail/simd_batch.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace bloomkit {

namespace detail {

/// Hashes per round of a parallel build (see the header comment): 4 Mi, so
/// the buckets hold about 32 MiB for a block filter.
inline constexpr std::size_t parallel_round_keys = std::size_t{1} << 22;

/// Below this many hashes per thread a parallel build uses fewer threads:
/// starting a thread costs about as much as inserting a few thousand keys.
inline constexpr std::size_t parallel_min_keys_per_thread = std::size_t{1} << 15;

/// The tuning of one parallel build (tests shrink both to reach every path
/// with few keys).
struct parallel_tuning {
  std::size_t round_keys = parallel_round_keys;
  std::size_t min_keys_per_thread = parallel_min_keys_per_thread;
};

/// Runs fn(0) .. fn(parts - 1), fn(0) on the calling thread and the others on
/// threads of their own; returns after all finished. A part whose thread the
/// system refuses to start runs on the calling thread instead. The first
/// exception a part throws is rethrown after every part finished.
template <class Fn>
void run_parts(unsigned parts, Fn& fn) {
  std::vector<std::exception_ptr> errors(parts);
  auto guarded = [&fn, &errors](unsigned part) noexcept {
    try {
      fn(part);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  unsigned started = 0;
  try {
    pool.reserve(parts > 0 ? parts - 1 : 0);
    for (unsigned part = 1; part < parts; ++part) {
      pool.emplace_back(guarded, part);
      ++started;
    }
  } catch (...) {
    // No more threads (std::system_error) or no memory for the handles: the
    // calling thread runs the parts that did not start, below.
  }
  if (parts > 0) guarded(0);
  for (unsigned part = started + 1; part < parts; ++part) guarded(part);
  for (auto& thread : pool) thread.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

/// Maps a unit index (block or word) in [0, units) onto its owner in
/// [0, parts) with one multiply: owner(u) = floor(u * parts / units), up to
/// rounding of the 64-bit reciprocal. Monotonic, so every owner holds one
/// contiguous range; the ranges differ in size by at most one unit or so.
/// Correctness needs only that the owner is a function of the unit, so that
/// two threads never write the same word.
class unit_owner {
 public:
  unit_owner(std::uint64_t units, unsigned parts) noexcept
      : parts_(parts), scale_(units == 0 ? 0 : (static_cast<uint128>(parts) << 64) / units) {}
  unsigned operator()(std::uint64_t unit) const noexcept {
    // unit < units and scale_ <= 2^64 parts / units, so the product < 2^96.
    const auto p = static_cast<unsigned>((static_cast<uint128>(unit) * scale_) >> 64);
    return p < parts_ ? p : parts_ - 1;
  }

 private:
  unsigned parts_;
  uint128 scale_;  // parts / units in 64.64 fixed point (parts may equal units)
};

/// The threads a build of n items uses: at most `threads`, at most one per
/// unit of the filter, and at least min_keys_per_thread items each.
inline unsigned parallel_parts(unsigned threads, std::size_t n, std::uint64_t units, const parallel_tuning& tuning) {
  require(threads >= 1, errc::invalid_argument, "build_parallel: threads must be at least 1");
  const std::size_t by_work = std::max<std::size_t>(1, n / std::max<std::size_t>(1, tuning.min_keys_per_thread));
  return static_cast<unsigned>(std::min<std::uint64_t>({threads, by_work, units}));
}

/// The two-phase rounds of the header comment. scatter(begin, end, buckets)
/// appends what items [begin, end) touch to buckets[owner]; apply(part,
/// bucket) writes one bucket's contents into part's range.
template <class Scatter, class Apply>
void partitioned_rounds(unsigned parts, std::size_t n, std::size_t round_keys, Scatter& scatter, Apply& apply) {
  std::vector<std::vector<std::uint64_t>> buckets(static_cast<std::size_t>(parts) * parts);  // [t * parts + owner]
  const std::size_t round = std::max<std::size_t>(1, round_keys);
  for (std::size_t start = 0; start < n; start += round) {
    const std::size_t len = std::min(round, n - start);
    auto scatter_part = [&](unsigned t) {
      std::vector<std::uint64_t>* mine = &buckets[static_cast<std::size_t>(t) * parts];
      for (unsigned p = 0; p < parts; ++p) mine[p].clear();
      const std::size_t begin = start + len * t / parts, end = start + len * (t + 1) / parts;
      scatter(begin, end, mine);
    };
    run_parts(parts, scatter_part);
    auto apply_part = [&](unsigned p) {
      for (unsigned t = 0; t < parts; ++t) apply(p, std::span<const std::uint64_t>(buckets[std::size_t{t} * parts + p]));
    };
    run_parts(parts, apply_part);
  }
}

/// Friend of the owning filters: the raw access the parallel build needs.
struct parallel_build_access {
  /// Block filters: bucket the hashes by the owner of their block, then the
  /// batched kernel (block_set_many) per bucket.
  template <block_policy P, class HashAt>
  static void insert(block_filter<P>& filter, std::size_t n, HashAt hash_at, unsigned threads,
                     const parallel_tuning& tuning) {
    const std::uint64_t count = filter.params_.blocks;
    const std::uint32_t k = filter.params_.k;
    typename P::block_type* blocks = filter.blocks_.data();
    const unsigned parts = parallel_parts(threads, n, count, tuning);
    if (parts <= 1) {
      block_set_many<P>(blocks, count, k, n, hash_at);
    } else {
      const unit_owner owner(count, parts);
      auto scatter = [&](std::size_t begin, std::size_t end, std::vector<std::uint64_t>* out) {
        for (std::size_t i = begin; i < end; ++i) {
          const std::uint64_t h = hash_at(i);
          out[owner(block_index(h, count))].push_back(h);
        }
      };
      auto apply = [&](unsigned, std::span<const std::uint64_t> hashes) {
        const std::uint64_t* data = hashes.data();
        block_set_many<P>(blocks, count, k, hashes.size(), [data](std::size_t i) { return data[i]; });
      };
      partitioned_rounds(parts, n, tuning.round_keys, scatter, apply);
    }
    filter.inserted_ += n;
  }

  /// standard_bloom: a key's k probes land anywhere, so the buckets hold bit
  /// indices (k per key) bucketed by the owner of their word; apply sets
  /// them with the next words prefetched a window ahead.
  template <class HashAt>
  static void insert(standard_bloom& filter, std::size_t n, HashAt hash_at, unsigned threads,
                     const parallel_tuning& tuning) {
    const std::uint64_t bits = filter.params_.bits;
    const std::uint32_t k = filter.params_.k;
    std::uint64_t* words = filter.words_.data();
    const unsigned parts = parallel_parts(threads, n, filter.words_.size(), tuning);
    if (parts <= 1) {
      standard_set_many(words, bits, k, n, hash_at);
    } else {
      const unit_owner owner(filter.words_.size(), parts);
      auto scatter = [&](std::size_t begin, std::size_t end, std::vector<std::uint64_t>* out) {
        for (std::size_t i = begin; i < end; ++i) {
          standard_probes probes(hash_at(i), bits);
          for (std::uint32_t j = 0; j < k; ++j) {
            const std::uint64_t bit = probes.next();
            out[owner(bit >> 6)].push_back(bit);
          }
        }
      };
      auto apply = [&](unsigned, std::span<const std::uint64_t> bit_indices) {
        const std::size_t m = bit_indices.size();
        for (std::size_t i = 0; i < m; ++i) {
          if (i + batch_window < m) prefetch_for_write(words + (bit_indices[i + batch_window] >> 6));
          const std::uint64_t bit = bit_indices[i];
          words[bit >> 6] |= std::uint64_t{1} << (bit & 63);
        }
      };
      // A round's buckets hold k entries per key: keep them near round_keys.
      partitioned_rounds(parts, n, std::max<std::size_t>(1, tuning.round_keys / k), scatter, apply);
    }
    filter.inserted_ += n;
  }
};

/// Filters the parallel build can fill: standard_bloom and every block_filter.
template <class F>
inline constexpr bool is_parallel_insertable = false;
template <>
inline constexpr bool is_parallel_insertable<standard_bloom> = true;
template <class P>
inline constexpr bool is_parallel_insertable<block_filter<P>> = true;

}  // namespace detail

/// The filters insert_parallel and build_parallel accept: standard_bloom,
/// blocked_bloom, split_block_bloom (any block_filter).
template <class F>
concept parallel_insertable = detail::is_parallel_insertable<F>;

/// Adds every hash to `filter` using up to `threads` threads (the calling
/// thread is one of them). The words afterwards are bit-identical to
/// filter.insert_many(hashes), and inserted() grows by hashes.size(). Small
/// inputs use fewer threads (detail::parallel_min_keys_per_thread each), so
/// threads = 8 on 1000 keys is a plain insert_many. The filter must not be
/// used by any other thread during the call; the hashes must not change.
/// Filter: standard_bloom, blocked_bloom, split_block_bloom (any
/// block_filter). Throws errc::invalid_argument if threads is 0.
template <parallel_insertable Filter>
void insert_parallel(Filter& filter, std::span<const std::uint64_t> hashes, unsigned threads) {
  const std::uint64_t* data = hashes.data();
  detail::parallel_build_access::insert(filter, hashes.size(), [data](std::size_t i) { return data[i]; }, threads,
                                        detail::parallel_tuning{});
}

/// Adds every key, hashed with the filter's hash_spec by the threads
/// themselves (hashing is part of the parallel work). Bit-identical to
/// filter.insert_keys(keys); otherwise as insert_parallel over hashes.
template <parallel_insertable Filter, key K>
void insert_keys_parallel(Filter& filter, std::span<const K> keys, unsigned threads) {
  const K* data = keys.data();
  const hash_spec spec = filter.params().hash;
  detail::parallel_build_access::insert(filter, keys.size(),
                                        [data, spec](std::size_t i) { return hash_key(data[i], spec); }, threads,
                                        detail::parallel_tuning{});
}

/// A new Filter with `params` (validated as its constructor does), holding
/// every hash: bit-identical to Filter(params) followed by insert_many(hashes).
/// Threads as in insert_parallel; throws errc::invalid_argument for
/// threads = 0 or invalid parameters.
template <parallel_insertable Filter>
Filter build_parallel(const typename std::remove_cvref_t<decltype(std::declval<Filter>().params())>& params,
                      std::span<const std::uint64_t> hashes, unsigned threads) {
  Filter filter(params);
  insert_parallel(filter, hashes, threads);
  return filter;
}

/// A new Filter with `params` holding every key (hashed in parallel with
/// params.hash): bit-identical to Filter(params) followed by insert_keys(keys).
template <parallel_insertable Filter, key K>
Filter build_keys_parallel(const typename std::remove_cvref_t<decltype(std::declval<Filter>().params())>& params,
                           std::span<const K> keys, unsigned threads) {
  Filter filter(params);
  insert_keys_parallel(filter, keys, threads);
  return filter;
}

}  // namespace bloomkit
