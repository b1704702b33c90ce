// bloomkit/binary_fuse.hpp - binary fuse filters (Graf and Lemire 2022,
// "Binary Fuse Filters: Fast and Smaller Than Xor Filters", JEA 27).
//
// A static filter: built once from the whole key set, then only queried. It
// stores one f-bit fingerprint per slot in an array of A slots cut into
// segments of L = 2^j slots. A key's seeded hash h picks `arity` slots, one in
// each of `arity` consecutive segments, and the filter is solved so that
//
//     F[p_0(h)] ^ F[p_1(h)] ^ ... ^ F[p_{arity-1}(h)] == fingerprint(h)
//
// holds for every key. A key not in the set passes with probability 2^-f
// (1/256 for binary_fuse8, 1/65536 for binary_fuse16).
//
//   slots:  | seg 0 | seg 1 | seg 2 | ... | seg S-1 | seg S | seg S+1 |
//                      ^ p_0      ^ p_1       ^ p_2          (3-wise: the key's
//   p_0 = (h * (S * L)) >> 64              window is 3 consecutive segments)
//   p_i = (p_0 + i * L) ^ (bits_i(h) & (L - 1))   for i >= 1 (same offset rule
//                                                 stays inside segment seg(p_0)+i)
//
// Construction is hypergraph peeling (§3): count keys per slot, repeatedly
// take a slot that holds exactly one key, record (key, that slot) on a stack
// and remove the key from its other slots; then pop the stack and set the
// recorded slot so the key's equation holds (its other slots are final by
// then). Peeling succeeds with high probability when A >= n * size_factor
// (§5 gives the fits used here: 3-wise max(1.125, 0.875 + 0.25 ln 10^6 / ln n),
// 4-wise max(1.075, 0.77 + 0.305 ln 600000 / ln n), and segment lengths
// 2^floor(ln n / ln 3.33 + 2.25) resp. 2^floor(ln n / ln 2.91 - 0.5), capped at
// 2^18). On failure it retries with a new seed; when seeds keep failing at one
// size (attempts_per_size of them), the table grows (below), so a build ends
// in a filter for every key set rather than in construction_failed.
//
// Growth: the fits are for large n, and at some small and middle n one seed
// succeeds rarely (measured: up to 44 seeds at n < 20,000 with 3-wise; a
// user reported a failure after 64). Growth step g multiplies the size
// factor by (17/16)^g and adds at least g segments (for small n, where the
// whole array is `arity` segments and a larger factor alone would round to
// the same array). More slots per key only make peeling easier (§4), and
// the FPR 2^-f does not change; bits per key rise by 6 % a step.
//
// Bits per key for large n: 3-wise 1.125 f (9.0 for f = 8), 4-wise 1.075 f
// (8.6 for f = 8). A 4-wise query reads one more slot. docs/STATIC.md has the
// measured figures on this machine.
//
// Duplicate keys: two equal hashes can never be peeled (they share all their
// slots), so the first failed attempt switches to a sorted, de-duplicated copy
// of the remixed hashes. keys() then reports the distinct count.
//
// Construction memory, n keys (distinct or not), A slots (about 1.125 n):
//   8n  remixed hashes (later reused as the peeling stack)
//   1n  which-slot byte per peeled key
//   12A per-slot count (4 B) and XOR of the hashes (8 B)
//   4A  stack of slots holding one key
// then, after the per-slot scratch is freed, the result A * sizeof(fingerprint).
// Peak about 9n + 16A = 27n bytes for 3-wise (2.7 GB for 10^8 keys), plus 8n
// for the caller's hashes. Nothing is held after construction.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/detail/bits.hpp"
#include "bloomkit/detail/block_filter.hpp"  // detail::trusted
#include "bloomkit/detail/static_build.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hash.hpp"

