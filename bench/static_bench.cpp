// bench/static_bench.cpp - static filters (binary fuse, Ribbon) beside the
// Parquet split-block Bloom filter at the same n, in one process.
//
//   bloomkit_static_bench [n ...]          lookup table (default n = 10^6 10^7)
//   bloomkit_static_bench --build KIND N   build one filter of N keys and exit
//                                          (KIND: fuse8, fuse8x4, fuse16, ribbon7,
//                                          ribbon8, bumped7, bumped8: the bumped
//                                          Ribbon); run under /usr/bin/time -v for
//                                          the construction's peak RSS
//
// Per filter: bits/key, measured FPR, build ns/key, and ns per lookup for
// positive, negative and mixed (50/50) queries, one at a time (a dependent
// chain is avoided: each answer is only summed) and batched (may_contain_many,
// prefetching). Each lookup figure is the best of `rounds` interleaved rounds,
// so a noisy neighbour hurts every filter alike; times are thread CPU time. Ratios are against
// split_block_bloom at FPR 1/256 (the binary_fuse8 / ribbon8 FPR).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit_internal/kernels.hpp"
#include "bloomkit/binary_fuse.hpp"
#include "bloomkit/ribbon.hpp"
#include "bloomkit/split_block_bloom.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

/// This thread's CPU time in ns: on a shared machine, wall time counts the
/// time other processes held the core, which differs between filters.
double cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

std::vector<std::uint64_t> random_hashes(std::uint64_t n, std::uint64_t seed) {
  bloomkit::splitmix64 g(seed);
  std::vector<std::uint64_t> out(n);
  for (auto& h : out) h = g();
  return out;
}

struct candidate {
  std::string name;
  double bits_per_key = 0;
  double fpr = 0;
  double build_ns = 0;
  double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};  // pos, neg, mixed; batched pos, neg, mixed
};

template <class F>
double time_single(const F& filter, const std::vector<std::uint64_t>& queries, std::uint64_t& sink) {
  const double t = cpu_ns();
  std::uint64_t hits = 0;
  for (const auto q : queries) hits += filter.may_contain_hash(q);
  sink += hits;
  return (cpu_ns() - t) / static_cast<double>(queries.size());
}

template <class F>
double time_batched(const F& filter, const std::vector<std::uint64_t>& queries, bool* out, std::uint64_t& sink) {
  const double t = cpu_ns();
  constexpr std::size_t batch = 1024;
  std::uint64_t hits = 0;
  for (std::size_t i = 0; i < queries.size(); i += batch) {
    const std::size_t m = std::min(batch, queries.size() - i);
    filter.may_contain_many(std::span<const std::uint64_t>(queries.data() + i, m), std::span<bool>(out, m));
    for (std::size_t j = 0; j < m; ++j) hits += out[j];
  }
  sink += hits;
  return (cpu_ns() - t) / static_cast<double>(queries.size());
}

int build_only(const std::string& kind, std::uint64_t n) {
  const auto keys = random_hashes(n, 1);
  const auto t = clock_type::now();
  double bpk = 0;
  std::uint32_t attempts = 0;
  if (kind == "fuse8" || kind == "fuse8x4" || kind == "fuse16") {
    bloomkit::binary_fuse_options o;
    o.arity = kind == "fuse8x4" ? 4 : 3;
    if (kind == "fuse16") {
      const bloomkit::binary_fuse16 f(keys, o);
      bpk = f.bits_per_key();
      attempts = f.attempts();
    } else {
      const bloomkit::binary_fuse8 f(keys, o);
      bpk = f.bits_per_key();
      attempts = f.attempts();
    }
  } else if (kind == "ribbon7" || kind == "ribbon8" || kind == "bumped7" || kind == "bumped8") {
    bloomkit::ribbon_options o;
    o.result_bits = kind.back() == '7' ? 7 : 8;
    if (kind.starts_with("bumped")) o.layout = bloomkit::ribbon_layout::bumped;
    const bloomkit::ribbon f(keys, o);
    bpk = f.bits_per_key();
    attempts = f.attempts();
    std::printf("ribbon: %.4f x log2(1/p)\n", bpk / o.result_bits);
  } else {
    std::fprintf(stderr, "static_bench: unknown kind %s\n", kind.c_str());
    return 2;
  }
  const double s = std::chrono::duration<double>(clock_type::now() - t).count();
  std::printf("%s n=%llu: %.3f bits/key, %u attempt(s), build %.2f s (%.0f ns/key); input %.0f MB\n", kind.c_str(),
              static_cast<unsigned long long>(n), bpk, attempts, s, s * 1e9 / static_cast<double>(n),
              static_cast<double>(n) * 8 / 1e6);
  return 0;
}

