// bloomkit/sizing.hpp - the math of Bloom filters, as a unit of its own.
//
// Sizes (bits, k) from (n, p), false-positive rates for the standard, blocked
// and Parquet split-block layouts, and cardinality from the bits set. Each
// formula, its assumptions and its source are in docs/MATH.md; the tests in
// tests/sizing_test.cpp pin known values. Everything here is pure: no filter
// is needed to plan one.
//
// Domain checks: n >= 1, 0 < p < 1, m >= 1, k >= 1, and no NaN; anything else
// throws bloomkit::error(errc::invalid_argument) naming the parameter.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"

namespace bloomkit::sizing {

namespace detail {

inline void check_fpr(double p) {
  if (!(p > 0.0 && p < 1.0)) {  // also rejects NaN
    throw error(errc::invalid_argument,
                "false-positive rate must be in (0, 1), got " + bloomkit::detail::format_number(p));
  }
}
inline void check_positive(double value, const char* name) {
  if (!(value >= 1.0) || !std::isfinite(value)) {
    throw error(errc::invalid_argument, std::string(name) + " must be at least 1, got " + bloomkit::detail::format_number(value));
  }
}

/// log of the Poisson pmf, stable for large lambda.
inline double log_poisson(double lambda, double i) {
  return i * std::log(lambda) - lambda - std::lgamma(i + 1.0);
}

/// E[f(L)] for L ~ Poisson(lambda): the block-load mixture of Putze et al.
/// Sums a window of +-(12 sqrt(lambda) + 30) around the mean, which holds all
/// but a negligible (< 1e-30) part of the mass.
/// For loads past 10^6 keys per block (a filter overfilled a millionfold, or
/// a fuzzer's capacity of 2^60) the window would hold millions of terms; there
/// the Poisson is sampled at 4,001 evenly spaced points with weights
/// renormalised, which keeps the cost bounded (the summands vary slowly
/// there, and every block is full anyway).
template <class F>
double poisson_mixture(double lambda, F&& f) {
  if (!(lambda > 0.0)) return f(0.0);
  if (lambda > 1e15) return std::min(f(lambda), 1.0);  // relative width < 1e-6; steps would underflow
  const double spread = 12.0 * std::sqrt(lambda) + 30.0;
  const double lo = std::max(0.0, std::floor(lambda - spread));
  const double hi = std::ceil(lambda + spread);
  const double step = lambda > 1e6 ? std::ceil((hi - lo) / 4000.0) : 1.0;
  double sum = 0.0, weight = 0.0;
  for (double i = lo; i <= hi; i += step) {
    const double w = std::exp(log_poisson(lambda, i));
    sum += w * f(i);
    weight += w;
  }
  if (step > 1.0 && weight > 0.0) sum /= weight;
  return std::min(sum, 1.0);
}

}  // namespace detail

/// Bits per key of an optimally configured standard Bloom filter with
/// false-positive rate p: -ln p / (ln 2)^2 (9.585 at 1 %, 14.378 at 0.1 %).
inline double bits_per_key_for(double p) {
  detail::check_fpr(p);
  return -std::log(p) / (std::numbers::ln2 * std::numbers::ln2);
}

/// Bits m for n keys at false-positive rate p (standard filter, optimal k):
/// ceil(n * bits_per_key_for(p)), at least 1.
inline std::uint64_t bits_for(std::uint64_t n, double p) {
  detail::check_positive(static_cast<double>(n), "n (expected keys)");
  const double m = std::ceil(static_cast<double>(n) * bits_per_key_for(p));
  if (!(m < 9.2e18)) throw error(errc::invalid_argument, "n and p need more than 2^63 bits");
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m));
}

/// The smallest m for which n keys and exactly k probes meet p by the
/// classic formula: m = ceil(-k n / ln(1 - p^{1/k})).
inline std::uint64_t bits_for_k(std::uint64_t n, double p, std::uint32_t k) {
  detail::check_positive(static_cast<double>(n), "n (expected keys)");
  detail::check_fpr(p);
  detail::check_positive(k, "k (hash functions)");
  const double m = std::ceil(-static_cast<double>(k) * static_cast<double>(n) / std::log1p(-std::pow(p, 1.0 / k)));
  if (!(m < 9.2e18)) throw error(errc::invalid_argument, "n and p need more than 2^63 bits");
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m));
}