namespace bloomkit {

/// The parameters that fix a binary fuse filter's layout and meaning (all a
/// file format must store beside the fingerprints).
struct binary_fuse_params {
  std::uint32_t fingerprint_bits = 8;  ///< f: 8 or 16, fixed by the filter type
  std::uint32_t arity = 3;             ///< slots per key: 3 or 4
  std::uint32_t segment_length = 0;    ///< L, a power of two in [4, 2^18]; 0 only for an empty filter
  std::uint32_t segment_count = 0;     ///< S >= 1 segments a key's first slot may fall in; 0 only when empty
  std::uint64_t seed = 0;              ///< seed of the successful construction attempt
  std::uint64_t keys = 0;              ///< distinct keys stored (0 = empty filter, which rejects everything)
  hash_spec hash{};                    ///< hash used for keys

  /// Number of fingerprint slots: (S + arity - 1) * L, or 0 when empty.
  [[nodiscard]] constexpr std::uint64_t array_length() const noexcept {
    return segment_length == 0 ? 0 : (std::uint64_t{segment_count} + arity - 1) * segment_length;
  }

  friend bool operator==(const binary_fuse_params&, const binary_fuse_params&) = default;
};

/// How to build a binary fuse filter.
struct binary_fuse_options {
  std::uint32_t arity = 3;                             ///< 3 or 4 slots per key
  hash_spec hash{};                                    ///< hash for keys (default XXH3-64, seed 0)
  std::uint64_t seed = detail::default_static_seed;    ///< first construction seed
  std::uint32_t max_attempts = 64;                     ///< seeds to try in all before errc::construction_failed (>= 1)
  /// Seeds tried at one table size before the table grows (see the header
  /// comment); 0 never grows (then max_attempts failures at the planned size
  /// are construction_failed). With the defaults a build tries 16 sizes, the
  /// last 2.5x the first: every sweep in tests/static_sweep_test.cpp succeeds.
  std::uint32_t attempts_per_size = 4;
  double size_factor = 0.0;  ///< slots per key; 0 picks Graf and Lemire's fit. Below ~1.1 construction fails.
};

namespace detail {

/// Slot positions of seeded hash h (see the header comment). `out` gets
/// `arity` positions, each in its own segment, so they are distinct.
constexpr void fuse_positions(std::uint64_t h, std::uint32_t arity, std::uint64_t segment_length,
                              std::uint64_t segment_count_length, std::uint64_t out[4]) noexcept {
  const std::uint64_t mask = segment_length - 1;
  const std::uint64_t p0 = reduce64(h, segment_count_length);
  out[0] = p0;
  // Offsets come from bits the first position does not use: reduce64 reads
  // the top log2(S * L) bits (27 for 10^8 keys), the offsets bits 0..35.
  out[1] = (p0 + segment_length) ^ ((h >> 18) & mask);
  out[2] = (p0 + 2 * segment_length) ^ (h & mask);
  if (arity == 4) out[3] = (p0 + 3 * segment_length) ^ (((h * 0x9e3779b97f4a7c15ULL) >> 46) & mask);
}

/// The f-bit fingerprint of seeded hash h: folds the two halves so the low
/// bits (also used for an offset) are mixed with bits no position uses.
template <std::unsigned_integral F>
constexpr F fuse_fingerprint(std::uint64_t h) noexcept {
  return static_cast<F>(h ^ (h >> 32));
}

/// The layout Graf and Lemire's fits give for n distinct keys (§5), grown
/// by `growth` steps (the header comment: factor x (17/16)^growth, and at
/// least `growth` more segments).
inline binary_fuse_params plan_binary_fuse(std::uint64_t n, std::uint32_t arity, double size_factor,
                                           std::uint32_t growth = 0) {
  binary_fuse_params p;
  p.arity = arity;
  p.keys = n;
  if (n == 0) return p;
  const double ln_n = std::log(static_cast<double>(std::max<std::uint64_t>(n, 2)));
  const double exponent = arity == 3 ? std::floor(ln_n / std::log(3.33) + 2.25) : std::floor(ln_n / std::log(2.91) - 0.5);
  const int log_segment = std::clamp(static_cast<int>(exponent), 2, 18);
  const std::uint64_t segment_length = std::uint64_t{1} << log_segment;
  double factor = size_factor;
  if (factor <= 0.0) {
    factor = arity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1e6) / ln_n)
                        : std::max(1.075, 0.77 + 0.305 * std::log(6e5) / ln_n);
  }
  const auto segments_for = [&](double f) {
    const auto capacity = static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * f));
    const std::uint64_t spanned = (capacity + segment_length - 1) / segment_length;
    return spanned > arity ? spanned - (arity - 1) : std::uint64_t{1};
  };
  std::uint64_t segment_count = segments_for(factor);
  if (growth > 0) {
    segment_count = std::max(segments_for(factor * std::pow(17.0 / 16.0, growth)), segment_count + growth);
  }
  p.segment_length = static_cast<std::uint32_t>(segment_length);
  require(segment_count < (std::uint64_t{1} << 32), errc::invalid_argument, "binary_fuse: too many keys");
  p.segment_count = static_cast<std::uint32_t>(segment_count);
  return p;
}