void table(std::uint64_t n) {
  constexpr int rounds = 5;
  const std::uint64_t q = 2'000'000;
  const auto keys = random_hashes(n, 1);
  bloomkit::splitmix64 g(2);
  std::vector<std::uint64_t> positive(q), negative(q), mixed(q);
  for (auto& x : positive) x = keys[bloomkit::kernels::reduce64(g(), n)];
  for (auto& x : negative) x = g();
  for (std::size_t i = 0; i < q; ++i) mixed[i] = (g() & 1) ? positive[i] : negative[i];
  auto out = std::make_unique<bool[]>(1024);
  std::uint64_t sink = 0;

  const auto t0 = clock_type::now();
  bloomkit::split_block_bloom sbbf(n, 1.0 / 256);
  sbbf.insert_many(keys);
  const auto t1 = clock_type::now();
  const bloomkit::binary_fuse8 fuse3(keys);
  const auto t2 = clock_type::now();
  bloomkit::binary_fuse_options four;
  four.arity = 4;
  const bloomkit::binary_fuse8 fuse4(keys, four);
  const auto t3 = clock_type::now();
  const bloomkit::binary_fuse16 fuse16(keys);
  const auto t4 = clock_type::now();
  bloomkit::ribbon_options r8;
  r8.result_bits = 8;
  const bloomkit::ribbon ribbon8(keys, r8);
  const auto t5 = clock_type::now();
  r8.layout = bloomkit::ribbon_layout::bumped;
  const bloomkit::ribbon bumped8(keys, r8);
  const auto t6 = clock_type::now();
  const auto ns_per_key = [n](auto a, auto b) {
    return std::chrono::duration<double, std::nano>(b - a).count() / static_cast<double>(n);
  };

  std::vector<candidate> c(6);
  c[0].name = "split_block_bloom p=1/256";
  c[1].name = "binary_fuse8 (3-wise)";
  c[2].name = "binary_fuse8 (4-wise)";
  c[3].name = "binary_fuse16 (3-wise)";
  c[4].name = "ribbon r=8 (w=128)";
  c[5].name = "ribbon r=8 bumped (BuRR)";
  c[0].build_ns = ns_per_key(t0, t1);
  c[1].build_ns = ns_per_key(t1, t2);
  c[2].build_ns = ns_per_key(t2, t3);
  c[3].build_ns = ns_per_key(t3, t4);
  c[4].build_ns = ns_per_key(t4, t5);
  c[5].build_ns = ns_per_key(t5, t6);
  c[0].bits_per_key = 8.0 * static_cast<double>(sbbf.size_in_bytes()) / static_cast<double>(n);
  c[1].bits_per_key = fuse3.bits_per_key();
  c[2].bits_per_key = fuse4.bits_per_key();
  c[3].bits_per_key = fuse16.bits_per_key();
  c[4].bits_per_key = ribbon8.bits_per_key();
  c[5].bits_per_key = bumped8.bits_per_key();

  const auto fpr_of = [&](const auto& f) {
    std::uint64_t fp = 0;
    for (const auto x : negative) fp += f.may_contain_hash(x);
    return static_cast<double>(fp) / static_cast<double>(q);
  };
  c[0].fpr = fpr_of(sbbf);
  c[1].fpr = fpr_of(fuse3);
  c[2].fpr = fpr_of(fuse4);
  c[3].fpr = fpr_of(fuse16);
  c[4].fpr = fpr_of(ribbon8);
  c[5].fpr = fpr_of(bumped8);

  const auto measure = [&](candidate& cand, const auto& f) {
    const std::vector<std::uint64_t>* sets[3] = {&positive, &negative, &mixed};
    for (int s = 0; s < 3; ++s) {
      cand.best[s] = std::min(cand.best[s], time_single(f, *sets[s], sink));
      cand.best[3 + s] = std::min(cand.best[3 + s], time_batched(f, *sets[s], out.get(), sink));
    }
  };
  for (int r = 0; r < rounds; ++r) {
    measure(c[0], sbbf);
    measure(c[1], fuse3);
    measure(c[2], fuse4);
    measure(c[3], fuse16);
    measure(c[4], ribbon8);
    measure(c[5], bumped8);
  }

  std::printf("\nn = %llu keys, %llu queries per set, best of %d rounds (ns per lookup)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(q), rounds);
  std::printf("%-26s %8s %9s %9s | %6s %6s %6s | %6s %6s %6s | %s\n", "filter", "bits/key", "FPR", "build ns", "pos",
              "neg", "mixed", "b.pos", "b.neg", "b.mix", "vs sbbf (mixed, batched mixed)");
  for (const auto& x : c) {
    std::printf("%-26s %8.3f %9.6f %9.1f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %.2fx %.2fx\n", x.name.c_str(),
                x.bits_per_key, x.fpr, x.build_ns, x.best[0], x.best[1], x.best[2], x.best[3], x.best[4], x.best[5],
                x.best[2] / c[0].best[2], x.best[5] / c[0].best[5]);
  }
  if (sink == 42) std::printf(" ");  // keeps the answers alive
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--build") {
    if (argc != 4) {
      std::fprintf(stderr, "usage: %s --build fuse8|fuse8x4|fuse16|ribbon7|ribbon8|bumped7|bumped8 N\n", argv[0]);
      return 2;
    }
    return build_only(argv[2], std::strtoull(argv[3], nullptr, 10));
  }
  std::vector<std::uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  for (const auto n : sizes) {
    if (n == 0) {
      std::fprintf(stderr, "static_bench: n must be a positive integer\n");
      return 2;
    }
    table(n);
  }
  return 0;
}
