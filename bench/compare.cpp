// bench/compare.cpp - bloomkit's filters, their peers and the machine's limit,
// side by side in one process and one run.
//
// For each size n (default 10^4, 10^6, 10^8) at a 1 % target FPR it measures
//   split_block_bloom, blocked_bloom, standard_bloom   single-key, batched and
//                     prehashed batched calls
//   counting_bloom, scalable_bloom, cuckoo_filter, age_partitioned_bloom
//                                    single-key and prehashed batched calls
//   binary_fuse8, binary_fuse16, ribbon, ribbon_bumped   static: the "insert" column is the
//                     build from all keys; single keyed and prehashed batched
//                     lookups
//   libbloom          Debian's libbloom-dev (bloom_add / bloom_check), single calls
//   unordered_set     std::unordered_set<uint64_t>, the naive exact answer
//   memory_limit      one random 64-byte line of an array the size of the
//                     filter per key, read (lookups) or OR-written (inserts),
//                     with the same key hash, batching and prefetching as the
//                     filters and nothing else: what no one-line-per-key filter
//                     can beat on this machine
// and prints ns per insert, per positive and per negative lookup, bits/key,
// the measured FPR, and the ratios to libbloom and to the memory limit.
//
// Keys are 64-bit integers; every filter takes them as keys (bloomkit hashes
// them with its filter's hash_spec, libbloom with its MurmurHash2), so hashing
// is inside every figure: "single" is insert(key) / may_contain(key) per key,
// "batched" is insert_keys / may_contain_keys over all keys. A third style,
// "hashes", is insert_many / may_contain_many over hashes computed before the
// clock starts: the probe cost alone, for callers that hash once for many
// filters (memory_limit gets the same three styles). Each
// figure is the median of --repeats runs; the repeats are interleaved across
// filters (round r of every filter, then round r + 1) so a burst of load on a
// shared machine hits all filters alike. Times are thread CPU time (see
// thread_cpu_ns). Compare ratios from one run only.
//
// Usage: bloomkit_compare [--sizes 10000,1000000] [--repeats 3] [--json]
//                         [--queries N] [--filters a,b] [--kernel scalar|sse4.1|avx2|avx512]
//                         [--unordered-set-max N]
#include <bloom.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "bloomkit_internal/kernels.hpp"
#include "bloomkit/bloomkit.hpp"