/// A standard layout for (n, p): bits and an integer k.
struct standard_plan {
  std::uint64_t bits;
  std::uint32_t k;
};

/// The fewest bits (and the k achieving them) for which n keys meet p by the
/// classic formula with an *integer* k. bits_for(n, p) assumes the ideal
/// real-valued k = log2(1/p); rounding k costs a little: at 1 % the plan is
/// k = 7 and 9.593 bits/key instead of 9.585, at 10 % k = 3 and 4.90 instead
/// of 4.79 (with 4.79 bits/key and k = 3 the FPR would be 10.08 %).
inline standard_plan standard_plan_for(std::uint64_t n, double p) {
  detail::check_fpr(p);
  const double ideal = -std::log2(p);
  const auto lo = static_cast<std::uint32_t>(std::clamp(std::floor(ideal), 1.0, 64.0));
  const auto hi = static_cast<std::uint32_t>(std::clamp(std::ceil(ideal), 1.0, 64.0));
  const std::uint64_t m_lo = bits_for_k(n, p, lo), m_hi = bits_for_k(n, p, hi);
  return m_hi < m_lo ? standard_plan{m_hi, hi} : standard_plan{m_lo, lo};
}

/// The k minimising the classic FPR for m bits and n keys: round(m/n ln 2),
/// clamped to [1, 64].
inline std::uint32_t optimal_k(std::uint64_t m, std::uint64_t n) {
  detail::check_positive(static_cast<double>(m), "m (bits)");
  detail::check_positive(static_cast<double>(n), "n (expected keys)");
  const double k = std::round(static_cast<double>(m) / static_cast<double>(n) * std::numbers::ln2);
  return static_cast<std::uint32_t>(std::clamp(k, 1.0, 64.0));
}

/// The optimal k for a target p alone: round(log2(1/p)), at least 1 (7 at 1 %).
inline std::uint32_t optimal_k_for(double p) {
  detail::check_fpr(p);
  return static_cast<std::uint32_t>(std::clamp(std::round(-std::log2(p)), 1.0, 64.0));
}

/// Classic FPR approximation (Bloom 1970; Broder and Mitzenmacher 2004):
/// (1 - e^{-kn/m})^k. n = 0 gives 0.
inline double classic_fpr(double m, double n, double k) {
  detail::check_positive(m, "m (bits)");
  detail::check_positive(k, "k (hash functions)");
  if (!(n >= 0.0)) throw error(errc::invalid_argument, "n must be >= 0");
  return std::pow(-std::expm1(-k * n / m), k);
}