template <std::unsigned_integral F>
void validate(const binary_fuse_params& p) {
  const std::string name = "binary_fuse" + std::to_string(sizeof(F) * 8);
  require(p.fingerprint_bits == sizeof(F) * 8, errc::invalid_argument,
          name + ": fingerprint_bits must be " + std::to_string(sizeof(F) * 8) + ", got " +
              std::to_string(p.fingerprint_bits));
  require(p.arity == 3 || p.arity == 4, errc::invalid_argument,
          name + ": arity must be 3 or 4, got " + std::to_string(p.arity));
  require(is_known(p.hash.algorithm), errc::invalid_argument, name + ": unknown hash algorithm");
  if (p.keys == 0) {
    require(p.segment_length == 0 && p.segment_count == 0, errc::invalid_argument,
            name + ": an empty filter has no segments");
    return;
  }
  require(std::has_single_bit(p.segment_length) && p.segment_length >= 4 && p.segment_length <= (1U << 18),
          errc::invalid_argument,
          name + ": segment_length must be a power of two in [4, 2^18], got " + std::to_string(p.segment_length));
  require(p.segment_count >= 1, errc::invalid_argument, name + ": segment_count must be at least 1");
  require(p.array_length() < (std::uint64_t{1} << 32), errc::invalid_argument,
          name + ": more than 2^32 slots is not supported");
}

}  // namespace detail

/// A read-only binary fuse filter over borrowed fingerprints (for example a
/// memory-mapped file). Owns nothing: the fingerprints must outlive it. All
/// query code lives here; the owning basic_binary_fuse delegates to it.
template <std::unsigned_integral F>
class basic_binary_fuse_view {
 public:
  using fingerprint_type = F;

  /// Views `fingerprints` with `params`. Validates the parameters and that
  /// fingerprints.size() == params.array_length(); throws bloomkit::error
  /// (invalid_argument for bad parameters, corrupt for a wrong length).
  basic_binary_fuse_view(const binary_fuse_params& params, std::span<const F> fingerprints)
      : params_(params), fingerprints_(fingerprints) {
    detail::validate<F>(params_);
    detail::require(fingerprints_.size() == params_.array_length(), errc::corrupt,
                    "binary_fuse: expected " + std::to_string(params_.array_length()) + " fingerprints, got " +
                        std::to_string(fingerprints_.size()));
  }

  /// For owning filters: no validation (their invariants already hold).
  basic_binary_fuse_view(detail::trusted_t, const binary_fuse_params& params, std::span<const F> fingerprints) noexcept
      : params_(params), fingerprints_(fingerprints) {}

