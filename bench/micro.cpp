// bench/micro.cpp - Google Benchmark micro benchmarks of the pieces behind
// bench/compare's figures:
//   BM_kernel_*     one test / set per key in a filter that fits in L1, per
//                   kernel: the compute cost of each kernel alone
//   BM_single_*     may_contain_hash under each set_kernel choice (split_block
//                   inlines its compile-time kernel, so the choice does not
//                   matter there; blocked_bloom at x86-64-v2 still dispatches)
//                   vs the scalar policy called directly
//   BM_big_single/M keyed split_block lookups in a 128 MiB filter, one call
//                   per key: M = inlined (may_contain, the compile-time
//                   kernel) vs dispatched (the same hash, then the run-time
//                   dispatch per call): how a per-call dispatch costs overlap
//                   between cache misses
//   BM_blocked_v2/V/N  keyed blocked_bloom lookups (1 %, n = N keys, one call
//                   per key) at this file's target (the release preset's
//                   x86-64-v2): V = dispatched (what single calls run: the
//                   run-time kernel, AVX-512 or AVX2 where the CPU has it),
//                   sse41 (the SSE4.1 kernel inlined), portable (the scalar
//                   policy inlined). Why blocked single calls keep the dispatch.
//   BM_window/W     batched lookups in a filter far larger than the caches
//                   with prefetch windows W = 1..128: the choice of
//                   kernels::batch_window
//   BM_standard_prefetch/P  standard_bloom negative lookups prefetching the
//                   first P probes: the choice of standard_lookup_prefetch
//   BM_hash_column/kernel/A  hashing 10^6 decimal strings of up to 19 bytes
//                   laid out as an Arrow column (hash_strings), A = 0 XXH64,
//                   1 XXH3, per kernel (scalar: the reference in the same run)
//   BM_hash_key_strings/kernel/A  the same strings as separate std::string
//                   keys (batch_hash_into's string path)
//   BM_hash_u64/kernel/A  hashing 2^16 random 8-byte keys (in L1), A as above
//                   (batch_hash_into's fixed-width path)
//   BM_key_type_single/P  keyed split_block lookups, one may_contain per key,
//                   2^12 random uint64 keys in a filter in L1 (the hash is
//                   most of the cost, so a per-call type check would show):
//                   P = 1 untyped filter, 2 int64 filter (the same bytes,
//                   after the type check), 3 int32 keys widened into an
//                   int64 filter
//   BM_key_type_batch/P  the same keys through may_contain_keys, one batch
//                   (the type checked once per batch), P as above
//   BM_counting_batch/O/N  counting_bloom batches over N keys at 1 % (N
//                   counters of 4 bits: 10^6 about 4.6 MiB, 10^7 about 46 MiB):
//                   O = 0 may_contain_many (half inserted, half absent), 1
//                   insert_many into a cleared filter, 2 may_contain_keys and
//                   3 insert_keys (uint64 keys, hashed inside the batch)
// (the kernel is chosen with set_kernel; the calls take the active one)
// Run: bloomkit_micro [--benchmark_filter=REGEX]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomkit_internal/kernels.hpp"
#include "bloomkit/bloomkit.hpp"

namespace {

using bloomkit::kernel;
using bloomkit::splitmix64;

std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> out(n);
  splitmix64 rng(seed);
  for (auto& h : out) h = rng();
  return out;
}

/// Skips the benchmark when the CPU lacks the kernel; otherwise selects it.
bool select(benchmark::State& state, kernel k) {
  if (!bloomkit::kernel_supported(k)) {
    state.SkipWithError("kernel not supported by this CPU");
    return false;
  }
  bloomkit::set_kernel(k);
  return true;
}

template <class Filter>
void BM_kernel_test(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  Filter filter(bloomkit::block_filter_params{256, 8, 2000, 0.01, bloomkit::hash_spec{}});  // 8-16 KiB: L1
  const auto keys = random_hashes(2000, 1);
  filter.insert_many(keys);
  const auto probes = random_hashes(4096, 2);
  std::unique_ptr<bool[]> out(new bool[probes.size()]);
  for (auto _ : state) {
    filter.may_contain_many(probes, std::span<bool>(out.get(), probes.size()));
    benchmark::DoNotOptimize(out.get());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
  bloomkit::reset_kernel();
}

template <class Filter>
void BM_kernel_set(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  Filter filter(bloomkit::block_filter_params{256, 8, 2000, 0.01, bloomkit::hash_spec{}});
  const auto keys = random_hashes(4096, 3);
  for (auto _ : state) {
    filter.insert_many(keys);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * keys.size()));
  bloomkit::reset_kernel();
}