namespace {

using bloomkit::splitmix64;

// ---- options -------------------------------------------------------------------

struct options {
  std::vector<std::uint64_t> sizes = {10'000, 1'000'000, 100'000'000};
  int repeats = 3;
  bool json = false;
  std::uint64_t max_queries = 10'000'000;
  std::uint64_t unordered_set_max = 10'000'000;
  std::vector<std::string> filters;  // empty: all
  std::optional<bloomkit::kernel> kernel;
  double fpr = 0.01;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr,
               "bloomkit_compare: %s\n"
               "usage: bloomkit_compare [--sizes N,N,...] [--repeats R] [--json] [--queries Q]\n"
               "                        [--filters NAME,...] [--kernel scalar|sse4.1|avx2|avx512]\n"
               "                        [--unordered-set-max N]\n",
               message.c_str());
  std::exit(2);
}

std::uint64_t parse_count(const std::string& text, const char* what) {
  // Accepts plain integers and 1e6-style powers of ten.
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end == nullptr || *end != '\0' || errno != 0 || !(value >= 1.0) || value > 4e9 ||
      value != static_cast<double>(static_cast<std::uint64_t>(value))) {
    usage_error(std::string("bad ") + what + " '" + text + "' (a whole number from 1 to 4e9)");
  }
  return static_cast<std::uint64_t>(value);
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t stop = comma == std::string::npos ? text.size() : comma;
    if (stop > start) out.push_back(text.substr(start, stop - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

const std::vector<std::string> all_filters = {"split_block_bloom", "blocked_bloom",  "standard_bloom", "counting_bloom",
                                              "scalable_bloom",    "cuckoo_filter",  "age_partitioned_bloom",
                                              "binary_fuse8",      "binary_fuse16",  "ribbon",         "ribbon_bumped",
                                              "libbloom",          "unordered_set",  "memory_limit"};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--sizes") {
      o.sizes.clear();
      for (const auto& s : split(value())) o.sizes.push_back(parse_count(s, "size"));
      if (o.sizes.empty()) usage_error("--sizes needs at least one size");
    } else if (arg == "--repeats") {
      o.repeats = static_cast<int>(parse_count(value(), "repeat count"));
      if (o.repeats > 100) usage_error("--repeats at most 100");
    } else if (arg == "--queries") {
      o.max_queries = parse_count(value(), "query count");
    } else if (arg == "--unordered-set-max") {
      o.unordered_set_max = parse_count(value(), "size");
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--filters") {
      o.filters = split(value());
      for (const auto& f : o.filters) {
        if (std::find(all_filters.begin(), all_filters.end(), f) == all_filters.end()) {
          usage_error("unknown filter '" + f + "'");
        }
      }
    } else if (arg == "--kernel") {
      const std::string k = value();
      if (k == "scalar") {
        o.kernel = bloomkit::kernel::scalar;
      } else if (k == "avx2") {
        o.kernel = bloomkit::kernel::avx2;
      } else if (k == "avx512") {
        o.kernel = bloomkit::kernel::avx512;
      } else if (k == "sse4.1") {
        o.kernel = bloomkit::kernel::sse41;
      } else {
        usage_error("unknown kernel '" + k + "'");
      }
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "bloomkit_compare: bloomkit filters vs libbloom, std::unordered_set and the memory limit\n"
          "  --sizes N,N,...      key counts (default 10000,1000000,100000000)\n"
          "  --repeats R          runs per figure, median reported (default 3)\n"
          "  --queries Q          positive and negative lookups per figure, at most n (default 1e7)\n"
          "  --json               one JSON object per line instead of tables\n"
          "  --filters a,b        only these (split_block_bloom, blocked_bloom, standard_bloom,\n"
          "                       counting_bloom, scalable_bloom, cuckoo_filter, age_partitioned_bloom,\n"
          "                       binary_fuse8, binary_fuse16, ribbon, ribbon_bumped, libbloom,\n"
          "                       unordered_set, memory_limit)\n"
          "  --kernel K           force a SIMD kernel (scalar, sse4.1, avx2, avx512)\n"
          "  --unordered-set-max N  skip unordered_set above N keys (default 1e7: memory)\n");
      std::exit(0);
    } else {
      usage_error("unknown option '" + arg + "'");
    }
  }
  return o;
}

bool wanted(const options& o, const std::string& name) {
  return o.filters.empty() || std::find(o.filters.begin(), o.filters.end(), name) != o.filters.end();
}

// ---- measurement ------------------------------------------------------------------

/// This thread's CPU time in ns. The benchmark machine is shared (other
/// engineers compile and fuzz on its two cores), so wall time would count
/// the slices other processes run; thread CPU time does not (their cache
/// pollution still shows, which is why figures are medians of rounds).
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

/// Nanoseconds (thread CPU time) of one call of `work`.
template <class F>
double time_ns(F&& work) {
  const double start = thread_cpu_ns();
  work();
  return thread_cpu_ns() - start;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : 0.5 * (v[mid - 1] + v[mid]);
}

/// Keeps a value alive so the compiler cannot drop the loop computing it.
volatile std::uint64_t sink;

struct workload {
  std::uint64_t n = 0;
  std::vector<std::uint64_t> keys;       // n distinct-with-high-probability random keys
  std::vector<std::uint64_t> positives;  // queries: keys that were inserted
  std::vector<std::uint64_t> negatives;  // queries: keys from another stream
};

workload make_workload(std::uint64_t n, std::uint64_t max_queries) {
  workload w;
  w.n = n;
  w.keys.resize(n);
  splitmix64 rng(0x5eed0000 + n);
  for (auto& k : w.keys) k = rng();
  const std::uint64_t q = std::min(n, max_queries);
  // Positives: every (n / q)-th inserted key, so they come from the whole run.
  w.positives.resize(q);
  const std::uint64_t stride = n / q;
  for (std::uint64_t i = 0; i < q; ++i) w.positives[i] = w.keys[i * stride];
  splitmix64 other(0xbad5eed0000 + n);
  w.negatives.resize(q);
  for (auto& k : w.negatives) k = other();
  return w;
}

/// One round's figures.
struct sample {
  double insert_ns = 0, pos_ns = 0, neg_ns = 0;
  double fpr = 0;
  double false_negative = 0;  // must be 0; checked
  double extra = 0;           // standard_bloom: mean probes per negative lookup
};

