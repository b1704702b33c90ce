// web/expected.cpp - what the playground must show, computed natively.
//
// The browser tests (web/tests/) compare the page's figures with this
// program's. It deliberately does not include web/playground.hpp: it rebuilds
// the state from the library alone, walking the key stream sequentially with
// bloomkit::splitmix64 (member keys are outputs 0, 2, 4, ..., absent
// keys outputs 1, 3, 5, ...), so a slip in the driver's random-access key
// formula, its parameter mapping or the wasm build shows up as a mismatch.
//
//   expected --kind standard|split-block|counting --m BITS --k K --n N --seed S --tick T
//            [--inserts N2] [--remove-at T1,T2,...] [--fill] [--k-chart]
//
// prints one JSON object: the figures the page shows, the last keys and the
// bit array (words_hex; for counting, counters_hex too). --inserts: member
// keys inserted before the queries (default n; Saturate inserts more while
// n stays the capacity). --remove-at (counting): before the key of each
// listed tick, remove the oldest key still in. --fill adds keys_to_fill:
// member keys (from the start) after which every bit is set. --k-chart adds
// k_chart: for k = 1..16 the FPR measured on 10,000 absent keys with a
// standard filter of m bits holding the n keys, and the formula
// (1 - e^{-kn/m})^k computed here; for split-block also split_point (k = 8).
// Bad arguments: a message on stderr and exit status 2.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#if __has_include("bloomkit/counting_bloom.hpp")
#include "bloomkit/counting_bloom.hpp"
#define EXPECTED_COUNTING 1
#endif

namespace {

struct options {
  std::string kind = "standard";
  std::uint64_t bits = 1024, k = 3, n = 200, seed = 1, tick = 0, inserts = 0;
  std::vector<std::uint64_t> remove_at;
  bool fill = false, k_chart = false;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "expected: %s\nusage: expected --kind standard|split-block --m BITS --k K --n N --seed S --tick T "
               "[--fill]\n",
               why.c_str());
  std::exit(2);
}

std::uint64_t parse_u64(const char* name, const char* text) {
  if (*text < '0' || *text > '9') usage(std::string(name) + " needs a non-negative integer, got \"" + text + "\"");
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0') usage(std::string(name) + " needs a non-negative integer, got \"" + text + "\"");
  return value;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--fill") {
      o.fill = true;
      continue;
    }
    if (arg == "--k-chart") {
      o.k_chart = true;
      continue;
    }
    if (i + 1 >= argc) usage("missing value after " + arg);
    const char* value = argv[++i];
    if (arg == "--kind") o.kind = value;
    else if (arg == "--m") o.bits = parse_u64("--m", value);
    else if (arg == "--k") o.k = parse_u64("--k", value);
    else if (arg == "--n") o.n = parse_u64("--n", value);
    else if (arg == "--seed") o.seed = parse_u64("--seed", value);
    else if (arg == "--tick") o.tick = parse_u64("--tick", value);
    else if (arg == "--inserts") o.inserts = parse_u64("--inserts", value);
    else if (arg == "--remove-at") {
      for (const char* at = value; *at != '\0';) {
        const char* comma = std::strchr(at, ',');
        const std::string part = comma ? std::string(at, comma) : std::string(at);
        o.remove_at.push_back(parse_u64("--remove-at", part.c_str()));
        if (!comma) break;
        at = comma + 1;
      }
    }
    else usage("unknown option " + arg);
  }
  if (o.kind != "standard" && o.kind != "split-block" && o.kind != "counting") {
    usage("--kind must be standard, split-block or counting");
  }
  if (o.n < 1 || o.n > 2'000'000) usage("--n must be in [1, 2000000]");
  if (o.inserts == 0) o.inserts = o.n;
  if (!o.remove_at.empty() && o.kind != "counting") usage("--remove-at needs --kind counting");
  if (!std::is_sorted(o.remove_at.begin(), o.remove_at.end())) usage("--remove-at ticks must not decrease");
  return o;
}

/// The bit array as 32-bit words, bit i = bit i % 32 of word i / 32.
std::vector<std::uint32_t> words32(const bloomkit::standard_bloom& filter) {
  std::vector<std::uint32_t> out;
  for (auto w : filter.words()) {
    out.push_back(static_cast<std::uint32_t>(w));
    out.push_back(static_cast<std::uint32_t>(w >> 32));
  }
  return out;
}
std::vector<std::uint32_t> words32(const bloomkit::split_block_bloom& filter) {
  std::vector<std::uint32_t> out;
  for (const auto& block : filter.blocks()) out.insert(out.end(), std::begin(block.words), std::end(block.words));
  return out;
}