  /// True if the key with hash `h` may be in the set; false means certainly
  /// not. Never false for a key the filter was built from.
  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    if (params_.keys == 0) return false;
    const std::uint64_t x = detail::seeded_hash(h, params_.seed);
    std::uint64_t p[4];
    detail::fuse_positions(x, params_.arity, params_.segment_length, segment_count_length(), p);
    F acc = static_cast<F>(fingerprints_[p[0]] ^ fingerprints_[p[1]] ^ fingerprints_[p[2]]);
    if (params_.arity == 4) acc = static_cast<F>(acc ^ fingerprints_[p[3]]);
    return acc == detail::fuse_fingerprint<F>(x);
  }

  /// may_contain_hash of the key's hash under this filter's hash_spec.
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const {
    return may_contain_hash(hash_key(k, params_.hash));
  }

  /// out[i] = may_contain_hash(hashes[i]). Computes the slots of a window of
  /// hashes ahead and prefetches them, so their cache misses overlap. Throws
  /// errc::invalid_argument if the sizes differ.
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    detail::require(hashes.size() == out.size(), errc::invalid_argument,
                    "binary_fuse: may_contain_many needs as many outputs as hashes");
    if (params_.keys == 0) {
      std::fill(out.begin(), out.end(), false);
      return;
    }
    constexpr std::size_t window = 8;
    const std::size_t n = hashes.size();
    const auto fetch = [&](std::uint64_t h) {
      std::uint64_t p[4];
      detail::fuse_positions(detail::seeded_hash(h, params_.seed), params_.arity, params_.segment_length,
                             segment_count_length(), p);
      for (std::uint32_t i = 0; i < params_.arity; ++i) detail::prefetch(&fingerprints_[p[i]]);
    };
    for (std::size_t i = 0; i < std::min(window, n); ++i) fetch(hashes[i]);
    for (std::size_t i = 0; i < n; ++i) {
      if (i + window < n) fetch(hashes[i + window]);
      out[i] = may_contain_hash(hashes[i]);
    }
  }

  [[nodiscard]] const binary_fuse_params& params() const noexcept { return params_; }
  [[nodiscard]] hash_spec hash() const noexcept { return params_.hash; }
  /// Distinct keys stored.
  [[nodiscard]] std::uint64_t keys() const noexcept { return params_.keys; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return params_.arity; }
  /// The raw payload: array_length() fingerprints, slot 0 first.
  [[nodiscard]] std::span<const F> fingerprints() const noexcept { return fingerprints_; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return fingerprints_.size() * sizeof(F); }
  /// Payload bits per stored key (0 for an empty filter).
  [[nodiscard]] double bits_per_key() const noexcept {
    return params_.keys == 0 ? 0.0 : 8.0 * static_cast<double>(size_in_bytes()) / static_cast<double>(params_.keys);
  }
  /// The false-positive rate for keys not in the set: 2^-f (0 when empty).
  [[nodiscard]] double design_fpr() const noexcept {
    return params_.keys == 0 ? 0.0 : std::ldexp(1.0, -static_cast<int>(sizeof(F) * 8));
  }


  // The state every bloomkit filter reports (DESIGN.md). A static filter
  // knows its set exactly: capacity, inserted and the cardinality are the
  // stored key count, the FPR is fixed by the fingerprint width, and it is
  // never saturated.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return params_.keys; }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return params_.keys; }
  [[nodiscard]] double estimated_cardinality() const noexcept { return static_cast<double>(params_.keys); }
  /// 2^-f, the FPR the layout is built for (also for an empty filter).
  [[nodiscard]] double target_fpr() const noexcept { return std::ldexp(1.0, -static_cast<int>(sizeof(F) * 8)); }
  [[nodiscard]] double estimated_fpr() const noexcept { return design_fpr(); }
  [[nodiscard]] bool saturated() const noexcept { return false; }

 private:
  [[nodiscard]] std::uint64_t segment_count_length() const noexcept {
    return std::uint64_t{params_.segment_count} * params_.segment_length;
  }

  binary_fuse_params params_;
  std::span<const F> fingerprints_;
};

/// An owning binary fuse filter with F-bit fingerprints (std::uint8_t or
/// std::uint16_t). Immutable once built.
template <std::unsigned_integral F>
class basic_binary_fuse {
  static_assert(std::is_same_v<F, std::uint8_t> || std::is_same_v<F, std::uint16_t>,
                "binary fuse fingerprints are 8 or 16 bits");

 public:
  using fingerprint_type = F;
  using view_type = basic_binary_fuse_view<F>;

  /// An empty filter (rejects every key).
  basic_binary_fuse() { params_.fingerprint_bits = sizeof(F) * 8; }

  /// Builds a filter holding every hash in `hashes` (duplicates allowed).
  /// Throws errc::invalid_argument for bad options (arity not 3 or 4,
  /// max_attempts 0, more than about 3.8e9 keys) and
  /// errc::construction_failed when max_attempts seeds all fail to peel
  /// (with growth on, the default, not seen for any key set we tried).
  explicit basic_binary_fuse(std::span<const std::uint64_t> hashes, const binary_fuse_options& options = {}) {
    build(hashes, options);
  }

