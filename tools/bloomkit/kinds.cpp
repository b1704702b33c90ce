// tools/bloomkit/kinds.cpp - the kind table (see kinds.hpp).
#include "kinds.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/scalable_bloom.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/split_block_bloom.hpp"
#include "bloomkit/standard_bloom.hpp"
#include "argv_rewrite.hpp"

#include "commands.hpp"

namespace bloomkit::cli {

namespace {

/// Bits per key of the standard filter for (n, p): the yardstick the other
/// kinds are compared with in messages.
double standard_bits_per_key(std::uint64_t n, double p) {
  return static_cast<double>(sizing::standard_plan_for(n, p).bits) / static_cast<double>(n);
}

// ---- --bits / --hashes --------------------------------------------------------

/// blocked_bloom's k range is 1 to 16 (blocked_bloom.hpp).
constexpr std::uint32_t blocked_max_k = 16;

void require_k(std::uint32_t k, std::uint32_t max_k, std::string_view kind) {
  if (k > max_k) {
    throw usage_error("--hashes " + std::to_string(k) + " is out of range for --kind " + std::string(kind) +
                      " (1 to " + std::to_string(max_k) + ")");
  }
}

double clamp_fpr(double p) { return std::clamp(p, 1e-300, 0.999999); }

any_filter exact_standard(std::uint64_t bits, std::uint32_t k, std::uint64_t capacity, double target_fpr,
                          hash_spec hash) {
  require_k(k, 64, "standard");
  if (bits == 0) bits = sizing::bits_for_k(capacity, target_fpr, k);  // --hashes alone: size for --fpr
  if (k == 0) k = sizing::optimal_k(bits, capacity);
  const double fpr = clamp_fpr(sizing::classic_fpr(static_cast<double>(bits), static_cast<double>(capacity), k));
  return any_filter(std::in_place_type<standard_bloom>, standard_bloom_params{bits, k, capacity, fpr, hash});
}

any_filter exact_counting(std::uint64_t bits, std::uint32_t k, std::uint64_t capacity, double target_fpr,
                          hash_spec hash) {
  require_k(k, 64, "counting");
  if (bits == 0) bits = sizing::bits_for_k(capacity, target_fpr, k);
  if (k == 0) k = sizing::optimal_k(bits, capacity);
  const double fpr = clamp_fpr(sizing::classic_fpr(static_cast<double>(bits), static_cast<double>(capacity), k));
  return any_filter(std::in_place_type<counting_bloom>, counting_bloom_params{bits, k, capacity, fpr, hash});
}

any_filter exact_blocked(std::uint64_t bits, std::uint32_t k, std::uint64_t capacity, double target_fpr,
                         hash_spec hash) {
  require_k(k, blocked_max_k, "blocked");
  const auto n = static_cast<double>(capacity);
  const auto fpr_of = [&](std::uint64_t blocks, std::uint32_t kk) {
    return sizing::blocked_fpr(static_cast<double>(blocks) * 512.0, n, kk, 512);
  };
  std::uint64_t blocks = (bits + 511) / 512;
  if (bits == 0) {
    // --hashes alone: the fewest blocks meeting --fpr with this k (doubling, then bisection).
    std::uint64_t lo = 1, hi = 1;
    while (fpr_of(hi, k) > target_fpr) {
      lo = hi + 1;
      hi *= 2;
      if (hi > (std::uint64_t{1} << 40)) throw usage_error("--hashes " + std::to_string(k) + " cannot reach this --fpr");
    }
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fpr_of(mid, k) <= target_fpr) hi = mid; else lo = mid + 1;
    }
    blocks = hi;
  }
  if (k == 0) {
    double best = 2.0;
    for (std::uint32_t kk = 1; kk <= blocked_max_k; ++kk) {
      const double p = fpr_of(blocks, kk);
      if (p < best) {
        best = p;
        k = kk;
      }
    }
  }
  return any_filter(std::in_place_type<blocked_bloom>,
                    block_filter_params{blocks, k, capacity, clamp_fpr(fpr_of(blocks, k)), hash});
}