/// A contestant: how to build it empty, and how to run one round.
struct contestant {
  std::string name;
  std::string calls;  // "single", "batched" or "hashes"
  std::function<double()> bits_per_key;  // after construction
  std::function<sample()> round;
  std::vector<sample> samples;
};

/// Passes per round: small sizes repeat the work until a round covers at
/// least 2 * 10^6 operations, so each figure spans milliseconds.
std::uint64_t passes_for(std::uint64_t items) { return std::max<std::uint64_t>(1, 2'000'000 / items); }

/// The figures of one round for a filter with insert/lookup callables.
template <class Clear, class Insert, class Count>
sample run_round(const workload& w, Clear&& clear, Insert&& insert, Count&& count) {
  sample s;
  const std::uint64_t insert_passes = passes_for(w.n);
  double insert_total = 0;
  for (std::uint64_t p = 0; p < insert_passes; ++p) {
    clear();  // not timed
    insert_total += time_ns([&] { insert(); });
  }
  s.insert_ns = insert_total / static_cast<double>(insert_passes * w.n);
  const std::uint64_t q = w.positives.size(), lookup_passes = passes_for(q);
  std::uint64_t hits = 0, false_hits = 0;
  s.pos_ns = time_ns([&] {
               for (std::uint64_t p = 0; p < lookup_passes; ++p) hits = count(w.positives);
             }) /
             static_cast<double>(lookup_passes * q);
  s.false_negative = static_cast<double>(q - hits);
  s.neg_ns = time_ns([&] {
               for (std::uint64_t p = 0; p < lookup_passes; ++p) false_hits = count(w.negatives);
             }) /
             static_cast<double>(lookup_passes * q);
  s.fpr = static_cast<double>(false_hits) / static_cast<double>(q);
  return s;
}

/// The workload with every key replaced by its hash under `spec`.
workload hashed(const workload& w, bloomkit::hash_spec spec) {
  workload h;
  h.n = w.n;
  const auto convert = [spec](const std::vector<std::uint64_t>& in) {
    std::vector<std::uint64_t> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = bloomkit::hash_key(in[i], spec);
    return out;
  };
  h.keys = convert(w.keys);
  h.positives = convert(w.positives);
  h.negatives = convert(w.negatives);
  return h;
}

/// Adds the single-key, batched and prehashed contestants for a bloomkit
/// filter; `hw` is the workload hashed with the filter's hash_spec.
template <class Filter>
void add_bloomkit(std::vector<contestant>& out, const std::string& name, const workload& w, const workload& hw,
                  std::shared_ptr<Filter> filter, std::shared_ptr<std::unique_ptr<bool[]>> answers) {
  const auto bpk = [filter, n = w.n] { return static_cast<double>(filter->size_in_bytes()) * 8.0 / n; };
  contestant single{name, "single", bpk, nullptr, {}};
  single.round = [filter, &w] {
    return run_round(
        w, [&] { filter->clear(); }, [&] { for (auto k : w.keys) filter->insert(k); },
        [&](const std::vector<std::uint64_t>& q) {
          std::uint64_t hits = 0;
          for (auto k : q) hits += filter->may_contain(k) ? 1 : 0;
          return hits;
        });
  };
  contestant batch{name, "batched", bpk, nullptr, {}};
  batch.round = [filter, answers, &w] {
    return run_round(
        w, [&] { filter->clear(); }, [&] { filter->insert_keys(w.keys); },
        [&](const std::vector<std::uint64_t>& q) {
          bool* out = answers->get();
          filter->may_contain_keys(q, std::span<bool>(out, q.size()));
          std::uint64_t hits = 0;
          for (std::size_t i = 0; i < q.size(); ++i) hits += out[i] ? 1 : 0;
          return hits;
        });
  };
  contestant prehashed{name, "hashes", bpk, nullptr, {}};
  prehashed.round = [filter, answers, &hw] {
    return run_round(
        hw, [&] { filter->clear(); }, [&] { filter->insert_many(hw.keys); },
        [&](const std::vector<std::uint64_t>& q) {
          bool* out = answers->get();
          filter->may_contain_many(q, std::span<bool>(out, q.size()));
          std::uint64_t hits = 0;
          for (std::size_t i = 0; i < q.size(); ++i) hits += out[i] ? 1 : 0;
          return hits;
        });
  };
  out.push_back(std::move(single));
  out.push_back(std::move(batch));
  out.push_back(std::move(prehashed));
}

