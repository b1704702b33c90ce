// bench/kinds_bench.cpp - the deletion, window and k-mer kinds in one process, one run.
//
//   bloomkit_kinds_bench [--only deletion|window|kmers] [n ...]   (default n = 10^6 10^7)
//
// 1. cuckoo_filter against counting_bloom (the two kinds that delete) and
//    blocked_bloom at p = 1 % and 0.1 %: bits/key, measured FPR, ns per
//    insert, per positive / negative lookup (single and batched), per remove.
// 2. age_partitioned_bloom (window n, p = 1 %): ns per insert, per lookup.
// 3. k-mers: canonical 31-mers of a random sequence through for_each_kmer +
//    hash + blocked_bloom insert, against the plain u64 path (the same
//    k-mers precomputed as integers, hash + insert), in k-mers/s.
// Times are this thread's CPU time, best of 3 rounds (a shared machine's
// neighbours hurt every candidate alike).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/age_partitioned_bloom.hpp"
#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/kmer.hpp"

namespace {

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

constexpr int rounds = 3;
std::uint64_t sink = 0;

/// Best of `rounds` runs of f(), in ns per item.
template <class F>
double best_ns(std::uint64_t items, F&& f) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const double t = cpu_ns();
    f();
    best = std::min(best, (cpu_ns() - t) / static_cast<double>(items));
  }
  return best;
}

template <class Filter>
double lookup_single(const Filter& f, const std::vector<std::uint64_t>& q) {
  return best_ns(q.size(), [&] {
    std::uint64_t hits = 0;
    for (const auto h : q) hits += f.may_contain_hash(h);
    sink += hits;
  });
}

template <class Filter>
double lookup_batched(const Filter& f, const std::vector<std::uint64_t>& q) {
  std::unique_ptr<bool[]> out(new bool[1024]);
  return best_ns(q.size(), [&] {
    std::uint64_t hits = 0;
    for (std::size_t i = 0; i < q.size(); i += 1024) {
      const std::size_t m = std::min<std::size_t>(1024, q.size() - i);
      f.may_contain_many(std::span<const std::uint64_t>(q.data() + i, m), std::span<bool>(out.get(), m));
      for (std::size_t j = 0; j < m; ++j) hits += out[j];
    }
    sink += hits;
  });
}

template <class Filter>
double measured_fpr(const Filter& f, const std::vector<std::uint64_t>& negatives) {
  std::uint64_t hits = 0;
  for (const auto h : negatives) hits += f.may_contain_hash(h);
  return static_cast<double>(hits) / static_cast<double>(negatives.size());
}

void deletion_kinds(std::uint64_t n, double p) {
  const auto keys = random_hashes(n, 1);
  const auto negatives = random_hashes(n, 2);
  std::printf("\n## n = %llu, p = %g\n\n", static_cast<unsigned long long>(n), p);
  std::printf("| filter | bits/key | FPR | insert ns | pos ns | neg ns | pos batched | neg batched | remove ns |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  {
    double insert = 1e30, remove = 1e30;
    std::unique_ptr<bloomkit::cuckoo_filter> f;
    for (int r = 0; r < rounds; ++r) {
      f = std::make_unique<bloomkit::cuckoo_filter>(n, p);
      double t = cpu_ns();
      for (const auto h : keys) f->insert_hash(h);
      insert = std::min(insert, (cpu_ns() - t) / static_cast<double>(n));
      if (r + 1 < rounds) {
        t = cpu_ns();
        for (const auto h : keys) f->remove_hash(h);
        remove = std::min(remove, (cpu_ns() - t) / static_cast<double>(n));
      }
    }
    std::printf("| cuckoo f=%u | %.2f | %.5f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", f->fingerprint_bits(),
                static_cast<double>(f->size_in_bytes()) * 8.0 / static_cast<double>(n), measured_fpr(*f, negatives),
                insert, lookup_single(*f, keys), lookup_single(*f, negatives), lookup_batched(*f, keys),
                lookup_batched(*f, negatives), remove);
  }
  {
    double insert = 1e30, remove = 1e30;
    std::unique_ptr<bloomkit::counting_bloom> f;
    for (int r = 0; r < rounds; ++r) {
      f = std::make_unique<bloomkit::counting_bloom>(n, p);
      double t = cpu_ns();
      for (const auto h : keys) f->insert_hash(h);
      insert = std::min(insert, (cpu_ns() - t) / static_cast<double>(n));
      if (r + 1 < rounds) {
        t = cpu_ns();
        for (const auto h : keys) f->remove_hash(h);
        remove = std::min(remove, (cpu_ns() - t) / static_cast<double>(n));
      }
    }
    std::printf("| counting_bloom k=%u | %.2f | %.5f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", f->num_hashes(),
                static_cast<double>(f->size_in_bytes()) * 8.0 / static_cast<double>(n), measured_fpr(*f, negatives),
                insert, lookup_single(*f, keys), lookup_single(*f, negatives), lookup_batched(*f, keys),
                lookup_batched(*f, negatives), remove);
  }
  {
    double insert = 1e30;
    std::unique_ptr<bloomkit::blocked_bloom> f;
    for (int r = 0; r < rounds; ++r) {
      f = std::make_unique<bloomkit::blocked_bloom>(n, p);
      const double t = cpu_ns();
      for (const auto h : keys) f->insert_hash(h);
      insert = std::min(insert, (cpu_ns() - t) / static_cast<double>(n));
    }
    std::printf("| blocked_bloom (no delete) | %.2f | %.5f | %.1f | %.1f | %.1f | %.1f | %.1f | - |\n",
                static_cast<double>(f->size_in_bytes()) * 8.0 / static_cast<double>(n), measured_fpr(*f, negatives),
                insert, lookup_single(*f, keys), lookup_single(*f, negatives), lookup_batched(*f, keys),
                lookup_batched(*f, negatives));
  }
}