/// The exact FPR of a standard filter with m bits, n keys and k probes that
/// are uniform and independent (Bose et al. 2008; Christensen, Roginsky and
/// Jimeno 2010), computed without Stirling numbers of kn:
///   FPR = sum_j P(the k query probes hit j distinct bits) * Q_j,
///   P_j = S(k, j) (m)_j / m^k,  Q_j = P(j given bits all set after kn throws).
/// Q_j conditions on how many of the kn throws land in those j bits (binomial)
/// and on the probability that s throws cover all j bits (a j-state chain),
/// so every term is positive and the sum is stable (docs/MATH.md).
/// Requires k <= 64.
inline double exact_fpr(double m, double n, std::uint32_t k) {
  detail::check_positive(m, "m (bits)");
  detail::check_positive(k, "k (hash functions)");
  if (k > 64) throw error(errc::invalid_argument, "exact_fpr supports k <= 64");
  if (!(n >= 0.0)) throw error(errc::invalid_argument, "n must be >= 0");
  if (n == 0.0) return 0.0;
  // Past kn/m = 40 every bit is set but with probability under m e^-40: the
  // exact and classic values agree and the classic one is O(1).
  if (static_cast<double>(k) * n / m > 40.0) return classic_fpr(m, n, k);
  using ld = long double;
  const ld t = static_cast<ld>(k) * static_cast<ld>(n);
  // Stirling numbers of the second kind S(k, j).
  std::vector<std::vector<ld>> stirling(k + 1, std::vector<ld>(k + 1, 0.0L));
  stirling[0][0] = 1.0L;
  for (std::uint32_t a = 1; a <= k; ++a) {
    for (std::uint32_t b = 1; b <= a; ++b) {
      stirling[a][b] = static_cast<ld>(b) * stirling[a - 1][b] + stirling[a - 1][b - 1];
    }
  }
  ld total = 0.0L;
  ld falling = 1.0L;  // (m)_j / m^j
  for (std::uint32_t j = 1; j <= k; ++j) {
    falling *= (static_cast<ld>(m) - static_cast<ld>(j - 1)) / static_cast<ld>(m);
    if (falling <= 0.0L) break;
    const ld p_j = stirling[k][j] * falling * std::pow(static_cast<ld>(m), static_cast<ld>(j) - static_cast<ld>(k));
    // Q_j: s ~ Binomial(t, j/m) throws land in the j bits; cover(s) by a chain.
    const ld q = static_cast<ld>(j) / static_cast<ld>(m);
    std::vector<ld> chain(j + 1, 0.0L);
    chain[0] = 1.0L;
    auto advance = [&chain, j] {  // one more throw into the j bits
      for (std::uint32_t i = j; i >= 1; --i) {
        chain[i] = chain[i] * (static_cast<ld>(i) / j) + chain[i - 1] * (static_cast<ld>(j - i + 1) / j);
      }
      chain[0] = 0.0L;
    };
    if (q >= 1.0L) {  // j == m: every throw lands in the j bits
      for (ld s = 1.0L; s <= t && 1.0L - chain[j] > 1e-19L; s += 1.0L) advance();
      total += p_j * chain[j];
      continue;
    }
    ld pmf = std::exp(t * std::log1p(-q));  // P(s = 0)
    ld log_pmf = t * std::log1p(-q);
    ld q_j = 0.0L, mass = 0.0L;
    const ld mean = t * q;
    for (ld s = 0.0L; s <= t; s += 1.0L) {
      if (s > 0.0L) {
        advance();  // from i covered, a new bit with probability (j - i) / j
        log_pmf += std::log((t - s + 1.0L) / s) + std::log(q) - std::log1p(-q);
        pmf = std::exp(log_pmf);
      }
      q_j += pmf * chain[j];
      mass += pmf;
      if (s > mean && ((1.0L - mass) < 1e-18L || s > mean + 60.0L * std::sqrt(mean) + 200.0L)) break;
    }
    total += p_j * q_j;
  }
  return static_cast<double>(std::min<ld>(total, 1.0L));
}