any_filter exact_split_block(std::uint64_t bits, std::uint32_t k, std::uint64_t capacity, double target_fpr,
                             hash_spec hash) {
  if (k != 0 && k != 8) {
    throw usage_error("--kind split-block always sets 8 bits per key (one per 32-bit word, as Parquet defines it); "
                      "--hashes " + std::to_string(k) + " cannot apply (use --kind blocked for another k)");
  }
  const std::uint64_t blocks = bits == 0 ? sizing::split_block_blocks_for(capacity, target_fpr) : (bits + 255) / 256;
  const double fpr = clamp_fpr(sizing::split_block_fpr(static_cast<double>(blocks), static_cast<double>(capacity)));
  return any_filter(std::in_place_type<split_block_bloom>, block_filter_params{blocks, 8, capacity, fpr, hash});
}

/// "split_block_bloom" and "Split-Block" compare equal to "split-block-bloom".
std::string normalized(std::string_view name) {
  std::string out;
  for (const char c : name) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The spellings and help lines only. Split-block filters hash with XXH64,
// seed 0 by default (kind_traits<split_block_bloom>::default_hash): that is
// what a Parquet reader expects (docs/PARQUET.md), so a CLI-built filter can
// be copied into a Parquet file. The others default to XXH3-64.
const std::array<kind_entry, 9> table = {{
    {"standard", filter_kind::standard_bloom,
     "classic Bloom filter: fewest bits per key for a given FPR, k random probes"},
    {"blocked", filter_kind::blocked_bloom, "all k probes in one 64-byte cache line: one cache miss per lookup"},
    {"split-block", filter_kind::split_block_bloom,
     "Apache Parquet's split-block filter (256-bit blocks, k = 8, XXH64)"},
    {"binary-fuse", filter_kind::binary_fuse,
     "static: binary fuse filter, 8- or 16-bit fingerprints (FPR 2^-8 / 2^-16), ~9 / ~18 bits per key"},
    {"ribbon", filter_kind::ribbon, "static: Ribbon filter, FPR 2^-r for r = 1..16, ~1.05 r bits per key (--layout bumped: ~1.01 r)"},
    {"counting", filter_kind::counting_bloom,
     "4-bit counters in place of bits: supports `bloomkit remove`, 4x the standard filter's size"},
    {"scalable", filter_kind::scalable_bloom,
     "grows by blocked stages (x2 keys, x0.85 FPR each): stays under --fpr past --capacity"},
    {"cuckoo", filter_kind::cuckoo_filter,
     "cuckoo filter: supports `bloomkit remove` at ~log2(1/p) + 3 bits per key (not 4x); no merge"},
    {"window", filter_kind::age_partitioned_bloom,
     "age-partitioned Bloom filter: remembers only the last --window N keys, FPR bound at every moment"},
}};

}  // namespace

std::span<const kind_entry> kind_table() { return table; }