template <class Filter>
void BM_single_dispatched(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  Filter filter(bloomkit::block_filter_params{256, 8, 2000, 0.01, bloomkit::hash_spec{}});
  filter.insert_many(random_hashes(2000, 1));
  const auto probes = random_hashes(4096, 2);
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (auto h : probes) hits += filter.may_contain_hash(h);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
  bloomkit::reset_kernel();
}

template <class Filter>
void BM_single_scalar_direct(benchmark::State& state) {
  using P = typename Filter::policy;
  Filter filter(bloomkit::block_filter_params{256, 8, 2000, 0.01, bloomkit::hash_spec{}});
  filter.insert_many(random_hashes(2000, 1));
  const auto probes = random_hashes(4096, 2);
  const auto blocks = filter.blocks();
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (auto h : probes) hits += P::test(blocks[bloomkit::kernels::block_index(h, blocks.size())], h, 8);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
}

/// Keyed single lookups in a 128 MiB split-block filter (2^22 blocks).
template <bool Dispatched>
void BM_big_single(benchmark::State& state) {
  using P = bloomkit::kernels::split_block_policy;
  static const bloomkit::split_block_bloom filter = [] {
    bloomkit::split_block_bloom f(bloomkit::block_filter_params{std::uint64_t{1} << 22, 8, 100'000'000, 0.01,
                                                                bloomkit::parquet_hash_spec});
    f.insert_many(random_hashes(std::size_t{1} << 23, 13));
    return f;
  }();
  const auto keys = random_hashes(1 << 20, 14);
  const auto blocks = filter.blocks();
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (auto key : keys) {
      if constexpr (Dispatched) {
        const std::uint64_t h = bloomkit::hash_key(key, bloomkit::parquet_hash_spec);
        hits += bloomkit::kernels::block_test_dispatched<P>(blocks[bloomkit::kernels::block_index(h, blocks.size())], h, 8);
      } else {
        hits += filter.may_contain(key);
      }
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * keys.size()));
}
void BM_big_single_inlined(benchmark::State& s) { BM_big_single<false>(s); }
void BM_big_single_dispatched(benchmark::State& s) { BM_big_single<true>(s); }

// ---- prefetch window -----------------------------------------------------------------

/// A 128 MiB blocked filter (about 10^8 keys at 1 %): far past L2; this
/// machine's L3 may hold part of it.
const bloomkit::blocked_bloom& big_filter() {
  static const bloomkit::blocked_bloom filter = [] {
    bloomkit::blocked_bloom f(bloomkit::block_filter_params{std::uint64_t{1} << 21, 8, 100'000'000, 0.01,
                                                            bloomkit::hash_spec{}});
    f.insert_many(random_hashes(std::size_t{1} << 22, 9));
    return f;
  }();
  return filter;
}

template <std::size_t W>
void BM_window(benchmark::State& state) {
  using P = bloomkit::kernels::cache_line_policy;
  const auto& filter = big_filter();
  const auto probes = random_hashes(1 << 20, 10);
  std::unique_ptr<bool[]> out(new bool[probes.size()]);
  const auto* blocks = filter.blocks().data();
  const std::uint64_t count = filter.num_blocks();
  for (auto _ : state) {
    bool* o = out.get();
    bloomkit::kernels::prefetch_pipeline<W>(
        probes.size(), [&](std::size_t i) { return probes[i]; },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch(blocks + bloomkit::kernels::block_index(h, count)); },
        [&](std::size_t i, std::uint64_t h) {
          o[i] = P::test(blocks[bloomkit::kernels::block_index(h, count)], h, 8);
        });
    benchmark::DoNotOptimize(out.get());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
}

void BM_no_prefetch(benchmark::State& state) {
  const auto& filter = big_filter();
  const auto probes = random_hashes(1 << 20, 10);
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (auto h : probes) hits += filter.may_contain_hash(h);
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
}