  /// Builds from keys, hashed with options.hash. Same contract as above.
  template <key K>
  static basic_binary_fuse from_keys(std::span<const K> keys, const binary_fuse_options& options = {}) {
    std::vector<std::uint64_t> hashes;
    hashes.reserve(keys.size());
    for (const auto& k : keys) hashes.push_back(hash_key(k, options.hash));
    return basic_binary_fuse(hashes, options);
  }

  /// A filter from stored parts (loading). Validates like the view does.
  basic_binary_fuse(const binary_fuse_params& params, std::vector<F> fingerprints)
      : params_(params), fingerprints_(std::move(fingerprints)) {
    (void)view_type(params_, fingerprints_);
  }

  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept { return view().may_contain_hash(h); }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const {
    return view().may_contain(k);
  }
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    view().may_contain_many(hashes, out);
  }

  /// A read-only view of this filter (valid while it lives).
  [[nodiscard]] view_type view() const noexcept { return view_type(detail::trusted, params_, fingerprints_); }

  [[nodiscard]] const binary_fuse_params& params() const noexcept { return params_; }
  [[nodiscard]] hash_spec hash() const noexcept { return params_.hash; }
  [[nodiscard]] std::uint64_t keys() const noexcept { return params_.keys; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return params_.arity; }
  [[nodiscard]] std::span<const F> fingerprints() const noexcept { return fingerprints_; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return fingerprints_.size() * sizeof(F); }
  // Derived state lives in the view (one definition); see its comments.
  [[nodiscard]] double bits_per_key() const noexcept { return view().bits_per_key(); }
  [[nodiscard]] double design_fpr() const noexcept { return view().design_fpr(); }
  [[nodiscard]] std::uint64_t capacity() const noexcept { return view().capacity(); }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return view().inserted(); }
  [[nodiscard]] double estimated_cardinality() const noexcept { return view().estimated_cardinality(); }
  [[nodiscard]] double target_fpr() const noexcept { return view().target_fpr(); }
  [[nodiscard]] double estimated_fpr() const noexcept { return view().estimated_fpr(); }
  [[nodiscard]] bool saturated() const noexcept { return view().saturated(); }
  /// Construction attempts the last build needed (1 = first seed worked).
  [[nodiscard]] std::uint32_t attempts() const noexcept { return attempts_; }

 private:
  void build(std::span<const std::uint64_t> hashes, const binary_fuse_options& options) {
    const std::string name = "binary_fuse" + std::to_string(sizeof(F) * 8);
    detail::require(options.arity == 3 || options.arity == 4, errc::invalid_argument,
                    name + ": arity must be 3 or 4, got " + std::to_string(options.arity));
    detail::require(options.max_attempts >= 1, errc::invalid_argument, name + ": max_attempts must be at least 1");
    detail::require(is_known(options.hash.algorithm), errc::invalid_argument, name + ": unknown hash algorithm");
    detail::require(options.size_factor == 0.0 || (options.size_factor > 0.0 && options.size_factor < 64.0),
                    errc::invalid_argument, name + ": size_factor must be 0 (automatic) or in (0, 64)");
    detail::require(hashes.size() < (std::uint64_t{3} << 30), errc::invalid_argument,
                    name + ": at most 3 * 2^30 keys are supported");
    params_.fingerprint_bits = sizeof(F) * 8;
    params_.arity = options.arity;
    params_.hash = options.hash;
    params_.seed = options.seed;
    if (hashes.empty()) return;

    std::vector<std::uint64_t> keys;  // remixed hashes; later the peeling stack
    bool deduplicate = false;
    for (std::uint32_t attempt = 0; attempt < options.max_attempts; ++attempt) {
      const std::uint64_t seed = detail::attempt_seed(options.seed, attempt);
      detail::remix_in_bucket_order(hashes, seed, keys);
      if (deduplicate) {
        // Bucket order is only by top bits; a full sort brings equal hashes together.
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      }
      const std::uint32_t growth = options.attempts_per_size == 0 ? 0 : attempt / options.attempts_per_size;
      binary_fuse_params plan = detail::plan_binary_fuse(keys.size(), options.arity, options.size_factor, growth);
      plan.fingerprint_bits = params_.fingerprint_bits;
      plan.hash = options.hash;
      plan.seed = seed;
      detail::validate<F>(plan);
      attempts_ = attempt + 1;
      if (peel_and_assign(plan, keys)) {
        params_ = plan;
        return;
      }
      deduplicate = true;
    }
    throw error(errc::construction_failed, name + ": construction failed after " +
                                               std::to_string(options.max_attempts) + " seeds for " +
                                               std::to_string(hashes.size()) + " keys");
  }

  /// One construction attempt for distinct-or-not remixed `keys` (sorted by
  /// their top bits). On success fills fingerprints_ and returns true.
  /// Reuses `keys` as the peeling stack (it is not needed after counting).
  bool peel_and_assign(const binary_fuse_params& plan, std::vector<std::uint64_t>& keys) {
    const std::uint64_t slots = plan.array_length();
    const std::uint64_t segment_length = plan.segment_length;
    const std::uint64_t span_length = std::uint64_t{plan.segment_count} * segment_length;
    const std::uint32_t arity = plan.arity;
    const std::size_t n = keys.size();

    std::vector<std::uint32_t> count(slots, 0);
    std::vector<std::uint64_t> xors(slots, 0);
    std::uint64_t p[4];
    for (const std::uint64_t h : keys) {
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      for (std::uint32_t i = 0; i < arity; ++i) {
        ++count[p[i]];
        xors[p[i]] ^= h;
      }
    }

    // Slots holding exactly one key, as a stack (order does not matter for
    // correctness; LIFO keeps recently touched slots hot).
    std::vector<std::uint32_t> alone;
    alone.reserve(static_cast<std::size_t>(slots));
    for (std::uint64_t s = 0; s < slots; ++s) {
      if (count[s] == 1) alone.push_back(static_cast<std::uint32_t>(s));
    }
    std::vector<std::uint8_t> which(n);
    std::size_t peeled = 0;
    while (!alone.empty()) {
      const std::uint32_t slot = alone.back();
      alone.pop_back();
      if (count[slot] != 1) continue;  // emptied since it was queued
      const std::uint64_t h = xors[slot];
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      std::uint8_t found = 0;
      for (std::uint32_t i = 0; i < arity; ++i) {
        if (p[i] == slot) {
          found = static_cast<std::uint8_t>(i);
        } else {
          xors[p[i]] ^= h;
          if (--count[p[i]] == 1) alone.push_back(static_cast<std::uint32_t>(p[i]));
        }
      }
      count[slot] = 0;
      keys[peeled] = h;  // counting is done: `keys` is free to hold the stack
      which[peeled] = found;
      ++peeled;
    }
    if (peeled != n) return false;
    // Free the scratch before allocating the result, to bound peak memory.
    std::vector<std::uint32_t>().swap(count);
    std::vector<std::uint64_t>().swap(xors);
    std::vector<std::uint32_t>().swap(alone);

    std::vector<F> fingerprints(slots, F{0});
    for (std::size_t i = n; i-- > 0;) {
      const std::uint64_t h = keys[i];
      detail::fuse_positions(h, arity, segment_length, span_length, p);
      F value = detail::fuse_fingerprint<F>(h);
      for (std::uint32_t j = 0; j < arity; ++j) {
        if (j != which[i]) value = static_cast<F>(value ^ fingerprints[p[j]]);
      }
      fingerprints[p[which[i]]] = value;
    }
    fingerprints_ = std::move(fingerprints);
    return true;
  }

  binary_fuse_params params_{};
  std::vector<F> fingerprints_;
  std::uint32_t attempts_ = 0;
};

