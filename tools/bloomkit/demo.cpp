// tools/bloomkit/demo.cpp - `bloomkit demo`: every filter kind built for the
// same keys, its measured FPR beside the formula's, then what happens when a
// filter is filled past its capacity.
//
// The nine kinds the CLI builds: standard, blocked and split-block (sized
// for n at the target), counting (filled with n keys, then half of them
// removed: it answers as a filter of n/2), scalable (sized for n/16 and grown
// to n), the static binary fuse and ribbon (built from the n keys; their FPR
// is fixed by the fingerprint width, 2^-f), cuckoo (sized for n, FPR at its
// load) and window (a window of n/4 keys after all n went in: only the keys
// it guarantees count as present). --json prints one object per row.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bloomkit/bloomkit.hpp"
#include "commands.hpp"
#include "json_out.hpp"

namespace bloomkit::cli {

namespace {

struct demo_options {
  std::uint64_t keys = 1'000'000;
  double fpr = 0.01;
  std::uint64_t seed = 42;
  bool json = false;
};

/// Distinct pseudo-random 64-bit keys, used directly as hashes (they are
/// already uniform; every kind is then probed with the same values): present keys from one stream, absent
/// keys from another (a collision between them has probability ~1e-7 and
/// would only count as a false positive).
std::vector<std::uint64_t> make_keys(std::uint64_t count, std::uint64_t seed) {
  splitmix64 rng(seed);
  std::vector<std::uint64_t> keys(count);
  for (auto& key : keys) key = rng();
  return keys;
}

std::string format_percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

struct row {
  std::string kind;
  std::string note;  // what was done to it (e.g. "after removing 500000")
  double bits_per_key;
  std::string k;     // "7", or "-" where k does not apply
  double predicted;
  double measured;
  double estimated;
  bool saturated;
  std::uint64_t false_negatives;
};

/// Measures a filter already holding `present` (the keys that must answer
/// maybe) against `absent`.
template <class Filter>
row measure(std::string kind, std::string note, const Filter& filter, double predicted, double stored_keys,
            const std::vector<std::uint64_t>& present, const std::vector<std::uint64_t>& absent) {
  std::uint64_t false_negatives = 0;
  for (auto key : present) false_negatives += filter.may_contain_hash(key) ? 0 : 1;
  std::uint64_t positives = 0;
  for (auto key : absent) positives += filter.may_contain_hash(key) ? 1 : 0;
  std::string k = "-";
  if constexpr (requires { filter.num_hashes(); }) k = std::to_string(filter.num_hashes());
  return row{std::move(kind),
             std::move(note),
             static_cast<double>(filter.size_in_bytes()) * 8.0 / stored_keys,
             k,
             predicted,
             static_cast<double>(positives) / static_cast<double>(absent.size()),
             filter.estimated_fpr(),
             filter.saturated(),
             false_negatives};
}

void print_rows(const std::vector<row>& rows, const char* section, const demo_options& o) {
  if (o.json) {
    for (const auto& r : rows) {
      json_object j;
      j.field("section", section).field("kind", r.kind).field("note", r.note).field("bits_per_key", r.bits_per_key);
      if (r.k == "-") {
        j.null_field("k");
      } else {
        j.field("k", static_cast<std::uint64_t>(std::stoul(r.k)));
      }
      j.field("predicted_fpr", r.predicted)
          .field("measured_fpr", r.measured)
          .field("estimated_fpr", r.estimated)
          .field("saturated", r.saturated)
          .field("false_negatives", r.false_negatives);
      std::fputs(j.line().c_str(), stdout);
    }
    return;
  }
  std::printf("%-21s %9s %3s %11s %11s %11s %10s %4s  %s\n", "kind", "bits/key", "k", "predicted", "measured",
              "estimated", "saturated", "FN", "");
  for (const auto& r : rows) {
    std::printf("%-21s %9.3f %3s %10.4f%% %10.4f%% %10.4f%% %10s %4llu  %s\n", r.kind.c_str(), r.bits_per_key,
                r.k.c_str(), 100 * r.predicted, 100 * r.measured, 100 * r.estimated, r.saturated ? "YES" : "no",
                static_cast<unsigned long long>(r.false_negatives), r.note.c_str());
  }
}

int run_demo(const demo_options& o) {
  const auto start = std::chrono::steady_clock::now();
  const auto present = make_keys(o.keys, o.seed);
  const auto absent = make_keys(o.keys, o.seed ^ 0x5bd1e9955bd1e995ULL);
  const double n = static_cast<double>(o.keys);

  if (!o.json) {
    std::printf("bloomkit demo: %llu keys inserted, %llu absent keys queried, target FPR %.4g%%\n\n",
                static_cast<unsigned long long>(o.keys), static_cast<unsigned long long>(absent.size()),
                100 * o.fpr);
    std::printf("predicted = the library's formula for this layout; measured = false positives among the absent\n"
                "keys; estimated = what the filter reports from its own bits (estimated_fpr()). bits/key = memory\n"
                "over the keys it holds. FN = false negatives (always 0).\n\n");
  }

  std::vector<row> rows;
  {
    standard_bloom f(o.keys, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    rows.push_back(measure("standard_bloom", "", f, sizing::exact_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes()),
                           n, present, absent));
  }
  {
    blocked_bloom f(o.keys, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    rows.push_back(measure("blocked_bloom", "", f,
                           sizing::blocked_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes(), 512), n, present,
                           absent));
  }
  {
    split_block_bloom f(o.keys, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    rows.push_back(measure("split_block_bloom", "", f, sizing::split_block_fpr(static_cast<double>(f.num_blocks()), n),
                           n, present, absent));
  }
  {
    // Counting: all n keys in, then the first half removed. What remains
    // must still answer maybe, and the FPR falls to that of n/2 keys.
    counting_bloom f(o.keys, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    const std::size_t half = present.size() / 2;
    for (std::size_t i = 0; i < half; ++i) (void)f.remove_hash(present[i]);
    const std::vector<std::uint64_t> kept(present.begin() + static_cast<std::ptrdiff_t>(half), present.end());
    const double left = static_cast<double>(kept.size());
    rows.push_back(measure("counting_bloom", "after removing " + std::to_string(half) + " keys", f,
                           sizing::exact_fpr(static_cast<double>(f.counters()), left, f.num_hashes()), left, kept,
                           absent));
  }
  {
    // Scalable: sized for n/16, grown by stages to hold n.
    const std::uint64_t initial = std::max<std::uint64_t>(o.keys / 16, 1);
    scalable_bloom f(initial, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    rows.push_back(measure("scalable_bloom",
                           "sized for " + std::to_string(initial) + ", grew to " + std::to_string(f.stages()) +
                               " stages",
                           f, f.design_fpr(), n, present, absent));
  }
  {
    binary_fuse_options options;
    const binary_fuse8 f(present, options);
    rows.push_back(measure("binary_fuse8", "static: built from all keys", f, f.design_fpr(), n, present, absent));
  }
  {
    ribbon_options options;
    options.result_bits =
        static_cast<std::uint32_t>(std::clamp(std::ceil(-std::log2(o.fpr) - 1e-9), 1.0, 16.0));
    const ribbon f(present, options);
    rows.push_back(measure("ribbon", "static: r = " + std::to_string(options.result_bits), f, f.design_fpr(), n,
                           present, absent));
  }
  {
    // Cuckoo: sized for n; its predicted rate is the one at the load reached.
    cuckoo_filter f(o.keys, o.fpr);
    std::size_t stored = 0;
    while (stored < present.size() && f.try_insert_hash(present[stored]) == insert_result::inserted) ++stored;
    const std::vector<std::uint64_t> held(present.begin(), present.begin() + static_cast<std::ptrdiff_t>(stored));
    rows.push_back(measure("cuckoo_filter",
                           stored == present.size() ? std::string("load " + format_percent(f.load_factor()))
                                                    : "full after " + std::to_string(stored) + " keys",
                           f, f.estimated_fpr(), static_cast<double>(stored), held, absent));
  }
  {
    // Window: remembers the last n/4 keys. All n go in; the keys it must
    // still report are the last guaranteed_window() of them, and its FPR is
    // bounded by design_fpr() at every moment, not only at the end.
    const std::uint64_t window = std::max<std::uint64_t>(o.keys / 4, 1);
    age_partitioned_bloom f(window, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    const std::uint64_t kept = std::min<std::uint64_t>(f.guaranteed_window(), present.size());
    const std::vector<std::uint64_t> recent(present.end() - static_cast<std::ptrdiff_t>(kept), present.end());
    rows.push_back(measure("age_partitioned_bloom",
                           "window " + std::to_string(window) + " after " + std::to_string(o.keys) + " keys",
                           f, f.design_fpr(), static_cast<double>(window), recent, absent));
  }
  print_rows(rows, "at_capacity", o);

  // Past capacity: a filter sized for n/2 keys receives n. It keeps answering
  // (no false negatives), but it says it is saturated and reports the FPR its
  // bits really give. (A scalable filter grows instead; static filters hold
  // exactly the keys they were built from; a cuckoo filter refuses the key
  // that would overfill it; a window forgets old keys: none has this case.)
  if (!o.json) {
    std::printf("\nPast capacity: each filter sized for %llu keys at %.4g%% receives %llu (2x):\n\n",
                static_cast<unsigned long long>(o.keys / 2), 100 * o.fpr, static_cast<unsigned long long>(o.keys));
  }
  std::vector<row> over;
  {
    standard_bloom f(o.keys / 2, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    over.push_back(measure("standard_bloom", "", f, sizing::exact_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes()),
                           n, present, absent));
  }
  {
    blocked_bloom f(o.keys / 2, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    over.push_back(measure("blocked_bloom", "", f,
                           sizing::blocked_fpr(static_cast<double>(f.bit_count()), n, f.num_hashes(), 512), n, present,
                           absent));
  }
  {
    split_block_bloom f(o.keys / 2, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    over.push_back(measure("split_block_bloom", "", f, sizing::split_block_fpr(static_cast<double>(f.num_blocks()), n),
                           n, present, absent));
  }
  {
    counting_bloom f(o.keys / 2, o.fpr);
    for (const auto h : present) f.insert_hash(h);
    over.push_back(measure("counting_bloom", "", f, sizing::exact_fpr(static_cast<double>(f.counters()), n, f.num_hashes()),
                           n, present, absent));
  }
  print_rows(over, "past_capacity", o);
  if (!o.json) {
    for (const auto& r : over) {
      if (r.saturated) {
        std::printf("warning: %s is past its design capacity: it now answers \"maybe\" for %.1f%% of absent keys "
                    "(designed for %.4g%%)\n",
                    r.kind.c_str(), 100 * r.estimated, 100 * o.fpr);
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("\ndone in %.2f s\n", seconds);
  }
  return exit_ok;
}

}  // namespace

void register_demo(CLI::App& app, command_table& table) {
  auto options = std::make_shared<demo_options>();
  CLI::App* sub = app.add_subcommand("demo", "Build every filter kind (all 9) for the same keys; measured vs predicted FPR");
  sub->add_option("--keys,-n", options->keys, "keys to insert (default 1000000)")->check(CLI::Range(16ULL, 1ULL << 32));
  sub->add_option("--fpr,-p", options->fpr, "target false-positive rate (default 0.01)")
      ->check(CLI::Range(1e-9, 0.5));
  sub->add_option("--seed", options->seed, "seed of the key generator (default 42)");
  sub->add_flag("--json", options->json, "one JSON object per kind and section (at_capacity, past_capacity)");
  table.emplace_back(sub, [options] { return run_demo(*options); });
}

}  // namespace bloomkit::cli
