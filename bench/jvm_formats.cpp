// bench/jvm_formats.cpp - bloomkit answering on Spark- and Guava-format filters,
// and bloomkit's own kinds in the same memory (BENCHMARKS.md, "Spark and Guava
// formats").
//
//   bloomkit_jvm_bench BITS [BITS...]
//
// For each BITS: n = BITS / 10 keys (about 10 bits per key), the filters
// Spark's BloomFilter.create(V2, n, BITS) and Guava's create(longFunnel, n, p)
// make (p chosen so Guava's m is BITS), and standard_bloom, blocked_bloom and
// split_block_bloom with BITS bits (split-block: BITS / 256 blocks) and their
// best k. Keys are the SplitMix64 stream the JVM harness's `bench` uses
// (tests/jvm Harness.java), so the JVM's mightContain and these loops ask the
// same filters the same keys. Per filter: ns per query for n present and n
// absent keys (median of 3, steady clock, one key per call), and the
// measured FPR on the absent keys.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/guava_bloom.hpp"
#include "bloomkit/spark_bloom.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"

namespace {

/// The harness's key stream: SplitMix64 from state 12345 (Steele et al. 2014).
struct key_stream {
  std::uint64_t state = 12345;
  std::int64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::int64_t>(z ^ (z >> 31));
  }
};

template <class Query>
double median_ns(const std::vector<std::int64_t>& keys, Query&& query, std::uint64_t& hits) {
  std::vector<double> runs;
  for (int r = 0; r < 3; ++r) {
    std::uint64_t h = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::int64_t k : keys) h += query(k) ? 1 : 0;
    const auto t1 = std::chrono::steady_clock::now();
    runs.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(keys.size()));
    hits = h;
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

template <class Filter, class Query>
void report(const char* name, std::uint64_t bits, const Filter& f, const std::vector<std::int64_t>& present,
            const std::vector<std::int64_t>& absent, Query&& query) {
  std::uint64_t hits_present = 0, hits_absent = 0;
  const double ns_present = median_ns(present, [&](std::int64_t k) { return query(f, k); }, hits_present);
  const double ns_absent = median_ns(absent, [&](std::int64_t k) { return query(f, k); }, hits_absent);
  if (hits_present != present.size()) {
    std::fprintf(stderr, "%s: a false negative (%llu of %zu)\n", name, static_cast<unsigned long long>(hits_present),
                 present.size());
    std::exit(1);
  }
  std::printf("bloomkit %-22s bits=%llu n=%zu present_ns=%.2f absent_ns=%.2f fpr=%.4f%%\n", name,
              static_cast<unsigned long long>(bits), present.size(), ns_present, ns_absent,
              100.0 * static_cast<double>(hits_absent) / static_cast<double>(absent.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bloomkit_jvm_bench BITS [BITS...]\n");
    return 1;
  }
  for (int a = 1; a < argc; ++a) {
    const std::uint64_t bits = std::strtoull(argv[a], nullptr, 10);
    const std::size_t n = static_cast<std::size_t>(bits / 10);
    key_stream keys;
    std::vector<std::int64_t> present(n), absent(n);
    for (auto& k : present) k = keys.next();
    for (auto& k : absent) k = keys.next();

    auto spark = bloomkit::spark_bloom::create(bloomkit::spark_bloom_version::v2, n, bits);
    // Guava sizes from (n, p): p = exp(-(m/n) ln^2 2) gives m = BITS (up to rounding).
    const double ln2 = std::log(2.0);
    auto guava = bloomkit::guava_bloom::create(n, std::exp(-static_cast<double>(bits) / static_cast<double>(n) * ln2 * ln2));
    const std::uint32_t k = static_cast<std::uint32_t>(std::lround(10 * ln2));
    bloomkit::standard_bloom standard(bloomkit::standard_bloom_params{bits, k, n, 0.01, {}});
    bloomkit::blocked_bloom blocked(bloomkit::block_filter_params{bits / 512, 7, n, 0.01, {}});
    bloomkit::split_block_bloom split(bloomkit::block_filter_params{bits / 256, 8, n, 0.01, {}});
    for (const std::int64_t key : present) {
      spark.insert_long(key);
      guava.insert(key);
      standard.insert(key);
      blocked.insert(key);
      split.insert(key);
    }
    report("spark_bloom (v2)", spark.bit_count(), spark, present, absent,
           [](const bloomkit::spark_bloom& f, std::int64_t key) { return f.may_contain_long(key); });
    report("guava_bloom (MITZ_64)", guava.bit_count(), guava, present, absent,
           [](const bloomkit::guava_bloom& f, std::int64_t key) { return f.may_contain(key); });
    report("standard_bloom", bits, standard, present, absent,
           [](const bloomkit::standard_bloom& f, std::int64_t key) { return f.may_contain(key); });
    report("blocked_bloom", bits, blocked, present, absent,
           [](const bloomkit::blocked_bloom& f, std::int64_t key) { return f.may_contain(key); });
    report("split_block_bloom", bits, split, present, absent,
           [](const bloomkit::split_block_bloom& f, std::int64_t key) { return f.may_contain(key); });
    std::fflush(stdout);
  }
  return 0;
}