template <class F>
std::uint64_t size_of(const F& f) { return f.bit_count(); }
template <class F>
std::uint64_t set_of(const F& f) { return f.set_bit_count(); }
template <class F>
void print_counters(const F&) {}

#ifdef EXPECTED_COUNTING
std::vector<std::uint32_t> words32(const bloomkit::counting_bloom& filter) {
  return words32(filter.to_standard_bloom());
}
std::uint64_t size_of(const bloomkit::counting_bloom& f) { return f.counters(); }
std::uint64_t set_of(const bloomkit::counting_bloom& f) { return f.nonzero_counters(); }
void print_counters(const bloomkit::counting_bloom& f) {
  std::printf(",\"counters_hex\":\"");
  for (std::uint64_t i = 0; i < f.counters(); ++i) std::printf("%x", f.counter(i));
  std::printf("\"");
}
#endif

template <class F>
void remove_key(F&, std::uint64_t) {
  usage("--remove-at needs --kind counting");
}
#ifdef EXPECTED_COUNTING
void remove_key(bloomkit::counting_bloom& f, std::uint64_t key) {
  if (f.remove(key) != bloomkit::remove_result::removed) usage("a key that is in was refused by remove()");
}
#endif

/// The c-th output of the seed's SplitMix64 stream, reached without walking
/// the c outputs before it: the generator's state advances by its constant
/// gamma per output, so a generator started at seed + c * gamma gives output
/// c next. Used only for the probe keys far down the stream.
std::uint64_t stream_output(std::uint64_t seed, std::uint64_t c) {
  return bloomkit::splitmix64(seed + c * 0x9e3779b97f4a7c15ULL)();
}
/// Absent keys j >= 2^40 are the page's probe keys; absent key j is output 2j + 1.
std::uint64_t probe_key(std::uint64_t seed, std::uint64_t p) {
  return stream_output(seed, 2 * ((std::uint64_t{1} << 40) + p) + 1);
}

/// The FPR-against-k chart (see the header comment).
void print_k_chart(const options& o) {
  constexpr std::uint32_t probes = 10000;
  std::printf(",\"k_chart\":[");
  for (std::uint32_t k = 1; k <= 16; ++k) {
    auto filter = bloomkit::standard_bloom::with_bits(o.bits, k);
    bloomkit::splitmix64 members(o.seed);
    for (std::uint64_t i = 0; i < o.n; ++i) {
      filter.insert(members());
      (void)members();
    }
    std::uint64_t positives = 0;
    for (std::uint32_t p = 0; p < probes; ++p) positives += filter.may_contain(probe_key(o.seed, p)) ? 1 : 0;
    const double model = std::pow(1.0 - std::exp(-static_cast<double>(k) * static_cast<double>(o.n) /
                                                 static_cast<double>(o.bits)),
                                  static_cast<double>(k));
    std::printf("%s{\"k\":%u,\"measured\":%.17g,\"model\":%.17g}", k > 1 ? "," : "", k,
                static_cast<double>(positives) / probes, model);
  }
  std::printf("]");
  if (o.kind == "split-block") {
    const std::uint64_t blocks = std::max<std::uint64_t>(1, o.bits / 256);
    bloomkit::split_block_bloom filter(bloomkit::block_filter_params{blocks, 8, o.n, 0.01, bloomkit::parquet_hash_spec});
    bloomkit::splitmix64 members(o.seed);
    for (std::uint64_t i = 0; i < o.n; ++i) {
      filter.insert(members());
      (void)members();
    }
    std::uint64_t positives = 0;
    for (std::uint32_t p = 0; p < probes; ++p) positives += filter.may_contain(probe_key(o.seed, p)) ? 1 : 0;
    std::printf(",\"split_point\":{\"k\":8,\"measured\":%.17g}", static_cast<double>(positives) / probes);
  }
}