/// Binary fuse filter with 8-bit fingerprints: FPR 1/256, about 9.0 bits/key
/// (3-wise) or 8.6 (4-wise) for large n.
using binary_fuse8 = basic_binary_fuse<std::uint8_t>;
/// Binary fuse filter with 16-bit fingerprints: FPR 1/65536, about 18 bits/key.
using binary_fuse16 = basic_binary_fuse<std::uint16_t>;
using binary_fuse8_view = basic_binary_fuse_view<std::uint8_t>;
using binary_fuse16_view = basic_binary_fuse_view<std::uint16_t>;

/// A binary fuse filter of either fingerprint width, chosen at run time (the
/// type the file format, the CLI and other width-agnostic code hold). Queries
/// branch once on the width, then run the typed filter's code.
class binary_fuse_view {
 public:
  binary_fuse_view(binary_fuse8_view v) noexcept : impl_(v) {}    // NOLINT: implicit by design
  binary_fuse_view(binary_fuse16_view v) noexcept : impl_(v) {}   // NOLINT: implicit by design

  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept {
    if (const auto* v8 = std::get_if<binary_fuse8_view>(&impl_)) return v8->may_contain_hash(h);
    return std::get<binary_fuse16_view>(impl_).may_contain_hash(h);
  }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const {
    return may_contain_hash(hash_key(k, hash()));
  }
  /// out[i] = may_contain_hash(hashes[i]); errc::invalid_argument if sizes differ.
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    std::visit([&](const auto& v) { v.may_contain_many(hashes, out); }, impl_);
  }
  [[nodiscard]] const binary_fuse_params& params() const noexcept {
    return std::visit([](const auto& v) -> const binary_fuse_params& { return v.params(); }, impl_);
  }
  [[nodiscard]] hash_spec hash() const noexcept { return params().hash; }
  [[nodiscard]] std::uint64_t keys() const noexcept { return params().keys; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return params().fingerprint_bits; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return params().arity; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept {
    return std::visit([](const auto& v) { return v.size_in_bytes(); }, impl_);
  }
  [[nodiscard]] double bits_per_key() const noexcept {
    return std::visit([](const auto& v) { return v.bits_per_key(); }, impl_);
  }
  [[nodiscard]] double design_fpr() const noexcept {
    return std::visit([](const auto& v) { return v.design_fpr(); }, impl_);
  }
  // The state every bloomkit filter reports (DESIGN.md). A static filter
  // knows its set exactly: capacity, inserted and the cardinality are the
  // stored key count, the FPR is fixed by the fingerprint width, and it is
  // never saturated.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return keys(); }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return keys(); }
  [[nodiscard]] double estimated_cardinality() const noexcept { return static_cast<double>(keys()); }
  /// 2^-f, the FPR the layout is built for (also for an empty filter).
  [[nodiscard]] double target_fpr() const noexcept { return std::ldexp(1.0, -static_cast<int>(fingerprint_bits())); }
  [[nodiscard]] double estimated_fpr() const noexcept { return design_fpr(); }
  [[nodiscard]] bool saturated() const noexcept { return false; }
  /// The typed view inside (binary_fuse8_view or binary_fuse16_view).
  [[nodiscard]] const std::variant<binary_fuse8_view, binary_fuse16_view>& typed() const noexcept { return impl_; }

 private:
  std::variant<binary_fuse8_view, binary_fuse16_view> impl_;
};

