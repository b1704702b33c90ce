// bloomkit/parallel_build.hpp - filling one filter from many threads without
// atomics: insert_parallel (into an existing filter) and build_parallel (a
// new filter from all hashes; build_keys_parallel from keys).
//
// Partition by address, then write without contention. A filter's units
// (blocks for blocked_bloom / split_block_bloom, 64-bit words for
// standard_bloom) are split into `threads` contiguous ranges, range p owned
// by thread p. Every thread reads the whole input, a chunk at a time, keeps
// what falls into its own range (a block filter's key touches one block, so
// one range; standard_bloom's k probes spread over the array, so each probe
// is kept by the owner of its word) in a small buffer that stays in L1/L2,
// and runs the plain (SIMD, prefetch-pipelined) kernel over that buffer. Only
// thread p writes range p, so the writes need no atomics and no two cores
// fight over a cache line except at the two ends of a range.
//
// Why every thread scans everything rather than scattering once into
// per-owner buckets: the scatter writes and reads 8 bytes a key (k x 8 for
// standard_bloom) through memory in a second phase, and on 2 cores that pass
// costs more than the second thread saves (2 threads slower than 1).
// The scan reads the input sequentially, T times in all, at about a
// nanosecond a key with a branch-free keep/skip, against the 5-25 ns a key of
// random writes that it divides by T. So the speedup is sub-linear: each
// thread still reads all n hashes, and past about 8 threads that scan, not
// the writes, bounds it (and T x 8 bytes a key of reads share the memory
// bus).
//
// Setting bits is an OR, which is commutative and idempotent, so the words
// after a parallel build are bit-identical to a sequential insert_many of the
// same hashes: the order in which a word receives its bits does not matter.
// inserted() grows by the number of hashes, once, after the threads joined.
//
// Keys (rather than hashes) are hashed once, in parallel, into a buffer of up
// to parallel_round_keys hashes (32 MiB) per round, which the threads then
// scan; prehashed input is scanned in place, with no extra memory.
//
// Compared with many threads calling insert_many_concurrent (atomic OR, see
// detail/concurrent.hpp): no locked instructions and no line ping-pong
// (bench/concurrent times both).
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

/// Keys hashed per round of a keyed parallel build (see the header comment):
/// 4 Mi, so the round's buffer holds 32 MiB.
inline constexpr std::size_t parallel_round_keys = std::size_t{1} << 22;

/// Below this many hashes per thread a parallel build uses fewer threads:
/// starting a thread costs about as much as inserting a few thousand keys.
inline constexpr std::size_t parallel_min_keys_per_thread = std::size_t{1} << 15;

/// Input hashes a thread scans before it writes the ones it kept: 4 Ki, so
/// the kept hashes (at most 32 KiB, k x that as standard_bloom's bit indices)
/// stay near the core, and the kernel's prefetch pipeline still sees
/// hundreds of keys per call at 8 threads.
inline constexpr std::size_t parallel_chunk_keys = std::size_t{1} << 12;

/// The tuning of one parallel build (tests shrink it to reach every path
/// with few keys).
struct parallel_tuning {
  std::size_t round_keys = parallel_round_keys;
  std::size_t min_keys_per_thread = parallel_min_keys_per_thread;
  std::size_t chunk_keys = parallel_chunk_keys;
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

/// The first unit of part p when `units` units are split into `parts`
/// contiguous ranges: floor(units * p / parts), exact in 128 bits. Part p
/// owns [unit_range_begin(p), unit_range_begin(p + 1)); the ranges partition
/// [0, units), and none is empty when parts <= units (parallel_parts ensures
/// it). Correctness needs only that each unit has one owner, so that two
/// threads never write the same word.
inline std::uint64_t unit_range_begin(std::uint64_t units, unsigned parts, unsigned p) noexcept {
  return static_cast<std::uint64_t>(static_cast<uint128>(units) * p / parts);
}

/// The threads a build of n items uses: at most `threads`, at most one per
/// unit of the filter, and at least min_keys_per_thread items each.
inline unsigned parallel_parts(unsigned threads, std::size_t n, std::uint64_t units, const parallel_tuning& tuning) {
  require(threads >= 1, errc::invalid_argument, "build_parallel: threads must be at least 1");
  const std::size_t by_work = std::max<std::size_t>(1, n / std::max<std::size_t>(1, tuning.min_keys_per_thread));
  return static_cast<unsigned>(std::min<std::uint64_t>({threads, by_work, units}));
}

/// Friend of the owning filters: the raw access the parallel build needs.
struct parallel_build_access {
  /// Adds hashes[0, n) with up to `threads` threads, each scanning the input
  /// in place for the hashes its range owns.
  template <class Filter>
  static void insert_hashes(Filter& filter, const std::uint64_t* hashes, std::size_t n, unsigned threads,
                            const parallel_tuning& tuning) {
    const unsigned parts = parallel_parts(threads, n, units_of(filter), tuning);
    if (parts <= 1) {
      set_all(filter, n, detail::hashes_in_memory{hashes});
    } else {
      auto part = [&](unsigned p) { set_owned(filter, p, parts, hashes, n, tuning.chunk_keys); };
      run_parts(parts, part);
    }
    filter.count_.value += n;
  }