/// Single-key and prehashed contestants for a filter without keyed batch
/// calls (counting_bloom, scalable_bloom).
template <class Filter>
void add_single_and_hashes(std::vector<contestant>& out, const std::string& name, const workload& w,
                           const workload& hw, std::shared_ptr<Filter> filter,
                           std::shared_ptr<std::unique_ptr<bool[]>> answers) {
  const auto bpk = [filter, n = w.n] { return static_cast<double>(filter->size_in_bytes()) * 8.0 / n; };
  contestant single{name, "single", bpk, nullptr, {}};
  single.round = [filter, &w] {
    return run_round(
        w, [&] { filter->clear(); }, [&] { for (auto k : w.keys) filter->insert(k); },
        [&](const std::vector<std::uint64_t>& q) {
          std::uint64_t hits = 0;
          for (auto k : q) hits += filter->may_contain(k) ? 1 : 0;
          return hits;
        });
  };
  contestant prehashed{name, "hashes", bpk, nullptr, {}};
  prehashed.round = [filter, answers, &hw] {
    return run_round(
        hw, [&] { filter->clear(); }, [&] { filter->insert_many(hw.keys); },
        [&](const std::vector<std::uint64_t>& q) {
          bool* o = answers->get();
          filter->may_contain_many(q, std::span<bool>(o, q.size()));
          std::uint64_t hits = 0;
          for (std::size_t i = 0; i < q.size(); ++i) hits += o[i] ? 1 : 0;
          return hits;
        });
  };
  out.push_back(std::move(single));
  out.push_back(std::move(prehashed));
}

/// Contestants for a static filter (binary_fuse8/16, ribbon). Its "insert"
/// column is the build from all keys (Filter::from_keys, hashing included)
/// per key; lookups are single keyed calls ("single") or may_contain_many
/// over hashes computed before the clock ("hashes").
/// `make` builds the filter from the keys (default Filter::from_keys; the
/// bumped Ribbon passes its options).
template <class Filter>
void add_static(std::vector<contestant>& out, const std::string& name, const workload& w, const workload& hw,
                std::shared_ptr<std::unique_ptr<bool[]>> answers,
                std::function<Filter(std::span<const std::uint64_t>)> make = [](std::span<const std::uint64_t> keys) {
                  return Filter::from_keys(keys);
                }) {
  auto filter = std::make_shared<std::optional<Filter>>();
  const auto build = [filter, make, &w] {
    filter->reset();
    filter->emplace(make(std::span<const std::uint64_t>(w.keys)));
  };
  const auto bpk = [filter, build, n = w.n] {
    if (!filter->has_value()) build();
    return static_cast<double>((*filter)->size_in_bytes()) * 8.0 / n;
  };
  contestant single{name, "single", bpk, nullptr, {}};
  single.round = [filter, build, &w] {
    return run_round(
        w, [] {}, build,
        [&](const std::vector<std::uint64_t>& q) {
          std::uint64_t hits = 0;
          for (auto k : q) hits += (*filter)->may_contain(k) ? 1 : 0;
          return hits;
        });
  };
  contestant prehashed{name, "hashes", bpk, nullptr, {}};
  prehashed.round = [filter, build, answers, &w, &hw] {
    return run_round(
        hw, [] {}, build,
        [&](const std::vector<std::uint64_t>& q) {
          bool* o = answers->get();
          (*filter)->may_contain_many(q, std::span<bool>(o, q.size()));
          std::uint64_t hits = 0;
          for (std::size_t i = 0; i < q.size(); ++i) hits += o[i] ? 1 : 0;
          return hits;
        });
  };
  out.push_back(std::move(single));
  out.push_back(std::move(prehashed));
}

/// Mean words a negative lookup reads in a standard_bloom (early exit).
double mean_negative_probes(const bloomkit::standard_bloom& f, const std::vector<std::uint64_t>& negatives) {
  std::uint64_t probes = 0;
  const std::size_t count = std::min<std::size_t>(negatives.size(), 1'000'000);
  for (std::size_t i = 0; i < count; ++i) {
    probes += bloomkit::kernels::standard_words_read(f.words().data(), bloomkit::hash_key(negatives[i], f.hash()),
                                                     f.bit_count(), f.num_hashes());
  }
  return static_cast<double>(probes) / static_cast<double>(count);
}