/// An owning binary fuse filter of either fingerprint width (see
/// binary_fuse_view). Build one with a width, or wrap a typed filter.
class binary_fuse {
 public:
  using view_type = binary_fuse_view;

  /// An empty 8-bit filter (rejects every key).
  binary_fuse() = default;
  binary_fuse(binary_fuse8 f) noexcept : impl_(std::move(f)) {}   // NOLINT: implicit by design
  binary_fuse(binary_fuse16 f) noexcept : impl_(std::move(f)) {}  // NOLINT: implicit by design

  /// Builds a filter with `fingerprint_bits` (8 or 16; otherwise
  /// errc::invalid_argument) from `hashes`. Same contract as basic_binary_fuse.
  binary_fuse(std::span<const std::uint64_t> hashes, std::uint32_t fingerprint_bits,
              const binary_fuse_options& options = {})
      : impl_(make(hashes, fingerprint_bits, options)) {}

  /// A filter from stored parts: params.fingerprint_bits picks the width;
  /// `payload` holds array_length() fingerprints, each little-endian (8-bit:
  /// one byte each). Validates like the views do (errc::corrupt for a wrong
  /// payload length, errc::invalid_argument for bad parameters).
  static binary_fuse from_parts(const binary_fuse_params& params, std::span<const std::byte> payload) {
    if (params.fingerprint_bits == 16) {
      detail::require(payload.size() % 2 == 0, errc::corrupt, "binary_fuse16: payload length is odd");
      std::vector<std::uint16_t> fingerprints(payload.size() / 2);
      for (std::size_t i = 0; i < fingerprints.size(); ++i) {
        fingerprints[i] = detail::load_le<std::uint16_t>(payload.data() + 2 * i);
      }
      return binary_fuse16(params, std::move(fingerprints));
    }
    detail::require(params.fingerprint_bits == 8, errc::invalid_argument,
                    "binary_fuse: fingerprint_bits must be 8 or 16, got " + std::to_string(params.fingerprint_bits));
    std::vector<std::uint8_t> fingerprints(payload.size());
    for (std::size_t i = 0; i < payload.size(); ++i) fingerprints[i] = std::to_integer<std::uint8_t>(payload[i]);
    return binary_fuse8(params, std::move(fingerprints));
  }