template <std::uint32_t Prefetched>
void BM_standard_prefetch(benchmark::State& state) {
  static const bloomkit::standard_bloom filter = [] {
    bloomkit::standard_bloom f(50'000'000, 0.01);
    f.insert_many(random_hashes(50'000'000, 11));
    return f;
  }();
  const auto probes = random_hashes(1 << 20, 12);  // negatives
  std::unique_ptr<bool[]> out(new bool[probes.size()]);
  const std::uint64_t* words = filter.words().data();
  const std::uint64_t bits = filter.bit_count();
  const std::uint32_t k = filter.num_hashes();
  for (auto _ : state) {
    bool* o = out.get();
    bloomkit::kernels::prefetch_pipeline<bloomkit::kernels::batch_window>(
        probes.size(), [&](std::size_t i) { return probes[i]; },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch_standard_probes(words, h, bits, Prefetched, false); },
        [&](std::size_t i, std::uint64_t h) { o[i] = bloomkit::kernels::standard_test(words, h, bits, k); });
    benchmark::DoNotOptimize(out.get());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * probes.size()));
}

// ---- blocked single calls at the release target ---------------------------------

/// n keys at 1 %, filled with n keys; cached per n.
const bloomkit::blocked_bloom& blocked_of(std::uint64_t n) {
  static std::map<std::uint64_t, std::unique_ptr<bloomkit::blocked_bloom>> made;
  auto& f = made[n];
  if (!f) {
    f = std::make_unique<bloomkit::blocked_bloom>(n, 0.01);
    splitmix64 rng(21);
    for (std::uint64_t i = 0; i < n; ++i) f->insert(rng());
  }
  return *f;
}

template <int Variant>  // 0 dispatched, 1 sse41, 2 portable
void BM_blocked_v2(benchmark::State& state) {
  using P = bloomkit::kernels::cache_line_policy;
  bloomkit::reset_kernel();
  const auto& filter = blocked_of(static_cast<std::uint64_t>(state.range(0)));
  const auto keys = random_hashes(std::size_t{1} << 20, 22);  // absent keys
  const auto* blocks = filter.blocks().data();
  const std::uint64_t count = filter.num_blocks();
  const std::uint32_t k = filter.num_hashes();
  const bloomkit::hash_spec spec = filter.hash();
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (auto key : keys) {
      const std::uint64_t h = bloomkit::hash_key(key, spec);
      const auto& block = blocks[bloomkit::kernels::block_index(h, count)];
      if constexpr (Variant == 0) {
        hits += bloomkit::kernels::block_test_dispatched<P>(block, h, k);
#if BLOOMKIT_X86_KERNELS && defined(__SSE4_1__)
      } else if constexpr (Variant == 1) {
        hits += P::test_sse41(block, h, k);
#endif
      } else {
        hits += P::test(block, h, k);
      }
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * keys.size()));
}
void BM_blocked_v2_dispatched(benchmark::State& s) { BM_blocked_v2<0>(s); }
void BM_blocked_v2_sse41(benchmark::State& s) { BM_blocked_v2<1>(s); }
void BM_blocked_v2_portable(benchmark::State& s) { BM_blocked_v2<2>(s); }

/// 10^6 decimal strings of even numbers below 2^62 (as python/bench/compare.py
/// makes its Arrow keys), as one column and as separate strings.
struct decimal_strings {
  std::string bytes;
  std::vector<std::int64_t> offsets{0};
  std::vector<std::string> keys;
  decimal_strings() {
    splitmix64 rng(2026);
    for (int i = 0; i < 1'000'000; ++i) {
      keys.push_back(std::to_string((rng() >> 3) * 2));
      bytes += keys.back();
      offsets.push_back(static_cast<std::int64_t>(bytes.size()));
    }
  }
};

const decimal_strings& strings() {
  static const decimal_strings s;
  return s;
}

bloomkit::hash_spec spec_of_arg(benchmark::State& state) {
  return bloomkit::hash_spec{state.range(0) == 0 ? bloomkit::hash_algorithm::xxh64 : bloomkit::hash_algorithm::xxh3_64, 0};
}