/// The memory-limit kernel: lines[] as big as the filter, one line per key.
struct memory_limit {
  struct alignas(64) line {
    std::uint64_t words[8];
  };
  std::vector<line> lines;
  bloomkit::hash_spec hash{};

  explicit memory_limit(std::uint64_t bytes) : lines(std::max<std::uint64_t>(1, bytes / 64)) {}

  std::uint64_t line_of(std::uint64_t h) const noexcept { return bloomkit::kernels::block_index(h, lines.size()); }

  void insert_single(const std::vector<std::uint64_t>& keys) {
    for (auto k : keys) {
      const std::uint64_t h = bloomkit::hash_key(k, hash);
      lines[line_of(h)].words[0] |= h;
    }
  }
  std::uint64_t read_single(const std::vector<std::uint64_t>& keys) const {
    std::uint64_t acc = 0;
    for (auto k : keys) {
      const std::uint64_t h = bloomkit::hash_key(k, hash);
      acc += (lines[line_of(h)].words[0] & h) != 0 ? 1 : 0;
    }
    return acc;
  }
  void insert_batched(const std::vector<std::uint64_t>& keys) {
    line* data = lines.data();
    bloomkit::kernels::prefetch_pipeline<bloomkit::kernels::batch_window>(
        keys.size(), [&](std::size_t i) { return bloomkit::hash_key(keys[i], hash); },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch_for_write(data + line_of(h)); },
        [&](std::size_t, std::uint64_t h) { data[line_of(h)].words[0] |= h; });
  }
  void insert_hashes(const std::vector<std::uint64_t>& hashes) {
    line* data = lines.data();
    bloomkit::kernels::prefetch_pipeline<bloomkit::kernels::batch_window>(
        hashes.size(), [&](std::size_t i) { return hashes[i]; },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch_for_write(data + line_of(h)); },
        [&](std::size_t, std::uint64_t h) { data[line_of(h)].words[0] |= h; });
  }
  std::uint64_t read_hashes(const std::vector<std::uint64_t>& hashes, bool* out) const {
    const line* data = lines.data();
    bloomkit::kernels::prefetch_pipeline<bloomkit::kernels::batch_window>(
        hashes.size(), [&](std::size_t i) { return hashes[i]; },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch(data + line_of(h)); },
        [&](std::size_t i, std::uint64_t h) { out[i] = (data[line_of(h)].words[0] & h) != 0; });
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < hashes.size(); ++i) acc += out[i] ? 1 : 0;
    return acc;
  }
  std::uint64_t read_batched(const std::vector<std::uint64_t>& keys, bool* out) const {
    const line* data = lines.data();
    bloomkit::kernels::prefetch_pipeline<bloomkit::kernels::batch_window>(
        keys.size(), [&](std::size_t i) { return bloomkit::hash_key(keys[i], hash); },
        [&](std::uint64_t h) { bloomkit::kernels::prefetch(data + line_of(h)); },
        [&](std::size_t i, std::uint64_t h) { out[i] = (data[line_of(h)].words[0] & h) != 0; });
    std::uint64_t acc = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) acc += out[i] ? 1 : 0;
    return acc;
  }
};

// ---- output -------------------------------------------------------------------------

struct row {
  std::string filter;
  std::uint64_t n;
  std::string calls;
  double bits_per_key, fpr, insert_ns, pos_ns, neg_ns, extra;
  bool has_fpr, has_extra;
};

const row* find_row(const std::vector<row>& rows, const std::string& name, const std::string& calls) {
  for (const auto& r : rows) {
    if (r.filter == name && r.calls == calls) return &r;
  }
  return nullptr;
}