namespace detail {

/// Blocks up to this many bits get the exact per-block FPR (a dynamic
/// program over the block's set-bit count); larger blocks use the classic
/// in-block formula, whose Jensen gap shrinks as 1/B.
inline constexpr std::uint32_t exact_block_bits_limit = 4096;

/// table[i] = P(a random key passes | i keys in one block of B bits) =
/// E[(X_i / B)^k], where X_i is the number of set bits after i*k uniform
/// throws into B bits, computed exactly by a dynamic program over X
/// (O(max_keys k B)). Exact where Putze et al.'s (1 - (1 - 1/B)^{ik})^k is
/// not: that takes the power of the mean fill, E[X_i/B]^k, and by Jensen's
/// inequality under-states the FPR (1 % relative at B = 512 and p = 1 %,
/// 4 % at p = 0.01 %: measured in tests/fpr_test.cpp).
inline std::vector<double> block_pass_table(std::uint32_t block_bits, std::uint32_t k, std::uint64_t max_keys) {
  const std::uint32_t B = block_bits;
  std::vector<double> power(B + 1);
  for (std::uint32_t x = 0; x <= B; ++x) power[x] = std::pow(static_cast<double>(x) / B, static_cast<double>(k));
  std::vector<double> dist(B + 1, 0.0), next(B + 1, 0.0);
  dist[0] = 1.0;
  std::vector<double> table(max_keys + 1, 0.0);
  // dist is non-zero only on [bottom, top]; probabilities under 1e-40 are
  // dropped (they cannot move a sum of order 1e-20 or more, and left in
  // place they decay into denormals, which are 100x slower).
  std::uint32_t bottom = 0, top = 0;
  for (std::uint64_t i = 1; i <= max_keys; ++i) {
    for (std::uint32_t throw_ = 0; throw_ < k; ++throw_) {
      const std::uint32_t new_top = std::min(top + 1, B);
      for (std::uint32_t x = bottom; x <= new_top; ++x) {
        const double stay = x <= top ? dist[x] * (static_cast<double>(x) / B) : 0.0;
        const double grow = x > bottom ? dist[x - 1] * (static_cast<double>(B - x + 1) / B) : 0.0;
        next[x] = stay + grow;
      }
      top = new_top;
      std::swap(dist, next);
      while (bottom < top && dist[bottom] < 1e-40) dist[bottom++] = 0.0;
      while (top > bottom && dist[top] < 1e-40) dist[top--] = 0.0;
    }
    double f = 0.0;
    for (std::uint32_t x = bottom; x <= top; ++x) f += dist[x] * power[x];
    table[i] = f;
  }
  return table;
}

/// Keys per block beyond which a block is as good as full (12 B / k keys set
/// all but e^-12 of its bits); the classic in-block formula is used there.
inline std::uint64_t block_table_keys(std::uint32_t block_bits, std::uint32_t k) {
  return static_cast<std::uint64_t>(std::ceil(12.0 * block_bits / k)) + 1;
}

/// FPR of one block holding i keys: from the exact table where it reaches,
/// else the classic in-block formula.
inline double block_pass(const std::vector<double>& table, std::uint32_t block_bits, std::uint32_t k, double i) {
  if (i < static_cast<double>(table.size())) return table[static_cast<std::size_t>(i)];
  return std::pow(-std::expm1(i * k * std::log1p(-1.0 / block_bits)), k);
}

/// The exact table for (block_bits, k), computed once per process and shared
/// (about 6 ms per k at B = 512; a scalable filter sizes a new stage with all
/// sixteen k, so without the cache every stage paid ~0.1 s). Empty for blocks
/// over exact_block_bits_limit. Thread-safe.
inline std::shared_ptr<const std::vector<double>> block_table_for(std::uint32_t block_bits, std::uint32_t k) {
  static std::mutex mutex;
  static std::map<std::pair<std::uint32_t, std::uint32_t>, std::shared_ptr<const std::vector<double>>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[{block_bits, k}];
  if (!slot) {
    slot = std::make_shared<const std::vector<double>>(
        block_bits > exact_block_bits_limit ? std::vector<double>{}
                                            : block_pass_table(block_bits, k, block_table_keys(block_bits, k)));
  }
  return slot;
}

/// The smallest x in [1, limit] with meets(x), for a predicate that is false
/// below some point and true from it on (an FPR at or under a target as the
/// size grows). Starts at `guess`: halves until meets fails (or x = 1), then
/// doubles until it holds, then bisects; nullopt when it fails at limit.
template <class Meets>
std::optional<std::uint64_t> smallest_meeting(std::uint64_t guess, std::uint64_t limit, Meets&& meets) {
  std::uint64_t hi = std::max<std::uint64_t>(1, guess);
  while (hi > 1 && meets(hi)) hi /= 2;
  std::uint64_t lo = hi;  // meets(lo) is false here unless lo == 1
  while (!meets(hi)) {
    lo = hi + 1;
    if (hi == limit) return std::nullopt;
    hi = std::min(hi * 2, limit);
  }
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (meets(mid)) hi = mid; else lo = mid + 1;
  }
  return hi;
}

/// The most blocks a size search for (n, p) considers: 2^32, or fewer where
/// that is past max_size_over_classic times bits_for(n, p) plus two blocks
/// (a handful of keys in a block or two is no waste worth refusing).
inline std::uint64_t block_search_limit(std::uint64_t n, double p, std::uint32_t block_bits);

/// The refusal of a block layout that cannot reach p within that limit:
/// errc::invalid_argument naming the layout, the sizes, the kind that
/// reaches any p and how to ask for a size explicitly.
[[noreturn]] inline void refuse_block_target(const char* layout, std::uint64_t n, double p, std::uint32_t block_bits,
                                             std::uint64_t limit);

}  // namespace detail

/// A sizing function refuses a layout that would need more than this many
/// times the bits a standard filter needs for the same n and p (plus two
/// blocks): at 1e-30, 1000 keys would take a 44.9 GB blocked filter, where
/// a standard one takes 19 KB. A block filter puts all of a key's probes in
/// one block, so its FPR has a floor and below it shrinks only slowly as the
/// filter grows. An explicit size (with_blocks, the CLI's --bits) is never
/// refused for this.
inline constexpr double max_size_over_classic = 64.0;