void BM_hash_column(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  const auto& s = strings();
  const std::size_t n = s.keys.size();
  std::vector<std::uint64_t> out(n);
  const auto* data = reinterpret_cast<const std::byte*>(s.bytes.data());
  for (auto _ : state) {
    bloomkit::hash_strings(data, std::span<const std::int64_t>(s.offsets), spec_of_arg(state), std::span<std::uint64_t>(out));
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["per_string"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  bloomkit::reset_kernel();
}

void BM_hash_key_strings(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  const auto& s = strings();
  const std::size_t n = s.keys.size();
  std::vector<std::uint64_t> out(n);
  for (auto _ : state) {
    bloomkit::batch_hash_into(s.keys.data(), n, spec_of_arg(state), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["per_string"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  bloomkit::reset_kernel();
}

void BM_hash_u64(benchmark::State& state, kernel k) {
  if (!select(state, k)) return;
  const auto keys = random_hashes(std::size_t{1} << 16, 9);
  std::vector<std::uint64_t> out(keys.size());
  for (auto _ : state) {
    bloomkit::batch_hash_into(keys.data(), keys.size(), spec_of_arg(state), out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["per_key"] = benchmark::Counter(static_cast<double>(keys.size()), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  bloomkit::reset_kernel();
}

/// The filter and keys of the BM_key_type rows: 256 blocks (8 KiB, in L1)
/// holding 2000 keys; the lookups are 2^12 random uint64 (mostly absent).
struct key_type_ab {
  explicit key_type_ab(bloomkit::key_type t)
      : filter(bloomkit::block_filter_params{256, 8, 2000, 0.01, bloomkit::parquet_hash_spec}),
        keys(random_hashes(std::size_t{1} << 12, 21)) {
    filter.adopt_key_type(t);
    for (std::uint64_t i = 0; i < 2000; ++i) filter.insert_hash(i * 0x9e3779b97f4a7c15ULL);
    for (const auto k : keys) narrow.push_back(static_cast<std::int32_t>(k));
  }
  bloomkit::split_block_bloom filter;
  std::vector<std::uint64_t> keys;
  std::vector<std::int32_t> narrow;
};

bloomkit::key_type key_type_of_path(std::int64_t path) {
  return path >= 2 ? bloomkit::key_type::int64 : bloomkit::key_type::unspecified;
}

void BM_key_type_single(benchmark::State& state) {
  const std::int64_t path = state.range(0);
  const key_type_ab ab(key_type_of_path(path));
  const auto& f = ab.filter;
  std::uint64_t hits = 0;
  for (auto _ : state) {
    if (path == 3) {
      for (const auto k : ab.narrow) hits += f.may_contain(k);
    } else {
      for (const auto k : ab.keys) hits += f.may_contain(k);
    }
  }
  benchmark::DoNotOptimize(hits);
  state.counters["per_key"] = benchmark::Counter(static_cast<double>(ab.keys.size()),
                                                 benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_key_type_batch(benchmark::State& state) {
  const std::int64_t path = state.range(0);
  const key_type_ab ab(key_type_of_path(path));
  const auto& f = ab.filter;
  const std::size_t n = ab.keys.size();
  std::unique_ptr<bool[]> out(new bool[n]);
  for (auto _ : state) {
    if (path == 3) {
      f.may_contain_keys(std::span<const std::int32_t>(ab.narrow), std::span<bool>(out.get(), n));
    } else {
      f.may_contain_keys(std::span<const std::uint64_t>(ab.keys), std::span<bool>(out.get(), n));
    }
    benchmark::DoNotOptimize(out.get());
  }
  state.counters["per_key"] = benchmark::Counter(static_cast<double>(n),
                                                 benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

/// O = state.range(0) (see the header comment), N = state.range(1). The
/// lookups' filter holds the first half of the queried keys; an insert
/// batch clears the filter first (not timed), so every batch fills the same
/// empty counters.
void BM_counting_batch(benchmark::State& state) {
  const std::int64_t op = state.range(0);
  const auto n = static_cast<std::size_t>(state.range(1));
  bloomkit::counting_bloom filter(n, 0.01);
  auto keys = random_hashes(n, 31);
  filter.insert_many(std::span<const std::uint64_t>(keys.data(), n / 2));
  const auto absent = random_hashes(n - n / 2, 32);
  std::copy(absent.begin(), absent.end(), keys.begin() + static_cast<std::ptrdiff_t>(n / 2));
  std::unique_ptr<bool[]> out(new bool[n]);
  const std::span<const std::uint64_t> all(keys);
  for (auto _ : state) {
    switch (op) {
      case 0: filter.may_contain_many(all, std::span<bool>(out.get(), n)); break;
      case 2: filter.may_contain_keys(all, std::span<bool>(out.get(), n)); break;
      default:
        state.PauseTiming();
        filter.clear();
        state.ResumeTiming();
        if (op == 1) filter.insert_many(all); else filter.insert_keys(all);
    }
    benchmark::DoNotOptimize(out.get());
    benchmark::ClobberMemory();
  }
  state.counters["per_key"] = benchmark::Counter(static_cast<double>(n),
                                                 benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

}  // namespace

// BENCHMARK_CAPTURE pastes the function name into an identifier, so each
// template instance gets a plain name first.
void BM_split_block_test(benchmark::State& s, kernel k) { BM_kernel_test<bloomkit::split_block_bloom>(s, k); }
void BM_blocked_test(benchmark::State& s, kernel k) { BM_kernel_test<bloomkit::blocked_bloom>(s, k); }
void BM_split_block_set(benchmark::State& s, kernel k) { BM_kernel_set<bloomkit::split_block_bloom>(s, k); }
void BM_blocked_set(benchmark::State& s, kernel k) { BM_kernel_set<bloomkit::blocked_bloom>(s, k); }
void BM_split_block_single(benchmark::State& s, kernel k) { BM_single_dispatched<bloomkit::split_block_bloom>(s, k); }
void BM_blocked_single(benchmark::State& s, kernel k) { BM_single_dispatched<bloomkit::blocked_bloom>(s, k); }

BENCHMARK_CAPTURE(BM_split_block_test, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_split_block_test, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_split_block_test, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_test, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_blocked_test, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_blocked_test, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_test, avx512, kernel::avx512);
BENCHMARK_CAPTURE(BM_split_block_set, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_split_block_set, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_split_block_set, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_set, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_blocked_set, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_blocked_set, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_set, avx512, kernel::avx512);
BENCHMARK_CAPTURE(BM_split_block_single, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_split_block_single, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_split_block_single, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_single, scalar, kernel::scalar);
BENCHMARK_CAPTURE(BM_blocked_single, sse41, kernel::sse41);
BENCHMARK_CAPTURE(BM_blocked_single, avx2, kernel::avx2);
BENCHMARK_CAPTURE(BM_blocked_single, avx512, kernel::avx512);
BENCHMARK(BM_single_scalar_direct<bloomkit::split_block_bloom>);
BENCHMARK(BM_single_scalar_direct<bloomkit::blocked_bloom>);
BENCHMARK(BM_big_single_inlined);
BENCHMARK(BM_big_single_dispatched);
BENCHMARK(BM_blocked_v2_dispatched)->Arg(1'000'000)->Arg(100'000'000);
BENCHMARK(BM_blocked_v2_sse41)->Arg(1'000'000)->Arg(100'000'000);
BENCHMARK(BM_blocked_v2_portable)->Arg(1'000'000)->Arg(100'000'000);
BENCHMARK(BM_no_prefetch);
BENCHMARK(BM_window<1>);
BENCHMARK(BM_window<4>);
BENCHMARK(BM_window<8>);
BENCHMARK(BM_window<16>);
BENCHMARK(BM_window<32>);
BENCHMARK(BM_window<64>);
BENCHMARK(BM_window<128>);
BENCHMARK(BM_standard_prefetch<1>);
BENCHMARK(BM_standard_prefetch<2>);
BENCHMARK(BM_standard_prefetch<3>);
BENCHMARK(BM_standard_prefetch<7>);
BENCHMARK_CAPTURE(BM_hash_column, scalar, kernel::scalar)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_column, avx2, kernel::avx2)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_column, avx512, kernel::avx512)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_key_strings, scalar, kernel::scalar)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_key_strings, avx512, kernel::avx512)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_u64, scalar, kernel::scalar)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_u64, avx2, kernel::avx2)->Arg(0)->Arg(1);
BENCHMARK_CAPTURE(BM_hash_u64, avx512, kernel::avx512)->Arg(0)->Arg(1);

BENCHMARK(BM_key_type_single)->Arg(1)->Arg(2)->Arg(3);
BENCHMARK(BM_key_type_batch)->Arg(1)->Arg(2)->Arg(3);
BENCHMARK(BM_counting_batch)->ArgsProduct({{0, 1, 2, 3}, {1'000'000, 10'000'000}});

BENCHMARK_MAIN();