/// The schedule of web/playground.hpp, walked in order, tick by tick: the
/// inserts, then 1,000 queries of absent keys; before the key of each tick
/// in --remove-at, the oldest key still in is removed.
template <class Filter>
int report(Filter filter, const options& o) {
  const std::uint64_t ticks = std::min(o.tick, o.inserts + 1000);
  std::uint64_t queries = 0, false_positives = 0, last_key = 0, last_query = 0, removed = 0, last_removed = 0;
  bloomkit::splitmix64 members(o.seed), removals(o.seed), absents(o.seed);
  for (std::uint64_t t = 0;; ++t) {
    while (removed < o.remove_at.size() && o.remove_at[removed] == t) {
      if (removed >= std::min(t, o.inserts)) usage("--remove-at: no key left to remove at that tick");
      last_removed = removals();  // member key `removed`
      (void)removals();
      remove_key(filter, last_removed);
      ++removed;
    }
    if (t == ticks) break;
    if (t < o.inserts) {
      last_key = members();  // output 2i: the i-th member key
      filter.insert(last_key);
      (void)members();  // output 2i + 1: an absent key, skipped here
    } else {
      (void)absents();  // output 2j: a member key
      last_query = absents();  // output 2j + 1
      ++queries;
      false_positives += filter.may_contain(last_query) ? 1 : 0;
    }
  }
  std::uint64_t keys_to_fill = 0;
  if (o.fill) {
    auto copy = filter;
    copy.clear();
    bloomkit::splitmix64 fill_stream(o.seed);
    while (set_of(copy) < size_of(copy) && keys_to_fill < 2'000'000) {
      copy.insert(fill_stream());
      (void)fill_stream();
      ++keys_to_fill;
    }
  }
  std::printf(
      "{\"kind\":\"%s\",\"bits\":%" PRIu64 ",\"k\":%" PRIu32 ",\"n\":%" PRIu64 ",\"seed\":\"%" PRIu64
      "\",\"tick\":%" PRIu64 ",\"inserted\":%" PRIu64 ",\"removed\":%" PRIu64 ",\"set_bits\":%" PRIu64
      ",\"queries\":%" PRIu64 ",\"false_positives\":%" PRIu64 ",\"predicted_fpr\":%.17g,\"saturated\":%s",
      o.kind.c_str(), size_of(filter), filter.num_hashes(), o.n, o.seed, ticks, filter.inserted(), removed,
      set_of(filter), queries, false_positives, filter.estimated_fpr(), filter.saturated() ? "true" : "false");
  std::printf(",\"last_key\":\"%016" PRIx64 "\",\"last_query_key\":\"%016" PRIx64 "\",\"last_removed_key\":\"%016" PRIx64
              "\"",
              last_key, last_query, last_removed);
  if (o.fill) std::printf(",\"keys_to_fill\":%" PRIu64, keys_to_fill);
  if (o.k_chart) print_k_chart(o);
  // The bit array as the page draws it: 32-bit words, bit i in word i / 32.
  std::printf(",\"words_hex\":\"");
  for (auto w : words32(filter)) std::printf("%08" PRIx32, w);
  std::printf("\"");
  print_counters(filter);
  std::printf("}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    if (o.kind == "standard") {
      if (o.k < 1 || o.k > 64) usage("--k must be in [1, 64]");
      // Capacity n, as on the page, so saturated() means "past n".
      return report(bloomkit::standard_bloom(bloomkit::standard_bloom_params{
                        o.bits, static_cast<std::uint32_t>(o.k), o.n, 0.01, bloomkit::hash_spec{}}),
                    o);
    }
#ifdef EXPECTED_COUNTING
    if (o.kind == "counting") {
      if (o.k < 1 || o.k > 64) usage("--k must be in [1, 64]");
      return report(bloomkit::counting_bloom(bloomkit::counting_bloom_params{
                        o.bits, static_cast<std::uint32_t>(o.k), o.n, 0.01, bloomkit::hash_spec{}}),
                    o);
    }
#else
    if (o.kind == "counting") usage("this build has no counting_bloom.hpp");
#endif
    // Parquet's split block: 256-bit blocks, 8 bits per key; m rounds up.
    const std::uint64_t blocks = std::max<std::uint64_t>(1, (o.bits + 255) / 256);
    return report(bloomkit::split_block_bloom(bloomkit::block_filter_params{blocks, 8, o.n, 0.01,
                                                                            bloomkit::parquet_hash_spec}),
                  o);
  } catch (const bloomkit::error& e) {
    std::fprintf(stderr, "expected: %s\n", e.what());
    return 2;
  }
}