std::string kind_names() {
  std::string names;
  for (const auto& entry : table) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

const kind_entry& find_kind(std::string_view name) {
  const std::string wanted = normalized(name);
  for (const auto& entry : table) {
    if (normalized(entry.name) == wanted || normalized(to_string(entry.kind)) == wanted) return entry;
  }
  const bool number = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (number) {
    throw usage_error("--kind " + std::string(name) + ": -k is --kind (the filter kind); for the number of hashes "
                      "per key use --hashes " + std::string(name));
  }
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  const std::string near = nearest_name(wanted, names);
  throw usage_error("unknown --kind \"" + std::string(name) + "\"" +
                    (near.empty() ? std::string() : "; did you mean " + near + "?") + " (choose one of: " +
                    kind_names() + ")");
}

void refuse_fpr_target(const kind_entry& entry, std::uint64_t capacity, double target_fpr, const std::string& why,
                       const std::string& also) {
  char standard[32];
  std::snprintf(standard, sizeof standard, "%.1f",
                standard_bits_per_key(std::max<std::uint64_t>(capacity, 1), target_fpr));
  throw usage_error("--kind " + std::string(entry.name) + " cannot reach --fpr " +
                    bloomkit::format_number(target_fpr) + ": " + why +
                    ". Use --kind standard, which reaches any FPR (" + standard + " bits per key here)" + also +
                    ", or a larger --fpr" +
                    (has_exact_parameters(entry.kind) ? " (or give the size yourself with --bits)" : ""));
}

void check_fpr_reachable(const kind_entry& entry, std::uint64_t capacity, double target_fpr) {
  const std::uint64_t n = std::max<std::uint64_t>(capacity, 1);
  if (entry.kind == filter_kind::cuckoo_filter) {
    const double floor = bloomkit::cuckoo_filter::lowest_plannable_fpr();
    if (target_fpr < floor) {
      char why[96];
      std::snprintf(why, sizeof why, "its 16-bit fingerprints reach FPR %.3g at best (at 95 %% load)", floor);
      refuse_fpr_target(entry, n, target_fpr, why, "");
    }
    return;
  }
  const bool scalable = entry.kind == filter_kind::scalable_bloom;
  if (entry.kind != filter_kind::blocked_bloom && entry.kind != filter_kind::split_block_bloom && !scalable) return;
  const bool split = entry.kind == filter_kind::split_block_bloom;
  const int block_bits = split ? 256 : 512;
  const std::string floor_words = "all of a key's probes fall in one " + std::to_string(block_bits) +
                                  "-bit block, so a block filter's FPR has a floor and shrinks only slowly with "
                                  "more memory";
  const std::string ribbon =
      target_fpr >= std::ldexp(1.0, -16) ? " (or --kind ribbon, about 1.05 log2(1/p) bits per key)" : "";
  // A scalable filter's first stage is a blocked filter at (1 - r) times the
  // target (r the tightening ratio), its later stages tighter still.
  const double stage_fpr = scalable ? target_fpr * (1.0 - scalable_bloom_params{}.tightening) : target_fpr;
  std::uint64_t bits = 0;
  try {
    bits = split ? sizing::split_block_blocks_for(n, stage_fpr) * 256
                 : sizing::blocked_blocks_for(n, stage_fpr, 512, blocked_max_k).blocks * 512;
  } catch (const error&) {
    // Past sizing::max_size_over_classic times the standard size (or 2^32
    // blocks): the library refuses to plan it.
    char why[160];
    std::snprintf(why, sizeof why, "it would need over %g times the bits of --kind standard%s (not efficient); ",
                  sizing::max_size_over_classic, scalable ? " for its first stage (a blocked filter)" : "");
    refuse_fpr_target(entry, n, target_fpr, why + floor_words, ribbon);
  }
  if (scalable) return;  // within reach: the stages' sizes are the growth plan's, not refused here
  const double standard = standard_bits_per_key(n, target_fpr);
  const double per_key = static_cast<double>(bits) / static_cast<double>(n);
  // Twice the standard filter's bits, plus two blocks: a handful of keys in
  // one or two blocks is a few hundred bytes, not a waste worth refusing.
  if (static_cast<double>(bits) <= 2.0 * standard * static_cast<double>(n) + 2.0 * block_bits) return;
  char why[256];
  std::snprintf(why, sizeof why, "it would need %.0f bits per key (%.4g bytes for %llu keys); ", per_key,
                static_cast<double>(bits) / 8.0, static_cast<unsigned long long>(n));
  refuse_fpr_target(entry, n, target_fpr, why + floor_words, ribbon);
}

bool has_exact_parameters(filter_kind kind) noexcept {
  return kind == filter_kind::standard_bloom || kind == filter_kind::blocked_bloom ||
         kind == filter_kind::split_block_bloom || kind == filter_kind::counting_bloom;
}

any_filter make_exact_filter(filter_kind kind, std::uint64_t bits, std::uint32_t k, std::uint64_t capacity,
                             double target_fpr, hash_spec hash) {
  switch (kind) {
    case filter_kind::standard_bloom: return exact_standard(bits, k, capacity, target_fpr, hash);
    case filter_kind::blocked_bloom: return exact_blocked(bits, k, capacity, target_fpr, hash);
    case filter_kind::split_block_bloom: return exact_split_block(bits, k, capacity, target_fpr, hash);
    case filter_kind::counting_bloom: return exact_counting(bits, k, capacity, target_fpr, hash);
    default: break;
  }
  throw usage_error("--bits and --hashes apply to --kind standard, blocked, split-block and counting, not " +
                    std::string(to_string(kind)));
}

hash_algorithm hash_algorithm_argument(std::string_view name) {
  if (const auto algorithm = bloomkit::parse_hash_algorithm(name)) return *algorithm;
  throw usage_error("--hash must be xxh3_64 or xxh64, got \"" + std::string(name) + "\"");
}

}  // namespace bloomkit::cli
