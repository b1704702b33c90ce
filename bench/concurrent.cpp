// bench/concurrent.cpp - Google Benchmark figures for concurrent inserts
// (BENCHMARKS.md, "Concurrent inserts"):
//   BM_plain/<filter>/N          insert_many on one thread: the baseline
//   BM_concurrent/<filter>/N/T   insert_many_concurrent (atomic OR) from T
//                                threads on one shared filter, T = 1 is the
//                                overhead of the atomic call on one thread
//   BM_parallel/<filter>/N/T     insert_parallel with T threads (partitioned,
//                                no atomics)
// Each iteration inserts N fresh random hashes into a cleared filter sized
// for N at 1 % (clearing is outside the timing); items/s is keys per second
// of wall time (threads run in the iteration, so real time is the measure).
// N = 256 Ki keeps the filter in L2; N = 8 Mi makes it ~11 MiB, past L2;
// N = 64 Mi (split_block only) makes it ~88 MiB, past a 32 MiB L3 (Zen 4;
// the Xeon's 260 MiB L3 still holds it, so there it shows L3, not DRAM).
// Run: bloomkit_concurrent_bench [--benchmark_filter=REGEX]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "bloomkit/bloomkit.hpp"

namespace {

using bloomkit::splitmix64;

std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> out(n);
  splitmix64 rng(seed);
  for (auto& h : out) h = rng();
  return out;
}

template <class Filter>
void BM_plain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto keys = random_hashes(n, 1);
  Filter filter(n, 0.01);
  for (auto _ : state) {
    state.PauseTiming();
    filter.clear();
    state.ResumeTiming();
    filter.insert_many(keys);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class Filter>
void BM_concurrent(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const auto keys = random_hashes(n, 1);
  Filter filter(n, 0.01);
  for (auto _ : state) {
    state.PauseTiming();
    filter.clear();
    state.ResumeTiming();
    if (threads == 1) {
      filter.insert_many_concurrent(keys);
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
          const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
          filter.insert_many_concurrent(std::span<const std::uint64_t>(keys).subspan(begin, end - begin));
        });
      }
      for (auto& th : pool) th.join();
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

template <class Filter>
void BM_parallel(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const auto keys = random_hashes(n, 1);
  Filter filter(n, 0.01);
  for (auto _ : state) {
    state.PauseTiming();
    filter.clear();
    state.ResumeTiming();
    bloomkit::insert_parallel(filter, std::span<const std::uint64_t>(keys), threads);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

constexpr std::int64_t small_n = std::int64_t{1} << 18;
constexpr std::int64_t large_n = std::int64_t{1} << 23;
constexpr std::int64_t huge_n = std::int64_t{1} << 26;

#define BLOOMKIT_CONCURRENT_BENCH(filter)                                                                    \
  BENCHMARK(BM_plain<bloomkit::filter>)->Arg(small_n)->Arg(large_n)->UseRealTime()->Unit(benchmark::kMillisecond); \
  BENCHMARK(BM_concurrent<bloomkit::filter>)                                                                 \
      ->Args({small_n, 1})                                                                                   \
      ->Args({small_n, 2})                                                                                   \
      ->Args({large_n, 1})                                                                                   \
      ->Args({large_n, 2})                                                                                   \
      ->UseRealTime()                                                                                        \
      ->Unit(benchmark::kMillisecond);                                                                       \
  BENCHMARK(BM_parallel<bloomkit::filter>)                                                                   \
      ->Args({small_n, 1})                                                                                   \
      ->Args({small_n, 2})                                                                                   \
      ->Args({large_n, 1})                                                                                   \
      ->Args({large_n, 2})                                                                                   \
      ->UseRealTime()                                                                                        \
      ->Unit(benchmark::kMillisecond)

BLOOMKIT_CONCURRENT_BENCH(split_block_bloom);
BENCHMARK(BM_plain<bloomkit::split_block_bloom>)->Arg(huge_n)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_concurrent<bloomkit::split_block_bloom>)
    ->Args({huge_n, 1})
    ->Args({huge_n, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parallel<bloomkit::split_block_bloom>)
    ->Args({huge_n, 1})
    ->Args({huge_n, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BLOOMKIT_CONCURRENT_BENCH(blocked_bloom);
BLOOMKIT_CONCURRENT_BENCH(standard_bloom);

}  // namespace

BENCHMARK_MAIN();