/// FPR of a blocked Bloom filter (Putze, Sanders and Singler 2007): m bits in
/// blocks of `block_bits`, each key sets k uniform bits inside one uniformly
/// chosen block. Block loads are Poisson(n B / m), so
///   FPR = sum_i Pois(i; nB/m) f_B(i),
/// with f_B(i) the *exact* FPR of a B-bit block holding i keys (see
/// detail::block_pass_table; for B > 4096 the classic
/// (1 - (1 - 1/B)^{ik})^k, whose error is then negligible).
inline double blocked_fpr(double m, double n, std::uint32_t k, std::uint32_t block_bits) {
  detail::check_positive(m, "m (bits)");
  detail::check_positive(k, "k (hash functions)");
  detail::check_positive(block_bits, "block_bits");
  if (!(n >= 0.0)) throw error(errc::invalid_argument, "n must be >= 0");
  const double lambda = n * block_bits / m;
  const auto table = detail::block_table_for(block_bits, k);
  return detail::poisson_mixture(lambda, [&](double i) { return detail::block_pass(*table, block_bits, k, i); });
}

/// FPR of the Parquet split-block filter (Parquet BloomFilter.md): z blocks of
/// eight 32-bit words; a key sets one bit in each word of one block, so with
/// load i a word misses a given bit with probability (1 - 1/32)^i:
///   FPR = sum_i Pois(i; n/z) (1 - (31/32)^i)^8.
inline double split_block_fpr(double blocks, double n) {
  detail::check_positive(blocks, "blocks");
  if (!(n >= 0.0)) throw error(errc::invalid_argument, "n must be >= 0");
  const double miss = std::log1p(-1.0 / 32.0);
  return detail::poisson_mixture(n / blocks, [&](double i) { return std::pow(-std::expm1(i * miss), 8.0); });
}

/// The smallest number of split blocks whose split_block_fpr for n keys is
/// at most p (about 10.5 bits per key at 1 %, where Parquet's
/// -8/ln(1 - p^(1/8)) gives 9.7 and misses the target).
inline std::uint64_t split_block_blocks_for(std::uint64_t n, double p) {
  detail::check_positive(static_cast<double>(n), "n (expected keys)");
  detail::check_fpr(p);
  // Bracketed around the classic size (bits_for / 256): a search from one
  // block summed Poisson mixtures at loads of up to n keys per block (tens of
  // thousands of terms each), 3-4 ms per construction at n = 10^6.
  const std::uint64_t limit = detail::block_search_limit(n, p, 256);
  const auto blocks = detail::smallest_meeting(
      std::clamp<std::uint64_t>(bits_for(n, p) / 256, 1, limit), limit,
      [&](std::uint64_t b) { return split_block_fpr(static_cast<double>(b), static_cast<double>(n)) <= p; });
  if (!blocks) detail::refuse_block_target("split_block_bloom", n, p, 256, limit);
  return *blocks;
}

/// A blocked layout chosen for (n, p): number of blocks and k.
struct blocked_plan {
  std::uint64_t blocks;
  std::uint32_t k;
};

