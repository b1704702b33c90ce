// tools/bloomkit/kinds.cpp - what the CLI adds to the library's list of kinds (see kinds.hpp).
#include "kinds.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom.hpp"
#include "bloomkit/counting_bloom.hpp"
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
    // --hashes alone: the fewest blocks meeting --fpr with this k.
    const auto found = sizing::blocked_blocks_for_k(capacity, target_fpr, k, 512, std::uint64_t{1} << 40);
    if (!found) throw usage_error("--hashes " + std::to_string(k) + " cannot reach this --fpr");
    blocks = *found;
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

}  // namespace

std::span<const kind_entry> kind_table() { return all_kinds; }

std::string kind_names() {
  std::string names;
  for (const auto& entry : kind_table()) {
    if (!names.empty()) names += ", ";
    names += entry.cli_name;
  }
  return names;
}

const kind_entry& find_kind(std::string_view name) {
  const std::string wanted = normalized(name);
  for (const auto& entry : kind_table()) {
    if (normalized(entry.cli_name) == wanted || normalized(entry.name) == wanted) return entry;
  }
  const bool number = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (number) {
    throw usage_error("--kind " + std::string(name) + ": -k is --kind (the filter kind); for the number of hashes "
                      "per key use --hashes " + std::string(name));
  }
  std::vector<std::string> names;
  for (const auto& entry : kind_table()) names.emplace_back(entry.cli_name);
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
  throw usage_error("--kind " + std::string(entry.cli_name) + " cannot reach --fpr " +
                    bloomkit::format_number(target_fpr) + ": " + why +
                    ". Use --kind standard, which reaches any FPR (" + standard + " bits per key here)" + also +
                    ", or a larger --fpr" +
                    (has_exact_parameters(entry.kind) ? " (or give the size yourself with --bits)" : ""));
}

void check_fpr_reachable(const kind_entry& entry, std::uint64_t capacity, double target_fpr) {
  const std::uint64_t n = std::max<std::uint64_t>(capacity, 1);
  if (entry.lowest_fpr != nullptr) {
    const double floor = entry.lowest_fpr();
    if (target_fpr < floor) {
      char figure[32];
      std::snprintf(figure, sizeof figure, "%.3g", floor);
      std::string why(entry.lowest_fpr_reason);
      if (const auto at = why.find("{}"); at != std::string::npos) why.replace(at, 2, figure);
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