  /// Adds hash_at(0) .. hash_at(n - 1): each round's hashes are computed in
  /// parallel (each thread its slice) into a buffer, which the threads then
  /// scan as insert_hashes does.
  template <class Filter, class HashAt>
  static void insert(Filter& filter, std::size_t n, HashAt hash_at, unsigned threads, const parallel_tuning& tuning) {
    const unsigned parts = parallel_parts(threads, n, units_of(filter), tuning);
    if (parts <= 1) {
      set_all(filter, n, hash_at);
    } else {
      const std::size_t round = std::max<std::size_t>(1, std::min(n, tuning.round_keys));
      std::vector<std::uint64_t> buffer(round);
      for (std::size_t start = 0; start < n; start += round) {
        const std::size_t len = std::min(round, n - start);
        auto hash_part = [&](unsigned t) {
          const std::size_t begin = len * t / parts, end = len * (t + 1) / parts;
          for (std::size_t i = begin; i < end; ++i) buffer[i] = hash_at(start + i);
        };
        run_parts(parts, hash_part);
        auto set_part = [&](unsigned p) { set_owned(filter, p, parts, buffer.data(), len, tuning.chunk_keys); };
        run_parts(parts, set_part);
      }
    }
    filter.count_.value += n;
  }

 private:
  template <class P>
  static std::uint64_t units_of(const block_filter<P>& filter) noexcept {
    return filter.params_.blocks;
  }
  static std::uint64_t units_of(const standard_bloom& filter) noexcept { return filter.elements_.size(); }

  template <class P, class HashAt>
  static void set_all(block_filter<P>& filter, std::size_t n, HashAt hash_at) {
    block_set_many<P>(whole_blocks<typename P::block_type>{filter.elements_.data(), filter.params_.blocks}, filter.params_.k,
                      n, hash_at);
  }
  template <class HashAt>
  static void set_all(standard_bloom& filter, std::size_t n, HashAt hash_at) {
    standard_set_many(filter.elements_.data(), filter.params_.bits, filter.params_.k, n, hash_at);
  }

  /// Part p of a block filter: per chunk, the hashes whose block lies in
  /// range p, kept branch-free (always stored, the count advanced only when
  /// owned: which range a random hash falls in is unpredictable), then the
  /// batched kernel over the chunk's survivors.
  template <class P>
  static void set_owned(block_filter<P>& filter, unsigned p, unsigned parts, const std::uint64_t* hashes,
                        std::size_t n, std::size_t chunk_keys) {
    const std::uint64_t count = filter.params_.blocks;
    const std::uint32_t k = filter.params_.k;
    typename P::block_type* blocks = filter.elements_.data();
    const std::uint64_t lo = unit_range_begin(count, parts, p);
    const std::uint64_t width = unit_range_begin(count, parts, p + 1) - lo;
    const std::size_t chunk = std::max<std::size_t>(1, chunk_keys);
    std::vector<std::uint64_t> kept(std::min(chunk, n));
    std::uint64_t* out = kept.data();
    for (std::size_t base = 0; base < n; base += chunk) {
      const std::size_t end = std::min(n, base + chunk);
      std::size_t m = 0;
      for (std::size_t i = base; i < end; ++i) {
        const std::uint64_t h = hashes[i];
        out[m] = h;
        m += block_index(h, count) - lo < width ? 1 : 0;  // unsigned, so also false below lo
      }
      block_set_many<P>(whole_blocks<typename P::block_type>{blocks, count}, k, m, detail::hashes_in_memory{out});
    }
  }

  /// Part p of standard_bloom: per chunk, every probe whose word lies in
  /// range p, kept as a bit index, then set with the words a window ahead
  /// prefetched for writing.
  static void set_owned(standard_bloom& filter, unsigned p, unsigned parts, const std::uint64_t* hashes,
                        std::size_t n, std::size_t chunk_keys) {
    const std::uint64_t bits = filter.params_.bits;
    const std::uint32_t k = filter.params_.k;
    std::uint64_t* words = filter.elements_.data();
    const std::uint64_t units = filter.elements_.size();
    const std::uint64_t lo = unit_range_begin(units, parts, p);
    const std::uint64_t width = unit_range_begin(units, parts, p + 1) - lo;
    const std::size_t chunk = std::max<std::size_t>(1, chunk_keys);
    std::vector<std::uint64_t> kept(std::min(chunk, n) * k);
    std::uint64_t* out = kept.data();
    for (std::size_t base = 0; base < n; base += chunk) {
      const std::size_t end = std::min(n, base + chunk);
      std::size_t m = 0;
      for (std::size_t i = base; i < end; ++i) {
        for_each_probe(hashes[i], bits, k, [&](std::uint64_t bit) {
          out[m] = bit;
          m += (bit >> 6) - lo < width ? 1 : 0;
        });
      }
      for (std::size_t i = 0; i < m; ++i) {
        if (i + batch_window < m) prefetch_for_write(words + (out[i + batch_window] >> 6));
        words[out[i] >> 6] |= bit_mask(out[i]);
      }
    }
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
  detail::parallel_build_access::insert_hashes(filter, data, hashes.size(), threads, detail::parallel_tuning{});
}

/// Adds every key, hashed with the filter's hash_spec by the threads
/// themselves (hashing is part of the parallel work). Bit-identical to
/// filter.insert_keys(keys); otherwise as insert_parallel over hashes.
/// Throws errc::mismatch, changing nothing, unless every key converts into
/// the filter's key type (hash.hpp, require_keys_convert).
template <parallel_insertable Filter, key K>
void insert_keys_parallel(Filter& filter, std::span<const K> keys, unsigned threads) {
  const K* data = keys.data();
  const hash_spec spec = filter.params().hash;
  // Every key converts into the filter's key type, checked before any thread
  // starts: a refused batch (errc::mismatch) changes nothing and no worker throws.
  require_keys_convert(data, keys.size(), spec);
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