/// The fewest blocks of `block_bits` (and the k in [1, max_k] that achieves
/// it; the smaller k on ties, since it is faster) whose blocked_fpr for n keys
/// is at most p.
inline blocked_plan blocked_blocks_for(std::uint64_t n, double p, std::uint32_t block_bits, std::uint32_t max_k = 16) {
  detail::check_positive(static_cast<double>(n), "n (expected keys)");
  detail::check_fpr(p);
  detail::check_positive(block_bits, "block_bits");
  detail::check_positive(max_k, "max_k");
  const std::uint64_t limit = detail::block_search_limit(n, p, block_bits);
  blocked_plan best{std::numeric_limits<std::uint64_t>::max(), 1};
  // Every k's own search costs about twenty Poisson mixtures; most k cannot
  // beat the best found so far, and one mixture shows it: a k with fewer
  // blocks (or as few, when it is the smaller k) must meet p at that count,
  // and the FPR falls as blocks grow. So the k nearest the classic optimum
  // is searched first, and any other k only once that test passes.
  const auto first_k = static_cast<std::uint32_t>(
      std::clamp(std::round(bits_per_key_for(p) * std::numbers::ln2), 1.0, static_cast<double>(max_k)));
  // Bracket each search starting near the classic size, so the Poisson
  // mixtures evaluated stay at moderate loads (a tiny block count means a
  // load of n keys per block and a very long sum).
  const std::uint64_t guess = std::clamp<std::uint64_t>(bits_for(n, p) / block_bits / 2, 1, limit);
  for (std::uint32_t step = 0; step < max_k; ++step) {
    const std::uint32_t k = step == 0 ? first_k : (step < first_k ? step : step + 1);
    const auto table = detail::block_table_for(block_bits, k);
    auto meets = [&](std::uint64_t blocks) {
      return detail::poisson_mixture(static_cast<double>(n) / static_cast<double>(blocks),
                                     [&](double i) { return detail::block_pass(*table, block_bits, k, i); }) <= p;
    };
    if (best.blocks != std::numeric_limits<std::uint64_t>::max()) {
      const std::uint64_t must_meet = k < best.k ? best.blocks : best.blocks - 1;
      if (must_meet == 0 || !meets(must_meet)) continue;
    }
    const auto blocks = detail::smallest_meeting(guess, limit, meets);
    if (!blocks) continue;
    if (*blocks < best.blocks || (*blocks == best.blocks && k < best.k)) best = {*blocks, k};
  }
  if (best.blocks == std::numeric_limits<std::uint64_t>::max()) {
    detail::refuse_block_target(block_bits == 512 ? "blocked_bloom" : "a blocked layout", n, p, block_bits, limit);
  }
  return best;
}

/// The fewest blocks of `block_bits` bits, at exactly k probes per key,
/// whose blocked_fpr for n keys is at most p, searching 1 to `limit` blocks;
/// nullopt when even `limit` blocks miss p. Throws as blocked_fpr does (k = 0).
/// For an explicit k (the CLI's --hashes without --bits); blocked_blocks_for
/// picks k as well.
inline std::optional<std::uint64_t> blocked_blocks_for_k(std::uint64_t n, double p, std::uint32_t k,
                                                         std::uint32_t block_bits, std::uint64_t limit) {
  return detail::smallest_meeting(1, limit, [&](std::uint64_t blocks) {
    return blocked_fpr(static_cast<double>(blocks) * block_bits, static_cast<double>(n), k, block_bits) <= p;
  });
}

namespace detail {

inline std::uint64_t block_search_limit(std::uint64_t n, double p, std::uint32_t block_bits) {
  constexpr std::uint64_t max_blocks = std::uint64_t{1} << 32;
  const double bits = max_size_over_classic * static_cast<double>(bits_for(n, p)) + 2.0 * block_bits;
  const double blocks = std::ceil(bits / block_bits);
  return blocks >= static_cast<double>(max_blocks) ? max_blocks : static_cast<std::uint64_t>(blocks);
}

[[noreturn]] inline void refuse_block_target(const char* layout, std::uint64_t n, double p, std::uint32_t block_bits,
                                             std::uint64_t limit) {
  const std::string rate = bloomkit::detail::format_number(p);
  const std::string keys = std::to_string(n);
  if (limit == std::uint64_t{1} << 32 &&
      static_cast<double>(limit) * block_bits <
          max_size_over_classic * static_cast<double>(bits_for(n, p)) + 2.0 * block_bits) {
    throw error(errc::invalid_argument, std::string(layout) + ": " + keys + " keys at false-positive rate " + rate +
                                            " need more than 2^32 blocks of " + std::to_string(block_bits) + " bits");
  }
  const double standard = bits_per_key_for(p);
  throw error(errc::invalid_argument,
              std::string(layout) + " cannot reach false-positive rate " + rate + " efficiently for " + keys +
                  " keys: it would need more than " + bloomkit::detail::format_number(max_size_over_classic) +
                  " times the " + bloomkit::detail::format_number(std::round(standard * 10.0) / 10.0) +
                  " bits per key of a standard filter (all of a key's probes fall in one " +
                  std::to_string(block_bits) +
                  "-bit block, so its rate has a floor). Use standard_bloom (StandardBloom, --kind standard), "
                  "which reaches any rate, or a larger rate; a size given explicitly (with_blocks, --bits) is "
                  "not refused");
}

}  // namespace detail

/// Classic FPR with k chosen optimally for the given bits per key.
inline double fpr_for(double bits_per_key, double k) {
  detail::check_positive(k, "k (hash functions)");
  if (!(bits_per_key > 0.0)) throw error(errc::invalid_argument, "bits per key must be > 0");
  return std::pow(-std::expm1(-k / bits_per_key), k);
}