std::string json_number(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

void print_rows(const options& o, std::uint64_t n, std::uint64_t queries, const std::vector<row>& rows) {
  const row* lib = find_row(rows, "libbloom", "single");
  const std::string kernel_name(to_string(bloomkit::active_kernel()));
  if (o.json) {
    for (const auto& r : rows) {
      const row* mem = find_row(rows, "memory_limit", r.calls);
      std::string line = "{\"filter\":\"" + r.filter + "\",\"n\":" + std::to_string(r.n) +
                         ",\"batched\":" + (r.calls != "single" ? "true" : "false") + ",\"calls\":\"" +
                         r.calls + "\"" +
                         ",\"bits_per_key\":" + json_number(r.bits_per_key) +
                         ",\"fpr\":" + (r.has_fpr ? json_number(r.fpr) : "null") +
                         ",\"insert_ns\":" + json_number(r.insert_ns) + ",\"lookup_pos_ns\":" + json_number(r.pos_ns) +
                         ",\"lookup_neg_ns\":" + json_number(r.neg_ns) + ",\"queries\":" + std::to_string(queries) +
                         ",\"repeats\":" + std::to_string(o.repeats) + ",\"kernel\":\"" + kernel_name + "\"";
      if (lib != nullptr && &r != lib) {
        line += ",\"speedup_vs_libbloom\":{\"insert\":" + json_number(lib->insert_ns / r.insert_ns) +
                ",\"lookup_pos\":" + json_number(lib->pos_ns / r.pos_ns) +
                ",\"lookup_neg\":" + json_number(lib->neg_ns / r.neg_ns) + "}";
      }
      if (mem != nullptr && &r != mem) {
        line += ",\"vs_memory_limit\":{\"insert\":" + json_number(r.insert_ns / mem->insert_ns) +
                ",\"lookup_pos\":" + json_number(r.pos_ns / mem->pos_ns) +
                ",\"lookup_neg\":" + json_number(r.neg_ns / mem->neg_ns) + "}";
      }
      if (r.has_extra) line += ",\"neg_probes\":" + json_number(r.extra);
      line += "}";
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
    return;
  }
  std::printf("\nn = %llu keys, %llu positive + %llu negative lookups, median of %d, kernel %s\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(queries),
              static_cast<unsigned long long>(queries), o.repeats, kernel_name.c_str());
  std::printf("%-18s %-7s %8s %8s %9s %8s %8s | %-22s | %-12s\n", "filter", "calls", "bits/key", "FPR %", "insert ns",
              "pos ns", "neg ns", "x faster than libbloom", "x mem-limit");
  std::printf("%-18s %-7s %8s %8s %9s %8s %8s | %6s %7s %7s | %5s %6s\n", "", "", "", "", "", "", "", "insert", "pos",
              "neg", "pos", "neg");
  for (const auto& r : rows) {
    const row* mem = find_row(rows, "memory_limit", r.calls);
    char fpr[32] = "-";
    if (r.has_fpr) std::snprintf(fpr, sizeof fpr, "%.3f", 100.0 * r.fpr);
    char vs_lib[64] = "";
    if (lib != nullptr && &r != lib) {
      std::snprintf(vs_lib, sizeof vs_lib, "%6.1f %7.1f %7.1f", lib->insert_ns / r.insert_ns, lib->pos_ns / r.pos_ns,
                    lib->neg_ns / r.neg_ns);
    }
    char vs_mem[64] = "";
    if (mem != nullptr && &r != mem) {
      std::snprintf(vs_mem, sizeof vs_mem, "%5.2f %6.2f", r.pos_ns / mem->pos_ns, r.neg_ns / mem->neg_ns);
    }
    std::printf("%-18s %-7s %8.2f %8s %9.2f %8.2f %8.2f | %-22s | %-12s", r.filter.c_str(),
                r.calls.c_str(), r.bits_per_key, fpr, r.insert_ns, r.pos_ns, r.neg_ns, vs_lib,
                vs_mem);
    if (r.has_extra) std::printf("  (%.2f probes/negative)", r.extra);
    std::printf("\n");
  }
  std::fflush(stdout);
}

// ---- one size ----------------------------------------------------------------------

void run_size(const options& o, std::uint64_t n) {
  const workload w = make_workload(n, o.max_queries);
  const std::uint64_t queries = w.positives.size();
  auto answers = std::make_shared<std::unique_ptr<bool[]>>(new bool[queries]);
  std::vector<contestant> all;
  std::uint64_t filter_bytes = 0;

  // The workload hashed under each hash_spec in use, for the "hashes" style.
  const workload h3 = hashed(w, bloomkit::blocked_bloom::policy::default_hash);
  const workload h64 = wanted(o, "split_block_bloom") ? hashed(w, bloomkit::split_block_bloom::policy::default_hash)
                                                      : workload{};
  std::shared_ptr<bloomkit::split_block_bloom> sbbf;
  std::shared_ptr<bloomkit::blocked_bloom> blocked;
  std::shared_ptr<bloomkit::standard_bloom> standard;
  if (wanted(o, "split_block_bloom")) {
    sbbf = std::make_shared<bloomkit::split_block_bloom>(n, o.fpr);
    add_bloomkit(all, "split_block_bloom", w, h64, sbbf, answers);
  }
  if (wanted(o, "blocked_bloom")) {
    blocked = std::make_shared<bloomkit::blocked_bloom>(n, o.fpr);
    filter_bytes = blocked->size_in_bytes();
    add_bloomkit(all, "blocked_bloom", w, h3, blocked, answers);
  }
  if (wanted(o, "standard_bloom")) {
    standard = std::make_shared<bloomkit::standard_bloom>(n, o.fpr);
    add_bloomkit(all, "standard_bloom", w, h3, standard, answers);
  }
  if (wanted(o, "counting_bloom")) {
    add_single_and_hashes(all, "counting_bloom", w, h3, std::make_shared<bloomkit::counting_bloom>(n, o.fpr), answers);
  }
  if (wanted(o, "scalable_bloom")) {
    add_single_and_hashes(all, "scalable_bloom", w, h3, std::make_shared<bloomkit::scalable_bloom>(n, o.fpr), answers);
  }
  // Cuckoo sized for n at the target FPR (it never fills at n); the window
  // filter with a window of n keys, so every key inserted is still in it.
  if (wanted(o, "cuckoo_filter")) {
    add_single_and_hashes(all, "cuckoo_filter", w, h3, std::make_shared<bloomkit::cuckoo_filter>(n, o.fpr), answers);
  }
  if (wanted(o, "age_partitioned_bloom")) {
    add_single_and_hashes(all, "age_partitioned_bloom", w, h3,
                          std::make_shared<bloomkit::age_partitioned_bloom>(n, o.fpr), answers);
  }
  // The static kinds hash with XXH3-64 seed 0 (their default hash_spec), as h3.
  if (wanted(o, "binary_fuse8")) add_static<bloomkit::binary_fuse8>(all, "binary_fuse8", w, h3, answers);
  if (wanted(o, "binary_fuse16")) add_static<bloomkit::binary_fuse16>(all, "binary_fuse16", w, h3, answers);
  if (wanted(o, "ribbon")) add_static<bloomkit::ribbon>(all, "ribbon", w, h3, answers);
  if (wanted(o, "ribbon_bumped")) {
    add_static<bloomkit::ribbon>(all, "ribbon_bumped", w, h3, answers, [](std::span<const std::uint64_t> keys) {
      bloomkit::ribbon_options options;
      options.layout = bloomkit::ribbon_layout::bumped;
      return bloomkit::ribbon::from_keys(keys, options);
    });
  }
  if (filter_bytes == 0) filter_bytes = bloomkit::blocked_bloom::plan_params(n, o.fpr).blocks * 64;

  std::shared_ptr<bloom> lib;
  if (wanted(o, "libbloom")) {
    if (n > 2'000'000'000ULL / 10) {
      std::fprintf(stderr, "bloomkit_compare: libbloom skipped at n = %llu (its bit count is an int)\n",
                   static_cast<unsigned long long>(n));
    } else {
      lib = std::shared_ptr<bloom>(new bloom{}, [](bloom* b) {
        bloom_free(b);
        delete b;
      });
      if (bloom_init(lib.get(), static_cast<int>(n), o.fpr) != 0) throw std::runtime_error("bloom_init failed");
      contestant c{"libbloom", "single", [lib, n] { return static_cast<double>(lib->bytes) * 8.0 / n; }, nullptr, {}};
      c.round = [lib, &w] {
        return run_round(
            w, [&] { bloom_reset(lib.get()); },
            [&] {
              for (auto k : w.keys) bloom_add(lib.get(), &k, sizeof k);
            },
            [&](const std::vector<std::uint64_t>& q) {
              std::uint64_t hits = 0;
              for (auto k : q) hits += bloom_check(lib.get(), &k, sizeof k) == 1 ? 1 : 0;
              return hits;
            });
      };
      all.push_back(std::move(c));
    }
  }

  std::shared_ptr<std::unordered_set<std::uint64_t>> set;
  if (wanted(o, "unordered_set")) {
    if (n > o.unordered_set_max) {
      std::fprintf(stderr, "bloomkit_compare: unordered_set skipped at n = %llu (--unordered-set-max %llu)\n",
                   static_cast<unsigned long long>(n), static_cast<unsigned long long>(o.unordered_set_max));
    } else {
      set = std::make_shared<std::unordered_set<std::uint64_t>>();
      // bits/key: nodes (value + next pointer, rounded by malloc to 32 bytes) + one bucket pointer per key.
      contestant c{"unordered_set", "single", [] { return (32.0 + 8.0) * 8.0; }, nullptr, {}};
      c.round = [set, &w] {
        return run_round(
            w,
            [&] {
              set->clear();
              set->reserve(w.n);
            },
            [&] {
              for (auto k : w.keys) set->insert(k);
            },
            [&](const std::vector<std::uint64_t>& q) {
              std::uint64_t hits = 0;
              for (auto k : q) hits += set->count(k);
              return hits;
            });
      };
      all.push_back(std::move(c));
    }
  }

  std::shared_ptr<memory_limit> mem;
  if (wanted(o, "memory_limit")) {
    mem = std::make_shared<memory_limit>(filter_bytes);
    const auto bpk = [mem, n] { return static_cast<double>(mem->lines.size()) * 512.0 / n; };
    contestant single{"memory_limit", "single", bpk, nullptr, {}};
    single.round = [mem, &w] {
      sample s = run_round(
          w, [] {}, [&] { mem->insert_single(w.keys); },
          [&](const std::vector<std::uint64_t>& q) { return mem->read_single(q); });
      return s;
    };
    contestant batch{"memory_limit", "batched", bpk, nullptr, {}};
    batch.round = [mem, answers, &w] {
      return run_round(
          w, [] {}, [&] { mem->insert_batched(w.keys); },
          [&](const std::vector<std::uint64_t>& q) { return mem->read_batched(q, answers->get()); });
    };
    contestant prehashed{"memory_limit", "hashes", bpk, nullptr, {}};
    prehashed.round = [mem, answers, &h3] {
      return run_round(
          h3, [] {}, [&] { mem->insert_hashes(h3.keys); },
          [&](const std::vector<std::uint64_t>& q) { return mem->read_hashes(q, answers->get()); });
    };
    all.push_back(std::move(single));
    all.push_back(std::move(batch));
    all.push_back(std::move(prehashed));
  }

  // Interleaved rounds (see the header comment).
  for (int r = 0; r < o.repeats; ++r) {
    for (auto& c : all) c.samples.push_back(c.round());
  }

  std::vector<row> rows;
  for (const auto& c : all) {
    row r{c.name, n, c.calls, c.bits_per_key(), 0, 0, 0, 0, 0, false, false};
    std::vector<double> ins, pos, neg;
    for (const auto& s : c.samples) {
      ins.push_back(s.insert_ns);
      pos.push_back(s.pos_ns);
      neg.push_back(s.neg_ns);
      if (c.name != "memory_limit" && s.false_negative != 0) {
        std::fprintf(stderr, "bloomkit_compare: %s reported %g false negatives\n", c.name.c_str(), s.false_negative);
        std::exit(1);
      }
    }
    r.insert_ns = median(ins);
    r.pos_ns = median(pos);
    r.neg_ns = median(neg);
    r.fpr = c.samples.back().fpr;
    r.has_fpr = c.name != "memory_limit";
    if (c.name == "standard_bloom" && standard) {
      r.extra = mean_negative_probes(*standard, w.negatives);
      r.has_extra = true;
    }
    rows.push_back(r);
  }
  print_rows(o, n, queries, rows);
  sink = sink + (sbbf ? sbbf->inserted() : 0) + (blocked ? blocked->inserted() : 0);
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    if (o.kernel) bloomkit::set_kernel(*o.kernel);
    if (!o.json) {
      std::printf("bloomkit_compare: target FPR %.2f %%, 64-bit integer keys, kernel %s%s\n", 100.0 * o.fpr,
                  std::string(to_string(bloomkit::active_kernel())).c_str(),
                  o.kernel ? " (forced)" : " (detected)");
    }
    for (auto n : o.sizes) run_size(o, n);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_compare: %s\n", e.what());
    return 1;
  }
  return 0;
}