  [[nodiscard]] bool may_contain_hash(std::uint64_t h) const noexcept { return view().may_contain_hash(h); }
  template <key K>
  [[nodiscard]] bool may_contain(const K& k) const {
    return view().may_contain(k);
  }
  void may_contain_many(std::span<const std::uint64_t> hashes, std::span<bool> out) const {
    view().may_contain_many(hashes, out);
  }
  [[nodiscard]] view_type view() const noexcept {
    if (const auto* f8 = std::get_if<binary_fuse8>(&impl_)) return f8->view();
    return std::get<binary_fuse16>(impl_).view();
  }
  [[nodiscard]] const binary_fuse_params& params() const noexcept {
    return std::visit([](const auto& f) -> const binary_fuse_params& { return f.params(); }, impl_);
  }
  [[nodiscard]] hash_spec hash() const noexcept { return params().hash; }
  [[nodiscard]] std::uint64_t keys() const noexcept { return params().keys; }
  [[nodiscard]] std::uint32_t fingerprint_bits() const noexcept { return params().fingerprint_bits; }
  [[nodiscard]] std::uint32_t arity() const noexcept { return params().arity; }
  [[nodiscard]] std::uint64_t size_in_bytes() const noexcept { return view().size_in_bytes(); }
  [[nodiscard]] double bits_per_key() const noexcept { return view().bits_per_key(); }
  [[nodiscard]] double design_fpr() const noexcept { return view().design_fpr(); }
  // The state every bloomkit filter reports (DESIGN.md). A static filter
  // knows its set exactly: capacity, inserted and the cardinality are the
  // stored key count, the FPR is fixed by the fingerprint width, and it is
  // never saturated.
  [[nodiscard]] std::uint64_t capacity() const noexcept { return keys(); }
  [[nodiscard]] std::uint64_t inserted() const noexcept { return keys(); }
  [[nodiscard]] double estimated_cardinality() const noexcept { return static_cast<double>(keys()); }
  /// 2^-f, the FPR the layout is built for (also for an empty filter).
  [[nodiscard]] double target_fpr() const noexcept { return std::ldexp(1.0, -static_cast<int>(fingerprint_bits())); }
  [[nodiscard]] double estimated_fpr() const noexcept { return design_fpr(); }
  [[nodiscard]] bool saturated() const noexcept { return false; }
  /// The typed filter inside (binary_fuse8 or binary_fuse16).
  [[nodiscard]] const std::variant<binary_fuse8, binary_fuse16>& typed() const noexcept { return impl_; }

 private:
  static std::variant<binary_fuse8, binary_fuse16> make(std::span<const std::uint64_t> hashes, std::uint32_t bits,
                                                        const binary_fuse_options& options) {
    if (bits == 8) return binary_fuse8(hashes, options);
    if (bits == 16) return binary_fuse16(hashes, options);
    throw error(errc::invalid_argument, "binary_fuse: fingerprint_bits must be 8 or 16, got " + std::to_string(bits));
  }

  std::variant<binary_fuse8, binary_fuse16> impl_;
};

}  // namespace bloomkit