/// One window filter's row: bits per window key, m, g, FPR measured on
/// `negatives`, the bound and the mean, and ns per insert / lookup.
void window_row(const char* name, bloomkit::age_partitioned_bloom f, std::uint64_t n,
                const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& negatives) {
  const double insert = best_ns(keys.size(), [&] {
    for (const auto h : keys) f.insert_hash(h);
  });
  const std::vector<std::uint64_t> recent(keys.end() - static_cast<std::ptrdiff_t>(n), keys.end());
  std::printf("| %s | %.2f | %llu | %llu | %.5f | %.5f | %.5f | %.1f | %.1f | %.1f |\n", name,
              static_cast<double>(f.size_in_bytes()) * 8.0 / static_cast<double>(n),
              static_cast<unsigned long long>(f.params().slice_bits),
              static_cast<unsigned long long>(f.params().generation_keys), measured_fpr(f, negatives), f.design_fpr(),
              f.expected_design_fpr(), insert, lookup_single(f, recent), lookup_single(f, negatives));
}

void window_kind(std::uint64_t n) {
  const auto planned = bloomkit::age_partitioned_bloom::plan_params(n, 0.01);
  const auto keys = random_hashes(4 * n, 3);
  const auto negatives = random_hashes(n, 4);
  std::printf("\n## age_partitioned_bloom, window %llu, p = 0.01 (k=%u l=%u)\n\n", static_cast<unsigned long long>(n),
              planned.k, planned.l);
  std::printf(
      "| probes | bits per window key | m bits per slice | g keys per generation | FPR measured | FPR bound "
      "(design_fpr) | mean FPR at the worst phase | insert ns | pos ns | neg ns |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  window_row("independent (new filters)", bloomkit::age_partitioned_bloom(planned), n, keys, negatives);
  // The same layout with the double-hashed probes of files before format
  // version 3: what the per-slice mixing costs, in the same run.
  auto old = planned;
  old.probes = bloomkit::apbf_probes::double_hashing;
  window_row("double hashing (files before v3)", bloomkit::age_partitioned_bloom(old), n, keys, negatives);
}

void kmers(std::uint64_t bases) {
  bloomkit::splitmix64 rng(5);
  std::string seq(bases, 'A');
  for (char& c : seq) c = "ACGT"[rng() % 4];
  std::vector<std::uint64_t> ints;
  ints.reserve(bases);
  bloomkit::for_each_kmer(seq, 31, true, [&](std::uint64_t x) { ints.push_back(x); });
  bloomkit::blocked_bloom f(ints.size(), 0.01);
  const bloomkit::hash_spec spec = f.hash();
  const double rolling = best_ns(ints.size(), [&] {
    bloomkit::for_each_kmer(seq, 31, true, [&](std::uint64_t x) { f.insert_hash(bloomkit::hash_key(x, spec)); });
  });
  const double plain = best_ns(ints.size(), [&] {
    for (const auto x : ints) f.insert_hash(bloomkit::hash_key(x, spec));
  });
  const double encode_only = best_ns(ints.size(), [&] {
    std::uint64_t acc = 0;
    bloomkit::for_each_kmer(seq, 31, true, [&](std::uint64_t x) { acc += x; });
    sink += acc;
  });
  std::printf("\n## k-mers (k = 31, canonical, %llu bases) into blocked_bloom at 1 %%\n\n",
              static_cast<unsigned long long>(bases));
  std::printf("| path | ns/k-mer | M k-mers/s |\n|---|---|---|\n");
  std::printf("| sequence -> for_each_kmer -> hash -> insert | %.2f | %.1f |\n", rolling, 1e3 / rolling);
  std::printf("| precomputed u64 -> hash -> insert (plain u64 path) | %.2f | %.1f |\n", plain, 1e3 / plain);
  std::printf("| for_each_kmer alone (rolling encode) | %.2f | %.1f |\n", encode_only, 1e3 / encode_only);
  std::printf("\nratio rolling / plain: %.2f\n", rolling / plain);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  std::string only;  // one section of the three, or all
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--only" && i + 1 < argc) {
      only = argv[++i];
      if (only != "deletion" && only != "window" && only != "kmers") {
        std::fprintf(stderr, "bloomkit_kinds_bench: --only takes deletion, window or kmers, got \"%s\"\n", only.c_str());
        return 1;
      }
      continue;
    }
    sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  }
  if (sizes.empty()) sizes = {1'000'000, 10'000'000};
  std::printf("# bloomkit_kinds_bench (thread CPU time, best of %d)\n", rounds);
  if (only.empty() || only == "deletion") {
    for (const auto n : sizes) {
      for (const double p : {0.01, 0.001}) deletion_kinds(n, p);
    }
  }
  if (only.empty() || only == "window") {
    for (const auto n : sizes) window_kind(n);
  }
  if (only.empty() || only == "kmers") kmers(sizes.front() * 10);
  std::fprintf(stderr, "(sink %llu)\n", static_cast<unsigned long long>(sink));
  return 0;
}
