// tools/bloomkit/demo.cpp - `bloomkit demo`: every filter kind built for the
// same keys, its measured FPR beside the formula's, then what happens when a
// filter is filled past its capacity.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

namespace {

struct demo_options {
  std::uint64_t keys = 1'000'000;
  double fpr = 0.01;
  std::uint64_t seed = 42;
};

/// Distinct pseudo-random 64-bit keys: present keys from one stream, absent
/// keys from another (a collision between them has probability ~1e-7 and
/// would only count as a false positive).
std::vector<std::uint64_t> make_keys(std::uint64_t count, std::uint64_t seed) {
  splitmix64 rng(seed);
  std::vector<std::uint64_t> keys(count);
  for (auto& key : keys) key = rng();
  return keys;
}

struct row {
  std::string kind;
  double bits_per_key;
  std::uint32_t k;
  double predicted;
  double measured;
  double estimated;
  bool saturated;
  std::uint64_t false_negatives;
};

template <class Filter>
row measure(const std::string& kind, Filter& filter, double predicted, const std::vector<std::uint64_t>& present,
            const std::vector<std::uint64_t>& absent) {
  for (auto key : present) filter.insert(key);
  std::uint64_t false_negatives = 0;
  for (auto key : present) false_negatives += filter.may_contain(key) ? 0 : 1;
  std::uint64_t positives = 0;
  for (auto key : absent) positives += filter.may_contain(key) ? 1 : 0;
  return row{kind,
             static_cast<double>(filter.bit_count()) / static_cast<double>(present.size()),
             filter.num_hashes(),
             predicted,
             static_cast<double>(positives) / static_cast<double>(absent.size()),
             filter.estimated_fpr(),
             filter.saturated(),
             false_negatives};
}

void print_rows(const std::vector<row>& rows) {
  std::printf("%-20s %9s %3s %11s %11s %11s %10s %6s\n", "kind", "bits/key", "k", "predicted", "measured",
              "estimated", "saturated", "FN");
  for (const auto& r : rows) {
    std::printf("%-20s %9.3f %3u %10.4f%% %10.4f%% %10.4f%% %10s %6llu\n", r.kind.c_str(), r.bits_per_key, r.k,
                100 * r.predicted, 100 * r.measured, 100 * r.estimated, r.saturated ? "YES" : "no",
                static_cast<unsigned long long>(r.false_negatives));
  }
}

int run_demo(const demo_options& options) {
  const auto start = std::chrono::steady_clock::now();
  const auto present = make_keys(options.keys, options.seed);
  const auto absent = make_keys(options.keys, options.seed ^ 0x5bd1e9955bd1e995ULL);
  const double n = static_cast<double>(options.keys);

  std::printf("bloomkit demo: %llu keys inserted, %llu absent keys queried, target FPR %.4g%%\n\n",
              static_cast<unsigned long long>(options.keys), static_cast<unsigned long long>(absent.size()),
              100 * options.fpr);
  std::printf("predicted = the library's formula for this layout at n keys; measured = false positives among\n"
              "the absent keys; estimated = what the filter reports from its own bits (estimated_fpr()).\n\n");

  std::vector<row> rows;
  {
    standard_bloom filter(options.keys, options.fpr);
    const double predicted = sizing::exact_fpr(static_cast<double>(filter.bit_count()), n, filter.num_hashes());
    rows.push_back(measure("standard_bloom", filter, predicted, present, absent));
  }
  {
    blocked_bloom filter(options.keys, options.fpr);
    const double predicted = sizing::blocked_fpr(static_cast<double>(filter.bit_count()), n, filter.num_hashes(), 512);
    rows.push_back(measure("blocked_bloom", filter, predicted, present, absent));
  }
  {
    split_block_bloom filter(options.keys, options.fpr);
    const double predicted = sizing::split_block_fpr(static_cast<double>(filter.num_blocks()), n);
    rows.push_back(measure("split_block_bloom", filter, predicted, present, absent));
  }
  print_rows(rows);

  // Past capacity: a filter sized for n/2 keys receives n. It keeps answering
  // (no false negatives), but it says it is saturated and reports the FPR its
  // bits really give.
  std::printf("\nPast capacity: each filter sized for %llu keys at %.4g%% receives %llu (2x):\n\n",
              static_cast<unsigned long long>(options.keys / 2), 100 * options.fpr,
              static_cast<unsigned long long>(options.keys));
  std::vector<row> over;
  {
    standard_bloom filter(options.keys / 2, options.fpr);
    const double predicted = sizing::exact_fpr(static_cast<double>(filter.bit_count()), n, filter.num_hashes());
    over.push_back(measure("standard_bloom", filter, predicted, present, absent));
  }
  {
    blocked_bloom filter(options.keys / 2, options.fpr);
    const double predicted = sizing::blocked_fpr(static_cast<double>(filter.bit_count()), n, filter.num_hashes(), 512);
    over.push_back(measure("blocked_bloom", filter, predicted, present, absent));
  }
  {
    split_block_bloom filter(options.keys / 2, options.fpr);
    const double predicted = sizing::split_block_fpr(static_cast<double>(filter.num_blocks()), n);
    over.push_back(measure("split_block_bloom", filter, predicted, present, absent));
  }
  print_rows(over);
  for (const auto& r : over) {
    if (r.saturated) {
      std::printf("warning: %s is past its design capacity: it now answers \"maybe\" for %.1f%% of absent keys "
                  "(designed for %.4g%%)\n",
                  r.kind.c_str(), 100 * r.estimated, 100 * options.fpr);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\ndone in %.2f s\n", seconds);
  return exit_ok;
}

}  // namespace

void register_demo(CLI::App& app, command_table& table) {
  auto options = std::make_shared<demo_options>();
  CLI::App* sub = app.add_subcommand("demo", "Build every filter kind for the same keys; measured vs predicted FPR");
  sub->add_option("--keys,-n", options->keys, "keys to insert (default 1000000)")->check(CLI::Range(2ULL, 1ULL << 32));
  sub->add_option("--fpr,-p", options->fpr, "target false-positive rate (default 0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  sub->add_option("--seed", options->seed, "seed of the key generator (default 42)");
  table.emplace_back(sub, [options] { return run_demo(*options); });
}

}  // namespace bloomkit::cli