/// The most keys m bits hold at FPR p with optimal k (inverse of bits_for):
/// floor(m (ln 2)^2 / -ln p).
inline std::uint64_t capacity_for(std::uint64_t m, double p) {
  detail::check_positive(static_cast<double>(m), "m (bits)");
  return static_cast<std::uint64_t>(std::floor(static_cast<double>(m) / bits_per_key_for(p)));
}

/// Number of distinct keys estimated from the bits set (Swamidass and Baldi
/// 2007): n* = -(m/k) ln(1 - X/m). Infinite when every bit is set: the filter
/// no longer says how many keys it holds.
inline double cardinality_from_bits(double m, double k, double set_bits) {
  detail::check_positive(m, "m (bits)");
  detail::check_positive(k, "k (hash functions)");
  if (!(set_bits >= 0.0 && set_bits <= m)) throw error(errc::invalid_argument, "set bits must be in [0, m]");
  if (set_bits >= m) return std::numeric_limits<double>::infinity();
  return -(m / k) * std::log1p(-set_bits / m);
}

/// True when a cardinality estimate shows more distinct keys than `capacity`
/// beyond the estimator's noise: estimated > capacity + 3 sqrt(capacity).
/// At the design fill the Swamidass-Baldi estimate has a standard deviation
/// near 0.25 sqrt(n) (its variance is (m/k^2)(e^{kn/m} - 1 - kn/m)), so a
/// filter holding exactly `capacity` keys is never flagged by chance, and one
/// 10 % past a capacity of 1,000 (0.3 % past 10^6) is.
inline bool past_capacity(double estimated_keys, std::uint64_t capacity) {
  const double c = static_cast<double>(capacity);
  return estimated_keys > c + 3.0 * std::sqrt(c);
}

/// FPR of a filter whose bit array has the given fill ratio X/m, for k
/// uniform probes: (X/m)^k. This is what a filter reports as its FPR now.
inline double fpr_from_fill(double fill, double k) {
  if (!(fill >= 0.0 && fill <= 1.0)) throw error(errc::invalid_argument, "fill ratio must be in [0, 1]");
  return std::pow(fill, k);
}

/// Which Parquet writer's size rounding to imitate (docs/PARQUET.md §5).
enum class parquet_writer {
  duckdb,     ///< NextPowerOfTwo(floor(m/8)) bytes, at least 32, no upper cap
  arrow_cpp,  ///< bits = (uint32)m capped at 2^30, >= 256, rounded up to a power of two
  arrow_rs,   ///< floor(m)/8 bytes, clamped to [32, 128 MiB], rounded up to a power of two
};

/// The numBytes a Parquet writer chooses for ndv distinct values at fpp,
/// from the spec's m = -8 ndv / ln(1 - fpp^(1/8)) and the writer's rounding.
/// Use it for filters that must be byte-identical to that writer's.
inline std::uint64_t parquet_writer_bytes(std::uint64_t ndv, double fpp, parquet_writer writer) {
  detail::check_fpr(fpp);
  const double m = -8.0 * static_cast<double>(ndv) / std::log(1.0 - std::pow(fpp, 1.0 / 8.0));
  auto next_pow2 = [](std::uint64_t x) {
    std::uint64_t r = 1;
    while (r < x) r <<= 1;
    return r;
  };
  constexpr std::uint64_t max_bytes = 128ULL << 20;
  switch (writer) {
    case parquet_writer::duckdb:
      return std::max<std::uint64_t>(32, next_pow2(static_cast<std::uint64_t>(m / 8.0)));
    case parquet_writer::arrow_cpp: {
      std::uint64_t bits = (m < 0.0 || m > 1073741824.0) ? (1ULL << 30) : static_cast<std::uint32_t>(m);
      bits = std::min<std::uint64_t>(next_pow2(std::max<std::uint64_t>(bits, 256)), 1ULL << 30);
      return bits / 8;
    }
    case parquet_writer::arrow_rs: {
      const std::uint64_t bytes = static_cast<std::uint64_t>(std::floor(m)) / 8;
      return next_pow2(std::clamp<std::uint64_t>(bytes, 32, max_bytes));
    }
  }
  return 32;
}

}  // namespace bloomkit::sizing
